//! Judging `find_empty`: an empty cell while one exists (per the policy),
//! "none" on a full board.

use crate::check::catalog::Check;
use crate::check::probe::FindEmptyAnswer;
use sudoku_lab::Board;
use sudoku_reference::BoardRules;

use crate::case::model::FindEmptyPolicy;
use crate::check::failure::{Failure, count_mismatch};
use crate::check::rule::{candidates, cell};
use crate::finding::Finding;

/// Basic correctness on every board first (on the board, empty, "none"
/// exactly when full), then the policy.
pub(super) fn judge(
    puzzle: &Board,
    boards: &[Board],
    policy: FindEmptyPolicy,
    answers: &[Option<FindEmptyAnswer>],
) -> Result<(), Failure> {
    if answers.len() != boards.len() {
        return Err(count_mismatch("find_empty", boards.len(), answers.len()));
    }
    // A board other than the puzzle is named as one: the case's
    // description above a report's board is about the puzzle.
    let who = |board: &Board| {
        if board == puzzle {
            "find_empty"
        } else {
            "find_empty, on a test board (not the case's puzzle),"
        }
    };
    for (board, answer) in boards.iter().zip(answers) {
        let cell = match answer {
            None => None,
            Some(FindEmptyAnswer::Cell(at)) => Some(*at),
            Some(FindEmptyAnswer::Other { returned }) => {
                return Err(other_value(board, returned, board != puzzle));
            }
        };
        basic(board, cell, who(board), board != puzzle)?;
    }
    for (board, answer) in boards.iter().zip(answers) {
        if let Some(FindEmptyAnswer::Cell([r, c])) = *answer {
            follows_policy(board, policy, r, c, who(board))?;
        }
    }
    Ok(())
}

/// `find_empty` returned neither a cell nor "none" (`False`, `(-1, -1)`):
/// told as the value it returned, on the board it was asked about, with
/// the first empty cell when the board has one.
fn other_value(board: &Board, returned: &str, on_test_board: bool) -> Failure {
    let empty = board.empty_cells().next();
    Failure::found(
        Check::FindEmptyValue,
        Finding::FindEmptyValue {
            on_test_board,
            value: FindEmptyAnswer::shown(returned),
            first_empty: empty.map(|(r, c)| [r, c]),
        },
    )
    .on(board, empty)
}

/// `who` names the function, and the board when it is not the puzzle.
fn basic(
    board: &Board,
    answer: Option<[usize; 2]>,
    who: &str,
    on_test_board: bool,
) -> Result<(), Failure> {
    let side = board.side();
    let first_empty = board.empty_cells().next();
    match (answer, first_empty) {
        (None, None) => Ok(()),
        (None, Some(e)) => Err(Failure::found(
            Check::FindEmptyNone,
            Finding::FindEmptyNone {
                on_test_board,
                empty: [e.0, e.1],
            },
        )
        .on(board, Some(e))),
        (Some([r, c]), _) if r >= side || c >= side => Err(Failure::new(
            Check::FindEmptyRange,
            format!(
                "{who} returned row {r}, column {c} (0-based), off the {side}x{side} board: \
                 rows and columns run from 0 to {}",
                side - 1
            ),
        )
        .on(board, None)),
        (Some([r, c]), None) => Err(Failure::found(
            Check::FindEmptyFull,
            Finding::FindEmptyFull {
                on_test_board,
                returned: [r, c],
            },
        )
        .on(board, Some((r, c)))),
        (Some([r, c]), Some(_)) if board.get(r, c) != 0 => Err(Failure::new(
            Check::FindEmptyNotEmpty,
            format!(
                "{who} returned {}, which holds {}: it must return an empty cell (one that holds 0)",
                cell(r, c),
                board.get(r, c)
            ),
        )
        .on(board, Some((r, c)))),
        (Some(_), Some(_)) => Ok(()),
    }
}

/// `(r, c)` is an empty cell of `board`.
fn follows_policy(
    board: &Board,
    policy: FindEmptyPolicy,
    r: usize,
    c: usize,
    who: &str,
) -> Result<(), Failure> {
    match policy {
        FindEmptyPolicy::Any => Ok(()),
        FindEmptyPolicy::First => match board.empty_cells().next() {
            Some(first) if first != (r, c) => Err(Failure::new(
                Check::FindEmptyPolicy,
                format!(
                    "{who} returned {}, but this case asks for the first empty cell in reading \
                     order (row by row, left to right), {}",
                    cell(r, c),
                    cell(first.0, first.1)
                ),
            )
            .on(board, Some((r, c)))),
            _ => Ok(()),
        },
        FindEmptyPolicy::Fewest => {
            let mine = candidates(board, r, c);
            let best = board
                .empty_cells()
                .map(|(i, j)| (candidates(board, i, j), (i, j)))
                .min();
            match best {
                Some((count, at)) if count < mine => Err(Failure::new(
                    Check::FindEmptyPolicy,
                    format!(
                        "{who} returned {}, where {mine} digit(s) are legal, but {} has only {count}: \
                         this case asks for an empty cell with the fewest legal digits",
                        cell(r, c),
                        cell(at.0, at.1)
                    ),
                )
                .on(board, Some((r, c)))),
                _ => Ok(()),
            }
        }
    }
}
