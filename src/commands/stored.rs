//! Reading reports back: a JSON report (SPEC 6) or a stored result, turned
//! into the [`Report`] model again, so that `merge`, `diff` and `report`
//! can write any format from what `grade` wrote.
//!
//! The model is written, never read, by the report writers, and the JSON
//! leaves out what only some formats need (whether a case is hidden, its
//! description): [`restore_cases`] puts those back from the case set, and
//! refuses a report graded on other cases.

use anyhow::{Context, bail};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

use crate::case::CaseSet;
use crate::report::text::visible_line;
use crate::report::{REPORT_VERSION, Report, Status, SubmissionReport, TestReport};
use crate::verdict::{Function, Verdict};

/// A JSON report as read back, with the run's provenance section if the
/// writer added one (`run`), kept as it is for comparison.
#[derive(Debug)]
pub struct ReadReport {
    /// The report.
    pub report: Report,
    /// The top-level `run` object, if any.
    pub run: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ReportFile {
    version: u32,
    submissions: Vec<StoredSubmission>,
    #[serde(default)]
    run: Option<serde_json::Value>,
}

/// [`SubmissionReport`] as JSON holds it; `grader_fault` only in stored
/// results.
#[derive(Deserialize)]
pub(crate) struct StoredSubmission {
    id: String,
    kind: Option<String>,
    status: StoredStatus,
    message: String,
    #[serde(default)]
    notes: Vec<String>,
    score: u32,
    max_score: u32,
    #[serde(default)]
    grader_fault: bool,
    tests: Vec<StoredTest>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum StoredStatus {
    Ok,
    BuildError,
    LoadError,
}

#[derive(Deserialize)]
struct StoredTest {
    case: String,
    function: Function,
    verdict: Verdict,
    points: u32,
    max_points: u32,
    time_ms: Option<f64>,
    #[serde(default)]
    wall_ms: Option<f64>,
    #[serde(default)]
    reruns: u32,
    message: String,
    output: String,
    #[serde(default)]
    board: Option<String>,
    #[serde(default)]
    hidden: bool,
    #[serde(default)]
    description: Option<String>,
}

impl StoredSubmission {
    /// The model again; from a JSON report, `hidden` and `description` are
    /// filled in by [`restore_cases`] (a stored result holds them).
    pub(crate) fn into_report(self) -> SubmissionReport {
        SubmissionReport {
            id: self.id,
            kind: self.kind,
            status: match self.status {
                StoredStatus::Ok => Status::Ok,
                StoredStatus::BuildError => Status::BuildError,
                StoredStatus::LoadError => Status::LoadError,
            },
            message: self.message,
            notes: self.notes,
            score: self.score,
            max_score: self.max_score,
            grader_fault: self.grader_fault,
            tests: self
                .tests
                .into_iter()
                .map(|t| TestReport {
                    case: t.case,
                    function: t.function,
                    verdict: t.verdict,
                    points: t.points,
                    max_points: t.max_points,
                    time_ms: t.time_ms,
                    wall_ms: t.wall_ms,
                    reruns: t.reruns,
                    message: t.message,
                    output: t.output,
                    board: t.board,
                    hidden: t.hidden,
                    description: t.description,
                })
                .collect(),
        }
    }
}

/// Reads the JSON report at `path` (as `grade --json` writes it).
///
/// # Errors
/// When the file cannot be read, is not a JSON report, or has another
/// schema version.
pub fn read_report(path: &Path) -> anyhow::Result<ReadReport> {
    let text = std::fs::read(path)
        .with_context(|| format!("cannot read the report {}", path.display()))?;
    let file: ReportFile = serde_json::from_slice(&text).with_context(|| {
        format!(
            "{} is not a JSON report of grader (write one with `grader grade --json {}`)",
            path.display(),
            path.display()
        )
    })?;
    if file.version != REPORT_VERSION {
        bail!(
            "{} is a version {} report; this grader reads version {REPORT_VERSION}: regrade with this grader",
            path.display(),
            file.version
        );
    }
    Ok(ReadReport {
        report: Report {
            version: file.version,
            run: None,
            submissions: file
                .submissions
                .into_iter()
                .map(StoredSubmission::into_report)
                .collect(),
        },
        run: file.run,
    })
}

/// The tests a case set grades, as a report lists them: (case, function,
/// points possible), in case order.
pub fn test_list(cases: &CaseSet) -> Vec<(String, Function, u32)> {
    cases
        .cases
        .iter()
        .flat_map(|c| c.tests.iter().map(|&f| (c.name.clone(), f, c.points)))
        .collect()
}

/// Checks that every submission of `report` was graded on exactly the tests
/// of `cases`, and fills in what the JSON leaves out (hidden, description).
/// `source` names the report in errors.
///
/// # Errors
/// When a submission's tests differ from the case set's.
pub fn restore_cases(report: &mut Report, cases: &CaseSet, source: &str) -> anyhow::Result<()> {
    let expected = test_list(cases);
    let by_name: BTreeMap<&str, &crate::case::Case> =
        cases.cases.iter().map(|c| (c.name.as_str(), c)).collect();
    for sub in &mut report.submissions {
        let found: Vec<(String, Function, u32)> = sub
            .tests
            .iter()
            .map(|t| (t.case.clone(), t.function, t.max_points))
            .collect();
        if found != expected {
            let first = found
                .iter()
                .zip(&expected)
                .find(|(a, b)| a != b)
                .map(|(a, b)| {
                    format!(
                        "it has {} {} ({} points) where the cases have {} {} ({} points)",
                        visible_line(&a.0),
                        a.1,
                        a.2,
                        b.0,
                        b.1,
                        b.2
                    )
                })
                .unwrap_or_else(|| {
                    format!("it has {} tests, the cases {}", found.len(), expected.len())
                });
            bail!(
                "{source}: `{}` was graded on other cases than these ({first}): give the same --cases as the run that wrote it",
                visible_line(&sub.id)
            );
        }
        for test in &mut sub.tests {
            if let Some(case) = by_name.get(test.case.as_str()) {
                test.hidden = case.hidden;
                test.description = case.description.clone();
            }
        }
    }
    Ok(())
}
