//! Step 1 of a test, on the grader side: the [`Probe`] for one case and one
//! function — the boards and the questions, never the expected answers.
//!
//! **A probe never carries the answer.** A student's code sees every board
//! it is asked about and can print it; a board cut from the case's
//! solution would hand the hidden solution over. So the probe is a function
//! of the puzzle alone — [`plan`] never reads the case's solution: besides
//! the puzzle itself, `legal` and `find_empty` are asked about partly
//! filled boards cut from *other* valid grids (the pattern grid moved by
//! random Sudoku symmetries, seeded by the puzzle, and never one that fits
//! the puzzle's givens, since that one could be the solution): a quarter,
//! a half and three quarters of a grid's cells, in a pseudo-random order
//! (so a case always gets the same probe). A digit such a board shares
//! with the solution is chance, and the student can compute the same board
//! from the puzzle.
//!
//! These boards put digits in every relation to an empty cell — in its row
//! only, its column only, its box only — so a `legal` that skips a unit or
//! looks at the wrong box gives a wrong answer somewhere; if they do not,
//! boards from further grids are drawn until they do (or a bound is
//! reached, and a hand-made board with all three is added). `find_empty`
//! is also asked about the first such grid whole, which must get "none".

use sudoku_lab::Board;
use sudoku_reference::BoardRules;

use super::probe::Probe;
use super::rule::{Unit, clashes};
use crate::case::model::Case;
use crate::generate::grid::{pattern_grid, shuffle_grid};
use crate::generate::rng::Rng;
use crate::verdict::Function;

/// The most `legal` questions one probe asks (a 25x25 case stays fast).
pub const MAX_LEGAL_QUERIES: usize = 20_000;

/// How many extra grids are cut into partial boards at most when the first
/// one's boards miss a row-only, column-only or box-only clash.
const EXTRA_ROUNDS: u64 = 2;

/// The questions to ask for `function` on `case`.
pub fn plan(case: &Case, function: Function) -> Probe {
    let n = case.puzzle.n();
    match function {
        Function::Legal => {
            let mut boards = question_boards(case);
            // Asked whole whatever the cap: a box walked only along its
            // diagonal must answer wrong somewhere.
            let first_box = first_box_queries(boards.len(), n);
            let mut queries = legal_queries(&boards, MAX_LEGAL_QUERIES - first_box.len());
            queries.extend(first_box);
            boards.push(off_diagonal_board(n));
            Probe::Legal {
                n,
                boards: boards.into_iter().map(Board::into_cells).collect(),
                queries,
            }
        }
        Function::FindEmpty => {
            let mut boards = question_boards(case);
            let grid = other_grid(&case.puzzle, 0);
            for cell in lone_empty_cells(grid.side()) {
                let mut board = grid.clone();
                board.set(cell.0, cell.1, 0);
                push_new(&mut boards, board);
            }
            push_new(&mut boards, grid);
            Probe::FindEmpty {
                n,
                boards: boards.into_iter().map(Board::into_cells).collect(),
            }
        }
        Function::Solve => Probe::Solve {
            n,
            board: case.puzzle.cells().to_vec(),
        },
    }
}

/// The puzzle, then partly filled boards cut from other grids, distinct,
/// until row-only, column-only and box-only clashes all occur among their
/// empty cells.
fn question_boards(case: &Case) -> Vec<Board> {
    let puzzle = &case.puzzle;
    let mut boards = vec![puzzle.clone()];
    let mut kinds = [false; 3];
    add_clash_kinds(&mut kinds, puzzle);
    for round in 0..=EXTRA_ROUNDS {
        let grid = other_grid(puzzle, round);
        let mut rng = SplitMix(fnv1a(puzzle.cells()) ^ round.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        for board in partial_boards(&grid, &mut rng) {
            if !boards.contains(&board) {
                add_clash_kinds(&mut kinds, &board);
                boards.push(board);
            }
        }
        if kinds == [true; 3] {
            return boards;
        }
    }
    push_new(&mut boards, clash_board(puzzle.n()));
    boards
}

/// Grid number `round` for `puzzle`: a complete, valid grid made from the
/// puzzle's cells alone (the pattern grid moved by symmetries seeded by
/// them), never one that keeps every given (for a puzzle with one
/// solution, that grid would be the solution).
fn other_grid(puzzle: &Board, round: u64) -> Board {
    let n = puzzle.n();
    // Apart from the partial boards' own order (another stream).
    let seed = fnv1a(puzzle.cells()) ^ 0x6f74_6865_7267_7264;
    let mut rng = Rng::for_item(seed, round);
    let mut fallback = None;
    for _ in 0..64 {
        let grid = shuffle_grid(&pattern_grid(n), &mut rng);
        if !keeps_givens(puzzle, &grid) {
            return grid;
        }
        fallback.get_or_insert(grid);
    }
    // Every draw kept the givens (a puzzle with almost no givens): such a
    // grid is one of very many solutions, no secret of this case.
    fallback.unwrap_or_else(|| pattern_grid(n))
}

/// Whether `grid` holds every given of `puzzle`.
fn keeps_givens(puzzle: &Board, grid: &Board) -> bool {
    puzzle
        .cells()
        .iter()
        .zip(grid.cells())
        .all(|(&given, &cell)| given == 0 || given == cell)
}

/// A nearly empty board where the cell at the top-left of the second
/// diagonal box has digit 1 in its row only, 2 in its column only and 3 in
/// its box only; the last resort when no partial board has all three kinds
/// of clash. Off the first box, so that a wrong box origin shows too.
fn clash_board(n: usize) -> Board {
    let mut board = Board::empty(n).expect("the box size of a valid case");
    board.set(n, 0, 1);
    board.set(0, n, 2);
    board.set(n + 1, n + 1, 3);
    board
}

/// The cells that are, each in turn, the only empty cell of a full grid
/// `find_empty` is asked about: the last row, the last column, the last
/// cell, and on boards wider than 9 a cell outside the top-left 9x9 (a
/// scan that stops a row or a column early, or covers a fixed 9x9 region,
/// answers "none" there).
fn lone_empty_cells(side: usize) -> Vec<(usize, usize)> {
    let last = side - 1;
    let mut cells = vec![(last, side / 2), (side / 2, last), (last, last)];
    if side > 9 {
        cells.push((side - 3, side - 3));
    }
    cells
}

/// An empty board but for digit 1 at (row 1, col 0): in the box of cell
/// (row 0, col 1), off that box's diagonal and off the cell's row and
/// column, so a `legal` that checks only the box's diagonal cells answers
/// true for 1 there.
fn off_diagonal_board(n: usize) -> Board {
    let mut board = Board::empty(n).expect("the box size of a valid case");
    board.set(1, 0, 1);
    board
}

/// Every digit at every empty cell of the first box of board number
/// `index`, the [`off_diagonal_board`].
fn first_box_queries(index: usize, n: usize) -> Vec<[usize; 4]> {
    let mut queries = Vec::new();
    for r in 0..n {
        for c in 0..n {
            if (r, c) != (1, 0) {
                queries.extend((1..=n * n).map(|v| [index, r, c, v]));
            }
        }
    }
    queries
}

/// Three boards: `grid` with 1/4, 1/2 and 3/4 of its cells kept, the rest
/// empty, the cells taken in a random order (the top-left one first).
fn partial_boards(grid: &Board, rng: &mut SplitMix) -> Vec<Board> {
    let side = grid.side();
    let mut cells: Vec<(usize, usize)> = (0..side)
        .flat_map(|r| (0..side).map(move |c| (r, c)))
        .collect();
    rng.shuffle(&mut cells);
    // The top-left cell is always kept, so that the first empty cell in
    // reading order is (almost always) not the first in column order: a
    // column-major `find_empty` shows under the "first" policy.
    if let Some(top_left) = cells.iter().position(|&cell| cell == (0, 0)) {
        cells.swap(0, top_left);
    }
    let total = cells.len();
    let mut board = Board::empty(grid.n()).expect("the box size of a valid case");
    let mut done = 0;
    let mut out = Vec::new();
    for quarter in 1..=3 {
        let upto = total * quarter / 4;
        for &(r, c) in &cells[done..upto] {
            board.set(r, c, grid.get(r, c));
        }
        done = upto;
        out.push(board.clone());
    }
    out
}

fn push_new(boards: &mut Vec<Board>, board: Board) {
    if !boards.contains(&board) {
        boards.push(board);
    }
}

/// Every (empty cell, digit) pair of every board, in board then reading
/// order. Over `cap`, each board gets an equal share, spent on whole cells
/// (all their digits) drawn at random.
fn legal_queries(boards: &[Board], cap: usize) -> Vec<[usize; 4]> {
    let total: usize = boards
        .iter()
        .map(|b| b.empty_cells().count() * b.side())
        .sum();
    let share = cap / boards.len().max(1);
    let mut queries = Vec::new();
    for (i, board) in boards.iter().enumerate() {
        let side = board.side();
        let mut cells: Vec<(usize, usize)> = board.empty_cells().collect();
        if total > cap {
            let mut rng = SplitMix(fnv1a(board.cells()));
            rng.shuffle(&mut cells);
            cells.truncate(share / side);
            cells.sort_unstable();
        }
        for (r, c) in cells {
            queries.extend((1..=side).map(|v| [i, r, c, v]));
        }
    }
    queries
}

/// Whether some empty cell of some board has a digit in its row only, its
/// column only, its box only: `[row, column, box]`.
#[cfg(test)]
pub(crate) fn clash_kinds(boards: &[Board]) -> [bool; 3] {
    let mut kinds = [false; 3];
    for board in boards {
        add_clash_kinds(&mut kinds, board);
    }
    kinds
}

/// Adds the kinds of clash found on `board` to `kinds`; stops as soon as
/// all three are known.
fn add_clash_kinds(kinds: &mut [bool; 3], board: &Board) {
    for (r, c) in board.empty_cells() {
        for v in 1..=board.side() as u8 {
            if *kinds == [true; 3] {
                return;
            }
            let found = clashes(board, r, c, v);
            let only = |unit| !found.is_empty() && found.iter().all(|(u, _)| *u == unit);
            for (k, unit) in [Unit::Row, Unit::Column, Unit::Box].into_iter().enumerate() {
                kinds[k] |= only(unit);
            }
        }
    }
}

/// FNV-1a of the cells: a seed that depends only on the puzzle.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64: a small, fixed pseudo-random generator, so that the same
/// case gets the same probe on every machine and every version of Rust.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Fisher-Yates.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}
