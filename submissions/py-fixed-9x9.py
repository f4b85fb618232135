# py-fixed-9x9.py: the listing written for the 9x9 the learner tried first.
#
# Bug: 9 and 3 are written into the code (range(9), 3 * (r // 3)), and n is
# ignored: every 9x9 passes, a 4x4 raises IndexError (row 4 does not exist),
# a 16x16 is searched in its top-left 9x9 only.
# Expected: grader check says "your code assumes a 9x9 board (n = 3)".


def legal(board, r, c, v, n=3):
    for i in range(9):
        if board[r][i] == v or board[i][c] == v:
            return False
    br, bc = 3 * (r // 3), 3 * (c // 3)
    for i in range(br, br + 3):
        for j in range(bc, bc + 3):
            if board[i][j] == v:
                return False
    return True


def find_empty(board):
    for i in range(9):
        for j in range(9):
            if board[i][j] == 0:
                return i, j
    return None


def solve(board, n=3):
    spot = find_empty(board)
    if spot is None:
        return True
    r, c = spot
    for v in range(1, 10):
        if legal(board, r, c, v):
            board[r][c] = v
            if solve(board):
                return True
            board[r][c] = 0
    return False
