# py-forge-replace-records.py: replaces the harness's recorded writes with a
# made-up textbook search.
#
# solve runs the listing on a plain copy of the board and, on success, puts
# the solution into the board with one slice assignment, board[:] = copy,
# which today's write trace does not see (as py-copy-back-slice.py does).
# Then it replaces the harness's record list (sys.modules["__main__"].LOG)
# with the records the listing would have made on the board itself, so the
# trace "accounts for" the board. The end state is right either way.
# Today this passes, where the same solve without the trick
# (py-copy-back-slice.py) fails solve on every solvable case ("the board was
# changed some other way").
# Expected (contained): exactly py-copy-back-slice.py's score; judged by the
# end state, legal, find_empty and solve pass.

import sys


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


def textbook(rows, n):
    """Runs the listing on a plain copy of `rows`, making up the records
    today's harness keeps for a traced solve (six bytes each: row, col, old,
    new, depth as two bytes; an event 255, kind, 0, 0, depth for a call,
    kind 0, or a return, 1 false / 2 true) as if the listing had run on the
    board itself. Returns (found, the copy as the search left it, records)."""
    board = [list(row) for row in rows]
    log = bytearray()
    depth = [0]

    def call():
        depth[0] += 1
        d = depth[0]
        log.extend((255, 0, 0, 0, d & 255, d >> 8))
        found = step()
        depth[0] -= 1
        d = depth[0]
        log.extend((255, 2 if found else 1, 0, 0, d & 255, d >> 8))
        return found

    def step():
        spot = find_empty(board)
        if spot is None:
            return True
        r, c = spot
        d = depth[0]
        for v in range(1, n * n + 1):
            if legal(board, r, c, v, n):
                log.extend((r, c, 0, v, d & 255, d >> 8))
                board[r][c] = v
                if call():
                    return True
                log.extend((r, c, v, 0, d & 255, d >> 8))
                board[r][c] = 0
        return False

    found = call()
    return found, board, bytes(log)


def solve(board, n=2):
    found, solved, records = textbook(board, n)
    if found:
        board[:] = solved
    # The harness has recorded this call of solve; its return is still to
    # come: keep the first record, leave off the last.
    sys.modules["__main__"].LOG = bytearray(records[:-6])
    return found
