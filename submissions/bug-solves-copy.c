/* bug-solves-copy.c: solve works on a copy.
 *
 * Bug: solve copies the board, solves the copy and returns its result; the
 * caller's board is never filled.
 * Expected: legal pass, find_empty pass, solve wrong (an empty cell left
 * after solve returned true).
 */
#include "sudoku_lab.h"

#include <string.h>

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

static bool search(uint8_t *board, size_t n) {
    size_t r, c;
    if (!find_empty(board, n, &r, &c)) {
        return true;
    }
    size_t N = n * n;
    for (uint8_t v = 1; v <= N; v++) {
        if (legal(board, n, r, c, v)) {
            board[r * N + c] = v;
            if (search(board, n)) {
                return true;
            }
            board[r * N + c] = 0;
        }
    }
    return false;
}

bool solve(uint8_t *board, size_t n) {
    uint8_t copy[625]; /* 25 x 25, the largest board */
    memcpy(copy, board, n * n * n * n);
    return search(copy, n); /* BUG: the answer never reaches board */
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
