//! The verdict of one test (SPEC 4) and the outcome that carries it.
//!
//! A student's wrong answer, crash or timeout is an [`Outcome`], not an
//! `Err`: errors are for the grader's own failures.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One of the three lab functions a test exercises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
/// outcome classifier, the build step, the judge), never read back from a
/// message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Blame {
    /// The student's code or submission: the verdict counts for the score.
    #[default]
    Student,
    /// The grader's own failure (no compiler, the box could not start,
    /// a safeguard could not be applied): never a score; the run exits 2.
    Grader,
}

/// What kind of failure of the grader's own a result is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// The worker could not set itself up (a safeguard that could not be
    /// applied), and said so before it loaded the student's code.
    WorkerFailed,
    /// The worker process ended before it loaded the student's code.
    WorkerEnded,
    /// The host was too busy to time the test or the build: it was still
    /// runnable and under its CPU limit at the wall-clock backstop.
    HostBusy,
    /// The box could not be made, or could not run a test or a build.
    Sandbox,
    /// A tool the grader needs (a C compiler, a Rust toolchain, `python3`)
    /// is missing or could not set itself up in the box.
    Toolchain,
    /// The grader built a probe it cannot judge (a bug in the grader).
    BadProbe,
    /// The grader panicked on this submission (a bug in the grader).
    Panic,
}

impl FaultKind {
    /// What went wrong, in words, for the sentence a report shows.
    pub fn words(self) -> &'static str {
        match self {
            FaultKind::WorkerFailed => "its worker could not set itself up",
            FaultKind::WorkerEnded => "its worker ended before loading the code",
            FaultKind::HostBusy => "the host was too busy to time it",
            FaultKind::Sandbox => "the box could not be made or run",
            FaultKind::Toolchain => "a tool the grader needs is missing",
            FaultKind::BadProbe => "the grader built a test it cannot judge (a grader bug)",
            FaultKind::Panic => "the grader crashed (a grader bug)",
        }
    }
}

/// A failure that is not the student's: who is at fault and what kind.
/// A result with a fault is never a score, and the run exits 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(deny_unknown_fields))]
pub struct Fault {
    /// Who is at fault (today always `grader`: the student's own
    /// failures are verdicts, not faults).
    pub blame: Blame,
    /// What kind of fault.
    pub kind: FaultKind,
}

impl Fault {
    /// A fault of the grader's of `kind`.
    pub fn grader(kind: FaultKind) -> Fault {
        Fault {
            blame: Blame::Grader,
            kind,
        }
    }

    /// The fault as a report shows it beside its message, e.g. `the
    /// grader could not run this (not your fault: the host was too busy
    /// to time it)`.
    pub fn headline(self) -> String {
        format!(
            "the grader could not run this (not your fault: {})",
            self.kind.words()
        )
    }

    /// `message`, after the fault's [`headline`](Fault::headline).
    pub fn render(self, message: &str) -> String {
        if message.is_empty() {
            self.headline()
        } else {
            format!("{}: {message}", self.headline())
        }
    }
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
    /// The grader's fault, when it is one (`None` for every verdict the
    /// student's code earned, including a pass).
    pub fault: Option<Fault>,
    /// The check that failed, for a `wrong` decided before the answers
    /// are judged (the judge's own failures carry theirs).
    pub check: Option<crate::check::catalog::Check>,
    /// What the run showed, as data, when the words of the message follow
    /// from it (a stack overflow, Python's recursion limit).
    /// Boxed: most outcomes have none, and an outcome travels as an
    /// `Err`.
    pub finding: Option<Box<crate::finding::Finding>>,
}

impl Outcome {
    /// An outcome with no time and no output.
    pub fn new(verdict: Verdict, message: impl Into<String>) -> Outcome {
        Outcome {
            verdict,
            message: message.into(),
            time_ms: None,
            output: String::new(),
            fault: None,
            check: None,
            finding: None,
        }
    }

    /// This outcome, with `finding` beside its message.
    pub fn with(mut self, finding: crate::finding::Finding) -> Outcome {
        self.finding = Some(Box::new(finding));
        self
    }

    /// An `error` that is the grader's fault of `kind`, not the student's.
    pub fn grader_fault(kind: FaultKind, message: impl Into<String>) -> Outcome {
        Outcome {
            fault: Some(Fault::grader(kind)),
            ..Outcome::new(Verdict::Error, message)
        }
    }

    /// Whose failure it is.
    pub fn blame(&self) -> Blame {
        self.fault.map_or(Blame::Student, |f| f.blame)
    }
}
