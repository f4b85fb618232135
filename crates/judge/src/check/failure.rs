//! A failed check ([`Failure`]) and what one test came to
//! ([`Judgement`]): what the judges of the three functions (`judge/`) and
//! the trace replay (`trace.rs`) return.

use std::fmt;

use sudoku_lab::Board;

use super::catalog::Check;
use super::error::ProbeError;
use crate::finding::{Finding, Lang};
use crate::verdict::Function;
use crate::words;

/// What one test came to, as far as the answers go.
#[derive(Clone, Debug, PartialEq)]
pub enum Judgement {
    /// Every check passed.
    Pass,
    /// A check failed.
    Wrong(Failure),
    /// The probe the grader built cannot be judged (the grader's own bug,
    /// never the student's: see [`ProbeError`]).
    BadProbe(ProbeError),
}

/// A failed check: which, why, and what to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The check's id, e.g. `legal`, `find_empty.policy`, `solve.leftover`.
    pub check: Check,
    /// For the student: the function, the cell (`(row 3, col 5)`) and what to fix.
    pub message: String,
    /// The board to show: the one asked about, or as `solve` left it.
    pub board: Option<Board>,
    /// The cell to highlight, 0-based `(row, column)`.
    pub cell: Option<(usize, usize)>,
    /// The write trace's check that words this failure (its first
    /// rule-breaking step, or a hint), when a trace explains what the end
    /// state's check `check` found.
    pub explained_by: Option<Check>,
    /// What the check observed, as data, when a later stage words or
    /// narrows it (see [`crate::finding`]); boxed, as a failure travels in
    /// every `Err`.
    pub finding: Option<Box<Finding>>,
}

impl Failure {
    pub(crate) fn new(check: Check, message: String) -> Failure {
        Failure {
            check,
            message,
            board: None,
            cell: None,
            explained_by: None,
            finding: None,
        }
    }

    /// A failure that observed `finding`, worded without a language (a
    /// report that knows it words it again: [`crate::words`]).
    pub(crate) fn found(check: Check, finding: Finding) -> Failure {
        Failure::found_in(check, finding, None)
    }

    /// [`Failure::found`], worded in `lang` (a trace knows its recorder's
    /// language).
    pub(crate) fn found_in(check: Check, finding: Finding, lang: Option<Lang>) -> Failure {
        let cx = words::Context {
            lang,
            ..words::Context::default()
        };
        let message = words::message(&finding, check_function(check), "", &cx);
        Failure {
            finding: Some(Box::new(finding)),
            ..Failure::new(check, message)
        }
    }

    /// This failure, with `finding` beside its message.
    pub(crate) fn with(mut self, finding: Finding) -> Failure {
        self.finding = Some(Box::new(finding));
        self
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

/// The function `check` judges (a check of the answers' shape counts as
/// `solve`'s, whose words it never takes).
pub(crate) fn check_function(check: Check) -> Function {
    match check.info().function {
        "legal" => Function::Legal,
        "find_empty" => Function::FindEmpty,
        _ => Function::Solve,
    }
}

/// A failure for a response with `found` answers where `expected` were asked.
pub(crate) fn count_mismatch(function: &str, expected: usize, found: usize) -> Failure {
    Failure::new(
        Check::ResponseShape,
        format!(
            "{function} was asked {expected} question(s) but {found} answer(s) came back; the test could not be judged"
        ),
    )
}
