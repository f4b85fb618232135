//! What `grader check`'s run with the grader's `legal` in place of the
//! student's showed ([`Observed`]), and its words: the one way blame
//! crosses from `solve` to `legal`. The run is made by the driver (the
//! grader's `runner::legal_swap`); what it showed is decided and worded
//! here, told as what happened, never as a proven cause: `legal` is named
//! as the likely cause only when `solve` passed with the grader's `legal`
//! and the test's own write trace found no step that a wrong `legal`
//! cannot make ([`legal_explains`]).

use serde::{Deserialize, Serialize};

use crate::check::catalog::Check;
use crate::verdict::{Function, Verdict};

/// What the test child of the run tells of it (the harness's or the
/// library child's `legal_swap` line).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegalSwap {
    /// Why the grader's `legal` could not stand in; `None` when it did.
    #[serde(default)]
    pub not_possible: Option<String>,
    /// How many times the student's code called the grader's `legal`.
    #[serde(default)]
    pub calls: u64,
    /// Of those, the calls whose arguments are outside the lab's (another
    /// `n`, a cell off the board, a digit outside 1..=N), answered false: a
    /// run with any proves nothing.
    #[serde(default)]
    pub strange: u64,
}

/// What the run showed, if anything: it ended with `verdict` (`faulted`
/// when the grader failed in it) and its child said `said`. Only a run in
/// which the grader's `legal` stood in, was called, every call with the
/// lab's arguments, and that the grader ran to its end shows anything; a
/// crash or a timeout under the grader's `legal` shows nothing either way
/// (judged by its end state, as the real test).
pub fn observed(verdict: Verdict, faulted: bool, said: Option<&LegalSwap>) -> Option<Observed> {
    let said = said?;
    if faulted || said.not_possible.is_some() || said.calls == 0 || said.strange > 0 {
        return None;
    }
    match verdict {
        Verdict::Pass => Some(Observed::Passed),
        Verdict::Wrong => Some(Observed::StillFailed),
        _ => None,
    }
}

/// When the run is made, test by test, as `grader check` and the browser
/// check both decide it: once the first failing `solve` test and a
/// failing `legal` test were both seen (in either order), that `solve`
/// test runs once more; a `solve` test that was refused a call or could
/// not load has nothing to do with `legal`, and then no run is made.
#[derive(Clone, Debug, Default)]
pub struct SwapWatch {
    legal_failed: bool,
    /// The case of the first failing `solve` test.
    solve_failed: Option<String>,
    /// That test's own write-trace finding, when its trace worded it.
    own: Option<Check>,
    /// The run was asked for, or will never be.
    done: bool,
}

impl SwapWatch {
    /// Takes note of one test (`function` on `case`, its `verdict`,
    /// `faulted` when the grader failed in it, `explained_by` the check
    /// that worded its failure); returns the case whose `solve` test to
    /// run with the grader's `legal`, once.
    pub fn after(
        &mut self,
        case: &str,
        function: Function,
        verdict: Verdict,
        faulted: bool,
        explained_by: Option<Check>,
    ) -> Option<String> {
        if self.done || faulted || verdict == Verdict::Pass {
            return None;
        }
        match function {
            Function::Legal => self.legal_failed = true,
            // The first failure of solve, the one shown in full.
            Function::Solve if self.solve_failed.is_none() => {
                if matches!(verdict, Verdict::Forbidden | Verdict::Error) {
                    self.done = true;
                    return None;
                }
                self.solve_failed = Some(case.to_string());
                self.own = explained_by.filter(|c| c.is_trace_finding());
            }
            _ => {}
        }
        if !self.legal_failed {
            return None;
        }
        let rerun = self.solve_failed.clone()?;
        self.done = true;
        Some(rerun)
    }

    /// What the run on `case` showed, with the test's own trace finding.
    pub fn seen(&self, case: String, observed: Observed) -> SwapSeen {
        SwapSeen {
            case,
            observed,
            own: self.own,
        }
    }
}

/// What the run showed on the first failing `solve` test's case, before
/// words: the driver's part ([`observed`]), worded by [`worded`] once the
/// other runs' findings are known.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapSeen {
    /// The case whose `solve` test failed.
    pub case: String,
    /// What the run showed.
    pub observed: Observed,
    /// The test's own write-trace finding, when its trace worded it.
    #[serde(default)]
    pub own: Option<Check>,
}

/// What the run with the grader's `legal` showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Observed {
    /// With the grader's `legal`, the student's `solve` passed the test.
    Passed,
    /// With the grader's `legal`, the student's `solve` still failed it.
    StillFailed,
}

/// Whether a wrong `legal` can explain the write trace's finding `check`
/// (a `solve.trace.*` check) of a `solve` that asks it: a digit written
/// where the rule forbids it (`legal` said yes), a digit that fit and was
/// never tried or written (`legal` said no), or a trace that words
/// nothing. Every other finding is a step of `solve`'s own (a leftover, a
/// given overwritten, a value past N, a copy, ...), whatever `legal` says.
pub fn legal_explains(check: Check) -> bool {
    matches!(
        check,
        Check::SolveTrace
            | Check::SolveTraceIllegal
            | Check::SolveTraceUntried
            | Check::SolveTraceUnwritten
    )
}

/// The line the `solve` failure gets: what the run did, then what it
/// suggests; `contradicted_by` is the test's own trace finding that a
/// wrong `legal` cannot explain, if any.
fn sentence(observed: Observed, contradicted_by: Option<Check>) -> String {
    match (observed, contradicted_by) {
        (Observed::Passed, None) => {
            "with the grader's legal in place of yours, this solve passed this test (its calls of \
             legal went to the grader's): your legal (see legal above) is the likely cause; fix \
             legal first"
                .to_string()
        }
        (Observed::Passed, Some(finding)) => format!(
            "with the grader's legal in place of yours, this solve passed this test (its calls of \
             legal went to the grader's); but its own run shows a step no wrong legal makes \
             ({finding}, below): that step is solve's own, so fix it as well as legal"
        ),
        (Observed::StillFailed, _) => {
            "with the grader's legal in place of yours, this solve still failed this test (its \
             calls of legal went to the grader's): unless solve also checks the rules some other \
             way, solve or find_empty has a bug of its own, besides legal's"
                .to_string()
        }
    }
}

/// What the run showed for one failing `solve` test, for showing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LegalSwapView {
    /// The case whose `solve` test failed.
    pub case: String,
    /// What the run showed.
    pub observed: Observed,
    /// The test's own write-trace finding that a wrong `legal` cannot
    /// explain (see [`legal_explains`]), when there is one.
    pub contradicted_by: Option<Check>,
    /// The line shown: what happened, and what it suggests.
    pub says: String,
}

impl LegalSwapView {
    /// Whether the run names `legal` as the cause of this case's failure:
    /// it passed with the grader's `legal`, and nothing in the test's own
    /// trace says otherwise.
    pub fn blames_legal(&self) -> bool {
        self.observed == Observed::Passed && self.contradicted_by.is_none()
    }
}

/// The view of a run on `case` that showed `observed`, with the test's own
/// trace finding `own` and the findings `grader check` found (case, check
/// id): the first that a wrong `legal` cannot explain contradicts it.
pub fn worded<'a>(
    case: String,
    observed: Observed,
    own: Option<Check>,
    findings: impl IntoIterator<Item = (&'a str, Check)>,
) -> LegalSwapView {
    let contradicted_by = own
        .into_iter()
        .chain(
            findings
                .into_iter()
                .filter(|(c, _)| *c == case)
                .map(|(_, f)| f),
        )
        .find(|f| !legal_explains(*f));
    LegalSwapView {
        says: sentence(observed, contradicted_by),
        case,
        observed,
        contradicted_by,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check of the catalog with the id `id`.
    fn check(id: &str) -> Check {
        *Check::ALL
            .iter()
            .find(|c| c.id() == id)
            .expect("a check id")
    }

    /// A pass with the grader's legal names legal only when the test's own
    /// trace found nothing a wrong legal cannot make.
    #[test]
    fn a_step_of_solves_own_keeps_legal_from_being_named_alone() {
        let seen = |observed, finding: Option<&str>, found: &[(&str, &str)]| {
            worded(
                "campus".to_string(),
                observed,
                finding.map(check),
                found.iter().map(|(case, id)| (*case, check(id))),
            )
        };
        let clean = seen(Observed::Passed, None, &[("campus", "solve.trace.illegal")]);
        assert!(clean.blames_legal(), "{clean:?}");
        assert!(
            clean
                .says
                .starts_with("with the grader's legal in place of yours, this solve passed")
        );
        for (finding, found) in [
            (Some("solve.trace.leftover"), &[][..]),
            (None, &[("campus", "solve.trace.given")][..]),
        ] {
            let view = seen(Observed::Passed, finding, found);
            assert!(!view.blames_legal(), "{view:?}");
            assert!(
                view.contradicted_by.is_some() && view.says.contains("solve's own"),
                "{view:?}"
            );
            assert!(!view.says.contains("likely cause"), "{}", view.says);
        }
        // Another case's finding says nothing about this one.
        let other = seen(
            Observed::Passed,
            None,
            &[("elsewhere", "solve.trace.leftover")],
        );
        assert!(other.blames_legal(), "{other:?}");
        let still = seen(Observed::StillFailed, None, &[]);
        assert!(!still.blames_legal());
        assert!(
            still.says.contains("still failed this test"),
            "{}",
            still.says
        );
        for finding in [
            "solve.trace.illegal",
            "solve.trace.untried",
            "solve.trace.unwritten",
        ] {
            assert!(legal_explains(check(finding)), "{finding}");
        }
        for finding in [
            "solve.trace.leftover",
            "solve.trace.given",
            "solve.trace.range",
            "solve.trace.copy",
        ] {
            assert!(!legal_explains(check(finding)), "{finding}");
        }
    }

    /// The run is asked for once, when the first failing solve and a
    /// failing legal were both seen, in either order; never after a solve
    /// that was refused a call, nor for a grader's fault or a pass.
    #[test]
    fn the_watch_asks_for_the_run_once_both_failures_are_seen() {
        use crate::verdict::{Function, Verdict};
        let mut watch = SwapWatch::default();
        let own = Some(check("solve.trace.leftover"));
        assert_eq!(
            watch.after("a", Function::Solve, Verdict::Wrong, false, own),
            None
        );
        assert_eq!(
            watch.after("b", Function::Solve, Verdict::Wrong, false, None),
            None
        );
        assert_eq!(
            watch.after("c", Function::Legal, Verdict::Pass, false, None),
            None
        );
        assert_eq!(
            watch.after("c", Function::Legal, Verdict::Wrong, true, None),
            None
        );
        let asked = watch.after("c", Function::Legal, Verdict::Wrong, false, None);
        assert_eq!(asked.as_deref(), Some("a"), "the first failing solve");
        assert_eq!(watch.seen("a".into(), Observed::Passed).own, own);
        assert_eq!(
            watch.after("d", Function::Legal, Verdict::Wrong, false, None),
            None
        );
        let mut refused = SwapWatch::default();
        assert_eq!(
            refused.after("a", Function::Solve, Verdict::Forbidden, false, None),
            None
        );
        assert_eq!(
            refused.after("b", Function::Legal, Verdict::Wrong, false, None),
            None
        );
        assert_eq!(
            refused.after("c", Function::Solve, Verdict::Wrong, false, None),
            None
        );
    }
}
