//! The shrink of a failing `solve`, one board at a time: the judge's
//! [`Shrinker`] kept between calls; the engine runs each board and keeps
//! the budget (runs and time), as `grader check`'s `runner::shrink` does.

use std::cell::RefCell;

use grader_judge::shrink::Shrinker;
use serde::{Deserialize, Serialize};

use crate::cases;

thread_local! {
    static SHRINKER: RefCell<Option<Shrinker>> = const { RefCell::new(None) };
}

/// [`start`]'s input.
#[derive(Deserialize)]
pub(crate) struct Start {
    case: String,
}

/// Starts a shrink of `case`'s puzzle; answers its empty cells.
pub(crate) fn start(input: Start) -> Result<usize, String> {
    let shrinker = cases::with(|set| Ok(Shrinker::new(cases::find(set, &input.case)?)))?;
    let empty = shrinker.original_empty();
    SHRINKER.with(|cell| *cell.borrow_mut() = Some(shrinker));
    Ok(empty)
}

/// A board to try.
#[derive(Serialize)]
pub(crate) struct Next {
    /// Row-major cells, or null when the search is over.
    puzzle: Option<Vec<u8>>,
}

/// The next board to try.
pub(crate) fn next(_: serde_json::Value) -> Result<Next, String> {
    SHRINKER.with(|cell| match cell.borrow_mut().as_mut() {
        Some(shrinker) => Ok(Next {
            puzzle: shrinker.next_board().map(|b| b.cells().to_vec()),
        }),
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
