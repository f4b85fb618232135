//! The lab's rule, spelled out for people: cell and unit names ("(row 1,
//! col 2)", "the box of rows 0-1, cols 0-1"), where a digit clashes, and how
//! many digits a cell accepts. Rows and columns count from 0 everywhere, in
//! code and in messages, as in the lab's listing and its C header.

use sudoku_lab::Board;
use sudoku_reference::BoardRules;

/// A cell in the lab's terms: `(row 1, col 2)`, counted from 0.
pub(crate) fn cell(r: usize, c: usize) -> String {
    format!("(row {r}, col {c})")
}

/// The box of `(r, c)` in the lab's terms: `the box of rows 0-1, cols 2-3`.
pub(crate) fn box_name(n: usize, r: usize, c: usize) -> String {
    let (br, bc) = (r / n * n, c / n * n);
    format!(
        "the box of rows {br}-{}, cols {bc}-{}",
        br + n - 1,
        bc + n - 1
    )
}

/// One of the three groups a digit may not repeat in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    Row,
    Column,
    Box,
}

impl Unit {
    /// "row 1", "column 2" or "the box of rows 0-1, cols 0-1" for the unit
    /// of `(r, c)`.
    pub(crate) fn name(self, n: usize, r: usize, c: usize) -> String {
        match self {
            Unit::Row => format!("row {r}"),
            Unit::Column => format!("column {c}"),
            Unit::Box => box_name(n, r, c),
        }
    }
}

/// Every cell other than `(r, c)` in the units of `(r, c)` that holds `v`:
/// the unit and the cell, rows first, then columns, then the box; a cell in
/// both the row and the box is listed for each.
pub(crate) fn clashes(board: &Board, r: usize, c: usize, v: u8) -> Vec<(Unit, (usize, usize))> {
    let side = board.side();
    let mut found = Vec::new();
    found.extend(
        (0..side)
            .filter(|&j| j != c && board.get(r, j) == v)
            .map(|j| (Unit::Row, (r, j))),
    );
    found.extend(
        (0..side)
            .filter(|&i| i != r && board.get(i, c) == v)
            .map(|i| (Unit::Column, (i, c))),
    );
    let (br, bc) = board.box_origin(r, c);
    for i in br..br + board.n() {
        for j in bc..bc + board.n() {
            if (i, j) != (r, c) && board.get(i, j) == v {
                found.push((Unit::Box, (i, j)));
            }
        }
    }
    found
}

/// How many digits the empty cell `(r, c)` accepts under the rule.
pub(crate) fn candidates(board: &Board, r: usize, c: usize) -> usize {
    (1..=board.side() as u8)
        .filter(|&v| !board.conflicts(r, c, v))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cells_boxes_and_clashes() {
        let b = Board::from_cells(2, vec![1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0]).unwrap();
        assert_eq!(cell(1, 2), "(row 1, col 2)");
        assert_eq!(box_name(2, 1, 1), "the box of rows 0-1, cols 0-1");
        assert_eq!(box_name(3, 4, 8), "the box of rows 3-5, cols 6-8");
        assert_eq!(Unit::Column.name(2, 1, 2), "column 2");
        // (0, 1) and 4: in row 0 at (0, 3), column 1 at (1, 1), and the box at (1, 1).
        assert_eq!(
            clashes(&b, 0, 1, 4),
            vec![
                (Unit::Row, (0, 3)),
                (Unit::Column, (1, 1)),
                (Unit::Box, (1, 1))
            ]
        );
        assert_eq!(clashes(&b, 0, 1, 2), vec![]);
        assert_eq!(candidates(&b, 0, 1), 1);
        assert_eq!(candidates(&b, 1, 0), 1);
    }
}
