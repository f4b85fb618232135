//! rust-const-eval-loop: a constant whose evaluation never ends: rustc spins
//! for the whole build time limit (and, with a target folder shared by all
//! students, held cargo's lock so that the others' builds timed out).
//! Expected (with the box: a build clock and target folder per student):
//! build_error (the build took too long); the neighbours unharmed.

#![allow(long_running_const_eval)]

/// Never finishes evaluating.
pub const FOREVER: u64 = {
    let mut i: u64 = 0;
    loop {
        i = i.wrapping_add(1);
        if i == 0 {
            break i;
        }
    }
};

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
        let (br, bc) = (r / board.n() * board.n(), c / board.n() * board.n());
        (br..br + board.n()).all(|i| (bc..bc + board.n()).all(|j| board.get(i, j) != v))
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
