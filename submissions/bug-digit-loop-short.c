/* bug-digit-loop-short.c: the listing whose digit loop stops one short.
 *
 * Bug: solve tries v = 1 .. N-1 (`v < N` instead of `v <= N`), so a cell
 * whose digit is N is never filled; solve returns false on a puzzle that
 * has a solution, with the board as it was.
 * Expected: legal pass, find_empty pass, solve wrong (returned false; the
 * message points at the digit loop's bound).
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
    for (uint8_t v = 1; v < N; v++) {
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
