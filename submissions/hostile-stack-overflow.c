/* hostile-stack-overflow.c: solve recurses with a 64 KiB frame until the stack runs out.
 *
 * The depth is capped at 65536 frames (4 GiB of stack) so that even an
 * unlimited stack ends.
 * Expected: legal pass, find_empty pass, solve crash (a stack overflow).
 *
 * Every loop and count is bounded, so a sandbox failure cannot harm the
 * machine. legal and find_empty are the listing's; solve is hostile.
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

static int deeper(int depth) {
    volatile char frame[64 * 1024];
    frame[0] = (char)depth;
    frame[sizeof frame - 1] = (char)depth;
    if (depth >= 65536) {
        return frame[0];
    }
    /* Not a tail call: the frame is read after the recursive call returns. */
    return deeper(depth + 1) + frame[sizeof frame - 1];
}

bool solve(uint8_t *board, size_t n) {
    if (deeper(0) == 12345) {
        return false;
    }
    return search(board, n);
}
