//! broken-rust-type: a Rust submission with a type error.
//!
//! Expected: status build_error, the compiler's "mismatched types" error in
//! the message; no test runs.

use sudoku_lab::{Board, Sudoku};

/// A solver that does not compile.
pub struct Broken;

impl Sudoku for Broken {
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
        // The type error: a count is not a bool.
        let filled: bool = board.filled();
        filled
    }
}

sudoku_lab::export_c_abi!(Broken);
