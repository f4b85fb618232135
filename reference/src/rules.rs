//! The lab's rules on a [`Board`], for the grader's side only: the
//! reference solver, the judge and the runner use them; the lab crate
//! that students build against (`sudoku-lab`) does not carry them, so
//! that the kit hands out no part of the lab's answer.

use sudoku_lab::Board;

/// The lab's rules as methods of a [`Board`]: `use
/// sudoku_reference::BoardRules;` brings them into scope.
pub trait BoardRules {
    /// The empty cells as `(row, column)`, in reading order.
    fn empty_cells(&self) -> impl Iterator<Item = (usize, usize)> + '_;

    /// The top-left cell of the box holding `(r, c)`.
    fn box_origin(&self, r: usize, c: usize) -> (usize, usize);

    /// True iff digit `v` already sits in row `r`, column `c` or the box of
    /// `(r, c)`, not counting the cell `(r, c)` itself: the lab's rule, used
    /// by the grader to judge a student's `legal`.
    fn conflicts(&self, r: usize, c: usize, v: u8) -> bool;
}

impl BoardRules for Board {
    fn empty_cells(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let side = self.side();
        self.cells()
            .iter()
            .enumerate()
            .filter(|(_, v)| **v == 0)
            .map(move |(i, _)| (i / side, i % side))
    }

    fn box_origin(&self, r: usize, c: usize) -> (usize, usize) {
        let n = self.n();
        (r / n * n, c / n * n)
    }

    fn conflicts(&self, r: usize, c: usize, v: u8) -> bool {
        let (side, n) = (self.side(), self.n());
        let (br, bc) = self.box_origin(r, c);
        (0..side).any(|i| (i != c && self.get(r, i) == v) || (i != r && self.get(i, c) == v))
            || (br..br + n).any(|i| (bc..bc + n).any(|j| (i, j) != (r, c) && self.get(i, j) == v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflicts_follows_row_column_and_box() {
        // The campus board from the seed.
        let b = Board::from_cells(2, vec![1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0]).unwrap();
        // r1c2 (0-based (0,1)) accepts only 2.
        let legal: Vec<u8> = (1..=4).filter(|&v| !b.conflicts(0, 1, v)).collect();
        assert_eq!(legal, vec![2]);
        assert_eq!(b.box_origin(3, 1), (2, 0));
        assert_eq!(b.empty_cells().next(), Some((0, 1)));
    }
}
