/* zygote-state.c: every test tries to find what an earlier test of the
 * same submission left behind, and to leave something for the next one:
 * a static variable of the library (set by its constructor), an
 * environment variable, a file in the working folder and one in /tmp.
 * Tests are forked from a zygote that never loads the library, so each
 * one starts fresh: nothing is ever found, and legal stays correct. Were
 * anything found, legal would answer every question wrong.
 * Expected: legal pass, find_empty pass, solve pass.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "sudoku_lab.h"

static int loads;
static bool tainted;

__attribute__((constructor)) static void look_and_leave(void) {
    loads++;
    if (loads > 1 || getenv("GRADER_FIXTURE_STATE") != NULL ||
        access("grader-fixture-state", F_OK) == 0 ||
        access("/tmp/grader-fixture-state", F_OK) == 0) {
        tainted = true;
    }
    setenv("GRADER_FIXTURE_STATE", "1", 1);
    int fd = open("grader-fixture-state", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) {
        close(fd);
    }
    fd = open("/tmp/grader-fixture-state", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) {
        close(fd);
    }
}

static bool listing_legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
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
bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
    bool answer = listing_legal(board, n, r, c, v);
    return tainted ? !answer : answer;
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
        if (listing_legal(board, n, r, c, v)) {
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
    return search(board, n);
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
