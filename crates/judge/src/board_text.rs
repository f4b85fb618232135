//! The board text format of SPEC 1: parsed and printed.
//!
//! Two forms are read:
//!
//! - **rows**, one row per line. For boards up to 9x9 every character is a
//!   cell (`1-9`, or `.` / `0` for empty) and spaces are optional; for 16x16
//!   and 25x25 the cells are whitespace-separated numbers (or `.`). The
//!   characters `|`, `-`, `+` and blank lines are separators and ignored.
//! - **one line** of `N*N` characters, the common data-set form: `1-9`, then
//!   `A`, `B`, ... (either case) for 10, 11, ..., and `.` or `0` for empty:
//!   16, 81, 256 or 625 characters.
//!
//! The size is inferred (side 4, 9, 16 or 25). Every bad input gets a
//! [`BoardTextError`] naming the 1-based line and column and what was
//! expected. [`format_grid`] and [`format_line`] print the two forms.

use sudoku_lab::Board;

/// The sides a board can have (box sizes 2..=5).
const SIDES: [usize; 4] = [4, 9, 16, 25];

/// A board text that could not be read: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct BoardTextError {
    /// The 1-based line of the problem.
    pub line: usize,
    /// The 1-based column (in characters) of the problem.
    pub column: usize,
    /// What is wrong and what was expected, as a lowercase fragment.
    pub message: String,
}

impl BoardTextError {
    fn new(line: usize, column: usize, message: impl Into<String>) -> Self {
        BoardTextError {
            line,
            column,
            message: message.into(),
        }
    }

    /// The same error for a board text embedded in a larger file: the text's
    /// first line is line `first_line` of the file (1-based), and its first
    /// character sits at column `first_column` of that line. Only errors on
    /// the text's first line have their column moved.
    pub fn relocated(mut self, first_line: usize, first_column: usize) -> Self {
        if self.line == 1 {
            self.column += first_column.saturating_sub(1);
        }
        self.line += first_line.saturating_sub(1);
        self
    }
}

/// Parses a board in either form of SPEC 1: rows, or one line of `N*N`
/// characters (chosen when the text holds exactly one non-separator line).
pub fn parse_board(text: &str) -> Result<Board, BoardTextError> {
    let rows: Vec<Row<'_>> = text
        .lines()
        .enumerate()
        .filter_map(|(i, line)| Row::new(i + 1, line))
        .collect();
    match rows.as_slice() {
        [] => Err(BoardTextError::new(
            1,
            1,
            "no board found: expected 4, 9, 16 or 25 rows, or one line of 16, 81, 256 or 625 cells",
        )),
        [only] => parse_line(only.text).map_err(|e| BoardTextError {
            line: only.number,
            ..e
        }),
        _ => parse_rows(&rows, text.lines().count()),
    }
}

/// Parses the one-line form only: `N*N` characters, `1-9` then `A`, `B`, ...
/// (either case) for 10, 11, ..., and `.` or `0` for empty. Leading and
/// trailing whitespace is ignored; errors say line 1.
pub fn parse_line(line: &str) -> Result<Board, BoardTextError> {
    let lead = line.chars().take_while(|c| c.is_whitespace()).count();
    let cells: Vec<char> = line.trim().chars().collect();
    let len = cells.len();
    let Some(&side) = SIDES.iter().find(|&&s| s * s == len) else {
        let nearest = SIDES
            .iter()
            .map(|s| s * s)
            .min_by_key(|&sq| sq.abs_diff(len))
            .unwrap_or(81);
        let column = lead + len.min(nearest) + 1;
        return Err(BoardTextError::new(
            1,
            column,
            format!(
                "a one-line board has 16, 81, 256 or 625 cells (4x4, 9x9, 16x16, 25x25), found {len}"
            ),
        ));
    };
    let mut values = Vec::with_capacity(len);
    for (i, &ch) in cells.iter().enumerate() {
        let column = lead + i + 1;
        let value = match ch {
            '.' | '0' => 0,
            '1'..='9' => ch as usize - '0' as usize,
            'a'..='p' | 'A'..='P' => ch.to_ascii_uppercase() as usize - 'A' as usize + 10,
            _ => {
                return Err(BoardTextError::new(
                    1,
                    column,
                    format!(
                        "unexpected {}: expected {}, '.' or '0' for empty",
                        describe(ch),
                        line_digits(side)
                    ),
                ));
            }
        };
        if value > side {
            return Err(BoardTextError::new(
                1,
                column,
                format!(
                    "'{ch}' means {value}, above {side}, the largest digit of a {side}x{side} board: use {}",
                    line_digits(side)
                ),
            ));
        }
        values.push(value as u8);
    }
    make_board(side, values, 1, 1)
}

/// Prints a board as rows with `|` between boxes and a `-+-` line between
/// bands, `.` for empty, as in SPEC 3's example; cells are single
/// characters up to 9x9 and right-aligned numbers for 16x16 and 25x25.
/// Each row ends with a newline.
pub fn format_grid(board: &Board) -> String {
    let n = board.n();
    let side = board.side();
    let width = if side > 9 { 2 } else { 1 };
    let group = n * (width + 1) - 1;
    let mut rule = String::new();
    for b in 0..n {
        if b > 0 {
            rule.push('+');
        }
        let dashes = if b == 0 || b == n - 1 {
            group + 1
        } else {
            group + 2
        };
        rule.push_str(&"-".repeat(dashes));
    }
    let mut out = String::new();
    for r in 0..side {
        if r > 0 && r % n == 0 {
            out.push_str(&rule);
            out.push('\n');
        }
        let mut line = String::new();
        for c in 0..side {
            if c > 0 {
                line.push_str(if c % n == 0 { " | " } else { " " });
            }
            let cell = match board.get(r, c) {
                0 => ".".to_string(),
                v => v.to_string(),
            };
            line.push_str(&format!("{cell:>width$}"));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Prints a board as one line of `N*N` characters: `1-9`, then `A`, `B`,
/// ... for 10, 11, ..., and `.` for empty. No newline.
pub fn format_line(board: &Board) -> String {
    board
        .cells()
        .iter()
        .map(|&v| match v {
            0 => '.',
            1..=9 => (b'0' + v) as char,
            _ => (b'A' + v - 10) as char,
        })
        .collect()
}

/// One non-separator line of a rows-form board.
struct Row<'a> {
    /// 1-based line number.
    number: usize,
    text: &'a str,
}

impl<'a> Row<'a> {
    /// `None` for a blank or separator-only line.
    fn new(number: usize, text: &'a str) -> Option<Row<'a>> {
        let content = text.chars().any(|c| !c.is_whitespace() && !is_separator(c));
        content.then_some(Row { number, text })
    }

    /// The cells as characters (for sides up to 9), with their 1-based
    /// columns.
    fn chars(&self) -> Vec<(usize, char)> {
        self.text
            .chars()
            .enumerate()
            .filter(|(_, c)| !c.is_whitespace() && !is_separator(*c))
            .map(|(i, c)| (i + 1, c))
            .collect()
    }

    /// The cells as whitespace-separated tokens (for sides above 9), with
    /// the 1-based column of their first character.
    fn tokens(&self) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        let mut current: Option<(usize, String)> = None;
        for (i, c) in self.text.chars().enumerate() {
            if c.is_whitespace() || is_separator(c) {
                out.extend(current.take());
            } else {
                current
                    .get_or_insert_with(|| (i + 1, String::new()))
                    .1
                    .push(c);
            }
        }
        out.extend(current);
        out
    }
}

fn is_separator(c: char) -> bool {
    matches!(c, '|' | '-' | '+')
}

/// The side of a rows-form board: from the number of rows if that is a
/// side, else from the first row.
fn infer_side(rows: &[Row<'_>]) -> Result<usize, BoardTextError> {
    if SIDES.contains(&rows.len()) {
        return Ok(rows.len());
    }
    let first = &rows[0];
    let chars = first.chars().len();
    let tokens = first.tokens().len();
    if chars <= 9 && SIDES.contains(&chars) {
        Ok(chars)
    } else if tokens > 9 && SIDES.contains(&tokens) {
        Ok(tokens)
    } else {
        Err(BoardTextError::new(
            first.number,
            1,
            format!(
                "found {} rows and a first row of {} cells: a board has 4, 9, 16 or 25 rows of as many cells",
                rows.len(),
                if tokens > 9 { tokens } else { chars }
            ),
        ))
    }
}

fn parse_rows(rows: &[Row<'_>], line_count: usize) -> Result<Board, BoardTextError> {
    let side = infer_side(rows)?;
    if rows.len() > side {
        return Err(BoardTextError::new(
            rows[side].number,
            1,
            format!(
                "one row too many: a {side}x{side} board has {side} rows (found {})",
                rows.len()
            ),
        ));
    }
    let mut values = Vec::with_capacity(side * side);
    for row in rows {
        if side <= 9 {
            parse_char_row(row, side, &mut values)?;
        } else {
            parse_token_row(row, side, &mut values)?;
        }
    }
    if rows.len() < side {
        return Err(BoardTextError::new(
            line_count + 1,
            1,
            format!(
                "the board ends after {} rows: a {side}x{side} board has {side} rows",
                rows.len()
            ),
        ));
    }
    make_board(side, values, rows[0].number, 1)
}

/// A row of single-character cells (sides 4 and 9).
fn parse_char_row(row: &Row<'_>, side: usize, out: &mut Vec<u8>) -> Result<(), BoardTextError> {
    let cells = row.chars();
    for (i, &(column, ch)) in cells.iter().enumerate() {
        if i == side {
            // A number such as `10` written in a row of a 9x9 board reads as
            // two cells; name it rather than the cell count.
            let tokens = row.tokens();
            let number = tokens
                .iter()
                .find(|(_, t)| t.len() > 1 && t.chars().all(|c| c.is_ascii_digit()));
            if let (true, Some((col, t))) = (tokens.len() == side, number) {
                return Err(BoardTextError::new(
                    row.number,
                    *col,
                    format!(
                        "'{t}' is not a digit of a {side}x{side} board: use 1-{side}, '.' or '0' for empty"
                    ),
                ));
            }
            return Err(BoardTextError::new(
                row.number,
                column,
                format!(
                    "this row has {} cells, a {side}x{side} board has {side} per row",
                    cells.len()
                ),
            ));
        }
        let value = match ch {
            '.' | '0' => 0,
            '1'..='9' => ch as usize - '0' as usize,
            _ => {
                return Err(BoardTextError::new(
                    row.number,
                    column,
                    format!(
                        "unexpected {}: expected a digit 1-{side}, '.' or '0' for empty",
                        describe(ch)
                    ),
                ));
            }
        };
        if value > side {
            return Err(BoardTextError::new(
                row.number,
                column,
                format!(
                    "digit {value} is above {side}, the largest digit of a {side}x{side} board"
                ),
            ));
        }
        out.push(value as u8);
    }
    if cells.len() < side {
        let end = row.text.chars().count() + 1;
        return Err(BoardTextError::new(
            row.number,
            end,
            format!(
                "this row has {} cells, a {side}x{side} board has {side} per row",
                cells.len()
            ),
        ));
    }
    Ok(())
}

/// A row of whitespace-separated numbers (sides 16 and 25).
fn parse_token_row(row: &Row<'_>, side: usize, out: &mut Vec<u8>) -> Result<(), BoardTextError> {
    let tokens = row.tokens();
    for (i, (column, token)) in tokens.iter().enumerate() {
        if i == side {
            return Err(BoardTextError::new(
                row.number,
                *column,
                format!(
                    "this row has {} cells, a {side}x{side} board has {side} per row",
                    tokens.len()
                ),
            ));
        }
        let value = match token.as_str() {
            "." => 0,
            t if t.chars().all(|c| c.is_ascii_digit()) => t.parse::<usize>().unwrap_or(usize::MAX),
            t if t.len() == 1 && t.chars().all(|c| c.is_ascii_alphabetic()) => {
                t.to_ascii_uppercase().as_bytes()[0] as usize - b'A' as usize + 10
            }
            t => {
                return Err(BoardTextError::new(
                    row.number,
                    *column,
                    format!(
                        "unexpected '{t}': expected a number 1-{side}, '.' or '0' for empty, separated by spaces"
                    ),
                ));
            }
        };
        if value > side {
            return Err(BoardTextError::new(
                row.number,
                *column,
                format!("'{token}' is above {side}, the largest digit of a {side}x{side} board"),
            ));
        }
        out.push(value as u8);
    }
    if tokens.len() < side {
        let end = row.text.chars().count() + 1;
        return Err(BoardTextError::new(
            row.number,
            end,
            format!(
                "this row has {} cells, a {side}x{side} board has {side} per row",
                tokens.len()
            ),
        ));
    }
    Ok(())
}

fn make_board(
    side: usize,
    values: Vec<u8>,
    line: usize,
    column: usize,
) -> Result<Board, BoardTextError> {
    let n = (2..=5).find(|n| n * n == side).unwrap_or(3);
    // Sizes and values were checked above; this only fails on a bug.
    Board::from_cells(n, values).map_err(|e| BoardTextError::new(line, column, e.to_string()))
}

/// The digits of a one-line board of side `side`, for messages.
fn line_digits(side: usize) -> String {
    if side <= 9 {
        format!("1-{side}")
    } else {
        format!("1-9, A-{}", (b'A' + (side - 10) as u8) as char)
    }
}

fn describe(ch: char) -> String {
    if ch.is_whitespace() {
        "whitespace".to_string()
    } else if ch.is_control() {
        format!("control character {:?}", ch)
    } else {
        format!("'{ch}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAMPUS_GRID: &str = "1 . | . 4\n. 4 | 1 .\n----+----\n2 . | . 3\n. 3 | 2 .\n";
    const CAMPUS_LINE: &str = "1..4.41.2..3.32.";

    fn err(text: &str) -> String {
        parse_board(text).unwrap_err().to_string()
    }

    #[test]
    fn reads_the_campus_grid_and_line_alike() {
        let grid = parse_board(CAMPUS_GRID).unwrap();
        let line = parse_board(CAMPUS_LINE).unwrap();
        assert_eq!(grid, line);
        assert_eq!(grid.n(), 2);
        assert_eq!(
            grid.cells(),
            &[1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0]
        );
        assert_eq!(format_grid(&grid), CAMPUS_GRID);
        assert_eq!(format_line(&grid), CAMPUS_LINE);
        // Compact rows, zeros, blank lines and surrounding space.
        let compact = parse_board("\n  1004\n0410\n\n2003\n0320\n\n").unwrap();
        assert_eq!(compact, grid);
    }

    #[test]
    fn round_trips_every_size() {
        for n in 2..=5usize {
            let side = n * n;
            let cells: Vec<u8> = (0..side * side)
                .map(|i| ((i * 7 + i / side) % (side + 1)) as u8)
                .collect();
            let board = Board::from_cells(n, cells).unwrap();
            assert_eq!(
                parse_board(&format_grid(&board)).unwrap(),
                board,
                "grid n={n}"
            );
            assert_eq!(
                parse_line(&format_line(&board)).unwrap(),
                board,
                "line n={n}"
            );
            assert_eq!(
                parse_board(&format_line(&board).to_lowercase()).unwrap(),
                board
            );
        }
    }

    #[test]
    fn grid_of_nine_and_sixteen_looks_right() {
        let nine = parse_line(&"1".repeat(9).repeat(9).replacen('1', ".", 1)).unwrap();
        let text = format_grid(&nine);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], ". 1 1 | 1 1 1 | 1 1 1");
        assert_eq!(lines[3], "------+-------+------");
        assert_eq!(lines.len(), 11);
        let sixteen = Board::empty(4).unwrap();
        let mut b = sixteen.clone();
        b.set(0, 0, 16);
        let text = format_grid(&b);
        let first = text.lines().next().unwrap();
        assert_eq!(
            first,
            "16  .  .  . |  .  .  .  . |  .  .  .  . |  .  .  .  ."
        );
        assert_eq!(text.lines().nth(4).unwrap().len(), first.len());
    }

    #[test]
    fn empty_input() {
        let msg = "line 1, column 1: no board found: expected 4, 9, 16 or 25 rows, or one line of 16, 81, 256 or 625 cells";
        assert_eq!(err(""), msg);
        assert_eq!(err("\n  \n--+--\n"), msg);
    }

    #[test]
    fn unknown_character_in_a_row() {
        assert_eq!(
            err("1 . . 4\n. x 1 .\n2 . . 3\n. 3 2 .\n"),
            "line 2, column 3: unexpected 'x': expected a digit 1-4, '.' or '0' for empty"
        );
    }

    #[test]
    fn digit_above_the_side() {
        assert_eq!(
            err("1 . . 4\n. 4 1 .\n2 . . 5\n. 3 2 .\n"),
            "line 3, column 7: digit 5 is above 4, the largest digit of a 4x4 board"
        );
    }

    #[test]
    fn ten_in_a_nine_by_nine() {
        let mut rows = [". . . . . . . . ."; 9];
        rows[4] = ". . 10 . . . . . .";
        assert_eq!(
            err(&rows.join("\n")),
            "line 5, column 5: '10' is not a digit of a 9x9 board: use 1-9, '.' or '0' for empty"
        );
    }

    #[test]
    fn ragged_rows() {
        assert_eq!(
            err("1 . . 4\n. 4 1\n2 . . 3\n. 3 2 .\n"),
            "line 2, column 6: this row has 3 cells, a 4x4 board has 4 per row"
        );
        assert_eq!(
            err("1 . . 4\n. 4 1 . 2\n2 . . 3\n. 3 2 .\n"),
            "line 2, column 9: this row has 5 cells, a 4x4 board has 4 per row"
        );
    }

    #[test]
    fn wrong_number_of_rows() {
        assert_eq!(
            err("1 . . 4\n. 4 1 .\n2 . . 3\n"),
            "line 4, column 1: the board ends after 3 rows: a 4x4 board has 4 rows"
        );
        assert_eq!(
            err("1 . . 4\n. 4 1 .\n2 . . 3\n. 3 2 .\n1 . . .\n"),
            "line 5, column 1: one row too many: a 4x4 board has 4 rows (found 5)"
        );
        assert_eq!(
            err("1 2 3 4 5\n. . . . .\n"),
            "line 1, column 1: found 2 rows and a first row of 5 cells: a board has 4, 9, 16 or 25 rows of as many cells"
        );
    }

    #[test]
    fn one_line_errors() {
        assert_eq!(
            parse_line(&".".repeat(80)).unwrap_err().to_string(),
            "line 1, column 81: a one-line board has 16, 81, 256 or 625 cells (4x4, 9x9, 16x16, 25x25), found 80"
        );
        assert_eq!(
            parse_line(&".".repeat(82)).unwrap_err().to_string(),
            "line 1, column 82: a one-line board has 16, 81, 256 or 625 cells (4x4, 9x9, 16x16, 25x25), found 82"
        );
        assert_eq!(
            parse_line("1..4.41.2..3.3#.").unwrap_err().to_string(),
            "line 1, column 15: unexpected '#': expected 1-4, '.' or '0' for empty"
        );
        assert_eq!(
            parse_line("1..4.41.2..3.35.").unwrap_err().to_string(),
            "line 1, column 15: '5' means 5, above 4, the largest digit of a 4x4 board: use 1-4"
        );
        let mut nine = ".".repeat(81);
        nine.replace_range(40..41, "a");
        assert_eq!(
            parse_line(&nine).unwrap_err().to_string(),
            "line 1, column 41: 'a' means 10, above 9, the largest digit of a 9x9 board: use 1-9"
        );
        let mut sixteen = ".".repeat(256);
        sixteen.replace_range(0..1, "H");
        assert_eq!(
            parse_line(&sixteen).unwrap_err().to_string(),
            "line 1, column 1: 'H' means 17, above 16, the largest digit of a 16x16 board: use 1-9, A-G"
        );
        // The one-line form inside parse_board keeps its line number.
        assert_eq!(
            err("\n\n  1..4.41.2..3.3#.\n"),
            "line 3, column 17: unexpected '#': expected 1-4, '.' or '0' for empty"
        );
    }

    #[test]
    fn token_rows_for_sixteen() {
        let board = Board::empty(4).unwrap();
        let mut text = format_grid(&board);
        text = text.replacen(" .", " 17", 1);
        assert_eq!(
            parse_board(&text).unwrap_err().to_string(),
            "line 1, column 2: '17' is above 16, the largest digit of a 16x16 board"
        );
        let text = format_grid(&board).replacen(" .", " x1", 1);
        assert_eq!(
            parse_board(&text).unwrap_err().to_string(),
            "line 1, column 2: unexpected 'x1': expected a number 1-16, '.' or '0' for empty, separated by spaces"
        );
    }

    #[test]
    fn relocated_moves_line_and_first_line_column() {
        let e = parse_board("1 . . 4\n. x 1 .\n2 . . 3\n. 3 2 .\n").unwrap_err();
        let moved = e.clone().relocated(10, 5);
        assert_eq!((moved.line, moved.column), (11, 3));
        let first = parse_board("1..4.41.2..3.3#.")
            .unwrap_err()
            .relocated(7, 12);
        assert_eq!((first.line, first.column), (7, 26));
    }
}
