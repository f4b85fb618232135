/* zygote-signal.c: solve aims tgkill at its parent, which is the
 * submission's test zygote (the process every test is forked from).
 *
 * kill() on another process is on the kill list everywhere; tgkill is
 * allowed only at the test's own process, a rule each test child installs
 * with its own pid. Were it missing, the zygote would die here and solve
 * would go on to solve the board.
 * Expected: legal pass, find_empty pass, solve forbidden (tgkill); every
 * later test of this submission and every neighbour unharmed.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
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
    pid_t parent = getppid();
    syscall(SYS_tgkill, parent, parent, SIGKILL);
    return search(board, n);
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
