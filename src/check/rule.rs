//! The lab's rule, spelled out for people: cell and unit names (`r2c3`,
//! "box 1 (r1c1..r2c2)"), where a digit clashes, and how many digits a cell
//! accepts. Rows and columns are 0-based in code, 1-based in messages.

use sudoku_lab::Board;

/// A cell as people write it: `r2c3` for row 1, column 2 (0-based).
pub(crate) fn cell(r: usize, c: usize) -> String {
    format!("r{}c{}", r + 1, c + 1)
}

/// The box of `(r, c)` as people write it: `box 1 (r1c1..r2c2)`, boxes
/// numbered 1..=N in reading order.
pub(crate) fn box_name(n: usize, r: usize, c: usize) -> String {
    let (br, bc) = (r / n * n, c / n * n);
    format!(
        "box {} ({}..{})",
        (r / n) * n + c / n + 1,
        cell(br, bc),
        cell(br + n - 1, bc + n - 1)
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
    /// "row 2", "column 3" or "box 1 (r1c1..r2c2)" for the unit of `(r, c)`.
    pub(crate) fn name(self, n: usize, r: usize, c: usize) -> String {
        match self {
            Unit::Row => format!("row {}", r + 1),
            Unit::Column => format!("column {}", c + 1),
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
        assert_eq!(cell(1, 2), "r2c3");
        assert_eq!(box_name(2, 1, 1), "box 1 (r1c1..r2c2)");
        assert_eq!(box_name(3, 4, 8), "box 6 (r4c7..r6c9)");
        assert_eq!(Unit::Column.name(2, 1, 2), "column 3");
        // r1c2 and 4: in row 1 (r1c4), column 2 (r2c2) and box 1 (r2c2).
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
