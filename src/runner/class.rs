//! Grading a class: [`grade_all`] runs one `Session` per submission,
//! `--jobs` at a time, and collects the `SubmissionReport`s in order, a
//! submission whose grading panicked (a grader bug) becoming that one's
//! grader error; [`grade_one`] grades one submission.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::report::{REPORT_VERSION, Report, Status, SubmissionReport};
use crate::runner::grade_plan::GradePlan;
use crate::runner::session::{Next, Session, not_run};
use crate::submission::discover::Submission;
use crate::verdict::{Fault, FaultKind};

/// What [`grade_all`] tells its caller as it goes, from the grading threads.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// Grading of this submission begins.
    Started(&'a Submission),
    /// This submission is graded: its result, final (to stream or store).
    Finished(&'a Submission, &'a SubmissionReport),
}

/// Grades every submission, `plan.jobs` at a time, calling `progress` as
/// each starts and finishes (for a progress bar, streamed or stored
/// results). The report lists them in the given order.
pub fn grade_all(
    submissions: &[Submission],
    plan: &GradePlan,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Report {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<SubmissionReport>>> = Mutex::new(vec![None; submissions.len()]);
    let workers = plan.jobs.clamp(1, submissions.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(submission) = submissions.get(index) else {
                        break;
                    };
                    progress(Progress::Started(submission));
                    // A bug in the grader itself must not lose the other
                    // students' results: it becomes this one's error.
                    let report = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        grade_one(submission, plan)
                    }))
                    .unwrap_or_else(|panic| grader_failed(submission, &*panic, plan));
                    progress(Progress::Finished(submission, &report));
                    results.lock().unwrap_or_else(|e| e.into_inner())[index] = Some(report);
                }
            });
        }
    });
    let submissions = results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect();
    Report {
        version: REPORT_VERSION,
        submissions,
        run: None,
    }
}

/// Builds and tests one submission in a box of its own (one
/// `Session`). Never fails: whatever goes wrong is in the report.
pub fn grade_one(submission: &Submission, plan: &GradePlan) -> SubmissionReport {
    match Session::open(submission, plan) {
        Ok(session) => session.run(|_, _, _, _| Next::Go),
        Err(report) => *report,
    }
}

/// The report for a submission whose grading panicked (a grader bug).
fn grader_failed(
    submission: &Submission,
    panic: &(dyn std::any::Any + Send),
    plan: &GradePlan,
) -> SubmissionReport {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    let message = format!("a bug in the grader, please report it: {what}");
    let kind = submission.kind.as_ref().ok().copied();
    not_run(
        submission,
        kind,
        Status::GraderError,
        &message,
        Some(Fault::grader(FaultKind::Panic)),
        plan,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::SandboxEnv;
    use crate::submission::build::BuildContext;
    use crate::submission::discover::classify;
    use crate::verdict::Verdict;
    use std::path::Path;

    #[test]
    fn a_panic_in_the_grader_is_a_typed_fault_not_a_build_error() {
        let mut cases = crate::case::builtin();
        cases.cases.retain(|c| c.name == "campus-4x4");
        let plan = GradePlan {
            cases,
            build: BuildContext::new().expect("build folder"),
            sandbox: SandboxEnv::detect(),
            jobs: 1,
            limits: Default::default(),
        };
        let c_listing = Path::new(env!("CARGO_MANIFEST_DIR")).join("submissions/c-listing.c");
        let panic = std::panic::catch_unwind(|| panic!("index out of bounds")).unwrap_err();
        let report = grader_failed(&classify(&c_listing), &*panic, &plan);
        assert_eq!(report.status, Status::GraderError);
        assert_eq!(report.fault, Some(Fault::grader(FaultKind::Panic)));
        assert!(report.message.contains("index out of bounds"), "{report:?}");
        assert!(report.shown_message().contains("not your fault"));
        assert!(report.tests.iter().all(|t| t.fault == report.fault));
    }

    #[test]
    fn a_worker_that_cannot_start_is_the_graders_fault_not_a_grade() {
        let mut cases = crate::case::builtin();
        cases.cases.retain(|c| c.name == "campus-4x4");
        assert_eq!(cases.cases.len(), 1, "the bundled campus case is there");
        let plan = GradePlan {
            cases,
            build: BuildContext::new().expect("build folder"),
            sandbox: SandboxEnv::detect().with_worker("/nonexistent/grader-worker"),
            jobs: 1,
            limits: Default::default(),
        };
        let c_listing = Path::new(env!("CARGO_MANIFEST_DIR")).join("submissions/c-listing.c");
        let report = grade_one(&classify(&c_listing), &plan);
        assert_eq!(
            report.fault,
            Some(Fault::grader(FaultKind::Sandbox)),
            "{report:?}"
        );
        assert_eq!(report.status, Status::GraderError);
        assert_eq!(report.score, 0);
        assert!(
            report.message.contains("box cannot be made"),
            "{}",
            report.message
        );
        assert!(
            report
                .tests
                .iter()
                .all(|t| t.verdict == Verdict::Error && t.fault == report.fault)
        );
    }
}
