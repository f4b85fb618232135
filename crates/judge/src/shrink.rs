//! The search of a shrink, without the runs: which smaller board to try
//! next when a failing `solve` is shrunk to the smallest board on which it
//! still fails the same way (as property-based testing tools shrink a
//! failing input).
//!
//! Starting from the failing puzzle, cells are filled in — from the
//! reference solution when the puzzle has one (so it stays solvable), else
//! with a digit legal there (a puzzle with no solution keeps none when
//! givens are added; the reference count confirms it) — and a fill is kept
//! while the student's `solve` still fails with the same verdict and the
//! same failed check. Fills are tried in halving groups, then one cell at a
//! time until no single fill keeps the failure: a local minimum.
//!
//! [`Shrinker`] is the search as a state machine: [`Shrinker::next_board`] gives
//! the next board to try, [`Shrinker::keep`] says how its run went. The
//! driver runs each board as an ordinary test and keeps the budget: the
//! grader's `runner::shrink` in the box, the browser check's engine in a
//! Pyodide worker.

use sudoku_lab::Board;
use sudoku_reference::BoardRules;

use crate::case::{Case, Solutions};
use crate::verdict::Function;

/// The search for the smallest failing board of one case.
#[derive(Clone, Debug)]
pub struct Shrinker {
    case: Case,
    board: Board,
    original_empty: usize,
    /// How many cells a group fills in this round.
    chunk: usize,
    /// The empty cells at the start of this round, when a round is on.
    round: Option<Vec<(usize, usize)>>,
    /// The next group of the round.
    group: usize,
    /// Some fill of this round was kept.
    kept_any: bool,
    /// The board handed out by `next`, waiting for `keep`.
    trying: Option<Board>,
    kept: usize,
    done: bool,
}

impl Shrinker {
    /// The search from `case`'s puzzle.
    pub fn new(case: &Case) -> Shrinker {
        let original_empty = case.puzzle.empty_cells().count();
        Shrinker {
            case: case.clone(),
            board: case.puzzle.clone(),
            original_empty,
            chunk: (original_empty / 2).max(1),
            round: None,
            group: 0,
            kept_any: false,
            trying: None,
            kept: 0,
            done: false,
        }
    }

    /// The next board to try, or `None` when the search is over (no empty
    /// cell left, or no single fill kept the failure). A board handed out
    /// and not answered by [`Shrinker::keep`] counts as not kept.
    pub fn next_board(&mut self) -> Option<Board> {
        self.trying = None;
        while !self.done {
            let empties = match &self.round {
                Some(empties) => empties,
                None => {
                    let empties: Vec<(usize, usize)> = self.board.empty_cells().collect();
                    if empties.is_empty() {
                        self.done = true;
                        return None;
                    }
                    self.kept_any = false;
                    self.group = 0;
                    self.round.insert(empties)
                }
            };
            let start = self.group * self.chunk;
            if start < empties.len() {
                let end = (start + self.chunk).min(empties.len());
                self.group += 1;
                if let Some(candidate) = fill(&self.case, &self.board, &empties[start..end]) {
                    self.trying = Some(candidate.clone());
                    return Some(candidate);
                }
                continue;
            }
            if self.chunk == 1 && !self.kept_any {
                self.done = true;
                return None;
            }
            self.chunk = (self.chunk / 2).max(1);
            self.round = None;
        }
        None
    }

    /// How the board [`Shrinker::next_board`] gave last ran: `same` when the
    /// student's `solve` failed on it with the same verdict and check, and
    /// the search goes on from it.
    pub fn keep(&mut self, same: bool) {
        if let Some(board) = self.trying.take() {
            if same {
                self.board = board;
                self.kept_any = true;
                self.kept += 1;
            }
        }
    }

    /// The smallest failing board kept so far (the case's puzzle until a
    /// fill is kept).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// How many fills were kept: none means the puzzle is already minimal.
    pub fn kept(&self) -> usize {
        self.kept
    }

    /// The empty cells of the case's own puzzle.
    pub fn original_empty(&self) -> usize {
        self.original_empty
    }
}

/// `case` with `puzzle` in place of its own, answers recounted.
pub fn smaller_case(case: &Case, puzzle: &Board) -> Case {
    let mut small = case.clone();
    small.puzzle = puzzle.clone();
    small.tests = vec![Function::Solve];
    small.solutions = Some(Solutions::from_count(sudoku_reference::count_solutions(
        puzzle, 2,
    )));
    small
}

/// `board` with the empty cells of `group` filled: from the solution if the
/// case has one, else with the smallest digit legal there; `None` if no
/// cell of the group changes.
pub fn fill(case: &Case, board: &Board, group: &[(usize, usize)]) -> Option<Board> {
    let mut filled = board.clone();
    let mut changed = false;
    for &(r, c) in group {
        if filled.get(r, c) != 0 {
            continue;
        }
        let digit = match &case.solution {
            Some(solution) => Some(solution.get(r, c)),
            None => (1..=filled.side() as u8).find(|&v| !filled.conflicts(r, c, v)),
        };
        if let Some(v) = digit {
            filled.set(r, c, v);
            changed = true;
        }
    }
    changed.then_some(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::builtin;

    /// A stand-in for a student's solve: "fails" while `cell` is empty.
    fn shrink_while_empty(case: &Case, cell: (usize, usize)) -> (Board, usize) {
        let mut shrinker = Shrinker::new(case);
        let mut runs = 0;
        while let Some(board) = shrinker.next_board() {
            runs += 1;
            shrinker.keep(board.get(cell.0, cell.1) == 0);
        }
        (shrinker.board().clone(), runs)
    }

    #[test]
    fn the_search_ends_with_only_the_failing_cell_empty() {
        let cases = builtin();
        let case = &cases.cases[0];
        let cell = case.puzzle.empty_cells().last().expect("an empty cell");
        let (board, runs) = shrink_while_empty(case, cell);
        assert_eq!(board.empty_cells().collect::<Vec<_>>(), vec![cell]);
        assert!(runs > 0);
    }

    #[test]
    fn nothing_kept_leaves_the_puzzle() {
        let cases = builtin();
        let case = &cases.cases[0];
        let mut shrinker = Shrinker::new(case);
        while shrinker.next_board().is_some() {
            shrinker.keep(false);
        }
        assert_eq!(shrinker.kept(), 0);
        assert_eq!(shrinker.board(), &case.puzzle);
    }
}
