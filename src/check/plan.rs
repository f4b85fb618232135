//! Step 1 of a test, on the grader side: the [`Probe`] for one case and one
//! function — the boards and the questions, never the expected answers.
//!
//! Besides the puzzle, `legal` and `find_empty` are asked about partly
//! solved boards: the puzzle with a quarter, a half and three quarters of
//! its empty cells filled from the reference solution, in a pseudo-random
//! order seeded by the puzzle (so a case always gets the same probe). A case
//! without a solution gets partial boards filled greedily with digits the
//! rule allows. These boards put digits in every relation to an empty cell —
//! in its row only, its column only, its box only — so a `legal` that skips
//! a unit or looks at the wrong box gives a wrong answer somewhere; if they
//! do not, more boards are drawn until they do (or a bound is reached).
//! `find_empty` is also asked about a full board, which must get "none".

use sudoku_lab::Board;

use super::Probe;
use super::rule::{Unit, clashes};
use crate::case::Case;
use crate::verdict::Function;

/// The most `legal` questions one probe asks (a 25x25 case stays fast).
pub const MAX_LEGAL_QUERIES: usize = 20_000;

/// How many extra rounds of partial boards are drawn at most when the first
/// ones miss a row-only, column-only or box-only clash.
const EXTRA_ROUNDS: u64 = 2;

/// The questions to ask for `function` on `case`.
pub fn plan(case: &Case, function: Function) -> Probe {
    let n = case.puzzle.n();
    match function {
        Function::Legal => {
            let boards = question_boards(case);
            let queries = legal_queries(&boards);
            Probe::Legal {
                n,
                boards: boards.into_iter().map(Board::into_cells).collect(),
                queries,
            }
        }
        Function::FindEmpty => {
            let mut boards = question_boards(case);
            push_new(&mut boards, full_board(case));
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

/// The puzzle, then partly solved boards, distinct, until row-only,
/// column-only and box-only clashes all occur among their empty cells.
fn question_boards(case: &Case) -> Vec<Board> {
    let mut boards = vec![case.puzzle.clone()];
    let mut kinds = [false; 3];
    add_clash_kinds(&mut kinds, &case.puzzle);
    let seed = fnv1a(case.puzzle.cells());
    for round in 0..=EXTRA_ROUNDS {
        let mut rng = SplitMix(seed ^ round.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        // The first round follows the solution; later ones fill greedily,
        // which reaches boards no solution passes through.
        let solution = if round == 0 { solution(case) } else { None };
        for board in partial_boards(&case.puzzle, solution, &mut rng) {
            if !boards.contains(&board) {
                add_clash_kinds(&mut kinds, &board);
                boards.push(board);
            }
        }
        if kinds == [true; 3] {
            return boards;
        }
    }
    push_new(&mut boards, clash_board(case.puzzle.n()));
    boards
}

/// The case's solution, if it has a usable one.
fn solution(case: &Case) -> Option<&Board> {
    case.solution
        .as_ref()
        .filter(|s| s.n() == case.puzzle.n() && s.is_full())
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

/// Three boards: the puzzle with 1/4, 1/2 and 3/4 of its empty cells filled,
/// in a random order, from `solution` (or greedily without one).
fn partial_boards(puzzle: &Board, solution: Option<&Board>, rng: &mut SplitMix) -> Vec<Board> {
    let mut empties: Vec<(usize, usize)> = puzzle.empty_cells().collect();
    rng.shuffle(&mut empties);
    let total = empties.len();
    let mut board = puzzle.clone();
    let mut out = Vec::new();
    let mut done = 0;
    for quarter in 1..=3 {
        let upto = total * quarter / 4;
        for &(r, c) in &empties[done..upto] {
            let v = match solution {
                Some(s) => s.get(r, c),
                None => greedy_digit(&board, r, c, rng),
            };
            board.set(r, c, v);
        }
        done = upto;
        out.push(board.clone());
    }
    out
}

/// A digit the rule allows at `(r, c)`, tried in random order; 0 (leave it
/// empty) if there is none.
fn greedy_digit(board: &Board, r: usize, c: usize, rng: &mut SplitMix) -> u8 {
    let mut digits: Vec<u8> = (1..=board.side() as u8).collect();
    rng.shuffle(&mut digits);
    digits
        .into_iter()
        .find(|&v| !board.conflicts(r, c, v))
        .unwrap_or(0)
}

/// The solution if the case has one, else a full grid by the pattern
/// `(r mod n)*n + r div n + c`, which is a valid Sudoku.
fn full_board(case: &Case) -> Board {
    let n = case.puzzle.n();
    if let Some(s) = solution(case) {
        return s.clone();
    }
    let side = n * n;
    let mut board = case.puzzle.clone();
    for r in 0..side {
        for c in 0..side {
            board.set(r, c, (((r % n) * n + r / n + c) % side + 1) as u8);
        }
    }
    board
}

fn push_new(boards: &mut Vec<Board>, board: Board) {
    if !boards.contains(&board) {
        boards.push(board);
    }
}

/// Every (empty cell, digit) pair of every board, in board then reading
/// order. Over [`MAX_LEGAL_QUERIES`], each board gets an equal share, spent on
/// whole cells (all their digits) drawn at random.
fn legal_queries(boards: &[Board]) -> Vec<[usize; 4]> {
    let total: usize = boards
        .iter()
        .map(|b| b.empty_cells().count() * b.side())
        .sum();
    let share = MAX_LEGAL_QUERIES / boards.len().max(1);
    let mut queries = Vec::new();
    for (i, board) in boards.iter().enumerate() {
        let side = board.side();
        let mut cells: Vec<(usize, usize)> = board.empty_cells().collect();
        if total > MAX_LEGAL_QUERIES {
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
