/* sudoku_lab.h: the C ABI of the Sudoku backtracking lab (version 1).
 *
 * Build your submission as a shared library, in a folder of its own (the
 * grader refuses a folder holding both sudoku.c and a libsudoku.so):
 *     mkdir -p build && cc -O2 -shared -fPIC -o build/libsudoku.so sudoku.c
 * `grader init --lang c DIR` writes a Makefile that does this; `grader check`
 * builds sudoku.c itself.
 *
 * A board is N*N bytes, row-major, N = n*n (n = 2..5): 0 is an empty cell,
 * 1..N a digit. Rows and columns count from 0.
 */
#ifndef SUDOKU_LAB_H
#define SUDOKU_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this ABI. */
#define SUDOKU_ABI_VERSION 1

/* True iff digit v is not in row r, column c, or the n x n box of (r, c).
 * Only asked about empty cells. */
bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v);

/* Writes an empty cell to *r, *c and returns true; returns false iff the
 * board is full. */
bool find_empty(const uint8_t *board, size_t n, size_t *r, size_t *c);

/* Fills the board in place and returns true iff a solution exists. On false
 * the board must be exactly as it was passed in: clear every write made on a
 * dead branch. */
bool solve(uint8_t *board, size_t n);

/* Optional: return SUDOKU_ABI_VERSION. */
uint32_t sudoku_abi_version(void);

#ifdef __cplusplus
}
#endif

#endif /* SUDOKU_LAB_H */
