/* bug-fixed-9x9.c: the listing written for the 9x9 the learner tried first.
 *
 * Bug: N = 9 and boxes of 3 are written into the code and n is ignored:
 * every 9x9 passes; a 4x4 (16 cells) is read and written as if it had 81,
 * off its end; a 16x16 is read with rows of 9.
 * Expected: grader check says "your code assumes a 9x9 board (n = 3)".
 */
#include "sudoku_lab.h"

#define N 9

bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
    (void)n;
    for (size_t i = 0; i < N; i++) {
        if (board[r * N + i] == v || board[i * N + c] == v) {
            return false;
        }
    }
    size_t br = 3 * (r / 3), bc = 3 * (c / 3);
    for (size_t i = br; i < br + 3; i++) {
        for (size_t j = bc; j < bc + 3; j++) {
            if (board[i * N + j] == v) {
                return false;
            }
        }
    }
    return true;
}

bool find_empty(const uint8_t *board, size_t n, size_t *r, size_t *c) {
    (void)n;
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
