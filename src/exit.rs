//! The process exit codes, in one place (documented in the README).

/// Everything passed, or the command did its job.
pub const SUCCESS: u8 = 0;

/// Some student test failed, or `reference --check` found a difference.
pub const FAILURE: u8 = 1;

/// Bad usage, bad input (a case file, a board), or the grader itself failed.
pub const USAGE_OR_INPUT: u8 = 2;

/// `grader check` only: the student's code did not build or load (a
/// compile error, a missing symbol), so no test ran. Kept apart from a
/// wrong answer (1) and from the grader's own failure (2).
pub const BUILD_OR_LOAD_ERROR: u8 = 3;

/// The exit code of a command that produced `report`: 2 when the grader
/// itself failed on a submission (its score is not a grade); with
/// `fail_under`, 1 when a submission scores under that percent of its
/// points, else 0; without it, 0 iff every test of every submission passed.
pub(crate) fn of_report(report: &crate::report::Report, fail_under: Option<f64>) -> u8 {
    if report.grader_fault() {
        eprintln!(
            "error: the grader itself failed on some submissions (see their messages); their scores are not grades"
        );
        return USAGE_OR_INPUT;
    }
    let failed = match fail_under {
        None => !report.all_passed(),
        Some(threshold) => {
            let under: Vec<&str> = report
                .submissions
                .iter()
                .filter(|s| percent(s.score, s.max_score) < threshold)
                .map(|s| s.id.as_str())
                .collect();
            if !under.is_empty() {
                eprintln!(
                    "{} of {} submissions scored under {threshold}%",
                    under.len(),
                    report.submissions.len()
                );
            }
            !under.is_empty()
        }
    };
    if failed { FAILURE } else { SUCCESS }
}

/// `score` as a percent of `max` (100 when there is nothing to score).
fn percent(score: u32, max: u32) -> f64 {
    if max == 0 {
        100.0
    } else {
        f64::from(score) * 100.0 / f64::from(max)
    }
}

/// True when `err` comes from writing to a closed pipe (`grader check |
/// head`): the reader has all it wanted, so the command ends quietly with
/// [`SUCCESS`].
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
