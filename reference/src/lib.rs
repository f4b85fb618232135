//! The grader's reference solver for the Sudoku lab.
//!
//! It answers the questions a case needs: does a board have a solution, is
//! it unique ([`count_solutions`] up to a cap, 2 meaning "two or more"), and
//! what is one ([`solve`], [`count_and_solve`]). It implements the lab's
//! [`Sudoku`] trait itself ([`Reference`]), so the grader's checks can run on
//! it exactly as on a student's code.
//!
//! It is the lab's in-place backtracker (write, recurse, clear), made fast
//! by three habits a student can follow: candidate bitmasks per row, column
//! and box, kept up to date on every write and clear instead of rescanning
//! the board; the cell with the fewest candidates first; and propagation of
//! naked and hidden singles at each node, cleared again on the way back (see
//! the `solver` module). It works for box sizes 2..=5 (boards of side 4 to
//! 25) and never panics: a board whose givens clash has 0 solutions.
//!
//! [`walk_listing`] replays the seed's plain listing instead (first empty
//! cell in reading order, digits in ascending order) and counts its writes
//! and undos, so a case can say how hard a board is for a student's listing.
#![deny(missing_docs)]

mod listing;
mod rules;
mod solver;

pub use listing::{ListingWalk, walk_listing};
pub use rules::BoardRules;
use sudoku_lab::{Board, Sudoku};

/// The reference solver; implements the lab trait.
///
/// `legal` is the lab's rule, `find_empty` the first empty cell in reading
/// order (so it is also a valid answer where any empty cell would do), and
/// `solve` the fast solver of this crate.
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

/// Solves `board` in place and returns true, or returns false and leaves the
/// board unchanged if it has no solution.
pub fn solve(board: &mut Board) -> bool {
    match solver::count(board, 1) {
        (_, Some(cells)) => {
            board.cells_mut().copy_from_slice(&cells);
            true
        }
        (_, None) => false,
    }
}

/// Counts the solutions of `board` up to `cap`: `cap = 2` answers 0, 1, or
/// 2 for "two or more"; `cap = 0` answers 0 without searching.
pub fn count_solutions(board: &Board, cap: u32) -> u32 {
    solver::count(board, cap).0
}

/// Counts the solutions of `board` up to `cap` (as [`count_solutions`]) and
/// returns the first one found, if any (`None` also when `cap = 0`).
pub fn count_and_solve(board: &Board, cap: u32) -> (u32, Option<Board>) {
    let (count, first) = solver::count(board, cap);
    let first = first.and_then(|cells| Board::from_cells(board.n(), cells).ok());
    (count, first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn campus() -> Board {
        let cells = vec![1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0];
        Board::from_cells(2, cells).expect("a valid board")
    }

    #[test]
    fn solves_the_campus_board_in_place() {
        let mut b = campus();
        assert!(Reference.solve(&mut b));
        assert_eq!(b.cells(), &[1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]);
    }

    #[test]
    fn leaves_an_unsolvable_board_unchanged() {
        // Consistent givens, but r1c2 can hold nothing: 2 and 3 are in its
        // row, 1 and 4 in its column.
        let cells = vec![2, 0, 3, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0];
        let start = Board::from_cells(2, cells).expect("a valid board");
        let mut b = start.clone();
        assert!(!solve(&mut b));
        assert_eq!(b, start);
        assert_eq!(count_and_solve(&start, 2), (0, None));
    }

    #[test]
    fn find_empty_is_the_first_in_reading_order() {
        assert_eq!(Reference.find_empty(&campus()), Some((0, 1)));
        let mut full = campus();
        assert!(solve(&mut full));
        assert_eq!(Reference.find_empty(&full), None);
    }

    #[test]
    fn legal_is_the_lab_rule() {
        let b = campus();
        assert!(Reference.legal(&b, 0, 1, 2));
        assert!(!Reference.legal(&b, 0, 1, 1), "1 is in the row");
        assert!(!Reference.legal(&b, 0, 1, 3), "3 is in the column");
        assert!(!Reference.legal(&b, 1, 0, 4), "4 is in the box");
    }

    #[test]
    fn counts_and_returns_a_solution() {
        let empty = Board::empty(2).expect("n = 2 is supported");
        let (count, first) = count_and_solve(&empty, 2);
        assert_eq!(count, 2);
        let first = first.expect("a solution");
        assert!(first.is_full());
        assert_eq!(count_and_solve(&empty, 0), (0, None));
    }

    #[test]
    fn campus_walk_makes_no_undo() {
        let walk = walk_listing(&campus(), 1_000);
        assert_eq!(
            walk,
            ListingWalk {
                writes: 8,
                undos: 0,
                solved: true,
                finished: true
            }
        );
        // The write budget is a hard stop.
        let cut = walk_listing(&campus(), 3);
        assert_eq!((cut.writes, cut.finished), (3, false));
    }
}
