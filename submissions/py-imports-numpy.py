# py-imports-numpy.py: the listing on a numpy board.
#
# Bug (for this grader): `import numpy` at the top. The grader's isolated
# interpreter has the standard library only, so the import fails before
# any function is defined.
# Expected: status load_error, no test runs.

import numpy as np

def legal(board, r, c, v, n=2):
    N = n * n
    if v in board[r] or v in (board[i][c] for i in range(N)):
        return False
    br, bc = n * (r // n), n * (c // n)
    for i in range(br, br + n):
        for j in range(bc, bc + n):
            if board[i][j] == v:
                return False
    return True

def find_empty(board):
    for i, row in enumerate(board):
        for j, v in enumerate(row):
            if v == 0:
                return i, j
    return None

def solve(board, n=2):
    grid = np.array(board)
    spot = find_empty(grid.tolist())
    if spot is None:
        return True
    r, c = spot
    for v in range(1, n * n + 1):
        if legal(board, r, c, v, n):
            board[r][c] = v
            if solve(board, n):
                return True
            board[r][c] = 0
    return False
