# Top-level code looks for what an earlier test of the same submission
# left behind, and leaves something for the next one: an attribute on the
# builtins module, an entry in sys.modules, an environment variable, a
# file. Each test is a fresh fork of a zygote that never ran the student's
# file, so nothing is ever found and legal stays correct. It also looks for
# the zygote's command pipe (fd 0 in the zygote: a test could read the next
# test's request from it), which the harness closes first. Were anything
# found, legal would answer every question wrong.
# Expected: legal pass, find_empty pass, solve pass.

import builtins
import os
import sys

TAINTED = (
    getattr(builtins, "_grader_fixture_seen", False)
    or "_grader_fixture_seen" in sys.modules
    or "GRADER_FIXTURE_STATE" in os.environ
    or os.path.exists("/tmp/grader-fixture-state")
)
try:
    os.fstat(0)
    TAINTED = True
except OSError:
    pass
builtins._grader_fixture_seen = True
sys.modules["_grader_fixture_seen"] = sys
os.environ["GRADER_FIXTURE_STATE"] = "1"
try:
    open("/tmp/grader-fixture-state", "w").close()
except OSError:
    pass


def listing_legal(board, r, c, v, n=2):
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


def legal(board, r, c, v, n=2):
    answer = listing_legal(board, r, c, v, n)
    return not answer if TAINTED else answer


def solve(board, n=2):
    spot = find_empty(board)
    if spot is None:
        return True
    r, c = spot
    for v in range(1, n * n + 1):
        if listing_legal(board, r, c, v, n):
            board[r][c] = v
            if solve(board, n):
                return True
            board[r][c] = 0
    return False
