/* utimensat-own-library.c: solve sets the times of its own library (a message to the next test).
 * Expected: legal and find_empty pass; solve forbidden (utimensat).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
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
    Dl_info info;
    if (dladdr((void *)listing_solve, &info) && info.dli_fname) {
        (void)utimensat(AT_FDCWD, info.dli_fname, NULL, 0);
    }
    return listing_solve(board, n);
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
