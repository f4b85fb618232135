/* zygote-heap-requests.c: every test walks the heap it inherited (no file,
 * no /proc: from sbrk(0) down by the main arena's size, mallinfo2) and
 * looks for the worker's request lines, `{"request":{"kind":"library"`
 * up to the line's end, counting the distinct ones. A test forked from the
 * test zygote or from the box's init may find its own request there, and
 * nothing else: were an earlier test's request left in freed memory (its
 * boards: a hidden case's puzzle), two or more distinct lines would be
 * found, and then legal answers every question wrong, find_empty finds
 * nothing and solve gives up, so the attack's verdicts show the leak.
 * Expected: legal pass, find_empty pass, solve pass.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "sudoku_lab.h"

static bool leaked;

static uint64_t hash_line(const char *at, const char *end, const char **stop) {
    uint64_t h = 1469598103934665603ull;
    const char *p = at;
    while (p < end && *p != '\n') {
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
        p++;
    }
    *stop = p;
    return h;
}

__attribute__((constructor)) static void walk_the_heap(void) {
    static const char mark[] = "{\"request\":{\"kind\":\"library\"";
    const size_t mark_len = sizeof mark - 1;
    char *top = sbrk(0);
    struct mallinfo2 info = mallinfo2();
    if (top == (char *)-1 || info.arena == 0 || info.arena > (size_t)(top - (char *)0)) {
        return;
    }
    const char *start = top - info.arena;
    uint64_t seen[64];
    size_t distinct = 0;
    for (const char *p = start; p + mark_len <= top; p++) {
        if (*p != '{' || memcmp(p, mark, mark_len) != 0) {
            continue;
        }
        const char *stop;
        uint64_t h = hash_line(p, top, &stop);
        if (stop >= top) {
            continue; /* a line cut off by the heap's end: not a whole request */
        }
        bool known = false;
        for (size_t i = 0; i < distinct; i++) {
            known = known || seen[i] == h;
        }
        if (!known && distinct < 64) {
            seen[distinct++] = h;
        }
    }
    leaked = distinct > 1;
}

bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
    if (leaked) {
        return true;
    }
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
    for (size_t i = 0; i < N && !leaked; i++) {
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
    return leaked ? false : search(board, n);
}
