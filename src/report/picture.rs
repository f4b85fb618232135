//! A picture of a board for a person: rows with box separators, `.` for an
//! empty cell, and the cell a failed check is about marked as `[v]`. Values
//! outside the board's range are shown as they are.
//!
//! The picture in the report model is plain text; the bracket is where the
//! marked cell is. Views colour it at their edge: [`paint`] for a terminal,
//! [`parse`] gives the HTML page the grid and the marked cell to draw.

use colored::Colorize;
use sudoku_lab::Board;

/// Renders `board` as plain text, marking `cell` (row, column; 0-based) if
/// given.
pub(crate) fn render(board: &Board, cell: Option<(usize, usize)>) -> String {
    let side = board.side();
    // The rule between bands of boxes: a '+' under every '|' of a row.
    let rule: String = row(board, 0, None)
        .chars()
        .map(|ch| if ch == '|' { '+' } else { '-' })
        .collect();
    let mut out = String::new();
    for r in 0..side {
        if r > 0 && r % board.n() == 0 {
            out.push_str(&rule);
            out.push('\n');
        }
        out.push_str(&row(board, r, cell));
        out.push('\n');
    }
    out
}

/// One row as " a b | c d": every token is preceded and followed by a
/// one-character slot, so marking a cell replaces those two slots with
/// brackets and keeps the columns aligned.
fn row(board: &Board, r: usize, cell: Option<(usize, usize)>) -> String {
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
            row.push_str(&format!("[{token}]"));
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

/// One line of a picture for a terminal: the marked cell `[v]` in bold
/// red (when `colored` is on); everything else as it is.
pub(crate) fn paint(line: &str) -> String {
    match (line.find('['), line.find(']')) {
        (Some(open), Some(close)) if open < close => format!(
            "{}{}{}",
            &line[..open],
            line[open..=close].red().bold(),
            &line[close + 1..]
        ),
        _ => line.to_string(),
    }
}

/// A picture read back as a grid: the rows of cells (box rules left out),
/// each cell's text, which one is marked, and where the box borders fall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Grid {
    /// Rows of cell texts (`.` for empty).
    pub rows: Vec<Vec<String>>,
    /// The marked cell (row, column), if any.
    pub marked: Option<(usize, usize)>,
    /// Cells per box side (the `|` spacing); 0 when the picture has none.
    pub box_width: usize,
    /// Rows per box (the rule spacing); 0 when the picture has none.
    pub box_height: usize,
}

/// Reads a picture written by [`render`] back into a [`Grid`]; `None` when
/// `picture` is not one (the HTML page then shows it as text).
pub(crate) fn parse(picture: &str) -> Option<Grid> {
    let mut rows = Vec::new();
    let mut marked = None;
    let mut box_width = 0;
    let mut box_height = 0;
    for line in picture.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if line.chars().all(|c| c == '-' || c == '+') {
            if box_height == 0 {
                box_height = rows.len();
            }
            continue;
        }
        let mut cells = Vec::new();
        for (i, part) in line.split('|').enumerate() {
            if i == 1 && box_width == 0 {
                box_width = cells.len();
            }
            // A wide board pads tokens inside the brackets too: `[ .]`.
            let spaced = part
                .replace("[ ", "[")
                .replace('[', " [")
                .replace(']', "] ");
            for token in spaced.split_whitespace() {
                let cell = match token.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
                    Some(inner) => {
                        marked = Some((rows.len(), cells.len()));
                        inner
                    }
                    None => token,
                };
                if cell.is_empty() || !cell.chars().all(|c| c.is_ascii_digit() || c == '.') {
                    return None;
                }
                cells.push(cell.to_string());
            }
        }
        rows.push(cells);
    }
    let width = rows.first()?.len();
    if width == 0 || rows.iter().any(|r| r.len() != width) {
        return None;
    }
    Some(Grid {
        rows,
        marked,
        box_width,
        box_height,
    })
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
            render(&campus(), None),
            " 1 . | . 4\n . 4 | 1 .\n-----+----\n 2 . | . 3\n . 3 | 2 .\n"
        );
    }

    #[test]
    fn marks_a_cell_without_moving_the_columns() {
        let picture = render(&campus(), Some((1, 2)));
        assert_eq!(picture.lines().nth(1), Some(" . 4 |[1].")); // r2c3
        let picture = render(&campus(), Some((0, 0)));
        assert_eq!(picture.lines().next(), Some("[1]. | . 4"));
    }

    #[test]
    fn wide_boards_pad_cells_and_show_out_of_range_values() {
        let mut board = Board::empty(4).unwrap();
        board.set(0, 0, 16);
        board.set(0, 1, 17);
        let picture = render(&board, Some((0, 1)));
        assert!(picture.starts_with(" 16[17] .  . | "), "{picture}");
    }

    #[test]
    fn a_picture_reads_back_as_its_grid() {
        let grid = parse(&render(&campus(), Some((1, 2)))).unwrap();
        assert_eq!(grid.rows.len(), 4);
        assert_eq!(grid.rows[1], [".", "4", "1", "."]);
        assert_eq!(grid.marked, Some((1, 2)));
        assert_eq!((grid.box_width, grid.box_height), (2, 2));
        let mut board = Board::empty(4).unwrap();
        board.set(0, 0, 16);
        let grid = parse(&render(&board, Some((15, 15)))).unwrap();
        assert_eq!(grid.rows[0][0], "16");
        assert_eq!(grid.marked, Some((15, 15)));
        assert_eq!((grid.box_width, grid.box_height), (4, 4));
        assert_eq!(parse("not a board <b>"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn paint_with_colour_off_is_the_plain_line() {
        // Colour on is a global switch other tests turn off; the marked
        // span's bounds are what can go wrong, and they show here.
        colored::control::set_override(false);
        assert_eq!(paint(" . 4 |[1]."), " . 4 |[1].");
        assert_eq!(paint(" 1 . | . 4"), " 1 . | . 4");
        assert_eq!(paint("]["), "][");
    }
}
