/* crash-alias-legal.c: a crash in solve, with a local symbol named like
 * legal planted at solve's address.
 *
 * legal and find_empty are the listing's. solve writes through a wild
 * pointer (address n - 2) and crashes. A local symbol `legal.part.0` (the
 * name a compiler gives a clone of legal) has solve's address and size, so
 * a crash handler that picks a name at that address alphabetically says
 * "in your function `legal`".
 * Contained: the lab's exported `solve` names the address; solve crash,
 * "in your function `solve`"; legal and find_empty pass.
 */
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

bool solve(uint8_t *board, size_t n) {
    volatile uint8_t *wild = (volatile uint8_t *)(uintptr_t)(n - 2);
    *wild = board[0];
    return true;
}

/* A local alias of solve, under a clone's name of legal. */
static bool planted(uint8_t *board, size_t n) __asm__("legal.part.0")
    __attribute__((alias("solve"), used));

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
