//! rust-fixed-9x9: the listing as an impl of `sudoku_lab::Sudoku`, written
//! for the 9x9 the learner tried first.
//!
//! Bug: 9 and 3 are written into the code instead of `board.side()` and
//! `board.n()`: every 9x9 passes; on a 4x4, `board.get(r, 4)` panics (off
//! the board); a 16x16 is searched in its top-left 9x9 only.
//! Expected: `grader check` says "your code assumes a 9x9 board (n = 3)",
//! and the panic names this file and line.

use sudoku_lab::{Board, Sudoku};

/// The listing with a fixed size.
pub struct Fixed;

impl Sudoku for Fixed {
    fn legal(&self, board: &Board, r: usize, c: usize, v: u8) -> bool {
        if (0..9).any(|i| board.get(r, i) == v || board.get(i, c) == v) {
            return false;
        }
        let (br, bc) = (3 * (r / 3), 3 * (c / 3));
        (br..br + 3).all(|i| (bc..bc + 3).all(|j| board.get(i, j) != v))
    }

    fn find_empty(&self, board: &Board) -> Option<(usize, usize)> {
        (0..9)
            .flat_map(|i| (0..9).map(move |j| (i, j)))
            .find(|&(i, j)| board.get(i, j) == 0)
    }

    fn solve(&self, board: &mut Board) -> bool {
        let Some((r, c)) = self.find_empty(board) else {
            return true;
        };
        for v in 1..=9 {
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

sudoku_lab::export_c_abi!(Fixed);
