//! `grader check`'s run with the grader's `legal` in place of the
//! student's, for the engine: when to make it is the judge's
//! [`SwapWatch`], kept here between calls for the check under way (a new
//! one each `tests` call, which starts a check); the engine makes the run
//! and tells what it showed, which `finish` words.

use std::cell::RefCell;

use grader_judge::check::Check;
use grader_judge::verdict::{Function, Verdict};
use grader_judge::words::legal_swap::{Observed, SwapSeen, SwapWatch};
use serde::Deserialize;

thread_local! {
    static WATCH: RefCell<(SwapWatch, Option<SwapSeen>)> = RefCell::default();
}

/// A new check: nothing seen.
pub(crate) fn start() {
    WATCH.with(|cell| *cell.borrow_mut() = Default::default());
}

/// [`after`]'s input: one judged test.
#[derive(Deserialize)]
pub(crate) struct After {
    case: String,
    function: Function,
    verdict: Verdict,
    #[serde(default)]
    faulted: bool,
    #[serde(default)]
    explained_by: Option<Check>,
}

/// Takes note of one judged test: the case whose `solve` test to run
/// again with the grader's `legal`, once, or null.
pub(crate) fn after(input: After) -> Result<Option<String>, String> {
    Ok(WATCH.with(|cell| {
        cell.borrow_mut().0.after(
            &input.case,
            input.function,
            input.verdict,
            input.faulted,
            input.explained_by,
        )
    }))
}

/// [`saw`]'s input: what the run on `case` showed (the `legal_swap` of its
/// judgement), if anything.
#[derive(Deserialize)]
pub(crate) struct Saw {
    case: String,
    #[serde(default)]
    observed: Option<Observed>,
}

/// Keeps what the run showed, for `finish`.
pub(crate) fn saw(input: Saw) -> Result<(), String> {
    WATCH.with(|cell| {
        let mut kept = cell.borrow_mut();
        kept.1 = input
            .observed
            .map(|observed| kept.0.seen(input.case, observed));
    });
    Ok(())
}

/// What the run showed in the check under way, if anything.
pub(crate) fn seen() -> Option<SwapSeen> {
    WATCH.with(|cell| cell.borrow().1.clone())
}
