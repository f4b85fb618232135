/* hostile-constructor-loop.c: a load-time constructor that spins (for at most 30 s).
 *
 * The loop runs when the library is loaded, before any function is called,
 * so every test of every function is affected.
 * Expected: status load_error ("did not finish loading" within the time
 * limit); no test runs.
 *
 * Every loop and count is bounded, so a sandbox failure cannot harm the
 * machine. legal and find_empty are the listing's; solve is hostile.
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
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

/* Seconds since an arbitrary start (clock_gettime is a vDSO call, no
 * system call). */
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Burns CPU for at most `seconds`: the bound keeps a sandbox failure from
 * costing more than that. */
static void spin(double seconds) {
    volatile unsigned long x = 0;
    double end = now() + seconds;
    while (now() < end) {
        for (int i = 0; i < 1000000; i++) {
            x += (unsigned long)i;
        }
    }
}

__attribute__((constructor)) static void at_load(void) { spin(30.0); }

bool solve(uint8_t *board, size_t n) {
    return search(board, n);
}
