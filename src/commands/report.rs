//! `grader report DIR`: writes any report from a results folder of
//! `grader grade --results DIR`, without grading anything.

use anyhow::bail;

use crate::cli::ReportArgs;
use crate::report::requests::ReportRequests;
use crate::report::{REPORT_VERSION, Report};
use crate::state::results_dir::{check_same_run, read_all};

/// Runs `grader report`; the exit code is as `grade` would have given.
pub fn run(args: &ReportArgs) -> anyhow::Result<u8> {
    let outputs = ReportRequests::plan(&args.outputs)?;
    let results = read_all(&args.results)?;
    if results.is_empty() {
        bail!(
            "{} holds no results: write them with `grader grade SUBMISSIONS --results {}`",
            args.results.display(),
            args.results.display()
        );
    }
    check_same_run(&results)?;
    let report = Report {
        run: None,
        version: REPORT_VERSION,
        submissions: results.into_iter().map(|r| r.report).collect(),
    };
    if outputs.wants_gradescope() {
        crate::report::formats::gradescope::check_submission_count(report.submissions.len())?;
    }
    outputs.write_with_summary(&report)?;
    Ok(crate::exit::of_report(&report, args.fail_under))
}
