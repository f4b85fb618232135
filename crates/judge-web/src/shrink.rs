//! The shrink of a failing `solve`, one board at a time: the judge's
//! [`Shrinker`] kept between calls; the engine runs each board and keeps
//! the budget (runs and time), as `grader check`'s `runner::shrink` does.

use std::cell::RefCell;

use grader_judge::board_text::format_line;
use grader_judge::board_view::BoardView;
use grader_judge::shrink::Shrinker;
use serde::{Deserialize, Serialize};
use sudoku_reference::BoardRules;

use crate::cases;

thread_local! {
    static SHRINKER: RefCell<Option<Shrinker>> = const { RefCell::new(None) };
}

/// [`start`]'s input.
#[derive(Deserialize)]
pub(crate) struct Start {
    case: String,
}

/// The case's puzzle, where a shrink starts.
#[derive(Serialize)]
pub(crate) struct Started {
    /// Its empty cells.
    empty: usize,
    /// The puzzle, as the view draws it.
    board: BoardView,
}

/// Starts a shrink of `case`'s puzzle.
pub(crate) fn start(input: Start) -> Result<Started, String> {
    let shrinker = cases::with(|set| Ok(Shrinker::new(cases::find(set, &input.case)?)))?;
    let started = Started {
        empty: shrinker.original_empty(),
        board: BoardView::of(shrinker.board(), None),
    };
    SHRINKER.with(|cell| *cell.borrow_mut() = Some(shrinker));
    Ok(started)
}

/// A board to try.
#[derive(Serialize)]
pub(crate) struct Next {
    /// Row-major cells, or null when the search is over.
    puzzle: Option<Vec<u8>>,
    /// The board as one line of text (SPEC 1), to paste into a test.
    line: Option<String>,
    /// The board, as the view draws it.
    board: Option<BoardView>,
    /// Its empty cells.
    empty: usize,
}

/// The next board to try.
pub(crate) fn next(_: serde_json::Value) -> Result<Next, String> {
    SHRINKER.with(|cell| match cell.borrow_mut().as_mut() {
        Some(shrinker) => {
            let board = shrinker.next_board();
            Ok(Next {
                puzzle: board.as_ref().map(|b| b.cells().to_vec()),
                line: board.as_ref().map(format_line),
                empty: board.as_ref().map_or(0, |b| b.empty_cells().count()),
                board: board.as_ref().map(|b| BoardView::of(b, None)),
            })
        }
        None => Err("no shrink is on: call shrink_start first".to_string()),
    })
}

/// [`keep`]'s input.
#[derive(Deserialize)]
pub(crate) struct Keep {
    same: bool,
}

/// How the last board ran: `same` when it failed the same way.
pub(crate) fn keep(input: Keep) -> Result<usize, String> {
    SHRINKER.with(|cell| match cell.borrow_mut().as_mut() {
        Some(shrinker) => {
            shrinker.keep(input.same);
            Ok(shrinker.kept())
        }
        None => Err("no shrink is on: call shrink_start first".to_string()),
    })
}
