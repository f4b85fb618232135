/* bug-box-column-from-row.c: legal's box loop takes its columns from the
 * row's origin.
 *
 * Bug: the inner box loop runs `j` from `br` (the box's first row) instead
 * of `bc` (its first column), so legal checks the wrong box whenever the
 * cell's box is off the diagonal; `bc` is left unused, and `cc -Wall` says
 * so ("unused variable 'bc'"), which `grader check` shows beside legal's
 * failure.
 * Expected: legal wrong, find_empty pass, solve wrong.
 */
#include "sudoku_lab.h"

bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
    size_t N = n * n;
    for (size_t i = 0; i < N; i++) {
        if (board[r * N + i] == v || board[i * N + c] == v) {
            return false;
        }
    }
    size_t br = n * (r / n);
    size_t bc = n * (c / n);
    for (size_t i = br; i < br + n; i++) {
        for (size_t j = br; j < br + n; j++) { /* BUG: the box's columns start at br */
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
