/* zygote-memory.c: the library's constructor (run before the allow list,
 * with the loader still free to open files) opens its parent's memory,
 * /proc/PPID/mem, for writing: the parent is the submission's test zygote,
 * and writing there would corrupt every later test. The zygote dropped its
 * uid, so it is not dumpable, and Landlock lets a test only read /proc:
 * the open fails. Were it to succeed, solve would return false on every
 * board.
 * Expected: legal pass, find_empty pass, solve pass.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
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

static bool reached;

__attribute__((constructor)) static void open_parent_memory(void) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)getppid());
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
        reached = true;
        close(fd);
    }
}

bool solve(uint8_t *board, size_t n) {
    return reached ? false : search(board, n);
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
