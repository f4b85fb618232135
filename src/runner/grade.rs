//! The grading loop: for each submission, build it, run every test of every
//! case in a fresh sandboxed worker, judge the answers, and collect a
//! [`SubmissionReport`]. Submissions run in parallel (`--jobs`); the tests of
//! one submission run one after the other.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::case::{Case, CaseSet};
use crate::check::{self, Judgement};
use crate::protocol::{CodeKind, Limits, WorkerMessage, WorkerRequest};
use crate::report::{REPORT_VERSION, Report, Status, SubmissionReport, TestReport, picture};
use crate::runner::process::{self, SandboxEnv};
use crate::sandbox::SubmissionBox;
use crate::submission::build::{self, BuildContext};
use crate::submission::discover::{Submission, SubmissionKind};
use crate::verdict::{Blame, Function, Outcome, Verdict};

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

/// Builds and tests one submission in a box of its own. Never fails:
/// whatever goes wrong is in the report.
pub fn grade_one(submission: &Submission, plan: &GradePlan) -> SubmissionReport {
    let kind = match &submission.kind {
        Ok(kind) => *kind,
        Err(message) => {
            return not_run(submission, None, Status::BuildError, message, plan);
        }
    };
    let mut sandbox = match SubmissionBox::open(&plan.sandbox, &plan.build.views_for(kind)) {
        Ok(sandbox) => sandbox,
        Err(err) => {
            let message = format!(
                "{} (not your fault): the box cannot be made: {err}",
                process::GRADER_FAULT
            );
            let mut report = not_run(submission, Some(kind), Status::BuildError, &message, plan);
            report.grader_fault = true;
            return report;
        }
    };
    for note in sandbox.notes() {
        plan.sandbox.say_once(note);
    }
    let code = match build::build(submission, kind, &plan.build, &mut sandbox) {
        Ok(code) => code,
        Err(failure) => {
            let mut report = not_run(
                submission,
                Some(kind),
                Status::BuildError,
                &failure.to_string(),
                plan,
            );
            report.grader_fault = failure.blame() == Blame::Grader;
            return report;
        }
    };
    let code_kind = match kind {
        SubmissionKind::Python => CodeKind::Python,
        _ => CodeKind::Library,
    };
    let mut tests = Vec::new();
    let mut grader_fault = false;
    for case in &plan.cases.cases {
        for &function in &case.tests {
            let (test, loaded, blame) =
                run_test(&mut sandbox, code.path(), code_kind, case, function, plan);
            let graders = blame == Blame::Grader;
            grader_fault |= graders;
            if !loaded && tests.is_empty() && test.verdict != Verdict::Pass && !graders {
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
        grader_fault,
        tests,
    }
}

/// Runs and judges one test of one case in the submission's box; also says
/// whether the worker got as far as loading the code, and whose failure the
/// result is.
pub fn run_test(
    sandbox: &mut SubmissionBox<'_>,
    code: &Path,
    kind: CodeKind,
    case: &Case,
    function: Function,
    plan: &GradePlan,
) -> (TestReport, bool, Blame) {
    let run = run_test_judged(sandbox, code, kind, case, function, plan);
    (run.report, run.loaded, run.blame)
}

/// One test as [`run_test_judged`] returns it: the report, whether the
/// code loaded, whose failure it is, and for a wrong answer the failed
/// check itself (its id tells a shrinker whether a smaller board fails the
/// same way).
pub struct JudgedTest {
    /// The test's report.
    pub report: TestReport,
    /// Whether the worker got as far as loading the code.
    pub loaded: bool,
    /// Whose failure the result is.
    pub blame: Blame,
    /// The failed check, for the verdict `wrong`.
    pub failure: Option<check::Failure>,
    /// Who recorded the write trace the test was judged with, if it had one.
    pub trace_source: Option<check::TraceSource>,
}

/// [`run_test`], keeping the failed check.
pub fn run_test_judged(
    sandbox: &mut SubmissionBox<'_>,
    code: &Path,
    kind: CodeKind,
    case: &Case,
    function: Function,
    plan: &GradePlan,
) -> JudgedTest {
    run_test_traced(sandbox, code, kind, case, function, plan, false)
}

/// [`run_test_judged`], asking a library to record `solve`'s writes when
/// `trace` is set (the write watch is slow: `grader check` asks for it on
/// the shrunk board only); the trace is judged by
/// [`check::judge_traced`] before the final board.
pub fn run_test_traced(
    sandbox: &mut SubmissionBox<'_>,
    code: &Path,
    kind: CodeKind,
    case: &Case,
    function: Function,
    plan: &GradePlan,
    trace: bool,
) -> JudgedTest {
    let mut failed = None;
    let probe = check::plan(case, function);
    let limits = Limits {
        time_limit_ms: plan.cases.time_limit_ms(case),
        memory_limit_mb: plan.cases.config.memory_limit_mb,
    };
    let python = match kind {
        CodeKind::Python => match python_interpreter() {
            Ok(interpreter) => Some(interpreter.clone()),
            Err(err) => {
                let outcome = Outcome::grader_fault(format!(
                    "{} (not your fault): {err}",
                    process::GRADER_FAULT
                ));
                return JudgedTest {
                    report: test_report(case, function, outcome, None),
                    loaded: false,
                    blame: Blame::Grader,
                    failure: None,
                    trace_source: None,
                };
            }
        },
        CodeKind::Library => None,
    };
    let request = WorkerRequest {
        kind,
        code: code.to_path_buf(),
        probe,
        limits,
        python,
        trace,
    };
    let mut board = None;
    let mut trace_source = None;
    let mut loaded = false;
    let mut wall_ms = None;
    let outcome = match sandbox.run_test(&request) {
        Err(err) => {
            Outcome::grader_fault(format!("{} (not your fault): {err}", process::GRADER_FAULT))
        }
        Ok(run) => {
            loaded = run.loaded();
            wall_ms = Some(run.wall_ms as f64);
            let output = run.output.clone();
            let mut outcome = match process::outcome(&run, &limits) {
                Err(outcome) => outcome,
                Ok((response, time_ms)) => {
                    let policy = plan.cases.config.find_empty_policy;
                    let trace = run.messages.iter().rev().find_map(|m| match m {
                        WorkerMessage::Trace { trace } => Some(trace),
                        _ => None,
                    });
                    trace_source = trace.map(|t| t.source);
                    let (judgement, summary) =
                        check::judge_traced(case, policy, &request.probe, &response, trace);
                    let mut outcome = match judgement {
                        Judgement::Pass => Outcome::new(
                            Verdict::Pass,
                            summary.map(|s| s.to_string()).unwrap_or_default(),
                        ),
                        Judgement::Wrong(failure) => {
                            board = failure
                                .board
                                .as_ref()
                                .map(|b| picture::render(b, failure.cell));
                            let message = failure.message.clone();
                            failed = Some(failure);
                            Outcome::new(Verdict::Wrong, message)
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
    let blame = outcome.blame;
    let mut report = test_report(case, function, outcome, board);
    report.wall_ms = wall_ms;
    JudgedTest {
        report,
        loaded,
        blame,
        failure: failed,
        trace_source,
    }
}

/// The machine's `python3`, found once (a missing one is the grader's fault).
fn python_interpreter() -> Result<&'static crate::protocol::PythonInterpreter, &'static str> {
    crate::worker::python::interpreter()
}

/// The report of one test of `case` that came to `outcome`.
fn test_report(
    case: &Case,
    function: Function,
    outcome: Outcome,
    board: Option<String>,
) -> TestReport {
    let max_points = case.points;
    TestReport {
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
        wall_ms: None,
        message: outcome.message,
        output: outcome.output,
        board,
        hidden: case.hidden,
        description: case.description.clone(),
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
    let message = format!(
        "the grader failed on this submission (a bug in the grader, not the student's fault; please report it): {what}"
    );
    let kind = submission.kind.as_ref().ok().copied();
    let mut report = not_run(submission, kind, Status::BuildError, &message, plan);
    report.grader_fault = true;
    report
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
                wall_ms: None,
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
        grader_fault: false,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::submission::discover::classify;

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
            color: false,
        };
        let c_listing = Path::new(env!("CARGO_MANIFEST_DIR")).join("submissions/c-listing.c");
        let report = grade_one(&classify(&c_listing), &plan);
        assert!(report.grader_fault, "{report:?}");
        assert_eq!(report.score, 0);
        assert!(
            report.message.starts_with(process::GRADER_FAULT),
            "{}",
            report.message
        );
        assert!(
            report.message.contains("box cannot be made"),
            "{}",
            report.message
        );
        assert!(report.tests.iter().all(|t| t.verdict == Verdict::Error));
    }
}
