/* bug-legal-no-column-no-clear.c: two bugs: legal forgets the column, and
 * solve never clears a cell after a failed recursive call.
 *
 * Bug: legal checks the row and the box but not the column (as
 * bug-legal-no-column.c), and solve leaves a dead branch's digit on the
 * board (as bug-no-clear.c).
 * Expected: legal wrong, find_empty pass, solve wrong; with the grader's
 * own legal in its place, solve still fails (the leftover digit), so
 * `grader check` must not blame legal for solve's failure.
 */
#include "sudoku_lab.h"

bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
    size_t N = n * n;
    for (size_t i = 0; i < N; i++) {
        if (board[r * N + i] == v) {
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
    for (uint8_t v = 1; v <= N; v++) {
        if (legal(board, n, r, c, v)) {
            board[r * N + c] = v;
            if (solve(board, n)) {
                return true;
            }
        }
    }
    return false;
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
