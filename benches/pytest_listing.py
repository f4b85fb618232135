# The anchor of the `grader check` benchmark (docs/guide/performance.md): a
# hand-written pytest file asking the seed's listing the same 21 questions
# `grader check` asks on the public cases (7 cases x legal, find_empty,
# solve), as a student would write it without the grader: legal on every
# empty cell and every digit against the lab's rule, find_empty on the
# board and on its solution (full: None), solve against the case's answer.
#
# Not a test of this project (pytest is no dependency of it): run by hand,
#   python3 -m venv /tmp/pytest-venv && /tmp/pytest-venv/bin/pip install pytest
#   SUDOKU=submissions/py-listing.py CASES=cases \
#     /tmp/pytest-venv/bin/python -m pytest -q -p no:cacheprovider benches/pytest_listing.py
import copy
import importlib.util
import os
import pathlib
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = pathlib.Path(os.environ.get("SUDOKU", ROOT / "submissions" / "py-listing.py"))
CASES = pathlib.Path(os.environ.get("CASES", ROOT / "cases"))

spec = importlib.util.spec_from_file_location("sudoku", SOURCE)
sudoku = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sudoku)


def board(text):
    """A board from the case files' text: rows of digits or '.', with
    '|' and '-+-' lines between the boxes."""
    rows = []
    for line in text.strip().splitlines():
        if set(line.strip()) <= set("-+"):
            continue
        words = line.replace("|", " ").split()
        rows.append([0 if w == "." else int(w) for w in words])
    return rows


def public_cases():
    found = []
    for path in sorted(CASES.glob("*.toml")):
        for case in tomllib.loads(path.read_text()).get("case", []):
            if not case.get("hidden", False):
                found.append(case)
    return found


CASES_LIST = public_cases()
IDS = [case["name"] for case in CASES_LIST]


def box_n(rows):
    return int(round(len(rows) ** 0.5))


def rule(rows, r, c, v, n):
    """The lab's rule: v is not in the row, the column or the box."""
    N = n * n
    if any(rows[r][j] == v for j in range(N)) or any(rows[i][c] == v for i in range(N)):
        return False
    br, bc = n * (r // n), n * (c // n)
    return all(rows[i][j] != v for i in range(br, br + n) for j in range(bc, bc + n))


@pytest.mark.parametrize("case", CASES_LIST, ids=IDS)
def test_legal(case):
    rows = board(case["puzzle"])
    n = box_n(rows)
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            if cell == 0:
                for v in range(1, n * n + 1):
                    asked = copy.deepcopy(rows)
                    assert bool(sudoku.legal(asked, r, c, v, n)) == rule(rows, r, c, v, n), (r, c, v)
                    assert asked == rows, "legal changed the board"


@pytest.mark.parametrize("case", CASES_LIST, ids=IDS)
def test_find_empty(case):
    rows = board(case["puzzle"])
    spot = sudoku.find_empty(copy.deepcopy(rows))
    if any(0 in row for row in rows):
        r, c = spot
        assert rows[r][c] == 0
    else:
        assert spot is None
    if "solution" in case:
        assert sudoku.find_empty(board(case["solution"])) is None


@pytest.mark.parametrize("case", CASES_LIST, ids=IDS)
def test_solve(case):
    rows = board(case["puzzle"])
    n = box_n(rows)
    answer = sudoku.solve(rows, n)
    if case.get("solutions", 1) == 0:
        assert answer is False
        assert rows == board(case["puzzle"]), "solve left digits behind"
    else:
        assert answer is True
        assert rows == board(case["solution"])
