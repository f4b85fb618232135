//! The verdict of one test (SPEC 4) and the outcome that carries it.
//!
//! A student's wrong answer, crash or timeout is an [`Outcome`], not an
//! `Err`: errors are for the grader's own failures.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One of the three lab functions a test exercises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Function {
    /// `legal(board, r, c, v)`.
    Legal,
    /// `find_empty(board)`.
    FindEmpty,
    /// `solve(board)`.
    Solve,
}

impl Function {
    /// All three, in the order tests run.
    pub const ALL: [Function; 3] = [Function::Legal, Function::FindEmpty, Function::Solve];

    /// The name as written in case files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Function::Legal => "legal",
            Function::FindEmpty => "find_empty",
            Function::Solve => "solve",
        }
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The verdict of one test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every check passed.
    Pass,
    /// A check failed; the message says which and shows the board.
    Wrong,
    /// The test ran out of time (CPU or wall clock).
    Timeout,
    /// The test ran out of memory.
    Memory,
    /// The process died: a signal, or an exit before reporting.
    Crash,
    /// The sandbox refused an operation (a forbidden system call).
    Forbidden,
    /// The submission could not be built or loaded.
    Error,
}

impl Verdict {
    /// The name as written in reports.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Wrong => "wrong",
            Verdict::Timeout => "timeout",
            Verdict::Memory => "memory",
            Verdict::Crash => "crash",
            Verdict::Forbidden => "forbidden",
            Verdict::Error => "error",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whose failure a result is: decided where the failure is seen (the
/// outcome classifier, the build step), never read back from a message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Blame {
    /// The student's code or submission: the verdict counts for the score.
    #[default]
    Student,
    /// The grader's own failure (no compiler, the box could not start,
    /// a safeguard could not be applied): never a score; the run exits 2.
    Grader,
}

/// What one test came to: the verdict, why, and what the student's code
/// printed.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// Why, for a person: the failed check and cell, the signal, the
    /// forbidden call. Empty on a pass.
    pub message: String,
    /// Time spent in the student's function(s), in milliseconds, when known.
    pub time_ms: Option<f64>,
    /// What the student's code printed (stdout then stderr), capped.
    pub output: String,
    /// Whose failure it is ([`Blame::Student`] for every verdict the
    /// student's code earned, including a pass).
    pub blame: Blame,
}

impl Outcome {
    /// An outcome with no time and no output.
    pub fn new(verdict: Verdict, message: impl Into<String>) -> Outcome {
        Outcome {
            verdict,
            message: message.into(),
            time_ms: None,
            output: String::new(),
            blame: Blame::Student,
        }
    }

    /// An `error` that is the grader's fault, not the student's.
    pub fn grader_fault(message: impl Into<String>) -> Outcome {
        Outcome {
            blame: Blame::Grader,
            ..Outcome::new(Verdict::Error, message)
        }
    }

    /// Whether the grader, not the student, failed.
    pub fn is_grader_fault(&self) -> bool {
        self.blame == Blame::Grader
    }
}
