//! Reading reports back: a JSON report (SPEC 6) is the [`Report`] model
//! itself (it derives `Deserialize`), so that `merge`, `diff` and `report`
//! can write any format from what `grade` wrote.
//!
//! What follows from the tests (score, points, status) is recomputed as a
//! report is read, and a report that stores other values is refused
//! (`derived.rs`).
//!
//! The JSON leaves out what only some formats need (whether a case is
//! hidden, its description, its board's side): [`restore_cases`] puts those back from the
//! case set, and refuses a report graded on other cases.

use anyhow::{Context, bail};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

use super::{REPORT_VERSION, Report};
use crate::case::CaseSet;
use crate::verdict::Function;
use crate::visible::visible_line;

/// Reads the JSON report at `path` (as `grade --json` writes it).
///
/// # Errors
/// When the file cannot be read, is not a JSON report, has another schema
/// version, or holds a submission whose stored score, points or status
/// disagree with its tests.
pub(crate) fn read_report(path: &Path) -> anyhow::Result<Report> {
    let text = std::fs::read(path)
        .with_context(|| format!("cannot read the report {}", path.display()))?;
    let not_a_report = || {
        format!(
            "{} is not a JSON report of grader (write one with `grader grade --json {}`)",
            path.display(),
            path.display()
        )
    };
    /// The version alone, read first: another version's fields may differ.
    #[derive(Deserialize)]
    struct Versioned {
        version: u32,
    }
    let value: serde_json::Value = serde_json::from_slice(&text).with_context(not_a_report)?;
    let versioned = Versioned::deserialize(&value).with_context(not_a_report)?;
    if versioned.version != REPORT_VERSION {
        bail!(
            "{} is a version {} report; this grader reads version {REPORT_VERSION}: regrade with this grader",
            path.display(),
            versioned.version
        );
    }
    // Each submission's derived fields are recomputed and checked as it is
    // read (`derived.rs`): a disagreement names the student.
    Report::deserialize(&value).with_context(|| {
        format!(
            "{} is refused: it cannot be read as a report of grader",
            path.display()
        )
    })
}

/// The tests a case set grades, as a report lists them: (case, function,
/// points possible), in case order.
pub(crate) fn test_list(cases: &CaseSet) -> Vec<(String, Function, u32)> {
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
pub(crate) fn restore_cases(
    report: &mut Report,
    cases: &CaseSet,
    source: &str,
) -> anyhow::Result<()> {
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
                test.side = Some(case.puzzle.side());
            }
        }
    }
    Ok(())
}
