/* incbin-planted.c: a course keeps its hidden cases outside every folder the
 * grader hides (here /usr/local/share/grader-course/, readable by every
 * user); the assembler pastes the file in at compile time through
 * ".inc" "bin", pasted from two literals so that no text check sees it,
 * and solve prints it.
 * Expected: build_error (the file is not in the C build's view: with a
 * mount namespace it does not exist in the box, without one Landlock
 * refuses it); nothing of it in the report.
 */
#include <stdio.h>
#include "sudoku_lab.h"

__asm__(".section .rodata\nplanted: .inc" "bin \"/usr/local/share/grader-course/secret-cases.toml\"\n.byte 0\n.previous");
extern const char planted[];

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
    static int said;
    if (!said++) {
        fputs(planted, stdout);
        fflush(stdout);
    }
    size_t r, c;
    if (!find_empty(board, n, &r, &c)) {
        return true;
    }
    size_t N = n * n;
    for (uint8_t v = 1; v <= N; v++) {
        if (legal(board, n, r, c, v)) {
            board[r * N + c] = v;
            if (solve(board, n)) {
                return true;
            }
            board[r * N + c] = 0;
        }
    }
    return false;
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
