/* hostile-memory-bomb.c: solve allocates memory and touches every page.
 *
 * 64 MiB at a time, at most 4 GiB in all, and it frees everything if it got
 * that far (the sandbox failed: it then leaves a marker and solves).
 * Expected: legal pass, find_empty pass, solve memory.
 *
 * Every loop and count is bounded, so a sandbox failure cannot harm the
 * machine. legal and find_empty are the listing's; solve is hostile.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
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

/* Called only if the sandbox let the hostile act through: leaves a marker
 * file that the grader's integration test looks for. */
static void escaped(const char *what) {
    char path[128];
    snprintf(path, sizeof path, "/tmp/grader-fixture-escaped-%s", what);
    int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) {
        close(fd);
    }
}

bool solve(uint8_t *board, size_t n) {
    enum { STEP = 64 << 20, STEPS = 64 }; /* 64 x 64 MiB = 4 GiB */
    static char *blocks[STEPS];
    for (int i = 0; i < STEPS; i++) {
        blocks[i] = malloc(STEP);
        /* A naive program: no check for NULL before touching the block.
         * Volatile, so the compiler cannot drop the writes. */
        volatile char *block = blocks[i];
        for (size_t at = 0; at < STEP; at += 4096) {
            block[at] = (char)(i + 1);
        }
    }
    for (int i = 0; i < STEPS; i++) {
        free(blocks[i]);
    }
    escaped("memory-bomb");
    return search(board, n);
}
