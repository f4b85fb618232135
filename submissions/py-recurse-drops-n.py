# py-recurse-drops-n.py: the recursive call drops n.
#
# Bug: solve recurses with `solve(board)`, so every inner call runs with the
# default n=2: on a 9x9 board its legal checks 4 cells of the row and column
# and a 2x2 box, and the search writes digits that break the rules. The
# campus board (n = 2) is solved.
# Expected: legal pass, find_empty pass, solve wrong on the 9x9 and 16x16
# boards.

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
            if solve(board):
                return True
            board[r][c] = 0
    return False
