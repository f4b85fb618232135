//! A picture of a board for a person: rows with box separators, `.` for an
//! empty cell, and the cell a failed check is about marked as `[v]` (red on
//! a terminal). Values outside the board's range are shown as they are.

use colored::Colorize;
use sudoku_lab::Board;

/// Renders `board`, marking `cell` (row, column; 0-based) if given. With
/// `color`, the marked cell is red; without, the picture is plain text.
pub fn render(board: &Board, cell: Option<(usize, usize)>, color: bool) -> String {
    let side = board.side();
    // The rule between bands of boxes: a '+' under every '|' of a row.
    let rule: String = row(board, 0, None, false)
        .chars()
        .map(|ch| if ch == '|' { '+' } else { '-' })
        .collect();
    let mut out = String::new();
    for r in 0..side {
        if r > 0 && r % board.n() == 0 {
            out.push_str(&rule);
            out.push('\n');
        }
        out.push_str(&row(board, r, cell, color));
        out.push('\n');
    }
    out
}

/// One row as " a b | c d": every token is preceded and followed by a
/// one-character slot, so marking a cell replaces those two slots with
/// brackets and keeps the columns aligned.
fn row(board: &Board, r: usize, cell: Option<(usize, usize)>, color: bool) -> String {
    let side = board.side();
    let width = if side > 9 { 2 } else { 1 };
    let mut row = String::from(" ");
    for c in 0..side {
        let value = board.get(r, c);
        let token = if value == 0 {
            format!("{:>width$}", ".")
        } else {
            format!("{value:>width$}")
        };
        if cell == Some((r, c)) {
            row.pop();
            let text = format!("[{token}]");
            if color {
                row.push_str(&text.red().bold().to_string());
            } else {
                row.push_str(&text);
            }
        } else {
            row.push_str(&token);
            row.push(' ');
        }
        if c + 1 < side && (c + 1) % board.n() == 0 {
            row.push_str("| ");
        }
    }
    row.trim_end().to_string()
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
            render(&campus(), None, false),
            " 1 . | . 4\n . 4 | 1 .\n-----+----\n 2 . | . 3\n . 3 | 2 .\n"
        );
    }

    #[test]
    fn marks_a_cell_without_moving_the_columns() {
        let picture = render(&campus(), Some((1, 2)), false);
        assert_eq!(picture.lines().nth(1), Some(" . 4 |[1].")); // r2c3
        let picture = render(&campus(), Some((0, 0)), false);
        assert_eq!(picture.lines().next(), Some("[1]. | . 4"));
    }

    #[test]
    fn wide_boards_pad_cells_and_show_out_of_range_values() {
        let mut board = Board::empty(4).unwrap();
        board.set(0, 0, 16);
        board.set(0, 1, 17);
        let picture = render(&board, Some((0, 1)), false);
        assert!(picture.starts_with(" 16[17] .  . | "), "{picture}");
    }
}
