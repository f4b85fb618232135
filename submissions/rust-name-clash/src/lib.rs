//! rust-name-clash: the listing's three functions written as free
//! functions, then exported with `sudoku_lab::export_c_abi!`.
//!
//! Bug: `export_c_abi!` defines the C functions `legal`, `find_empty` and
//! `solve` at the crate's top level; the student's own free functions of
//! the same names clash with them (E0428), so the crate does not build.
//! Expected: status build_error, no test runs.

use sudoku_lab::{Board, Sudoku};

pub fn legal(board: &Board, r: usize, c: usize, v: u8) -> bool {
    let side = board.side();
    if (0..side).any(|i| board.get(r, i) == v || board.get(i, c) == v) {
        return false;
    }
    let (br, bc) = (r / board.n() * board.n(), c / board.n() * board.n());
    (br..br + board.n()).all(|i| (bc..bc + board.n()).all(|j| board.get(i, j) != v))
}

pub fn find_empty(board: &Board) -> Option<(usize, usize)> {
    let side = board.side();
    (0..side)
        .flat_map(|i| (0..side).map(move |j| (i, j)))
        .find(|&(i, j)| board.get(i, j) == 0)
}

pub fn solve(board: &mut Board) -> bool {
    let Some((r, c)) = find_empty(board) else {
        return true;
    };
    for v in 1..=board.side() as u8 {
        if legal(board, r, c, v) {
            board.set(r, c, v);
            if solve(board) {
                return true;
            }
            board.set(r, c, 0);
        }
    }
    false
}

pub struct Mine;

impl Sudoku for Mine {
    fn legal(&self, board: &Board, r: usize, c: usize, v: u8) -> bool {
        legal(board, r, c, v)
    }

    fn find_empty(&self, board: &Board) -> Option<(usize, usize)> {
        find_empty(board)
    }

    fn solve(&self, board: &mut Board) -> bool {
        solve(board)
    }
}

sudoku_lab::export_c_abi!(Mine);
