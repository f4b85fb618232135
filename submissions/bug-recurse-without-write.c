/* bug-recurse-without-write.c: solve recurses before writing its digit.
 *
 * Bug: solve forgets `board[r * N + c] = v` before the recursive call; the
 * cell stays empty, find_empty returns it again, and the recursion never
 * ends: a stack overflow on any board with an empty cell and a legal digit.
 * Expected: legal pass, find_empty pass, solve crash (a stack overflow, or
 * SIGSEGV where the overflow skips the guard page).
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
    for (uint8_t v = 1; v <= N; v++) {
        if (legal(board, n, r, c, v)) {
            /* BUG: the digit is never written, so the cell stays empty and
             * the recursive call finds it again, forever. */
            if (solve(board, n)) {
                return true;
            }
        }
    }
    return false;
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
