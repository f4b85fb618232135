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
        let empty = board.cells().iter().filter(|&&v| v == 0).count();
        panic!("the student's solve gave up with {empty} empty cells left");
    }
}

sudoku_lab::export_c_abi!(Panicky);
