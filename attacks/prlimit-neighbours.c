/* prlimit-neighbours.c: solve calls prlimit64 on its parent (the grader) and on pids just below
 * its own (neighbouring workers), to set their open-file limit to 0. Once
 * this turned innocent students' tests into load errors.
 * Expected: legal and find_empty pass; solve forbidden (prlimit64).
 */
#define _GNU_SOURCE
#include <sys/resource.h>
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
    struct rlimit none = {0, 0};
    (void)prlimit(getppid(), RLIMIT_NOFILE, &none, NULL);
    for (pid_t p = getpid() - 1; p > 1 && p >= getpid() - 50; p--) {
        (void)prlimit(p, RLIMIT_NOFILE, &none, NULL);
    }
    return listing_solve(board, n);
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
