# solve writes the digit first and asks legal afterwards: legal then sees
# the digit it is asked about already in the row, answers False every
# time, and the search gives up. legal and find_empty are right.
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
        board[r][c] = v
        if legal(board, r, c, v, n) and solve(board, n):
            return True
        board[r][c] = 0
    return False
