/* forged-huge-line.c: solve writes one 4 MiB line to fd 3, then solves.
 * Expected: legal and find_empty pass; solve passes or is judged on the
 * worker's own done (the long line is cut while reading, never decoded).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

static bool listing_solve(uint8_t *board, size_t n) {
    size_t r, c;
    if (!find_empty(board, n, &r, &c)) {
        return true;
    }
    size_t N = n * n;
    for (uint8_t v = 1; v <= N; v++) {
        if (legal(board, n, r, c, v)) {
            board[r * N + c] = v;
            if (listing_solve(board, n)) {
                return true;
            }
            board[r * N + c] = 0;
        }
    }
    return false;
}


bool solve(uint8_t *board, size_t n) {
    size_t len = 4u << 20;
    char *line = malloc(len + 1);
    if (line) {
        memset(line, ' ', len);
        line[0] = '{';
        line[len] = '\n';
        (void)!write(3, line, len + 1);
        free(line);
    }
    return listing_solve(board, n);
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
