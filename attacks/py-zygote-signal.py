# solve aims tgkill (through ctypes) at its parent, the submission's
# Python test zygote, the interpreter every test is forked from. tgkill is
# allowed only at the test's own process, a rule each test child installs
# with its own pid before the student's file runs. Were it missing, the
# zygote would die here and solve would go on to solve the board.
# Expected: legal pass, find_empty pass, solve forbidden; every later test
# of this submission and every neighbour unharmed. (x86-64 numbers.)

import ctypes
import os
import signal

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

SYS_TGKILL = 234


def search(board, n):
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
    parent = os.getppid()
    ctypes.CDLL(None).syscall(SYS_TGKILL, parent, parent, int(signal.SIGKILL))
    return search(board, n)
