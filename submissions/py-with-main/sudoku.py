# sudoku.py: a learner's solution module, handed in as a folder with the
# student's own main.py that imports it (py-with-main/main.py).
#
# Correct. Expected: legal pass, find_empty pass, solve pass; main.py is
# named as ignored (it defines none of the lab's functions).

def legal(board, r, c, v, n=2):
    N = n * n
    for i in range(N):
        if board[r][i] == v or board[i][c] == v:
            return False
    top, left = n * (r // n), n * (c // n)
    for i in range(top, top + n):
        for j in range(left, left + n):
            if board[i][j] == v:
                return False
    return True


def find_empty(board):
    for r in range(len(board)):
        for c in range(len(board)):
            if board[r][c] == 0:
                return (r, c)
    return None


def solve(board, n=2):
    empty = find_empty(board)
    if empty is None:
        return True
    r, c = empty
    for v in range(1, n * n + 1):
        if legal(board, r, c, v, n):
            board[r][c] = v
            if solve(board, n):
                return True
            board[r][c] = 0
    return False
