"""py-read-planted.py: a course keeps its hidden cases outside every folder
the grader hides (here /home/grader-course/, readable by every user); the
module reads the file at import and prints it.
Expected: every test passes, and nothing of the file is in the report (the
file is not in the Python test's view: with a mount namespace it does not
exist in the box, without one Landlock refuses it).
"""

try:
    with open("/home/grader-course/secret-cases.toml") as planted:
        print(planted.read())
except OSError as err:
    print("not readable:", type(err).__name__)

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
