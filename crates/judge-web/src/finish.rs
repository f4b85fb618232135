//! The end of a check: the tests the engine ran, judged, put together
//! into the report `grader check --json` writes, its lines and the exit
//! code.

use serde::{Deserialize, Serialize};

use crate::cases;
use crate::report::{CheckReport, ShrunkView, Status, SubmissionReport, TestReport, not_run};
use crate::view;

/// [`finish`]'s input.
#[derive(Deserialize)]
pub(crate) struct Finish {
    /// The file checked, as named.
    path: String,
    /// The reports of the tests that ran, in order.
    #[serde(default)]
    tests: Vec<TestReport>,
    /// Smallest failing boards.
    #[serde(default)]
    shrunk: Vec<ShrunkView>,
    /// The code could not be loaded: why.
    #[serde(default)]
    load_error: Option<String>,
    /// The file could not be made into a program (a notebook that cannot
    /// be read): why.
    #[serde(default)]
    build_error: Option<String>,
    /// What the student should know about how the file was read (a
    /// notebook's cells).
    #[serde(default)]
    notes: Vec<String>,
}

/// The check's report, lines and exit code.
#[derive(Serialize)]
pub(crate) struct Finished {
    report: CheckReport,
    lines: Vec<String>,
    exit_code: u8,
}

/// Puts the check together.
pub(crate) fn finish(input: Finish) -> Result<Finished, String> {
    let id = std::path::Path::new(&input.path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (status, message, tests) = match (input.build_error, input.load_error) {
        (Some(message), _) => (
            Status::BuildError,
            message,
            cases::with(|set| Ok(not_run(&set.cases, "built")))?,
        ),
        (None, Some(message)) => (
            Status::LoadError,
            message,
            cases::with(|set| Ok(not_run(&set.cases, "loaded")))?,
        ),
        (None, None) => (Status::Ok, String::new(), input.tests),
    };
    let planned = cases::with(|set| Ok(set.cases.iter().map(|c| c.tests.len()).sum::<usize>()))?;
    let mut shrunk = input.shrunk;
    for view in &mut shrunk {
        view.complete();
    }
    let mut report = CheckReport {
        version: 1,
        path: input.path,
        exit_code: 0,
        hidden_tests_also_count: true,
        not_run: planned.saturating_sub(tests.len()),
        submission: SubmissionReport {
            id,
            kind: Some("python".to_string()),
            status,
            message,
            notes: input.notes,
            score: tests.iter().map(|t| t.points).sum(),
            max_score: tests.iter().map(|t| t.max_points).sum(),
            tests,
        },
        shrunk,
        first_steps: Vec::new(),
        legal_swap: None,
        size_note: None,
        engine: "pyodide: time limits are wall-clock and advisory",
    };
    report.exit_code = report.exit_code();
    let lines = view::lines(&report);
    Ok(Finished {
        exit_code: report.exit_code,
        report,
        lines,
    })
}
