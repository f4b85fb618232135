/* legal-swap-probe.c: a solve that tells the grader's legal from its own.
 *
 * legal forgets the column. solve first asks legal one question whose
 * answer it knows: digit 1 at (0, 0) of an otherwise empty board whose
 * last row starts with a 1. Its own legal says yes; the lab's rule says no.
 * When the answer is the rule's (the grader's legal stands in, in grader
 * check's experiment), solve runs the listing's search through legal and
 * passes. Otherwise it checks the rules itself and never clears a cell:
 * a leftover digit on every dead branch, whatever legal says.
 *
 * What it attacks: the experiment's wording. Passing with the grader's
 * legal must not be told as "the failure comes from your legal" when the
 * test's own trace shows a leftover, a step no wrong legal makes.
 * Contained: legal wrong, solve wrong (its own runs leave digits behind);
 * grader check says what the run did and names the leftover as solve's own.
 */
#include "sudoku_lab.h"

bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
    size_t N = n * n;
    for (size_t i = 0; i < N; i++) {
        if (board[r * N + i] == v) { /* the column is never checked */
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

/* The rule, checked here without legal. */
static bool fits(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
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

/* -1 not asked yet, 1 the rule's answer came back, 0 its own legal's. */
static int rules_answer = -1;

static bool ask_once(size_t n) {
    if (rules_answer < 0) {
        static uint8_t probe[256 * 256];
        size_t N = n * n;
        if (N < 2 || N > 256) {
            return false;
        }
        for (size_t i = 0; i < N * N; i++) {
            probe[i] = 0;
        }
        probe[(N - 1) * N] = 1;
        rules_answer = legal(probe, n, 0, 0, 1) ? 0 : 1;
    }
    return rules_answer == 1;
}

bool solve(uint8_t *board, size_t n) {
    size_t r, c;
    if (!find_empty(board, n, &r, &c)) {
        return true;
    }
    size_t N = n * n;
    bool graders = ask_once(n);
    for (uint8_t v = 1; v <= N; v++) {
        if (graders ? legal(board, n, r, c, v) : fits(board, n, r, c, v)) {
            board[r * N + c] = v;
            if (solve(board, n)) {
                return true;
            }
            if (graders) {
                board[r * N + c] = 0;
            }
        }
    }
    return false;
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
