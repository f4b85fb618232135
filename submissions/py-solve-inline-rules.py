# solve checks the rules itself, inline, and never calls legal; each copy
# of the rules has its own slip: legal forgets the box, and solve's own
# check forgets the column.

def legal(board, r, c, v, n=2):
    N = n * n
    if v in board[r] or v in (board[i][c] for i in range(N)):
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
    br, bc = n * (r // n), n * (c // n)
    for v in range(1, n * n + 1):
        if v in board[r]:
            continue
        if any(board[i][j] == v for i in range(br, br + n) for j in range(bc, bc + n)):
            continue
        board[r][c] = v
        if solve(board, n):
            return True
        board[r][c] = 0
    return False
