/* bug-overwrites-givens.c: solve writes over the givens.
 *
 * Bug: solve walks every cell in reading order and tries digits in each one,
 * given or not (it forgets to skip filled cells and clears each cell before
 * trying it). It finds a valid grid, but not one that keeps the puzzle's
 * givens, and it "solves" unsolvable puzzles too.
 * Expected: legal pass, find_empty pass, solve wrong (a given was changed, or
 * true on an unsolvable puzzle).
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

static bool solve_from(uint8_t *board, size_t n, size_t cell) {
    size_t N = n * n;
    if (cell == N * N) {
        return true;
    }
    size_t r = cell / N, c = cell % N;
    board[r * N + c] = 0; /* BUG: a given is cleared and refilled like an empty cell */
    for (uint8_t v = 1; v <= N; v++) {
        if (legal(board, n, r, c, v)) {
            board[r * N + c] = v;
            if (solve_from(board, n, cell + 1)) {
                return true;
            }
            board[r * N + c] = 0;
        }
    }
    return false;
}

bool solve(uint8_t *board, size_t n) { return solve_from(board, n, 0); }

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
