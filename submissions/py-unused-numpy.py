# py-unused-numpy.py: a learner's correct solver with an `import numpy`
# it never uses (left from a notebook that printed boards as arrays; 3 of
# 11 real learners' Python solvers had one).
#
# Expected: status load_error on the bundled cases, whose grader.toml
# allows no module beyond the standard library: the message says the rule
# and what to do (a hint in every report). With `python_modules =
# ["numpy"]` in grader.toml, on a host whose python3 has numpy, it passes
# every test.

import numpy as np


def legal(board, r, c, v, n=2):
    size = n * n
    for i in range(size):
        if board[r][i] == v or board[i][c] == v:
            return False
    top, left = r - r % n, c - c % n
    for i in range(top, top + n):
        for j in range(left, left + n):
            if board[i][j] == v:
                return False
    return True


def find_empty(board):
    for r, row in enumerate(board):
        for c, v in enumerate(row):
            if v == 0:
                return r, c
    return None


def solve(board, n=2):
    cell = find_empty(board)
    if cell is None:
        return True
    r, c = cell
    for v in range(1, n * n + 1):
        if legal(board, r, c, v, n):
            board[r][c] = v
            if solve(board, n):
                return True
            board[r][c] = 0
    return False
