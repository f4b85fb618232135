//! `grader check`'s experiment: the one way blame crosses from `solve` to
//! `legal`. When a `solve` test fails and `legal` fails a test too, the
//! failing `solve` test runs once more in the same box (same limits) with
//! the grader's own `legal` in place of the student's, everything else the
//! student's (a Python module's `legal` given the lab's rule as its code,
//! see `stand_in_legal` in `worker/python_harness.py`; a C library's
//! PLT/GOT slot for `legal`, see `worker/interpose.rs`).
//!
//! The student's code can notice the stand-in (a C `solve` comparing the
//! address its GOT slot holds with an alias of `legal`, any `solve` asking
//! `legal` a question whose answer it knows) and behave well only then. So
//! the run is worded as what happened, never as a proven cause:
//!
//! - the student's `solve` **passed** the test with the grader's `legal`,
//!   having called it, every call with the lab's arguments
//!   ([`Observed::Passed`]): `legal` is named as the likely cause, unless
//!   the test's own write trace found a step that no wrong `legal` makes
//!   (a leftover digit, a given overwritten, ...: [`legal_explains`]);
//!   then both are said and neither is blamed alone;
//! - it **still failed** by its end state, under the same conditions
//!   ([`Observed::StillFailed`]): `solve` (or `find_empty`) most likely has
//!   a bug of its own.
//!
//! Anything else shows nothing and is not said: the grader's `legal` could
//! not stand in (a Rust crate, a `static` or inlined `legal`, a library
//! without a PLT slot for it, not x86-64 Linux), `solve` never called it
//! (it checks the rules itself), a call with arguments outside the lab's,
//! a crash, a timeout, a grader fault. The run is `grader check`'s alone,
//! like its shrinking and its traced run: `grader grade` never makes it,
//! and it never changes a verdict or a score.

use crate::case::Case;
use crate::runner::grade_plan::GradePlan;
use crate::runner::session::Session;
use crate::runner::test_run::{Asks, JudgedTest};
use crate::submission::discover::SubmissionKind;
use crate::verdict::Function;
use crate::words::legal_swap::{Observed, SwapSeen, SwapWatch};

/// Reads the experiment's run: what it showed, if anything (the judge's
/// [`crate::words::legal_swap::observed`]).
pub(crate) fn observed(judged: &JudgedTest) -> Option<Observed> {
    let report = &judged.report;
    crate::words::legal_swap::observed(
        report.verdict,
        report.fault.is_some(),
        judged.legal_swap.as_ref(),
    )
}

/// Whether the grader's `legal` can stand in for a submission of `kind`:
/// never in a Rust crate (its calls are direct).
fn possible_for(kind: SubmissionKind) -> bool {
    match kind {
        SubmissionKind::Python => true,
        SubmissionKind::C | SubmissionKind::Library => {
            cfg!(all(target_os = "linux", target_arch = "x86_64"))
        }
        SubmissionKind::Rust => false,
    }
}

/// The experiment over a session, test by test: when to run is the
/// judge's [`SwapWatch`]; this makes the run.
pub(crate) struct LegalSwap<'p> {
    plan: &'p GradePlan,
    possible: bool,
    watch: SwapWatch,
    seen: Option<SwapSeen>,
}

impl<'p> LegalSwap<'p> {
    /// Nothing seen yet, for a submission of `kind` checked under `plan`.
    pub(crate) fn new(plan: &'p GradePlan, kind: SubmissionKind) -> LegalSwap<'p> {
        LegalSwap {
            plan,
            possible: possible_for(kind),
            watch: SwapWatch::default(),
            seen: None,
        }
    }

    /// Takes note of one test of the session (`function` on `case`,
    /// judged as `judged`) and runs the experiment once both failures
    /// were seen.
    pub(crate) fn after(
        &mut self,
        session: &mut Session<'p>,
        case: &Case,
        function: Function,
        judged: &JudgedTest,
    ) {
        if !self.possible {
            return;
        }
        let report = &judged.report;
        let explained_by = judged.failure.as_ref().and_then(|f| f.explained_by);
        let Some(name) = self.watch.after(
            &case.name,
            function,
            report.verdict,
            report.fault.is_some(),
            explained_by,
        ) else {
            return;
        };
        let Some(failing) = self.plan.cases.cases.iter().find(|c| c.name == name) else {
            return;
        };
        let asks = Asks {
            reference_legal: true,
            ..Asks::default()
        };
        let judged = session.test_asking(failing, Function::Solve, asks);
        self.seen = observed(&judged).map(|observed| self.watch.seen(name, observed));
    }

    /// What the experiment showed, if it ran and showed anything, with
    /// the test's own trace finding (the judge words it:
    /// [`crate::words::extra_runs::Found::said`]).
    pub(crate) fn seen(self) -> Option<SwapSeen> {
        self.seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::LegalSwap as Said;
    use crate::report::TestReport;
    use crate::verdict::Verdict;

    fn judged(verdict: Verdict, swap: Option<Said>) -> JudgedTest {
        JudgedTest {
            report: TestReport {
                side: Some(4),
                ..grader_judge::report::named("campus", Function::Solve, verdict)
            },
            loaded: true,
            failure: None,
            trace_source: None,
            legal_swap: swap,
            load_error: Default::default(),
        }
    }

    fn called(calls: u64, strange: u64) -> Option<Said> {
        Some(Said {
            not_possible: None,
            calls,
            strange,
        })
    }

    #[test]
    fn only_a_clean_run_that_called_the_graders_legal_shows_anything() {
        let pass = |swap| observed(&judged(Verdict::Pass, swap));
        assert_eq!(pass(called(12, 0)), Some(Observed::Passed));
        assert_eq!(
            observed(&judged(Verdict::Wrong, called(12, 0))),
            Some(Observed::StillFailed)
        );
        assert_eq!(pass(called(0, 0)), None, "solve never called it");
        assert_eq!(pass(called(12, 1)), None, "a call off the lab's arguments");
        assert_eq!(pass(None), None, "no line from the test child");
        let impossible = Some(Said {
            not_possible: Some("no PLT slot".into()),
            ..Said::default()
        });
        assert_eq!(pass(impossible), None);
        for verdict in [Verdict::Crash, Verdict::Timeout, Verdict::Memory] {
            assert_eq!(observed(&judged(verdict, called(3, 0))), None, "{verdict}");
        }
        let mut fault = judged(Verdict::Pass, called(3, 0));
        fault.report.fault = Some(crate::verdict::Fault::grader(
            crate::verdict::FaultKind::Sandbox,
        ));
        assert_eq!(observed(&fault), None, "a grader fault");
    }
}
