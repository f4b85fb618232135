//! The grading loop: for each submission, build it, run every test of every
//! case in a fresh sandboxed worker, judge the answers, and collect a
//! [`SubmissionReport`]. Submissions run in parallel (`--jobs`); the tests of
//! one submission run one after the other.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::case::{Case, CaseSet};
use crate::check::{self, Judgement};
use crate::protocol::{CodeKind, Limits, WorkerRequest};
use crate::report::{REPORT_VERSION, Report, Status, SubmissionReport, TestReport, picture};
use crate::runner::build::{self, BuildContext};
use crate::runner::discover::{Submission, SubmissionKind};
use crate::runner::process::{self, SandboxEnv};
use crate::verdict::{Function, Outcome, Verdict};

/// Everything a grading run needs besides the submissions, checked before
/// any student code runs.
pub struct GradePlan {
    /// The cases, every one with its reference answer.
    pub cases: CaseSet,
    /// Where and how submissions are built.
    pub build: BuildContext,
    /// Which safeguards the workers apply.
    pub sandbox: SandboxEnv,
    /// Submissions graded at once.
    pub jobs: usize,
    /// Whether failure pictures are colored (a terminal) or plain.
    pub color: bool,
}

/// Grades every submission, `plan.jobs` at a time, calling `done` as each
/// finishes (for a progress bar). The report lists them in the given order.
pub fn grade_all(
    submissions: &[Submission],
    plan: &GradePlan,
    done: &(dyn Fn(&SubmissionReport) + Sync),
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
                    let report = grade_one(submission, plan);
                    done(&report);
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
    }
}

/// Builds and tests one submission. Never fails: whatever goes wrong is in
/// the report.
pub fn grade_one(submission: &Submission, plan: &GradePlan) -> SubmissionReport {
    let kind = match &submission.kind {
        Ok(kind) => *kind,
        Err(message) => {
            return not_run(submission, None, Status::BuildError, message, plan);
        }
    };
    let code = match build::build(submission, kind, &plan.build) {
        Ok(code) => code,
        Err(failure) => {
            return not_run(
                submission,
                Some(kind),
                Status::BuildError,
                &failure.to_string(),
                plan,
            );
        }
    };
    let code_kind = match kind {
        SubmissionKind::Python => CodeKind::Python,
        _ => CodeKind::Library,
    };
    let mut tests = Vec::new();
    for case in &plan.cases.cases {
        for &function in &case.tests {
            let (test, loaded) = run_test(code.path(), code_kind, case, function, plan);
            if !loaded && tests.is_empty() && test.verdict != Verdict::Pass {
                // The first test could not even load the code (a missing
                // symbol, a constructor that crashes or never returns):
                // nothing else can, so the rest are not run.
                let message = match test.verdict {
                    Verdict::Error => test.message,
                    verdict => format!("while loading the library: {verdict}: {}", test.message),
                };
                return not_run(submission, Some(kind), Status::LoadError, &message, plan);
            }
            tests.push(test);
        }
    }
    let score = tests.iter().map(|t| t.points).sum();
    SubmissionReport {
        id: submission.id.clone(),
        kind: Some(kind_name(kind).to_string()),
        status: Status::Ok,
        message: String::new(),
        score,
        max_score: max_score(&plan.cases),
        tests,
    }
}

/// Runs and judges one test of one case; also says whether the worker got
/// as far as loading the code.
pub fn run_test(
    code: &Path,
    kind: CodeKind,
    case: &Case,
    function: Function,
    plan: &GradePlan,
) -> (TestReport, bool) {
    let probe = check::plan(case, function);
    let limits = Limits {
        time_limit_ms: plan.cases.time_limit_ms(case),
        memory_limit_mb: plan.cases.config.memory_limit_mb,
    };
    let request = WorkerRequest {
        kind,
        code: code.to_path_buf(),
        probe,
        limits,
    };
    let mut board = None;
    let mut loaded = false;
    let outcome = match process::run_test(&request, &plan.sandbox) {
        Err(err) => Outcome::new(
            Verdict::Error,
            format!("the grader could not run this test (not your fault): {err}"),
        ),
        Ok(run) => {
            loaded = run.loaded();
            let output = run.output.clone();
            let mut outcome = match process::outcome(&run, &limits) {
                Err(outcome) => outcome,
                Ok((response, time_ms)) => {
                    let policy = plan.cases.config.find_empty_policy;
                    let mut outcome = match check::judge(case, policy, &request.probe, &response) {
                        Judgement::Pass => Outcome::new(Verdict::Pass, ""),
                        Judgement::Wrong(failure) => {
                            board = failure
                                .board
                                .as_ref()
                                .map(|b| picture::render(b, failure.cell, plan.color));
                            Outcome::new(Verdict::Wrong, failure.message)
                        }
                    };
                    outcome.time_ms = Some(time_ms);
                    outcome
                }
            };
            outcome.output = output;
            outcome
        }
    };
    let max_points = case.points;
    let test = TestReport {
        case: case.name.clone(),
        function,
        verdict: outcome.verdict,
        points: if outcome.verdict == Verdict::Pass {
            max_points
        } else {
            0
        },
        max_points,
        time_ms: outcome.time_ms,
        message: outcome.message,
        output: outcome.output,
        board,
        hidden: case.hidden,
        description: case.description.clone(),
    };
    (test, loaded)
}

/// A submission none of whose tests ran: every test gets `error` with the
/// reason, so the report still lists what it would have been graded on.
fn not_run(
    submission: &Submission,
    kind: Option<SubmissionKind>,
    status: Status,
    message: &str,
    plan: &GradePlan,
) -> SubmissionReport {
    let what = match status {
        Status::LoadError => "not run: the submission could not be loaded",
        _ => "not run: the submission could not be built",
    };
    let tests = plan
        .cases
        .cases
        .iter()
        .flat_map(|case| {
            case.tests.iter().map(move |&function| TestReport {
                case: case.name.clone(),
                function,
                verdict: Verdict::Error,
                points: 0,
                max_points: case.points,
                time_ms: None,
                message: what.to_string(),
                output: String::new(),
                board: None,
                hidden: case.hidden,
                description: case.description.clone(),
            })
        })
        .collect();
    SubmissionReport {
        id: submission.id.clone(),
        kind: kind.map(|k| kind_name(k).to_string()),
        status,
        message: message.to_string(),
        score: 0,
        max_score: max_score(&plan.cases),
        tests,
    }
}

fn max_score(cases: &CaseSet) -> u32 {
    cases
        .cases
        .iter()
        .map(|c| c.points * c.tests.len() as u32)
        .sum()
}

/// The kind's name in reports (SPEC 6).
pub fn kind_name(kind: SubmissionKind) -> &'static str {
    match kind {
        SubmissionKind::Rust => "rust",
        SubmissionKind::C => "c",
        SubmissionKind::Python => "python",
        SubmissionKind::Library => "library",
    }
}
