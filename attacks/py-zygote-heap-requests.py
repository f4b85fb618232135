# Top-level code walks the heap this test inherited (no file, no /proc:
# ctypes, from sbrk(0) down by the main arena's size, mallinfo2) and looks
# for the harness's request lines (a JSON object whose first key is
# name) up to the line's end,
# counting the distinct ones. A test forked from the Python test zygote may
# find its own request there and nothing else: were an earlier test's
# request left in freed memory (its boards: a hidden case's puzzle), two or
# more distinct lines would be found, and legal would then answer every
# question wrong.
# Expected: legal pass, find_empty pass, solve pass.

import ctypes


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
        "fsmblks", "uordblks", "fordblks", "keepcost")]


def distinct_requests():
    libc = ctypes.CDLL(None)
    libc.sbrk.restype = ctypes.c_void_p
    libc.sbrk.argtypes = [ctypes.c_ssize_t]
    libc.mallinfo2.restype = MallInfo2
    top = libc.sbrk(0)
    arena = libc.mallinfo2().arena
    if not top or not arena or arena > top:
        return 0
    heap = ctypes.string_at(top - arena, arena)
    # The marker is made here, so that this file's own text (which the
    # harness holds too) does not hold it.
    mark = b'{"na' + b'me":'
    seen = set()
    at = heap.find(mark)
    while at >= 0:
        end = heap.find(b"\n", at)
        if end < 0:
            break
        seen.add(hash(heap[at:end]))
        at = heap.find(mark, at + 1)
    return len(seen)


LEAKED = distinct_requests() > 1


def legal(board, r, c, v, n=2):
    if LEAKED:
        return True
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
    cell = find_empty(board)
    if cell is None:
        return True
    r, c = cell
    for v in range(1, n * n + 1):
        if legal(board, r, c, v, n):
            board[r][c] = v
            if solve(board, n):
                return True
            board[r][c] = 0
    return False
