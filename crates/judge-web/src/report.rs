//! The check's report in the shape of `grader check --json`, from the
//! judge's own model (`grader_judge::report`, `words::student`), and the
//! exit code (`grader check`'s: 0 all pass, 1 a test failed, 2 the
//! checker failed, 3 the code did not load).

use grader_judge::case::Case;
use grader_judge::report::{Status, TestReport};
use grader_judge::verdict::{Function, Verdict};
use grader_judge::words::legal_swap::LegalSwapView;
use grader_judge::words::student::{FirstStepView, ShrunkView};
use serde::Serialize;

/// The submission, as `grader check --json` has it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct SubmissionReport {
    pub(crate) id: String,
    pub(crate) kind: Option<String>,
    pub(crate) status: Status,
    pub(crate) message: String,
    /// What to do about the load error, when its message shows a mistake
    /// the lab's setting explains (`words::load_hints`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) hint: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) notes: Vec<String>,
    pub(crate) score: u32,
    pub(crate) max_score: u32,
    pub(crate) tests: Vec<TestReport>,
}

/// The whole check, as `grader check --json` has it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct CheckReport {
    pub(crate) version: u32,
    pub(crate) path: String,
    pub(crate) exit_code: u8,
    pub(crate) hidden_tests_also_count: bool,
    pub(crate) not_run: usize,
    pub(crate) submission: SubmissionReport,
    pub(crate) shrunk: Vec<ShrunkView>,
    pub(crate) first_steps: Vec<FirstStepView>,
    pub(crate) legal_swap: Option<LegalSwapView>,
    pub(crate) size_note: Option<String>,
    /// Where the check ran, and that its time limits were wall-clock.
    pub(crate) engine: &'static str,
}

impl CheckReport {
    /// Whether the checker itself failed, on the submission or in a test.
    pub(crate) fn grader_fault(&self) -> bool {
        let sub = &self.submission;
        sub.status == Status::GraderError || sub.tests.iter().any(|t| t.fault.is_some())
    }

    /// `grader check`'s exit code for this report.
    pub(crate) fn exit_code(&self) -> u8 {
        let sub = &self.submission;
        if self.grader_fault() {
            2
        } else if sub.status != Status::Ok {
            3
        } else if sub.tests.iter().all(|t| t.verdict == Verdict::Pass) {
            0
        } else {
            1
        }
    }
}

/// A passing test of `case`'s `function`, until told otherwise.
pub(crate) fn passing(case: &Case, function: Function) -> TestReport {
    TestReport::of(case, function, Verdict::Pass, String::new())
}

/// The test failed with `verdict`: no points, `message`.
pub(crate) fn fail(test: &mut TestReport, verdict: Verdict, message: String) {
    test.verdict = verdict;
    test.points = 0;
    test.message = message;
}

/// Every planned test `error`, as `grader check` lists them when the code
/// could not be built or loaded.
pub(crate) fn not_run(cases: &[Case], could_not_be: &str) -> Vec<TestReport> {
    cases
        .iter()
        .flat_map(|case| {
            case.tests.iter().map(move |&function| {
                let mut test = passing(case, function);
                fail(
                    &mut test,
                    Verdict::Error,
                    format!("not run: the submission could not be {could_not_be}"),
                );
                test
            })
        })
        .collect()
}
