# py-forge-reach-recorder.py: reaches the harness's recorder from the
# student's module and rewrites what it records.
#
# solve works on a copy: it runs the listing on a plain copy of the board
# and never writes the board it was given (on a solvable puzzle that board
# stays unsolved). Then it finds the harness's module globals, which the
# student's code can reach four ways (any one is enough): sys.modules
# ["__main__"], the board's class (type(board).__setitem__.__globals__),
# the frames above solve (sys._getframe), and gc.get_objects(). Through
# them it rewrites both things the harness records: the write trace (LOG,
# replaced by the records the listing would have made on the board itself)
# and the board it reports (flat, replaced by a function that returns the
# copy's solution).
# Today this earns full marks, where the same solve without the trick
# (py-copy-solve.py) fails solve on every solvable case.
# Expected (contained): exactly py-copy-solve.py's score: legal and
# find_empty pass; solve wrong on every solvable case (the given board is
# left unsolved), pass on the unsolvable one.

import gc
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


def harness_globals(board):
    """The harness's globals, from the first of four ways that works."""
    candidates = []
    main = sys.modules.get("__main__")
    if main is not None:
        candidates.append(vars(main))
    setitem = getattr(type(board), "__setitem__", None)
    if hasattr(setitem, "__globals__"):
        candidates.append(setitem.__globals__)
    frame = sys._getframe(1)
    while frame is not None:
        candidates.append(frame.f_globals)
        frame = frame.f_back
    candidates.extend(o for o in gc.get_objects() if type(o) is dict and "TRACE_CAP" in o)
    for found in candidates:
        if found is not globals() and isinstance(found.get("LOG"), bytearray) and callable(found.get("flat")):
            return found
    return None


def solve(board, n=2):
    found, solved, records = textbook(board, n)
    harness = harness_globals(board)
    if harness is not None:
        # The harness has recorded this call of solve; its return is still
        # to come: keep the first record, leave off the last.
        harness["LOG"][:] = records[:-6]
        if found:
            cells = [v for row in solved for v in row]
            harness["flat"] = lambda _board: cells
    return found
