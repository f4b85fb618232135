/* bug-fixed-9x9.c: the listing written for the 9x9 the learner tried first.
 *
 * Bug: the digit loop is written for a 9x9 (`v <= 9`, not `v <= n * n`):
 * every 9x9 passes; on a 4x4 solve writes 5 and more, on a 16x16 it never
 * tries 10 to 16. (legal and find_empty use n: a C solver that also scans
 * rows of 9 reads a 4x4's 16 cells off their end, undefined behaviour whose
 * verdict would depend on what lies after the board; py-fixed-9x9.py and
 * rust-fixed-9x9/ hard-code every 9 and 3.)
 * Expected: grader check says "your code assumes a 9x9 board (n = 3)".
 */
#include "sudoku_lab.h"

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
    size_t r, c;
    if (!find_empty(board, n, &r, &c)) {
        return true;
    }
    size_t N = n * n;
    for (uint8_t v = 1; v <= 9; v++) { /* BUG: 9, not N */
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
