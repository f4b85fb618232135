# A correct solver that picks the empty cell with the fewest legal digits
# (the "emptiest cell" of the lab's section 2), and infers n from the board.


def legal(board, r, c, v, n=None):
    n = n or int(len(board) ** 0.5)
    N = n * n
    if v in board[r] or any(board[i][c] == v for i in range(N)):
        return False
    br, bc = n * (r // n), n * (c // n)
    return all(board[i][j] != v for i in range(br, br + n) for j in range(bc, bc + n))


def find_empty(board):
    n = int(len(board) ** 0.5)
    best, best_count = None, None
    for r, row in enumerate(board):
        for c, v in enumerate(row):
            if v == 0:
                count = sum(legal(board, r, c, d, n) for d in range(1, n * n + 1))
                if best is None or count < best_count:
                    best, best_count = (r, c), count
                    if count <= 1:
                        return best
    return best


def solve(board):
    n = int(len(board) ** 0.5)
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
