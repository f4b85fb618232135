# py-copy-solve.py: the honest twin of the forgeries that solve a copy.
#
# solve copies the board, solves the copy with the listing and returns its
# answer; the board it was given is never written (on a solvable puzzle it
# is left unsolved). No trick: this is what py-forge-reach-recorder.py and
# py-forge-trace-line.py do without forging anything, so their scores must
# equal this one's.
# Expected: legal and find_empty pass; solve wrong on every solvable case
# (the board is left as it was passed in), pass on the unsolvable one.


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
    return search(copy, n)
