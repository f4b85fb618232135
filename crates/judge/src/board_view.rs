//! A board as every report shows it: its cells and the cell a finding is
//! about, as data ([`BoardView`]). The JSON report carries it so, the HTML
//! page draws a grid from it, and the text views draw a picture from it:
//! rows with box separators, `.` for an empty cell, the marked cell as
//! `[v]`, values outside the board's range shown as they are
//! ([`BoardView::picture`]), and with row and column numbers counted from 0
//! as the messages count them ([`BoardView::labelled`]).
//!
//! A view read back from a report may be anything: every method draws
//! what is there (a ragged row, a mark off the board, a box size that does
//! not divide the side) without panicking.

use serde::{Deserialize, Serialize};
use sudoku_lab::Board;

/// A board's cells and the cell in question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(deny_unknown_fields))]
pub struct BoardView {
    /// The box size: the board has `n * n` rows of `n * n` cells.
    pub n: usize,
    /// The rows of cells, `0` for an empty cell.
    pub rows: Vec<Vec<u8>>,
    /// The cell the finding is about, `[row, col]` counted from 0; absent
    /// when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<[usize; 2]>,
}

/// One line of a picture: its text, and where in it (a range of
/// characters) the marked cell's `[v]` is, for a view that colours it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PictureLine {
    /// The line's text.
    pub text: String,
    /// The marked cell's characters, `[start, end)` counted in chars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<[usize; 2]>,
}

impl PictureLine {
    /// The line cut around its mark: before, the mark, after (the mark
    /// empty when there is none).
    pub fn parts(&self) -> (String, String, String) {
        let chars: Vec<char> = self.text.chars().collect();
        match self.mark {
            Some([start, end]) if start <= end && end <= chars.len() => (
                chars[..start].iter().collect(),
                chars[start..end].iter().collect(),
                chars[end..].iter().collect(),
            ),
            _ => (self.text.clone(), String::new(), String::new()),
        }
    }
}

impl BoardView {
    /// `board`, with `cell` (row, column; 0-based) marked when given.
    pub fn of(board: &Board, cell: Option<(usize, usize)>) -> BoardView {
        let side = board.side();
        BoardView {
            n: board.n(),
            rows: (0..side)
                .map(|r| (0..side).map(|c| board.get(r, c)).collect())
                .collect(),
            mark: cell.map(|(r, c)| [r, c]),
        }
    }

    /// The number of rows (and of cells in a row).
    pub fn side(&self) -> usize {
        self.rows.len()
    }

    /// The cells in row order.
    pub fn cells(&self) -> Vec<u8> {
        self.rows.iter().flatten().copied().collect()
    }

    /// Whether a box line falls after column (or row) `i` of `len`.
    fn box_edge(&self, i: usize, len: usize) -> bool {
        self.n > 0 && i + 1 < len && (i + 1) % self.n == 0
    }

    /// One row as " a b | c d": every token is preceded and followed by a
    /// one-character slot, so marking a cell replaces those two slots with
    /// brackets and keeps the columns aligned. Returns the text, the
    /// marked cell's character range, and where each cell's token ends.
    fn row(&self, r: usize) -> (String, Option<[usize; 2]>, Vec<usize>) {
        let row = &self.rows[r];
        let width = if self.side() > 9 { 2 } else { 1 };
        let mut text = String::from(" ");
        let mut mark = None;
        let mut ends = Vec::new();
        for (c, &value) in row.iter().enumerate() {
            let token = if value == 0 {
                format!("{:>width$}", ".")
            } else {
                format!("{value:>width$}")
            };
            if self.mark == Some([r, c]) {
                text.pop();
                let start = text.chars().count();
                text.push_str(&format!("[{token}]"));
                mark = Some([start, text.chars().count()]);
                ends.push(text.chars().count() - 2);
            } else {
                text.push_str(&token);
                ends.push(text.chars().count() - 1);
                text.push(' ');
            }
            if self.box_edge(c, row.len()) {
                text.push_str("| ");
            }
        }
        let trimmed = text.trim_end().to_string();
        (trimmed, mark, ends)
    }

    /// The picture's lines, without numbers.
    fn lines(&self) -> Vec<PictureLine> {
        let mut out = Vec::new();
        for r in 0..self.side() {
            if r > 0 && self.n > 0 && r % self.n == 0 {
                let plain = BoardView {
                    mark: None,
                    ..self.clone()
                };
                let (first, _, _) = plain.row(0);
                out.push(PictureLine {
                    text: first
                        .chars()
                        .map(|ch| if ch == '|' { '+' } else { '-' })
                        .collect(),
                    mark: None,
                });
            }
            let (text, mark, _) = self.row(r);
            out.push(PictureLine { text, mark });
        }
        out
    }

    /// The board as plain text, one line per row, box rules between bands
    /// of boxes, the marked cell as `[v]`.
    pub fn picture(&self) -> String {
        self.lines().into_iter().map(|l| l.text + "\n").collect()
    }

    /// The picture with the row numbers on the left and the column numbers
    /// on top, counted from 0 as the messages count them, so "(row 2,
    /// col 1)" can be found at a glance.
    pub fn labelled(&self) -> Vec<PictureLine> {
        const LEFT: usize = 4;
        let mut out = Vec::new();
        if self.side() > 0 {
            let (_, _, ends) = BoardView {
                mark: None,
                ..self.clone()
            }
            .row(0);
            let mut header = String::new();
            for (col, end) in ends.into_iter().enumerate() {
                let label = col.to_string();
                let start = (end + 1).saturating_sub(label.len());
                while header.chars().count() < start {
                    header.push(' ');
                }
                if header.chars().count() == start {
                    header.push_str(&label);
                }
            }
            out.push(PictureLine {
                text: format!("{:LEFT$}{header}", ""),
                mark: None,
            });
        }
        let mut row = 0;
        for line in self.lines() {
            if line.text.starts_with('-') {
                out.push(PictureLine {
                    text: format!("{:LEFT$}{}", "", line.text),
                    mark: None,
                });
            } else {
                out.push(PictureLine {
                    text: format!("{row:>3} {}", line.text),
                    mark: line.mark.map(|[a, b]| [a + LEFT, b + LEFT]),
                });
                row += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn campus() -> Board {
        Board::from_cells(2, vec![1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0]).unwrap()
    }

    #[test]
    fn draws_boxes_and_empties() {
        assert_eq!(
            BoardView::of(&campus(), None).picture(),
            " 1 . | . 4\n . 4 | 1 .\n-----+----\n 2 . | . 3\n . 3 | 2 .\n"
        );
    }

    #[test]
    fn marks_a_cell_without_moving_the_columns() {
        let view = BoardView::of(&campus(), Some((1, 2)));
        assert_eq!(
            view.picture(),
            " 1 . | . 4\n . 4 |[1].\n-----+----\n 2 . | . 3\n . 3 | 2 .\n"
        );
        let labelled = view.labelled();
        let text: Vec<&str> = labelled.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            text,
            [
                "     0 1   2 3",
                "  0  1 . | . 4",
                "  1  . 4 |[1].",
                "    -----+----",
                "  2  2 . | . 3",
                "  3  . 3 | 2 ."
            ]
        );
        let (before, mark, after) = labelled[2].parts();
        assert_eq!(
            (before.as_str(), mark.as_str(), after.as_str()),
            ("  1  . 4 |", "[1]", ".")
        );
    }

    #[test]
    fn wide_boards_pad_cells_and_show_out_of_range_values() {
        let mut cells = vec![0; 256];
        cells[0] = 16;
        cells[15] = 17;
        let board = Board::from_cells_unchecked_values(4, cells).unwrap();
        let view = BoardView::of(&board, Some((0, 1)));
        assert!(
            view.picture().starts_with(" 16[ .] .  . | "),
            "{}",
            view.picture()
        );
        assert!(view.picture().lines().next().unwrap().ends_with(" 17"));
        let header = &view.labelled()[0].text;
        assert!(header.ends_with("14 15"), "{header:?}");
    }

    #[test]
    fn a_forged_view_draws_without_panicking() {
        let forged = BoardView {
            n: 0,
            rows: vec![vec![1, 2, 3], vec![], vec![200]],
            mark: Some([7, 9]),
        };
        assert_eq!(forged.picture(), " 1 2 3\n\n 200\n");
        assert_eq!(forged.labelled().len(), 4);
        let json = serde_json::to_string(&BoardView::of(&campus(), Some((0, 1)))).unwrap();
        assert_eq!(
            json,
            r#"{"n":2,"rows":[[1,0,0,4],[0,4,1,0],[2,0,0,3],[0,3,2,0]],"mark":[0,1]}"#
        );
    }
}
