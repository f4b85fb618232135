/* c-learner-sqrt.c: a learner's C solver, shaped as real ones are: the box's
 * side is worked out from the board's side with sqrt() from <math.h>
 * (int box = (int)sqrt(size)), which needs the maths library (-lm).
 *
 * Correct. Expected: legal pass, find_empty pass, solve pass. Without
 * -lm in the build the library does not load ("undefined symbol: sqrt").
 */
#include <math.h>
#include "sudoku_lab.h"

/* the board is size x size, the boxes box x box */
static int side(size_t n) { return (int)(n * n); }

bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
    int size = side(n);
    int box = (int)sqrt(size);
    int row = (int)r, col = (int)c;
    for (int i = 0; i < size; i++) {
        if (board[row * size + i] == v) return false;
        if (board[i * size + col] == v) return false;
    }
    int top = row - row % box, left = col - col % box;
    for (int i = top; i < top + box; i++)
        for (int j = left; j < left + box; j++)
            if (board[i * size + j] == v) return false;
    return true;
}

bool find_empty(const uint8_t *board, size_t n, size_t *r, size_t *c) {
    int size = side(n);
    for (int i = 0; i < size; i++) {
        for (int j = 0; j < size; j++) {
            if (board[i * size + j] == 0) {
                *r = (size_t)i;
                *c = (size_t)j;
                return true;
            }
        }
    }
    return false;
}

bool solve(uint8_t *board, size_t n) {
    size_t r, c;
    if (!find_empty(board, n, &r, &c)) return true;
    int size = side(n);
    for (int v = 1; v <= size; v++) {
        if (legal(board, n, r, c, (uint8_t)v)) {
            board[r * size + c] = (uint8_t)v;
            if (solve(board, n)) return true;
            board[r * size + c] = 0;
        }
    }
    return false;
}
