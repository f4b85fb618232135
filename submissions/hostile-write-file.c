/* hostile-write-file.c: solve tries to leave files behind.
 *
 * It tries to create /tmp/grader-fixture-escaped-write-file and a file in its
 * working directory. If either succeeds it solves (a sandbox that lets the
 * write through shows up as a pass plus a marker file); if both are refused
 * it returns false without touching the board.
 * Expected: legal pass, find_empty pass, solve wrong (false on a solvable
 * puzzle), and no file left anywhere.
 */
#define _GNU_SOURCE
#include <fcntl.h>
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

bool solve(uint8_t *board, size_t n) {
    const char *paths[] = {"/tmp/grader-fixture-escaped-write-file", "grader-fixture-escaped-write-file"};
    bool wrote = false;
    for (int i = 0; i < 2; i++) {
        int fd = open(paths[i], O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        if (fd >= 0) {
            (void)!write(fd, "escaped\n", 8);
            close(fd);
            wrote = true;
        }
    }
    if (!wrote) {
        return false;
    }
    return search(board, n);
}
