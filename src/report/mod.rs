//! The report model (SPEC 6), built once by the grading loop and written by
//! one module per output format through one trait ([`ReportFormat`]) and one
//! dispatcher ([`Outputs`]). `-` as a path means stdout.
//!
//! The model holds plain text only: colour is decided at the edge that
//! prints it (the terminal writers; the HTML page draws boards as grids).

pub mod classroom;
pub mod csv;
pub mod dispatch;
#[cfg(test)]
mod fixture;
pub mod gradescope;
pub mod html;
pub mod json;
pub mod junit;
pub mod naming;
pub mod picture;
#[cfg(test)]
mod proptests;
pub mod run;
pub mod student;
pub mod summary_md;
pub mod terminal;
pub mod text;

pub use dispatch::{Format, Outputs, ReportFormat, ReportOptions};
pub use naming::headline;
pub use run::RunInfo;

use serde::Serialize;

use crate::verdict::{Function, Verdict};

/// The version of the JSON report's schema.
pub const REPORT_VERSION: u32 = 1;

/// How far grading a submission got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Built and loaded; every test ran.
    Ok,
    /// Could not be built (or its folder held no submission we recognise).
    BuildError,
    /// Built, but could not be loaded (a missing symbol, a bad library).
    LoadError,
}

/// Everything a grading run found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// [`REPORT_VERSION`].
    pub version: u32,
    /// One per submission, in the order of their ids.
    pub submissions: Vec<SubmissionReport>,
    /// How the report was made (grader version, case-file hashes, limits,
    /// safeguards, time); filled by the command that ran the grading.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunInfo>,
}

/// One student's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SubmissionReport {
    /// The student id: the name of the submission's entry.
    pub id: String,
    /// `rust`, `c`, `python` or `library`; `null` when not recognised.
    pub kind: Option<String>,
    /// How far grading got.
    pub status: Status,
    /// Why it did not get further (the compiler's or loader's message).
    pub message: String,
    /// What the student should know about how their upload was read: the
    /// files ignored beside the submission, the notebook cells taken.
    /// Absent from the JSON when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Points earned.
    pub score: u32,
    /// Points possible.
    pub max_score: u32,
    /// True when the grader itself failed on this submission (a worker
    /// that could not start, a bug): not the student's doing, and the
    /// command exits 2 so nobody mistakes it for a grade.
    #[serde(skip)]
    pub grader_fault: bool,
    /// One per (case, function), in case order.
    pub tests: Vec<TestReport>,
}

/// One test's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestReport {
    /// The case's name.
    pub case: String,
    /// The function tested.
    pub function: Function,
    /// The verdict.
    pub verdict: Verdict,
    /// Points earned.
    pub points: u32,
    /// Points possible.
    pub max_points: u32,
    /// Milliseconds spent in the student's code, when it ran.
    pub time_ms: Option<f64>,
    /// Wall-clock milliseconds the test took, as the grader measured it
    /// (what CI viewers and Gradescope call a test's time); absent until the
    /// runner measures it, and writers then fall back on `time_ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<f64>,
    /// How many times the test was run again because the host was too
    /// busy to time it (stopped at the wall-clock backstop while still
    /// runnable and under its CPU limit); absent when it ran once.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reruns: u32,
    /// Why it failed (the check and the cell, the signal, ...); empty on a pass.
    pub message: String,
    /// What the student's code printed, capped.
    pub output: String,
    /// A picture of the board the failed check is about, with the cell in
    /// question marked; absent when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    /// Whether the case is hidden (never shown by `grader check`).
    #[serde(skip)]
    pub hidden: bool,
    /// The case's one-line description, shown to a student beside a failure.
    #[serde(skip)]
    pub description: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl TestReport {
    /// The test's wall time in seconds for a report: `wall_ms`, else
    /// `time_ms`; `None` when neither is a finite, non-negative number that
    /// fits a report (a forged `1e300` or `NaN` is no time at all).
    pub fn wall_seconds(&self) -> Option<f64> {
        self.wall_ms
            .or(self.time_ms)
            .filter(|ms| ms.is_finite() && (0.0..=MAX_REPORTED_MS).contains(ms))
            .map(|ms| ms / 1000.0)
    }
}

/// The longest time a report writes, in milliseconds (a year): anything
/// beyond is a forged or broken measurement, not a time.
pub const MAX_REPORTED_MS: f64 = 365.0 * 24.0 * 3600.0 * 1000.0;

impl SubmissionReport {
    /// True iff every test passed.
    pub fn all_passed(&self) -> bool {
        self.status == Status::Ok && self.tests.iter().all(|t| t.verdict == Verdict::Pass)
    }
}

impl Report {
    /// True iff the grader itself failed on some submission.
    pub fn grader_fault(&self) -> bool {
        self.submissions.iter().any(|s| s.grader_fault)
    }

    /// True iff every test of every submission passed.
    pub fn all_passed(&self) -> bool {
        self.submissions.iter().all(SubmissionReport::all_passed)
    }
}
