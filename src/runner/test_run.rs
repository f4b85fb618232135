//! The parts of one test's run that need no session: what a run is asked
//! for ([`Asks`]), the request to the box (`OneTest::request`), the rerun
//! of a test the host was too busy to time (`run_timed`), and the run
//! judged into the test's report (`OneTest::judge`). `Session::test`
//! (`super::session`) puts them together in the submission's box;
//! [`run_test`] runs one request alone in a box of its own, for the tests
//! and benches of the box.

use std::path::Path;

use crate::board_view::BoardView;
use crate::case::{Case, FindEmptyPolicy};
use crate::check::{self, Judgement};
use crate::protocol::{CodeKind, Limits, WorkerMessage, WorkerRequest};
use crate::report::TestReport;
use crate::runner::outcome;
use crate::sandbox::SandboxEnv;
use crate::sandbox::SubmissionBox;
use crate::sandbox::run::{Kill, TestRun};
use crate::submission::discover::SubmissionKind;
use crate::verdict::{FaultKind, Function, Outcome, Verdict};

/// One test as `Session::test` returns it: the report (with whose
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
    /// What the test child said of a load error, for its hint.
    pub load_error: LoadErrorSaid,
}

/// What a test child's `load_error` line carries beside its message, as
/// data for the report's hint (never read back from the message).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadErrorSaid {
    /// What the loader refused the library for, when it did.
    pub refusal: Option<crate::protocol::LoaderRefusal>,
    /// For a Python import that raised: the module's top-level line that
    /// was running (a notebook's cell).
    pub module_line: Option<usize>,
    /// For a Python import of a module the interpreter cannot find: its
    /// name.
    pub missing_module: Option<String>,
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

/// One test to run: a case's function, and what the run is asked for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OneTest<'a> {
    /// The case.
    pub case: &'a Case,
    /// The function tested.
    pub function: Function,
    /// What the run is asked for beyond the test.
    pub asks: Asks,
}

impl OneTest<'_> {
    /// The request to the box for `code` (of `kind`) held to `limits`; a
    /// test that cannot be asked (no Python on this host) is judged
    /// already: the grader's fault.
    pub(crate) fn request(
        &self,
        code: &Path,
        kind: SubmissionKind,
        limits: Limits,
    ) -> Result<WorkerRequest, Box<JudgedTest>> {
        let code_kind = match kind {
            SubmissionKind::Python => CodeKind::Python,
            _ => CodeKind::Library,
        };
        let python = match code_kind {
            CodeKind::Python => match crate::worker::python::interpreter() {
                Ok(interpreter) => Some(interpreter.clone()),
                Err(err) => {
                    let outcome = Outcome::grader_fault(FaultKind::Toolchain, err);
                    return Err(Box::new(JudgedTest {
                        report: self.report(outcome, None),
                        loaded: false,
                        failure: None,
                        trace_source: None,
                        legal_swap: None,
                        load_error: LoadErrorSaid::default(),
                    }));
                }
            },
            CodeKind::Library => None,
        };
        Ok(WorkerRequest {
            kind: code_kind,
            code: code.to_path_buf(),
            probe: check::plan(self.case, self.function),
            limits,
            python,
            trace: self.asks.trace,
            reference_legal: self.asks.reference_legal,
            deep_stop: self.asks.deep_stop,
        })
    }

    /// What `request`'s run (`ran`, after `reruns` reruns) came to: its
    /// outcome, judged with `policy` when the child answered, as the
    /// test's report.
    pub(crate) fn judge(
        &self,
        request: &WorkerRequest,
        policy: FindEmptyPolicy,
        ran: std::io::Result<TestRun>,
        reruns: u32,
    ) -> JudgedTest {
        let mut failed = None;
        let mut board = None;
        let mut trace_source = None;
        let mut legal_swap = None;
        let mut load_error = LoadErrorSaid::default();
        let mut loaded = false;
        let mut wall_ms = None;
        let outcome = match ran {
            Err(err) => Outcome::grader_fault(
                FaultKind::Sandbox,
                format!("the test could not be run in the box: {err}"),
            ),
            Ok(run) => {
                loaded = run.loaded();
                wall_ms = Some(run.wall_ms as f64);
                load_error = run
                    .messages
                    .iter()
                    .find_map(|m| match m {
                        WorkerMessage::LoadError {
                            refusal,
                            module_line,
                            missing_module,
                            ..
                        } => Some(LoadErrorSaid {
                            refusal: refusal.clone(),
                            module_line: *module_line,
                            missing_module: missing_module.clone(),
                        }),
                        _ => None,
                    })
                    .unwrap_or_default();
                if self.asks.reference_legal {
                    legal_swap = said_of_the_swap(&run);
                }
                let output = run.output.clone();
                let mut outcome = match outcome::outcome(&run, &request.limits) {
                    Err(outcome) => outcome,
                    Ok((response, time_ms)) => {
                        let trace = run.messages.iter().rev().find_map(|m| match m {
                            WorkerMessage::Trace { trace } => Some(trace),
                            _ => None,
                        });
                        trace_source = trace.map(|t| t.source);
                        let (judgement, summary) = check::judge_traced(
                            self.case,
                            policy,
                            &request.probe,
                            &response,
                            trace,
                        );
                        let mut outcome = match judgement {
                            Judgement::Pass => Outcome::new(
                                Verdict::Pass,
                                summary.map(|s| s.to_string()).unwrap_or_default(),
                            ),
                            Judgement::Wrong(failure) => {
                                board = failure
                                    .board
                                    .as_ref()
                                    .map(|b| BoardView::of(b, failure.cell));
                                let mut outcome =
                                    Outcome::new(Verdict::Wrong, failure.message.clone());
                                outcome.finding = failure.finding.clone();
                                failed = Some(failure);
                                outcome
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
        let mut report = self.report(outcome, board);
        report.wall_ms = wall_ms;
        report.reruns = reruns;
        report.check = failed.as_ref().map(|f| f.check).or(report.check);
        JudgedTest {
            report,
            loaded,
            failure: failed,
            trace_source,
            legal_swap,
            load_error,
        }
    }

    /// The report of this test that came to `outcome`.
    fn report(&self, outcome: Outcome, board: Option<BoardView>) -> TestReport {
        TestReport {
            time_ms: outcome.time_ms,
            check: outcome.check,
            fault: outcome.fault,
            output: outcome.output,
            board,
            finding: outcome.finding.map(|finding| *finding),
            ..TestReport::of(self.case, self.function, outcome.verdict, outcome.message)
        }
    }
}

/// What the test child said of the run with the grader's `legal`: one
/// line, after `loaded`; two (one forged) prove nothing.
fn said_of_the_swap(run: &TestRun) -> Option<crate::protocol::LegalSwap> {
    let mut said = run
        .messages
        .iter()
        .skip_while(|m| !matches!(m, WorkerMessage::Loaded))
        .filter_map(|m| match m {
            WorkerMessage::LegalSwap(swap) => Some(swap),
            _ => None,
        });
    match (said.next(), said.next()) {
        (Some(swap), None) => Some(swap.clone()),
        _ => None,
    }
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
pub(crate) fn run_timed(
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

/// Runs `request` alone in a fresh box (see [`crate::sandbox`]) and records
/// how it went; grading runs all tests of a submission in one box. The
/// code is copied into the box's `code/` first (a box sees only its own
/// files), under its own file name. A student's crash or timeout is a
/// normal [`TestRun`]; only the grader's own failures (the box cannot be
/// made or fails) are errors.
///
/// # Errors
/// When the worker process cannot be started or watched.
pub fn run_test(request: &WorkerRequest, env: &SandboxEnv) -> std::io::Result<TestRun> {
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
    let mut sandbox = SubmissionBox::open(env, &views)?;
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
