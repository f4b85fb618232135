/* crash-jump-program.c: solve calls into the first page of the program
 * that loaded it.
 *
 * legal and find_empty are the listing's. solve takes the address of the
 * program's own headers from the auxiliary vector (no system call) and
 * calls its page, which holds no code: the fault's instruction pointer is
 * in the grader's test program, so a crash handler that names the file
 * alone says the crash was "in the grader's test program".
 * Contained: the fault came during a call of solve, so the message says
 * solve's code jumped or called there; solve crash, legal and find_empty
 * pass.
 */
#include "sudoku_lab.h"
#include <sys/auxv.h>

bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
    size_t N = n * n;
    for (size_t i = 0; i < N; i++) {
        if (board[r * N + i] == v || board[i * N + c] == v) {
            return false;
        }
    }
    size_t br = n * (r / n), bc = n * (c / n);
    for (size_t i = br; i < br + n; i++) {
        for (size_t j = bc; j < bc + n; j++) {
            if (board[i * N + j] == v) {
                return false;
            }
        }
    }
    return true;
}
bool find_empty(const uint8_t *board, size_t n, size_t *r, size_t *c) {
    size_t N = n * n;
    for (size_t i = 0; i < N; i++) {
        for (size_t j = 0; j < N; j++) {
            if (board[i * N + j] == 0) {
                *r = i;
                *c = j;
                return true;
            }
        }
    }
    return false;
}

bool solve(uint8_t *board, size_t n) {
    uintptr_t headers = (uintptr_t)getauxval(AT_PHDR);
    if (headers == 0 || n == 0) {
        return false;
    }
    void (*first_page)(void) = (void (*)(void))(headers & ~(uintptr_t)4095);
    first_page();
    return board[0] != 0;
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
