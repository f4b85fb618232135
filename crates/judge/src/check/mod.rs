//! The checks of SPEC 4, written once against the lab trait.
//!
//! A test is three steps, so that expected answers never enter the process
//! that runs student code:
//!
//! 1. [`plan`] (grader): the [`Probe`], the boards and questions to ask;
//! 2. [`execute`] (a test child in the box, or in-process for the
//!    reference): ask them of any
//!    [`Sudoku`](sudoku_lab::Sudoku) and collect the [`Response`];
//! 3. [`judge`] (grader): compare the response with the rule and the
//!    reference, and name the first failed check and its cell.

mod catalog;
mod error;
mod execute;
mod judge;
mod plan;
mod probe;
mod rule;
#[cfg(test)]
mod tests;
pub mod trace;

pub use catalog::{Check, CheckInfo};
pub use error::ProbeError;
pub use execute::execute;
pub use judge::{Failure, Judgement, judge, judge_traced};
pub use plan::{MAX_LEGAL_QUERIES, plan};
pub use probe::{FindEmptyAnswer, Probe, Response};
pub use trace::{TraceSource, TraceSummary, WriteTrace};

/// The digit loop in all three languages, for a message that does not know
/// which one the student wrote (the grader's `check::digit_loop` spells
/// one).
pub const DIGIT_LOOP_ANY: &str = "1..=n*n in Rust, range(1, n*n + 1) in Python, v <= n*n in C";
