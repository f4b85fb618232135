//! `grader check`'s counterfactual run: the one way blame crosses from
//! `solve` to `legal`. When a `solve` test fails and `legal` fails a test
//! too, the failing `solve` test runs once more in the same box (same
//! limits) with the grader's own `legal` in place of the student's,
//! everything else the student's (a Python module's global `legal`; a C
//! library's PLT/GOT slot for `legal`, see `worker/interpose.rs`).
//!
//! What the run proves is worded as fact, because it was checked:
//!
//! - the student's `solve` **passes** the test with the grader's `legal`,
//!   having called it, every call with the lab's arguments: the failure
//!   comes from the student's `legal` ([`Proven::FromLegal`]);
//! - it **fails** by its end state all the same, under the same
//!   conditions: `solve` (or `find_empty`) has a bug of its own
//!   ([`Proven::NotOnlyLegal`]).
//!
//! Anything else proves nothing and is not said: the grader's `legal` could
//! not stand in (a Rust crate, a `static` or inlined `legal`, a library
//! without a PLT slot for it, not x86-64 Linux), `solve` never called it
//! (it checks the rules itself), a call with arguments outside the lab's,
//! a crash, a timeout, a grader fault. The run is `grader check`'s alone,
//! like its shrinking and its traced run: `grader grade` never makes it,
//! and it never changes a verdict or a score.

use serde::Serialize;

use crate::case::Case;
use crate::runner::plan::GradePlan;
use crate::runner::session::Session;
use crate::runner::test_run::{Asks, JudgedTest};
use crate::submission::discover::SubmissionKind;
use crate::verdict::{Function, Verdict};

/// What the run with the grader's `legal` proved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Proven {
    /// With the grader's `legal`, the student's `solve` passes the test.
    FromLegal,
    /// With the grader's `legal`, the student's `solve` still fails it.
    NotOnlyLegal,
}

impl Proven {
    /// The line the `solve` failure gets, as fact.
    pub(crate) fn sentence(self) -> &'static str {
        match self {
            Proven::FromLegal => {
                "with the grader's own legal in place of yours, your solve passes this test: \
                 the failure comes from your legal (see legal above); fix legal first"
            }
            Proven::NotOnlyLegal => {
                "your solve fails even with a correct legal: with the grader's own legal in \
                 place of yours (its calls of legal by that name went to the grader's) it still \
                 fails this test, so unless solve also checks the rules some other way, solve or \
                 find_empty has a bug of its own, besides legal's"
            }
        }
    }
}

/// The proof for one failing `solve` test, for showing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct LegalSwapView {
    /// The case whose `solve` test failed.
    pub case: String,
    /// What the run proved.
    pub proven: Proven,
    /// [`Proven::sentence`].
    pub says: &'static str,
}

/// Reads the experiment's run: what it proves, if anything.
pub(crate) fn proven(judged: &JudgedTest) -> Option<Proven> {
    if judged.report.fault.is_some() {
        return None;
    }
    let swap = judged.legal_swap.as_ref()?;
    if swap.not_possible.is_some() || swap.calls == 0 || swap.strange > 0 {
        return None;
    }
    match judged.report.verdict {
        Verdict::Pass => Some(Proven::FromLegal),
        // Judged by its end state, as the real test: a crash or a timeout
        // under the grader's legal proves nothing either way.
        Verdict::Wrong => Some(Proven::NotOnlyLegal),
        _ => None,
    }
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

/// The experiment over a session, test by test: it waits for the first
/// failing `solve` test and for a failing `legal` test (in either order),
/// then runs once.
pub(crate) struct LegalSwap<'p> {
    plan: &'p GradePlan,
    possible: bool,
    legal_failed: bool,
    /// The case of the first failing `solve` test.
    solve_failed: Option<String>,
    /// The run was made, or will never be.
    ran: bool,
    proof: Option<LegalSwapView>,
}

impl<'p> LegalSwap<'p> {
    /// Nothing seen yet, for a submission of `kind` checked under `plan`.
    pub(crate) fn new(plan: &'p GradePlan, kind: SubmissionKind) -> LegalSwap<'p> {
        LegalSwap {
            plan,
            possible: possible_for(kind),
            legal_failed: false,
            solve_failed: None,
            ran: false,
            proof: None,
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
        let report = &judged.report;
        if !self.possible || self.ran || report.fault.is_some() || report.verdict == Verdict::Pass {
            return;
        }
        match function {
            Function::Legal => self.legal_failed = true,
            // The first failure of solve, the one shown in full.
            Function::Solve if self.solve_failed.is_none() => {
                // A refused call or a load error has nothing to do with
                // legal: nothing to run.
                if matches!(report.verdict, Verdict::Forbidden | Verdict::Error) {
                    self.ran = true;
                    return;
                }
                self.solve_failed = Some(case.name.clone());
            }
            _ => {}
        }
        let Some(name) = &self.solve_failed else {
            return;
        };
        if !self.legal_failed {
            return;
        }
        self.ran = true;
        let Some(failing) = self.plan.cases.cases.iter().find(|c| &c.name == name) else {
            return;
        };
        let asks = Asks {
            reference_legal: true,
            ..Asks::default()
        };
        let judged = session.test_asking(failing, Function::Solve, asks);
        self.proof = proven(&judged).map(|proven| LegalSwapView {
            case: failing.name.clone(),
            proven,
            says: proven.sentence(),
        });
    }

    /// What the experiment proved, if it ran and proved anything.
    pub(crate) fn proof(self) -> Option<LegalSwapView> {
        self.proof
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::LegalSwap as Said;
    use crate::report::TestReport;

    fn judged(verdict: Verdict, swap: Option<Said>) -> JudgedTest {
        JudgedTest {
            report: TestReport {
                case: "campus".into(),
                function: Function::Solve,
                verdict,
                points: 0,
                max_points: 1,
                time_ms: None,
                wall_ms: None,
                reruns: 0,
                check: None,
                fault: None,
                message: String::new(),
                output: String::new(),
                board: None,
                hidden: false,
                description: None,
                side: Some(4),
            },
            loaded: true,
            failure: None,
            trace_source: None,
            legal_swap: swap,
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
    fn only_a_clean_run_that_called_the_graders_legal_proves_anything() {
        let pass = |swap| proven(&judged(Verdict::Pass, swap));
        assert_eq!(pass(called(12, 0)), Some(Proven::FromLegal));
        assert_eq!(
            proven(&judged(Verdict::Wrong, called(12, 0))),
            Some(Proven::NotOnlyLegal)
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
            assert_eq!(proven(&judged(verdict, called(3, 0))), None, "{verdict}");
        }
        let mut fault = judged(Verdict::Pass, called(3, 0));
        fault.report.fault = Some(crate::verdict::Fault::grader(
            crate::verdict::FaultKind::Sandbox,
        ));
        assert_eq!(proven(&fault), None, "a grader fault");
    }
}
