//! The report model (SPEC 6), built once by the grading loop and written by
//! one module per output format (`formats/`) through one trait
//! ([`formats::ReportFormat`]) and one dispatcher ([`dispatch::ReportSinks`]). `-` as a path means stdout.
//!
//! The model holds plain text only: colour is decided at the edge that
//! prints it (the terminal writers; the HTML page draws boards as grids).

mod derived;
pub(crate) mod dispatch;
#[cfg(test)]
mod fixture;
pub(crate) mod formats;
pub(crate) mod ids;
pub(crate) mod load_hints;
pub(crate) mod naming;
#[cfg(test)]
mod proptests;
pub(crate) mod read;
pub(crate) mod requests;
pub(crate) mod run_info;
pub(crate) mod schema;
pub(crate) mod student;

pub(crate) use run_info::RunInfo;

use naming::headline;

use serde::{Deserialize, Serialize};

use crate::verdict::{Fault, Verdict};
use grader_judge::report::shown;
pub(crate) use grader_judge::report::{Status, TestReport};
pub(crate) use grader_judge::words::across::FixedSize;

/// The version of the JSON report's schema.
pub(crate) const REPORT_VERSION: u32 = 1;

/// Everything a grading run found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Report {
    /// The version of the report's schema (`REPORT_VERSION`, 1).
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
    /// A board size the code was written for, when its tests prove it
    /// (`words::across::FixedSize`): every report words it, as `grader
    /// check` does. Absent from the JSON when there is none.
    pub fixed_size: Option<FixedSize>,
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

    /// What its tests prove together about the whole submission (a board
    /// size written into the code), in its language: every report shows
    /// these words, the ones `grader check` shows.
    pub fn diagnoses(&self) -> Vec<String> {
        let lang = self.kind.as_deref().and_then(crate::finding::Lang::of_kind);
        self.fixed_size
            .iter()
            .map(|size| size.words(lang))
            .collect()
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
