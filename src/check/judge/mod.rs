//! Step 3 of a test, on the grader side: judge a [`Response`] against the
//! rule and the reference, and name the first failed check.
//!
//! A failed check is a [`Failure`]: a stable id (`legal`, `find_empty.policy`,
//! `solve.leftover`, ...), a message for the student that names the function,
//! the cell and what to fix, and the board and cell a report draws. Checks
//! run in the order that gives the most useful message first: a value out of
//! range before validity, a changed given before a duplicate.

mod find_empty;
mod legal;
mod solve;

use std::fmt;

use sudoku_lab::Board;

use super::{Probe, Response};
use crate::case::{Case, FindEmptyPolicy};

/// What one test came to, as far as the answers go.
#[derive(Clone, Debug, PartialEq)]
pub enum Judgement {
    /// Every check passed.
    Pass,
    /// A check failed.
    Wrong(Failure),
}

/// A failed check: which, why, and what to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The check's id, e.g. `legal`, `find_empty.policy`, `solve.leftover`.
    pub check: &'static str,
    /// For the student: the function, the cell (`(row 3, col 5)`) and what to fix.
    pub message: String,
    /// The board to show: the one asked about, or as `solve` left it.
    pub board: Option<Board>,
    /// The cell to highlight, 0-based `(row, column)`.
    pub cell: Option<(usize, usize)>,
    /// The write trace's check that words this failure (its first
    /// rule-breaking step, or a hint), when a trace explains what the end
    /// state's check `check` found.
    pub explained_by: Option<&'static str>,
}

impl Failure {
    pub(crate) fn new(check: &'static str, message: String) -> Failure {
        Failure {
            check,
            message,
            board: None,
            cell: None,
            explained_by: None,
        }
    }

    pub(crate) fn on(mut self, board: &Board, cell: Option<(usize, usize)>) -> Failure {
        self.board = Some(board.clone());
        self.cell = cell;
        self
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.check, self.message)
    }
}

/// Judges `response`, the answers to `probe` (planned for `case`), under
/// `policy` for `find_empty`.
///
/// A response of the wrong kind or with the wrong number of answers is
/// [`Judgement::Wrong`] (check `response.shape`). A malformed probe cannot
/// come from [`plan`](super::plan); if one does, it is reported as check
/// `probe`, a grader bug.
pub fn judge(
    case: &Case,
    policy: FindEmptyPolicy,
    probe: &Probe,
    response: &Response,
) -> Judgement {
    let result = match (probe, response) {
        (Probe::Legal { n, boards, queries }, Response::Legal { answers }) => {
            legal::judge(&case.puzzle, *n, boards, queries, answers)
        }
        (Probe::FindEmpty { n, boards }, Response::FindEmpty { answers }) => {
            find_empty::judge(&case.puzzle, *n, boards, policy, answers)
        }
        (
            Probe::Solve { n, board },
            Response::Solve {
                solved,
                board: after,
            },
        ) => solve::judge(case, *n, board, *solved, after),
        _ => Err(Failure::new(
            "response.shape",
            format!(
                "the worker answered a {} probe with {} answers; the test could not be judged",
                probe_name(probe),
                response_name(response)
            ),
        )),
    };
    match result {
        Ok(()) => Judgement::Pass,
        Err(failure) => Judgement::Wrong(failure),
    }
}

/// Judges like [`judge`] — the end state alone decides the verdict, in
/// every language — and, for a `solve` that came with a write trace
/// (Python submissions, and libraries traced on request), replays the
/// search ([`trace::judge`](super::trace::judge)) to *explain* a failure.
///
/// A trace is recorded inside the student's process, where the student's
/// code can reach it, so it is evidence of nothing: it never passes a test
/// and never makes one fail. When the end state fails, the trace's first
/// rule-breaking step (or, failing that, its hint: a digit never tried, a
/// solution cleared) words the failure, under the end state's check id;
/// when the end state passes, the test passes and the trace gives only the
/// counts a report shows. A malformed, capped or missing trace changes
/// nothing but the wording.
pub fn judge_traced(
    case: &Case,
    policy: FindEmptyPolicy,
    probe: &Probe,
    response: &Response,
    trace: Option<&super::WriteTrace>,
) -> (Judgement, Option<super::TraceSummary>) {
    let judgement = judge(case, policy, probe, response);
    let (
        Some(trace),
        Probe::Solve { n, board },
        Response::Solve {
            solved,
            board: after,
        },
    ) = (trace, probe, response)
    else {
        return (judgement, None);
    };
    let replay = super::trace::judge(case, *n, board, *solved, after, trace);
    match (judgement, replay) {
        (Judgement::Pass, Ok(summary)) => (Judgement::Pass, Some(summary)),
        (Judgement::Pass, Err(_)) => (Judgement::Pass, None),
        (Judgement::Wrong(end), Ok(mut summary)) => {
            let explained = match summary.hint.take() {
                Some(hint) => explain(end, hint),
                None => end,
            };
            (Judgement::Wrong(explained), Some(summary))
        }
        (Judgement::Wrong(end), Err(step)) if step.check == super::trace::MALFORMED => {
            (Judgement::Wrong(end), None)
        }
        (Judgement::Wrong(end), Err(step)) => (Judgement::Wrong(explain(end, step)), None),
    }
}

/// The end state's failure `end`, worded by what the trace showed: the
/// trace's message and board, under the end state's check id (what
/// decided the verdict, and what a shrinker compares).
fn explain(end: Failure, trace: Failure) -> Failure {
    Failure {
        check: end.check,
        explained_by: Some(trace.check),
        ..trace
    }
}

fn probe_name(probe: &Probe) -> &'static str {
    match probe {
        Probe::Legal { .. } => "legal",
        Probe::FindEmpty { .. } => "find_empty",
        Probe::Solve { .. } => "solve",
    }
}

fn response_name(response: &Response) -> &'static str {
    match response {
        Response::Legal { .. } => "legal",
        Response::FindEmpty { .. } => "find_empty",
        Response::Solve { .. } => "solve",
    }
}

/// A failure for a probe the planner cannot have made.
fn bad_probe(error: super::ProbeError) -> Failure {
    Failure::new(
        "probe",
        format!("grader bug, not the student's: {error}; please report it"),
    )
}

/// A failure for a response with `found` answers where `expected` were asked.
fn count_mismatch(function: &str, expected: usize, found: usize) -> Failure {
    Failure::new(
        "response.shape",
        format!(
            "{function} was asked {expected} question(s) but {found} answer(s) came back; the test could not be judged"
        ),
    )
}
