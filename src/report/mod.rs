//! The report model (SPEC 6), built once by the grading loop and written by
//! one module per output format through one trait ([`ReportFormat`]) and one
//! dispatcher ([`ReportSinks`]). `-` as a path means stdout.
//!
//! The model holds plain text only: colour is decided at the edge that
//! prints it (the terminal writers; the HTML page draws boards as grids).

pub(crate) mod classroom;
pub(crate) mod csv;
mod derived;
pub(crate) mod dispatch;
#[cfg(test)]
mod fixture;
pub(crate) mod gradescope;
pub(crate) mod html;
pub(crate) mod ids;
pub(crate) mod json;
pub(crate) mod junit;
pub(crate) mod load_hints;
pub(crate) mod naming;
pub(crate) mod picture;
#[cfg(test)]
mod proptests;
pub(crate) mod read;
pub(crate) mod requests;
pub(crate) mod run;
pub(crate) mod student;
pub(crate) mod summary_md;
pub(crate) mod terminal;
pub(crate) mod text;

pub(crate) use dispatch::{Format, ReportFormat, ReportOptions, ReportSinks};
pub(crate) use naming::headline;
pub(crate) use run::RunInfo;

use serde::{Deserialize, Serialize};

use crate::check::Check;
use crate::verdict::{Fault, Function, Verdict};

/// The version of the JSON report's schema.
pub(crate) const REPORT_VERSION: u32 = 1;

/// How far grading a submission got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Built and loaded; every test ran.
    Ok,
    /// Could not be built (or its folder held no submission we recognise).
    BuildError,
    /// Built, but could not be loaded (a missing symbol, a bad library).
    LoadError,
    /// The grader failed before any test could run (no compiler, a box
    /// that cannot be made, a panic): the submission's `fault` says which.
    GraderError,
}

/// Everything a grading run found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`REPORT_VERSION`].
    pub version: u32,
    /// One per submission, in the order of their ids.
    pub submissions: Vec<SubmissionReport>,
    /// How the report was made (grader version, case-file hashes, limits,
    /// safeguards, time); filled by the command that ran the grading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunInfo>,
}

/// One student's result. Its score, points possible, fault and status
/// follow from its tests: `derived.rs` computes them, writes them into the
/// JSON, and checks them when a result is read back.
#[derive(Clone, Debug, PartialEq)]
pub struct SubmissionReport {
    /// The student id: the name of the submission's entry.
    pub id: String,
    /// `rust`, `c`, `python` or `library`; `null` when not recognised.
    pub kind: Option<String>,
    /// How far grading got.
    pub status: Status,
    /// Why it did not get further (the compiler's or loader's message).
    pub message: String,
    /// What to do about a build or load error, when its message shows a
    /// mistake the lab's setting explains (`load_hints`): shown after the
    /// message by every report. Absent from the JSON when there is none.
    pub hint: Option<String>,
    /// What the student should know about how their upload was read: the
    /// files ignored beside the submission, the notebook cells taken.
    /// Absent from the JSON when there is none.
    pub notes: Vec<String>,
    /// Points earned in the tests that ran (the JSON's `score`, which is
    /// `null` when the submission is not graded: see [`SubmissionReport::grade`]).
    pub score: u32,
    /// Points possible.
    pub max_score: u32,
    /// The grader's fault on this submission, when there is one (no
    /// compiler, a box that cannot be made, a worker that could not start
    /// in some test, a host too busy to time a test, a bug): not the
    /// student's doing, the submission is not graded, and the command
    /// exits 2 so nobody mistakes it for a grade. Absent otherwise.
    pub fault: Option<Fault>,
    /// One per (case, function), in case order.
    pub tests: Vec<TestReport>,
}

/// One test's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<f64>,
    /// How many times the test was run again because the host was too
    /// busy to time it (stopped at the wall-clock backstop while still
    /// runnable and under its CPU limit); absent when it ran once.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reruns: u32,
    /// The check that failed, for `wrong` (its id, e.g. `solve.leftover`:
    /// `grader checks` lists them); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
    /// The grader's fault, when the test could not be run or judged
    /// through no fault of the student's (verdict `error`, no points);
    /// absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// Why it failed (the check and the cell, the signal, ...); empty on a
    /// pass. A fault's own words are not in it: a report shows them with
    /// [`TestReport::shown_message`].
    pub message: String,
    /// What the student's code printed, capped.
    pub output: String,
    /// A picture of the board the failed check is about, with the cell in
    /// question marked; absent when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    /// Whether the case is hidden (never shown by `grader check`).
    #[serde(skip)]
    pub hidden: bool,
    /// The case's one-line description, shown to a student beside a failure.
    #[serde(skip)]
    pub description: Option<String>,
    /// The side of the case's board (4, 9, 16): the HTML matrix orders its
    /// columns by it, as the lab goes from the campus 4x4 to the 16x16.
    #[serde(skip)]
    pub side: Option<usize>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl TestReport {
    /// The message as a person reads it: after the fault's headline when
    /// the grader is at fault (every text format shows a fault so).
    pub fn shown_message(&self) -> std::borrow::Cow<'_, str> {
        shown(self.fault, &self.message)
    }

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
pub(crate) const MAX_REPORTED_MS: f64 = 365.0 * 24.0 * 3600.0 * 1000.0;

/// `message`, after `fault`'s headline when there is one.
fn shown(fault: Option<Fault>, message: &str) -> std::borrow::Cow<'_, str> {
    match fault {
        Some(fault) => fault.render(message).into(),
        None => message.into(),
    }
}

impl SubmissionReport {
    /// The message as a person reads it: after the fault's headline when
    /// the grader failed before any test ran.
    pub fn shown_message(&self) -> std::borrow::Cow<'_, str> {
        match (self.status, &self.hint) {
            (Status::GraderError, _) => shown(self.fault, &self.message),
            (Status::BuildError | Status::LoadError, Some(hint)) => {
                format!("{}\nhint: {hint}", self.message).into()
            }
            _ => self.message.as_str().into(),
        }
    }

    /// The message in one line: its headline ([`headline`]), then the
    /// hint when there is one.
    pub fn one_line(&self) -> String {
        let line = match self.status {
            Status::GraderError => headline(&self.shown_message()).to_string(),
            _ => headline(&self.message).to_string(),
        };
        match (self.status, &self.hint) {
            (Status::BuildError | Status::LoadError, Some(hint)) => {
                format!("{line} (hint: {hint})")
            }
            _ => line,
        }
    }

    /// True iff the grader failed on this submission (on it, or in any of
    /// its tests): then it is not graded.
    pub fn grader_fault(&self) -> bool {
        !self.graded()
    }

    /// True iff every test passed.
    pub fn all_passed(&self) -> bool {
        self.status == Status::Ok && self.tests.iter().all(|t| t.verdict == Verdict::Pass)
    }
}

impl Report {
    /// True iff the grader itself failed on some submission.
    pub fn grader_fault(&self) -> bool {
        self.submissions.iter().any(SubmissionReport::grader_fault)
    }

    /// True iff every test of every submission passed.
    pub fn all_passed(&self) -> bool {
        self.submissions.iter().all(SubmissionReport::all_passed)
    }
}
