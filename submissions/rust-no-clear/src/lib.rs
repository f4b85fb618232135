//! rust-no-clear: the seed's listing as an impl of `sudoku_lab::Sudoku`,
//! with the lab's warned-about bug: the cell is not cleared when the
//! recursive call fails, so a dead branch's digit stays behind as a fake
//! given.
//!
//! Expected: legal pass, find_empty pass, solve wrong ("still holds");
//! `grader check` names the first step that breaks the rule from the
//! board's recorded `set` calls.

use sudoku_lab::{Board, Sudoku};

/// The listing without its `board.set(r, c, 0)`.
pub struct NoClear;

impl Sudoku for NoClear {
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
                // The bug: no `board.set(r, c, 0)` here.
            }
        }
        false
    }
}

sudoku_lab::export_c_abi!(NoClear);
