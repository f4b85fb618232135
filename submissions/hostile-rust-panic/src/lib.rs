//! hostile-rust-panic: a Rust submission whose `solve` panics.
//!
//! `legal` and `find_empty` are the listing's. A panic cannot unwind out of
//! the `extern "C"` functions that `export_c_abi!` makes, so the process
//! aborts.
//! Expected: legal pass, find_empty pass, solve crash (SIGABRT, the panic
//! message in the output).

use sudoku_lab::{Board, Sudoku};

/// The listing, except that `solve` gives up loudly.
pub struct Panicky;

impl Sudoku for Panicky {
    fn legal(&self, board: &Board, r: usize, c: usize, v: u8) -> bool {
        !board.conflicts(r, c, v)
    }

    fn find_empty(&self, board: &Board) -> Option<(usize, usize)> {
        board.empty_cells().next()
    }

    fn solve(&self, board: &mut Board) -> bool {
        let empty = board.empty_cells().count();
        panic!("the student's solve gave up with {empty} empty cells left");
    }
}

sudoku_lab::export_c_abi!(Panicky);
