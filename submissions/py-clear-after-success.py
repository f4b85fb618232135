# py-clear-after-success.py: solve clears its cell even after success.
#
# Bug: "always clean up": the recursive call's result is kept, the cell is
# cleared, then the result is returned, so a solved board unwinds back to
# its givens and solve still returns True.
# Expected: legal pass, find_empty pass, solve wrong (returned True, but the
# board is as it was passed in).

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
    spot = find_empty(board)
    if spot is None:
        return True
    r, c = spot
    for v in range(1, n * n + 1):
        if legal(board, r, c, v, n):
            board[r][c] = v
            solved = solve(board, n)
            board[r][c] = 0
            if solved:
                return True
    return False
