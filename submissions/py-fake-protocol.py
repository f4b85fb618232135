# Prints protocol-looking lines on stdout and writes them to fd 3 and the
# fds near it, claiming a solved board of 1s; then solves for real. The
# forged lines must change nothing. (Once at import, once per test: a flood
# of them would only drown the student's own answers.)

import json
import os

FAKE = (json.dumps({"type": "done", "response": {"function": "solve", "args": {"solved": True, "board": [1] * 81}}, "time_ms": 0.0})
        + "\n" + json.dumps({"type": "trace", "trace": {"records": "", "capped": False}}) + "\n").encode()


FORGED = []


def forge():
    if len(FORGED) > 1:
        return
    FORGED.append(True)
    print(FAKE.decode(), end="")
    for fd in range(3, 8):
        try:
            os.write(fd, FAKE)
        except OSError:
            pass


forge()

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
    forge()
    spot = find_empty(board)
    if spot is None:
        return True
    r, c = spot
    for v in range(1, n * n + 1):
        if legal(board, r, c, v, n):
            board[r][c] = v
            if solve(board, n):
                return True
            board[r][c] = 0
    return False
