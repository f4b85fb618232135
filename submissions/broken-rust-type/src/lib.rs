//! broken-rust-type: a Rust submission with a type error.
//!
//! Expected: status build_error, the compiler's "mismatched types" error in
//! the message; no test runs.

use sudoku_lab::{Board, Sudoku};

/// A solver that does not compile.
pub struct Broken;

impl Sudoku for Broken {
    fn legal(&self, board: &Board, r: usize, c: usize, v: u8) -> bool {
        !board.conflicts(r, c, v)
    }

    fn find_empty(&self, board: &Board) -> Option<(usize, usize)> {
        board.empty_cells().next()
    }

    fn solve(&self, board: &mut Board) -> bool {
        // The type error: a count is not a bool.
        let filled: bool = board.filled();
        filled
    }
}

sudoku_lab::export_c_abi!(Broken);
