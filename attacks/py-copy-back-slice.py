# py-copy-back-slice.py: the honest twin of the forgeries that copy back.
#
# solve copies the board, solves the copy with the listing and, on success,
# puts the solution into the board it was given with one slice assignment,
# board[:] = copy (the rows are replaced, not written cell by cell, so
# today's Python write trace sees no write). The end state is right, though
# not reached in place. No trick: this is what py-forge-replace-records.py
# and py-forge-cap.py do without forging anything, so their scores must
# equal this one's.
# Expected (judged by the end state): legal, find_empty and solve pass.


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


def search(board, n):
    """The listing, on a plain copy."""
    spot = find_empty(board)
    if spot is None:
        return True
    r, c = spot
    for v in range(1, n * n + 1):
        if legal(board, r, c, v, n):
            board[r][c] = v
            if search(board, n):
                return True
            board[r][c] = 0
    return False


def solve(board, n=2):
    copy = [list(row) for row in board]
    if not search(copy, n):
        return False
    board[:] = copy
    return True
