# py-fixed-4x4.py: the campus board written into the code.
#
# Bug: the student tried the lab on the campus board only and wrote its
# sizes in: rows of 4, boxes of 2. Every 4x4 test passes; a 9x9 is searched
# in its top-left 4x4 only.
# Expected: legal, find_empty and solve wrong on the 9x9 and 16x16 boards.

def legal(board, r, c, v, n=2):
    for i in range(4):
        if board[r][i] == v or board[i][c] == v:
            return False
    br, bc = 2 * (r // 2), 2 * (c // 2)
    for i in range(br, br + 2):
        for j in range(bc, bc + 2):
            if board[i][j] == v:
                return False
    return True

def find_empty(board):
    for i in range(4):
        for j in range(4):
            if board[i][j] == 0:
                return i, j
    return None

def solve(board, n=2):
    spot = find_empty(board)
    if spot is None:
        return True
    r, c = spot
    for v in range(1, 5):
        if legal(board, r, c, v, n):
            board[r][c] = v
            if solve(board, n):
                return True
            board[r][c] = 0
    return False
