//! One grading session: one submission, built in a box of its own, then
//! every test of the plan run and judged in that box, in the plan's order.
//!
//! This is the only loop over a submission's tests: `grader grade` (through
//! `super::class::grade_one`), `grader check`, the timing of the lab's
//! listing (`super::calibrate`) and the benches all run a [`Session`]. What
//! differs between them is what they do *after* each test, which they say
//! in the callback of `Session::run`: `check` shrinks a failing board
//! (`super::shrink`), asks for a traced run and for a run with the
//! grader's `legal` (`super::legal_swap`) with the same session, and may stop early
//! (`--fail-fast`); `grade` records and goes on. The rules every caller
//! shares live here once: a box that cannot be made and a build that fails
//! (with whose fault it is), the first test that cannot load the code
//! ending the session as a load error, one test's run ([`Session::test`]:
//! its limit, the request, the rerun of a test the host was too busy to
//! time, the judgement; the parts in [`super::test_run`]), the grader's
//! faults and the score.

use crate::case::Case;
use crate::protocol::Limits;
use crate::report::{Status, SubmissionReport, TestReport};
use crate::runner::grade_plan::GradePlan;
use crate::runner::test_run::{Asks, JudgedTest, OneTest, run_timed};
use crate::sandbox::SubmissionBox;
use crate::submission::build::{self, BuiltCode};
use crate::submission::discover::{Submission, SubmissionKind};
use crate::verdict::{Fault, FaultKind, Function, Verdict};

/// A submission built in its box, ready to be tested.
pub struct Session<'p> {
    plan: &'p GradePlan,
    submission: &'p Submission,
    kind: SubmissionKind,
    sandbox: SubmissionBox<'p>,
    code: BuiltCode,
}

/// What the caller of `Session::run` wants after a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Run the next test.
    Go,
    /// Stop here (`--fail-fast`): the tests not run are left out.
    Stop,
}

impl<'p> Session<'p> {
    /// Opens the submission's box and builds it there.
    ///
    /// # Errors
    /// The report of a submission none of whose tests can run: not a
    /// recognisable submission, a box that cannot be made (the grader's
    /// fault), or a build that fails (the student's, or the grader's when
    /// its tool could not run).
    pub fn open(
        submission: &'p Submission,
        plan: &'p GradePlan,
    ) -> Result<Session<'p>, Box<SubmissionReport>> {
        let not_run = |kind, message: &str, fault: Option<Fault>| {
            let status = match fault {
                Some(_) => Status::GraderError,
                None => Status::BuildError,
            };
            Box::new(not_run(submission, kind, status, message, fault, plan))
        };
        let kind = match &submission.kind {
            Ok(kind) => *kind,
            Err(message) => return Err(not_run(None, message, None)),
        };
        let mut sandbox =
            SubmissionBox::open(&plan.sandbox, &plan.build.views_for(kind)).map_err(|err| {
                let message = format!("the box cannot be made: {err}");
                not_run(
                    Some(kind),
                    &message,
                    Some(Fault::grader(FaultKind::Sandbox)),
                )
            })?;
        for note in sandbox.notes() {
            plan.sandbox.say_once(note);
        }
        let code = build::build(submission, kind, &plan.build, &mut sandbox)
            .map_err(|failure| not_run(Some(kind), &failure.to_string(), failure.fault()))?;
        Ok(Session {
            plan,
            submission,
            kind,
            sandbox,
            code,
        })
    }

    /// The submission's kind.
    pub fn kind(&self) -> SubmissionKind {
        self.kind
    }

    /// The notes of the upload and of the build, for the student's output.
    fn notes(&self) -> Vec<String> {
        let mut notes = self.submission.notes.clone();
        notes.extend(self.code.notes().iter().cloned());
        notes
    }

    /// The compiler's warnings about the student's own files.
    pub fn warnings(&self) -> &[crate::submission::build::warnings::CompilerWarning] {
        self.code.warnings()
    }

    /// The built code the tests load (the library, or the Python file).
    pub fn code(&self) -> &std::path::Path {
        self.code.path()
    }

    /// Runs and judges one test of `case` (a library's `solve` with its
    /// writes recorded when `trace` is set: the write watch is slow, so
    /// `grader check` asks for it on the shrunk board only; the trace is
    /// judged by [`crate::check::judge_traced`] before the final board).
    pub fn test(&mut self, case: &Case, function: Function, trace: bool) -> JudgedTest {
        let asks = Asks {
            trace,
            ..Asks::default()
        };
        self.test_asking(case, function, asks)
    }

    /// Runs and judges one test of `case` with everything `asks` asks for
    /// (`grader check`'s extra runs: a trace, the grader's `legal`): the
    /// test's limit for this submission's language, the request, the run
    /// (again, when the host was too busy to time it), the judgement.
    pub fn test_asking(&mut self, case: &Case, function: Function, asks: Asks) -> JudgedTest {
        let plan = self.plan;
        let test = OneTest {
            case,
            function,
            asks,
        };
        let limits = Limits {
            time_limit_ms: plan.limits.limit_ms(&plan.cases, case, function, self.kind),
            memory_limit_mb: plan.cases.config.memory_limit_mb,
        };
        let request = match test.request(self.code.path(), self.kind, limits) {
            Ok(request) => request,
            Err(judged) => return *judged,
        };
        let (ran, reruns) = run_timed(&mut self.sandbox, &request);
        test.judge(&request, plan.cases.config.find_empty_policy, ran, reruns)
    }

    /// Runs every test of the plan in order, calling `after` with each
    /// (which may use the session for more runs, and may stop it), and
    /// returns the submission's report. When the first test cannot even
    /// load the code (a missing symbol, a constructor that crashes or
    /// never returns), nothing else can: the report is a load error with
    /// every test listed as not run.
    pub(crate) fn run(
        mut self,
        mut after: impl FnMut(&mut Session<'p>, &Case, Function, &JudgedTest) -> Next,
    ) -> SubmissionReport {
        let plan = self.plan;
        let mut tests: Vec<TestReport> = Vec::new();
        let mut fault = None;
        let mut stopped = false;
        // Hidden cases run after the visible ones (a second line behind
        // the box's wiping of freed memory: a test that could still see an
        // earlier request would see only public boards); the report keeps
        // the cases' order.
        let mut places: Vec<(usize, usize)> = Vec::new();
        'cases: for (at, case) in run_order(&plan.cases.cases) {
            for (nth, &function) in case.tests.iter().enumerate() {
                let judged = self.test(case, function, false);
                fault = fault.or(judged.report.fault);
                if !judged.loaded
                    && tests.is_empty()
                    && judged.report.verdict != Verdict::Pass
                    && judged.report.fault.is_none()
                {
                    let message = match judged.report.verdict {
                        Verdict::Error => judged.report.message,
                        verdict => format!(
                            "while loading the library: {verdict}: {}",
                            judged.report.message
                        ),
                    };
                    let mut report = not_run(
                        self.submission,
                        Some(self.kind),
                        Status::LoadError,
                        &message,
                        None,
                        plan,
                    );
                    let said = &judged.load_error;
                    if let Some(refusal) = &said.refusal {
                        report.hint = Some(crate::report::load_hints::refused(
                            refusal,
                            report.kind.as_deref(),
                        ));
                    }
                    if report.hint.is_none() {
                        report.hint = said.missing_module.as_deref().and_then(|name| {
                            crate::report::load_hints::missing_module(
                                name,
                                &plan.cases.config.python_modules,
                            )
                        });
                    }
                    if report.hint.is_none() {
                        report.hint = said
                            .module_line
                            .and_then(|line| self.code.notebook_import_crash(line));
                    }
                    report.notes = self.notes();
                    return report;
                }
                let next = after(&mut self, case, function, &judged);
                tests.push(judged.report);
                places.push((at, nth));
                if next == Next::Stop {
                    stopped = true;
                    break 'cases;
                }
            }
        }
        let mut placed: Vec<((usize, usize), TestReport)> = places.into_iter().zip(tests).collect();
        placed.sort_by_key(|(place, _)| *place);
        let mut tests: Vec<TestReport> = placed.into_iter().map(|(_, test)| test).collect();
        // The findings worded once, in the submission's language, with what
        // its tests proved together (`words::across`); with tests left out
        // (`--fail-fast`), legal's are not all known to pass.
        let plan = self.plan;
        let cx = words_context(&tests, !stopped, self.kind, plan);
        crate::words::word_tests(&mut tests, &cx);
        let size_of = |name: &str| {
            plan.cases
                .cases
                .iter()
                .find(|c| c.name == name)
                .map(|c| c.puzzle.n())
        };
        let fixed_size = crate::report::FixedSize::of(&tests, size_of);
        SubmissionReport {
            id: self.submission.id.clone(),
            kind: Some(kind_name(self.kind).to_string()),
            status: Status::Ok,
            message: String::new(),
            hint: None,
            notes: self.notes(),
            fixed_size,
            score: tests.iter().map(|t| t.points).sum(),
            // Of the tests that ran: all of the plan's, unless the caller
            // stopped early (`--fail-fast`).
            max_score: tests.iter().map(|t| t.max_points).sum(),
            fault,
            tests,
        }
    }
}

/// The order a submission's cases run in, each with its place in the
/// plan: the visible ones first, then the hidden ones, each part in the
/// plan's order.
fn run_order(cases: &[Case]) -> Vec<(usize, &Case)> {
    let mut order: Vec<(usize, &Case)> = cases.iter().enumerate().collect();
    order.sort_by_key(|(_, case)| case.hidden);
    order
}

/// How many of the plan's tests `report` leaves out: those a caller's
/// [`Next::Stop`] skipped (a report whose tests never ran lists them all,
/// as `not run`).
pub(crate) fn tests_left_out(plan: &GradePlan, report: &SubmissionReport) -> usize {
    let planned: usize = plan.cases.cases.iter().map(|c| c.tests.len()).sum();
    planned.saturating_sub(report.tests.len())
}

/// A submission none of whose tests ran: every test gets `error` with the
/// reason (and the grader's `fault`, when it is one), so the report still
/// lists what it would have been graded on.
pub(crate) fn not_run(
    submission: &Submission,
    kind: Option<SubmissionKind>,
    status: Status,
    message: &str,
    fault: Option<Fault>,
    plan: &GradePlan,
) -> SubmissionReport {
    let what = match status {
        Status::LoadError => "not run: the submission could not be loaded",
        Status::GraderError => "not run: the grader failed on this submission",
        _ => "not run: the submission could not be built",
    };
    let tests = plan
        .cases
        .cases
        .iter()
        .flat_map(|case| {
            case.tests.iter().map(move |&function| TestReport {
                fault,
                ..TestReport::of(case, function, Verdict::Error, what.to_string())
            })
        })
        .collect();
    let kind_name = kind.map(kind_name);
    let hint = match status {
        Status::BuildError => crate::report::load_hints::build_hint(message, kind_name),
        _ => None,
    };
    SubmissionReport {
        id: submission.id.clone(),
        kind: kind_name.map(str::to_string),
        status,
        message: message.to_string(),
        hint,
        notes: submission.notes.clone(),
        fixed_size: None,
        score: 0,
        max_score: max_score(plan),
        fault,
        tests,
    }
}

/// Every test's points.
fn max_score(plan: &GradePlan) -> u32 {
    plan.cases
        .cases
        .iter()
        .map(|c| c.points * c.tests.len() as u32)
        .sum()
}

/// What the words of `tests`' findings rest on: the language of `kind`,
/// and what the tests proved together (`complete` when none was left out).
pub(crate) fn words_context(
    tests: &[TestReport],
    complete: bool,
    kind: SubmissionKind,
    plan: &GradePlan,
) -> crate::words::Context {
    let unsolvable = |name: &str| {
        plan.cases
            .cases
            .iter()
            .any(|c| c.name == name && c.solutions == Some(crate::case::Solutions::None))
    };
    crate::words::Context::of(tests, complete, lang_of(kind), unsolvable)
}

/// The language of a submission of `kind`.
pub fn lang_of(kind: SubmissionKind) -> Option<crate::finding::Lang> {
    crate::finding::Lang::of_kind(kind_name(kind))
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

    #[test]
    fn hidden_cases_run_after_the_visible_ones_each_in_plan_order() {
        let mut cases = crate::case::builtin().cases;
        assert!(cases.len() >= 4, "the bundled public cases");
        cases.truncate(4);
        cases[0].hidden = true;
        cases[2].hidden = true;
        let order: Vec<usize> = run_order(&cases).into_iter().map(|(at, _)| at).collect();
        assert_eq!(order, [1, 3, 0, 2]);
    }
}
