//! rust-mountinfo: a macro that takes `include_str` as an identifier pastes
//! `/proc/self/mountinfo` in at compile time (no text check sees
//! `include_str!`), which names the host's mounts (where the cases and the
//! submissions are), and `solve` prints it.
//! Expected: build_error (no build's view holds `/proc`: the box's own
//! `/proc` is its init's alone, and without a mount namespace Landlock
//! refuses the host's); nothing of the host's mounts in the report.

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
        print!("{STOLEN}");
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

/// Calls the macro it is given (an identifier) on a literal: the text
/// never shows `include_str!`.
macro_rules! pull {
    ($m:ident, $path:literal) => {
        $m!($path)
    };
}

/// The build's mounts, pasted in at compile time.
pub static STOLEN: &str = pull!(include_str, "/proc/self/mountinfo");
