//! rust-box-column-from-row: the listing, but `legal`'s box loop takes its
//! columns from the box's first row: `for j in br..br + n`, where `bc` was
//! meant. legal checks the wrong box whenever the cell's box is off the
//! diagonal; `bc` is left unused and rustc says so ("unused variable:
//! `bc`"), which `grader check` shows beside legal's failure.
//!
//! Expected: legal wrong, find_empty pass, solve wrong.

use sudoku_lab::{Board, Sudoku};

/// The listing: first empty cell in reading order, digits in order, clear
/// on failure.
pub struct Listing;

impl Sudoku for Listing {
    fn legal(&self, board: &Board, r: usize, c: usize, v: u8) -> bool {
        let side = board.side();
        if (0..side).any(|i| board.get(r, i) == v || board.get(i, c) == v) {
            return false;
        }
        let n = board.n();
        let (br, bc) = (r / n * n, c / n * n);
        for i in br..br + n {
            for j in br..br + n {
                if board.get(i, j) == v {
                    return false;
                }
            }
        }
        true
    }

    fn find_empty(&self, board: &Board) -> Option<(usize, usize)> {
        let side = board.side();
        (0..side)
            .flat_map(|i| (0..side).map(move |j| (i, j)))
            .find(|&(i, j)| board.get(i, j) == 0)
    }

    fn solve(&self, board: &mut Board) -> bool {
        let Some((r, c)) = self.find_empty(board) else {
            return true;
        };
        for v in 1..=board.side() as u8 {
            if self.legal(board, r, c, v) {
                board.set(r, c, v);
                if self.solve(board) {
                    return true;
                }
                board.set(r, c, 0);
            }
        }
        false
    }
}

sudoku_lab::export_c_abi!(Listing);
