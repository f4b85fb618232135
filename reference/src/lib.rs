//! The grader's reference solver for the Sudoku lab (placeholder API; the
//! fast implementation replaces the bodies, keeping these signatures).
#![deny(missing_docs)]

use sudoku_lab::{Board, Sudoku};

/// The reference solver; implements the lab trait.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reference;

impl Sudoku for Reference {
    fn legal(&self, board: &Board, r: usize, c: usize, v: u8) -> bool {
        !board.conflicts(r, c, v)
    }
    fn find_empty(&self, board: &Board) -> Option<(usize, usize)> {
        board.empty_cells().next()
    }
    fn solve(&self, board: &mut Board) -> bool {
        solve(board)
    }
}

/// Solves `board` in place; on false the board is unchanged.
pub fn solve(board: &mut Board) -> bool {
    let mut first = None;
    count_into(board, 1, &mut 0, &mut first);
    match first {
        Some(s) => {
            *board = s;
            true
        }
        None => false,
    }
}

/// Counts solutions up to `cap` (so `cap = 2` answers 0, 1, or "two or more").
pub fn count_solutions(board: &Board, cap: u32) -> u32 {
    let mut count = 0;
    count_into(&mut board.clone(), cap, &mut count, &mut None);
    count
}

/// Counts solutions up to `cap` and returns the first one found.
pub fn count_and_solve(board: &Board, cap: u32) -> (u32, Option<Board>) {
    let mut count = 0;
    let mut first = None;
    count_into(&mut board.clone(), cap, &mut count, &mut first);
    (count, first)
}

fn givens_consistent(b: &Board) -> bool {
    let side = b.side();
    (0..side).all(|r| (0..side).all(|c| b.get(r, c) == 0 || !b.conflicts(r, c, b.get(r, c))))
}

fn count_into(b: &mut Board, cap: u32, count: &mut u32, first: &mut Option<Board>) {
    if !givens_consistent(b) {
        return;
    }
    rec(b, cap, count, first);
}

fn rec(b: &mut Board, cap: u32, count: &mut u32, first: &mut Option<Board>) -> bool {
    let Some((r, c)) = b.empty_cells().next() else {
        *count += 1;
        if first.is_none() {
            *first = Some(b.clone());
        }
        return *count >= cap;
    };
    for v in 1..=b.side() as u8 {
        if !b.conflicts(r, c, v) {
            b.set(r, c, v);
            let stop = rec(b, cap, count, first);
            b.set(r, c, 0);
            if stop {
                return true;
            }
        }
    }
    false
}

/// What the seed's listing (reading-order `find_empty`, digits 1..=N in
/// order, write / recurse / clear) does on a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListingWalk {
    /// Digits written.
    pub writes: u64,
    /// Writes cleared again on failure.
    pub undos: u64,
    /// Whether the walk found a solution (meaningless if `!finished`).
    pub solved: bool,
    /// False if the walk stopped at `max_writes` before finishing.
    pub finished: bool,
}

/// Runs the seed's reading-order listing on a copy of `board`, stopping
/// after `max_writes` writes.
pub fn walk_listing(board: &Board, max_writes: u64) -> ListingWalk {
    let mut w = ListingWalk { writes: 0, undos: 0, solved: false, finished: true };
    fn go(b: &mut Board, w: &mut ListingWalk, max: u64) -> bool {
        let Some((r, c)) = b.empty_cells().next() else { return true };
        for v in 1..=b.side() as u8 {
            if !b.conflicts(r, c, v) {
                if w.writes >= max {
                    w.finished = false;
                    return false;
                }
                b.set(r, c, v);
                w.writes += 1;
                if go(b, w, max) {
                    return true;
                }
                if !w.finished {
                    return false;
                }
                b.set(r, c, 0);
                w.undos += 1;
            }
        }
        false
    }
    w.solved = go(&mut board.clone(), &mut w, max_writes);
    w
}
