//! The seed's plain listing, replayed and counted.
//!
//! The lab's listing takes the first zero in reading order, tries the digits
//! `1..=N` in ascending order, and for each legal one writes it, recurses,
//! and clears it on failure. [`walk_listing`] visits exactly the same nodes
//! in the same order, so its counts of writes and undos say how much work a
//! student's listing does on a board (the campus board: no undo at all).
//!
//! Two shortcuts keep it fast without changing a single visited node: the
//! legality test reads row, column and box bitmasks instead of scanning the
//! board, and the "first zero" is looked up in the list of the board's
//! empty cells, since the walk always fills them in reading order.

use sudoku_lab::Board;

use crate::rules::BoardRules;

/// What the seed's listing (reading-order `find_empty`, digits 1..=N in
/// order, write / recurse / clear) does on a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListingWalk {
    /// Digits written.
    pub writes: u64,
    /// Writes cleared again on failure.
    pub undos: u64,
    /// Whether the walk found a solution (meaningless if `!finished`).
    pub solved: bool,
    /// False if the walk stopped at `max_writes` before finishing.
    pub finished: bool,
}

/// Runs the seed's reading-order listing on a copy of `board`, stopping
/// before the write that would exceed `max_writes` writes.
///
/// Clashing givens are kept as they are (the listing does not check them),
/// and a value above `N` is a filled cell that matches no digit, as in the
/// seed's code.
pub fn walk_listing(board: &Board, max_writes: u64) -> ListingWalk {
    let mut walk = Walk::new(board, max_writes);
    let solved = walk.go(0);
    ListingWalk {
        writes: walk.writes,
        undos: walk.undos,
        solved,
        finished: walk.finished,
    }
}

/// The listing's state: masks of the digits on the board per unit.
struct Walk {
    n: usize,
    side: usize,
    rows: Vec<u32>,
    cols: Vec<u32>,
    boxes: Vec<u32>,
    /// The empty cells of the start board as `(row, column)`, reading order.
    empties: Vec<(usize, usize)>,
    writes: u64,
    undos: u64,
    max_writes: u64,
    finished: bool,
}

impl Walk {
    fn new(board: &Board, max_writes: u64) -> Walk {
        let (n, side) = (board.n(), board.side());
        let mut walk = Walk {
            n,
            side,
            rows: vec![0; side],
            cols: vec![0; side],
            boxes: vec![0; side],
            empties: board.empty_cells().collect(),
            writes: 0,
            undos: 0,
            max_writes,
            finished: true,
        };
        for r in 0..side {
            for c in 0..side {
                let v = usize::from(board.get(r, c));
                if (1..=side).contains(&v) {
                    // `|=`, not a toggle: a clashing given sets a bit twice.
                    walk.mark(r, c, 1 << (v - 1));
                }
            }
        }
        walk
    }

    fn box_of(&self, r: usize, c: usize) -> usize {
        r / self.n * self.n + c / self.n
    }

    /// Records digit `bit` at `(r, c)` in the masks.
    fn mark(&mut self, r: usize, c: usize, bit: u32) {
        let b = self.box_of(r, c);
        self.rows[r] |= bit;
        self.cols[c] |= bit;
        self.boxes[b] |= bit;
    }

    /// Removes digit `bit` at `(r, c)` from the masks; only for a digit the
    /// walk wrote, which was legal, so no other cell of the units holds it.
    fn unmark(&mut self, r: usize, c: usize, bit: u32) {
        let b = self.box_of(r, c);
        self.rows[r] &= !bit;
        self.cols[c] &= !bit;
        self.boxes[b] &= !bit;
    }

    /// The listing's `solve` with the first `k` empty cells filled; true iff
    /// it found a solution.
    fn go(&mut self, k: usize) -> bool {
        // find_empty: the first zero in reading order.
        let Some(&(r, c)) = self.empties.get(k) else {
            return true;
        };
        let used = self.rows[r] | self.cols[c] | self.boxes[self.box_of(r, c)];
        for v in 0..self.side {
            let bit = 1 << v;
            if used & bit != 0 {
                continue; // not legal
            }
            if self.writes >= self.max_writes {
                self.finished = false;
                return false;
            }
            self.mark(r, c, bit); // write
            self.writes += 1;
            if self.go(k + 1) {
                return true;
            }
            if !self.finished {
                return false;
            }
            self.unmark(r, c, bit); // clear
            self.undos += 1;
        }
        false
    }
}
