# A solve that looks for the grader's legal by identity.
#
# legal forgets the column, and solve never clears a cell. At import the
# module keeps its own legal; solve then asks whether the module's global
# `legal` is still that function (and still has its code's name). If it is
# not (another function was put in its place), solve runs the listing's
# search and passes; if it is, solve searches without clearing.
#
# What it attacks: grader check's experiment rebinding the module's global.
# Contained: the grader's legal takes the place of the student's inside the
# same function object (its code replaced), so this solve cannot tell: it
# still fails with the grader's legal, and grader check says so; legal
# wrong, solve wrong.

def legal(board, r, c, v, n=2):
    if v in board[r]:  # the column is never checked
        return False
    br, bc = n * (r // n), n * (c // n)
    for i in range(br, br + n):
        for j in range(bc, bc + n):
            if board[i][j] == v:
                return False
    return True


OWN_LEGAL = legal


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
    own = globals()["legal"] is OWN_LEGAL and legal.__name__ == "legal"
    for v in range(1, n * n + 1):
        if legal(board, r, c, v, n):
            board[r][c] = v
            if solve(board, n):
                return True
            if not own:
                board[r][c] = 0
    return False
