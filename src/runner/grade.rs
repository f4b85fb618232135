//! Grading a class: [`grade_all`] runs one `Session` per submission,
//! `--jobs` at a time, and collects the `SubmissionReport`s in order; and
//! one test of a session, run and judged ([`run_test_traced`]): the
//! request to the box, the rerun of a test the host was too busy to time,
//! the outcome, the judgement and the test's report. [`run_test`] runs one
//! test alone in a box of its own, for the tests and benches of the box.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::case::Case;
use crate::check::{self, Judgement};
use crate::protocol::{CodeKind, Limits, WorkerMessage, WorkerRequest};
use crate::report::{REPORT_VERSION, Report, Status, SubmissionReport, TestReport, picture};
use crate::runner::outcome;
use crate::runner::plan::GradePlan;
use crate::runner::session::{Next, Session, not_run};
use crate::sandbox::SandboxEnv;
use crate::sandbox::SubmissionBox;
use crate::sandbox::run::{Kill, TestRun};
use crate::submission::discover::{Submission, SubmissionKind};
use crate::verdict::{Fault, FaultKind, Function, Outcome, Verdict};

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

/// One test as [`run_test_judged`] returns it: the report (with whose
/// failure it is), whether the code loaded, and for a wrong answer the failed
/// check itself (its id tells a shrinker whether a smaller board fails the
/// same way).
pub struct JudgedTest {
    /// The test's report.
    pub report: TestReport,
    /// Whether the test child got as far as loading the code.
    pub loaded: bool,
    /// The failed check, for the verdict `wrong`.
    pub failure: Option<check::Failure>,
    /// Who recorded the write trace the test was judged with, if it had one.
    pub trace_source: Option<check::TraceSource>,
    /// For a run of [`Asks::reference_legal`]: what the test child said of
    /// its experiment (its last `legal_swap` line after `loaded`, if any).
    pub legal_swap: Option<crate::protocol::LegalSwap>,
}

/// What a run is asked for beyond its test: `grader check`'s extra runs
/// (never `grader grade`'s, whose runs ask for nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Asks {
    /// Record a library `solve`'s writes ([`WorkerRequest::trace`]).
    pub trace: bool,
    /// Run `solve` with the grader's `legal` in place of the student's
    /// ([`WorkerRequest::reference_legal`]).
    pub reference_legal: bool,
    /// Stop a Python `solve` that nests too deep, with its trace
    /// ([`WorkerRequest::deep_stop`]).
    pub deep_stop: bool,
}

/// One test of `case` run and judged in the submission's box, keeping the failed check.
pub fn run_test_judged(
    sandbox: &mut SubmissionBox<'_>,
    code: &Path,
    kind: SubmissionKind,
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
    kind: SubmissionKind,
    case: &Case,
    function: Function,
    plan: &GradePlan,
    trace: bool,
) -> JudgedTest {
    let asks = Asks {
        trace,
        ..Asks::default()
    };
    run_test_asking(sandbox, code, kind, case, function, plan, asks)
}

/// [`run_test_traced`] with everything a run can be asked for.
pub fn run_test_asking(
    sandbox: &mut SubmissionBox<'_>,
    code: &Path,
    kind: SubmissionKind,
    case: &Case,
    function: Function,
    plan: &GradePlan,
    asks: Asks,
) -> JudgedTest {
    let mut failed = None;
    let probe = check::plan(case, function);
    let limits = Limits {
        time_limit_ms: plan.limits.limit_ms(&plan.cases, case, function, kind),
        memory_limit_mb: plan.cases.config.memory_limit_mb,
    };
    let code_kind = match kind {
        SubmissionKind::Python => CodeKind::Python,
        _ => CodeKind::Library,
    };
    let python = match code_kind {
        CodeKind::Python => match python_interpreter() {
            Ok(interpreter) => Some(interpreter.clone()),
            Err(err) => {
                let outcome = Outcome::grader_fault(FaultKind::Toolchain, err);
                return JudgedTest {
                    report: test_report(case, function, outcome, None),
                    loaded: false,
                    failure: None,
                    trace_source: None,
                    legal_swap: None,
                };
            }
        },
        CodeKind::Library => None,
    };
    let request = WorkerRequest {
        kind: code_kind,
        code: code.to_path_buf(),
        probe,
        limits,
        python,
        trace: asks.trace,
        reference_legal: asks.reference_legal,
        deep_stop: asks.deep_stop,
    };
    let mut board = None;
    let mut trace_source = None;
    let mut legal_swap = None;
    let mut loaded = false;
    let mut wall_ms = None;
    let (result, reruns) = run_timed(sandbox, &request);
    let outcome = match result {
        Err(err) => Outcome::grader_fault(
            FaultKind::Sandbox,
            format!("the test could not be run in the box: {err}"),
        ),
        Ok(run) => {
            loaded = run.loaded();
            wall_ms = Some(run.wall_ms as f64);
            if asks.reference_legal {
                // One line, after `loaded`; two (one forged) prove nothing.
                let mut said = run
                    .messages
                    .iter()
                    .skip_while(|m| !matches!(m, WorkerMessage::Loaded))
                    .filter_map(|m| match m {
                        WorkerMessage::LegalSwap(swap) => Some(swap),
                        _ => None,
                    });
                legal_swap = match (said.next(), said.next()) {
                    (Some(swap), None) => Some(swap.clone()),
                    _ => None,
                };
            }
            let output = run.output.clone();
            let mut outcome = match outcome::outcome(&run, &limits) {
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
                        Judgement::BadProbe(error) => Outcome::grader_fault(
                            FaultKind::BadProbe,
                            format!("{error}; please report it"),
                        ),
                    };
                    outcome.time_ms = Some(time_ms);
                    outcome
                }
            };
            outcome.output = output;
            outcome
        }
    };
    let mut report = test_report(case, function, outcome, board);
    report.wall_ms = wall_ms;
    report.reruns = reruns;
    report.check = failed.as_ref().map(|f| f.check).or(report.check);
    JudgedTest {
        report,
        loaded,
        failure: failed,
        trace_source,
        legal_swap,
    }
}

/// Runs `request` alone in a fresh box (see [`crate::sandbox`]) and records
/// how it went; grading runs all tests of a submission in one box. The
/// code is copied into the box's `code/` first (a box sees only its own
/// files), under its own file name. A student's crash or timeout is a
/// normal [`TestRun`]; only the grader's own failures (the box cannot be
/// made or fails) are errors.
///
/// # Errors
/// When the worker process cannot be started or watched.
pub fn run_test(
    request: &crate::protocol::WorkerRequest,
    env: &SandboxEnv,
) -> std::io::Result<TestRun> {
    use crate::protocol::ViewKind;
    use crate::submission::build::BuildContext;
    static TOOLS: std::sync::OnceLock<Option<BuildContext>> = std::sync::OnceLock::new();
    let kind = match request.kind {
        CodeKind::Library => ViewKind::LibraryTest,
        CodeKind::Python => ViewKind::PythonTest,
    };
    let views: Vec<_> = TOOLS
        .get_or_init(|| BuildContext::new().ok())
        .iter()
        .filter_map(|ctx| ctx.host_view(kind).ok())
        .collect();
    let mut sandbox = crate::sandbox::SubmissionBox::open(env, &views)?;
    let mut request = request.clone();
    if let Some(name) = request.code.file_name() {
        let inside = sandbox.code_dir().join(name);
        // A missing file stays missing: the test reports it as a load error.
        if std::fs::copy(&request.code, &inside).is_ok() {
            request.code = inside;
        }
    }
    sandbox.run_test(&request)
}

/// How many times a test is run in all when the host is too busy to time
/// it: stopped at the wall-clock backstop while still runnable and under
/// its CPU limit.
pub const TEST_TRIES: u32 = 3;

/// Runs `request` in the box; a run stopped at the wall-clock backstop
/// while still runnable and under its CPU limit was not timed (the host
/// was too busy), so it runs again, [`TEST_TRIES`] times in all. Returns
/// the last run and how many reruns it took; a run still undecided is
/// then classified as the grader's fault by [`outcome::outcome`].
fn run_timed(
    sandbox: &mut SubmissionBox<'_>,
    request: &WorkerRequest,
) -> (std::io::Result<TestRun>, u32) {
    let mut reruns = 0;
    loop {
        let result = sandbox.run_test(request);
        let undecided = matches!(&result, Ok(run) if run.killed == Some(Kill::Backstop));
        if !undecided || reruns + 1 >= TEST_TRIES {
            return (result, reruns);
        }
        reruns += 1;
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
        reruns: 0,
        check: outcome.check,
        fault: outcome.fault,
        message: outcome.message,
        output: outcome.output,
        board,
        hidden: case.hidden,
        description: case.description.clone(),
        side: Some(case.puzzle.side()),
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
    use crate::submission::build::BuildContext;
    use crate::submission::discover::classify;

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
