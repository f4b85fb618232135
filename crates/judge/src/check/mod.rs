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

pub(crate) mod catalog;
pub(crate) mod error;
mod execute;
pub(crate) mod failure;
mod judge;
mod plan;
pub(crate) mod probe;
mod rule;
#[cfg(test)]
mod tests;
pub mod trace;

/// The digit loop in all three languages (see [`crate::words::spelling`]).
pub use crate::words::spelling::DIGIT_LOOP_ANY;
pub use catalog::{Check, CheckInfo};
pub use error::ProbeError;
pub use execute::execute;
pub use failure::{Failure, Judgement};
pub use judge::{judge, judge_traced};
pub use plan::{MAX_LEGAL_QUERIES, plan};
pub use probe::{FindEmptyAnswer, Probe, Response};
pub use trace::{TraceSource, TraceSummary, WriteTrace};
