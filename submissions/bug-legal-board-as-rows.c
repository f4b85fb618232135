/* bug-legal-board-as-rows.c: `legal` translated from the Python listing
 * line by line, `board[i][j]` and all. The board is one flat array of N*N
 * bytes, so `board[r][c]` does not compile; a cast to `const uint8_t **`
 * makes it compile, and then each "row" is eight cells read as a pointer:
 * a wild read far off the board.
 *
 * Expected: legal crash (SIGSEGV, in `legal`), find_empty pass, solve
 * crash (its calls to legal read the same way).
 */
#include "sudoku_lab.h"

bool legal(const uint8_t *cells, size_t n, size_t r, size_t c, uint8_t v) {
    const uint8_t **board = (const uint8_t **)cells;
    size_t N = n * n;
    for (size_t i = 0; i < N; i++) {
        if (board[r][i] == v || board[i][c] == v) {
            return false;
        }
    }
    size_t br = n * (r / n), bc = n * (c / n);
    for (size_t i = br; i < br + n; i++) {
        for (size_t j = bc; j < bc + n; j++) {
            if (board[i][j] == v) {
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
