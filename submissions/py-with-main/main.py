# main.py: the student's own driver, as learners write one to try their
# solution: it imports sudoku.py and solves the campus board at import.
# Not the submission (it defines none of legal, find_empty, solve).

from sudoku import solve

board = [
    [1, 0, 0, 4],
    [0, 4, 1, 0],
    [2, 0, 0, 3],
    [0, 3, 2, 0],
]

if solve(board, 2):
    for row in board:
        print(" ".join(str(v) for v in row))
else:
    print("no solution")
