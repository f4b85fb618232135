//! Judging `legal`: every answer must agree with the rule.

use crate::check::catalog::Check;
use sudoku_lab::Board;
use sudoku_reference::BoardRules;

use crate::check::failure::{Failure, count_mismatch};
use crate::check::rule::{Unit, box_name, cell, clashes};

/// The first query whose answer disagrees with the rule, with a count of
/// the others.
pub(super) fn judge(
    puzzle: &Board,
    boards: &[Board],
    queries: &[[usize; 4]],
    answers: &[bool],
) -> Result<(), Failure> {
    if answers.len() != queries.len() {
        return Err(count_mismatch("legal", queries.len(), answers.len()));
    }
    let mut wrong = queries
        .iter()
        .zip(answers)
        .filter(|&(&[b, r, c, v], &answer)| answer == boards[b].conflicts(r, c, v as u8));
    let Some((&[b, r, c, v], &answer)) = wrong.next() else {
        return Ok(());
    };
    let others = wrong.count();
    let board = &boards[b];
    let mut message = explain(board, r, c, v as u8, answer, board == puzzle);
    // One wrong answer fits too many bugs to name one.
    let fitted = if others > 0 {
        fitted_bug(boards, queries, answers)
    } else {
        None
    };
    if let Some(bug) = fitted {
        message = format!("{bug}. For example: {message}");
    }
    if others > 0 {
        message.push_str(&format!(
            " ({} of {} answers were wrong)",
            others + 1,
            queries.len()
        ));
    }
    // The same answer to every question (ten at least), on boards and
    // cells where the rule answers both ways: a constant, as `grader
    // init`'s stub gives.
    let rule_says_both = queries.len() >= 10
        && queries
            .iter()
            .any(|&[b, r, c, v]| boards[b].conflicts(r, c, v as u8) != answer);
    if rule_says_both && answers.iter().all(|&a| a == answer) {
        message.push_str(&format!(
            "; it answered {answer} to all {} questions, whatever the board, the cell and the \
             digit: a constant answer, like the untouched stub's",
            queries.len()
        ));
    }
    Err(Failure::new(Check::Legal, message).on(board, Some((r, c))))
}

/// Why `answer` to `legal(board, r, c, v)` is wrong, and what to fix; a
/// board other than the puzzle is called "a test board (not the case's
/// puzzle)", since a one-line listing of the failure shows no board.
fn explain(board: &Board, r: usize, c: usize, v: u8, answer: bool, is_puzzle: bool) -> String {
    let n = board.n();
    let on = if is_puzzle {
        ""
    } else {
        " on a test board (not the case's puzzle)"
    };
    let call = format!("legal(board, {r}, {c}, {v}){on}");
    if !answer {
        return format!(
            "{call} returned false, but {v} is not in row {r}, column {c} or {}: \
             only the cell's own row, column and box rule a digit out",
            box_name(n, r, c)
        );
    }
    let found = clashes(board, r, c, v);
    let mut units: Vec<Unit> = found.iter().map(|&(u, _)| u).collect();
    units.dedup();
    let places: Vec<String> = units
        .iter()
        .map(|&u| {
            let at = found.iter().find(|(fu, _)| *fu == u).map(|&(_, p)| p);
            let at = at.map_or(String::new(), |(i, j)| format!(" at {}", cell(i, j)));
            format!("{}{at}", u.name(n, r, c))
        })
        .collect();
    let hint = match units.as_slice() {
        [Unit::Row] => "check every cell of the row".to_string(),
        [Unit::Column] => "check every cell of the column".to_string(),
        [Unit::Box] => {
            let (br, bc) = board.box_origin(r, c);
            format!(
                "check the {n}x{n} box that holds the cell, whose top-left cell is {}",
                cell(br, bc)
            )
        }
        _ => "a digit may not repeat in a row, a column or a box".to_string(),
    };
    format!(
        "{call} returned true, but {v} is already in {}: {hint}",
        places.join(" and ")
    )
}

/// A buggy `legal` that every answer agrees with, named in the lab's
/// words: the shape of the failure, when it leaves one cause.
fn fitted_bug(boards: &[Board], queries: &[[usize; 4]], answers: &[bool]) -> Option<String> {
    type Model = fn(&Board, usize, usize, u8) -> bool;
    fn in_row(b: &Board, r: usize, c: usize, v: u8) -> bool {
        (0..b.side()).any(|j| j != c && b.get(r, j) == v)
    }
    fn in_column(b: &Board, r: usize, c: usize, v: u8) -> bool {
        (0..b.side()).any(|i| i != r && b.get(i, c) == v)
    }
    fn in_block(b: &Board, r: usize, c: usize, v: u8, top: usize, left: usize) -> bool {
        let n = b.n();
        (top..top + n).any(|i| (left..left + n).any(|j| (i, j) != (r, c) && b.get(i, j) == v))
    }
    let models: [(&str, Model); 5] = [
        (
            "your legal never checks the box: every answer fits a legal that looks only at the row \
             and the column; also check the n x n box of (r, c), whose top-left cell is \
             (n * (r / n), n * (c / n))",
            |b, r, c, v| !(in_row(b, r, c, v) || in_column(b, r, c, v)),
        ),
        (
            "your legal never checks the column: every answer fits a legal that looks only at the \
             row and the box; check every cell of column c too",
            |b, r, c, v| {
                !(in_row(b, r, c, v) || in_block(b, r, c, v, r / b.n() * b.n(), c / b.n() * b.n()))
            },
        ),
        (
            "your legal never checks the row: every answer fits a legal that looks only at the \
             column and the box; check every cell of row r too",
            |b, r, c, v| {
                !(in_column(b, r, c, v)
                    || in_block(b, r, c, v, r / b.n() * b.n(), c / b.n() * b.n()))
            },
        ),
        (
            "your legal checks the wrong box: every answer fits a box whose top-left cell is \
             (r % n, c % n); the box of (r, c) starts at (n * (r / n), n * (c / n))",
            |b, r, c, v| {
                !(in_row(b, r, c, v)
                    || in_column(b, r, c, v)
                    || in_block(b, r, c, v, r % b.n(), c % b.n()))
            },
        ),
        (
            "your legal checks the wrong box: every answer fits a box whose top-left cell is \
             (r / n, c / n); the box of (r, c) starts at (n * (r / n), n * (c / n))",
            |b, r, c, v| {
                !(in_row(b, r, c, v)
                    || in_column(b, r, c, v)
                    || in_block(b, r, c, v, r / b.n(), c / b.n()))
            },
        ),
    ];
    // Named only when exactly one model fits: answers that two buggy
    // legals both give (no clash of the kind that tells them apart was
    // asked) prove neither.
    let mut fits = models.iter().filter(|&&(_, model)| {
        queries
            .iter()
            .zip(answers)
            .all(|(&[b, r, c, v], &answer)| model(&boards[b], r, c, v as u8) == answer)
    });
    match (fits.next(), fits.next()) {
        (Some(&(name, _)), None) => Some(name.to_string()),
        _ => None,
    }
}
