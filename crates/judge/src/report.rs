//! The model of one test's result, shared by every report: the grader's
//! formats, the student's view and a browser page. Plain data: the words
//! are the findings' ([`crate::words`]), the board is a [`BoardView`].

use serde::{Deserialize, Serialize};

use crate::board_view::BoardView;
use crate::case::model::Case;
use crate::check::catalog::Check;
use crate::finding::Finding;
use crate::verdict::{Fault, Function, Verdict};

/// How far grading a submission got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Built and loaded; every test ran.
    Ok,
    /// Could not be built (or its folder held no submission we recognise).
    BuildError,
    /// Built, but could not be loaded (a missing symbol, a bad library).
    LoadError,
    /// The grader failed before any test could run (no compiler, a box
    /// that cannot be made, a panic): the submission's `fault` says which.
    GraderError,
}

/// One test's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(deny_unknown_fields))]
pub struct TestReport {
    /// The case's name.
    pub case: String,
    /// The function tested.
    pub function: Function,
    /// The verdict.
    pub verdict: Verdict,
    /// Points earned.
    pub points: u32,
    /// Points possible.
    pub max_points: u32,
    /// Milliseconds spent in the student's code, when it ran.
    pub time_ms: Option<f64>,
    /// Wall-clock milliseconds the test took, as the grader measured it
    /// (what CI viewers and Gradescope call a test's time); absent until the
    /// runner measures it, and writers then fall back on `time_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<f64>,
    /// How many times the test was run again because the host was too
    /// busy to time it (stopped at the wall-clock backstop while still
    /// runnable and under its CPU limit); absent when it ran once.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reruns: u32,
    /// The check that failed, for `wrong` (its id, e.g. `solve.leftover`:
    /// `grader checks` lists them); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
    /// The grader's fault, when the test could not be run or judged
    /// through no fault of the student's (verdict `error`, no points);
    /// absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// Why it failed (the check and the cell, the signal, ...); empty on a
    /// pass. A fault's own words are not in it: a report shows them
    /// beside it (`TestReport::shown_message`).
    pub message: String,
    /// What the student's code printed, capped.
    pub output: String,
    /// The board the failed check is about, with the cell in question
    /// marked; absent when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<BoardView>,
    /// What the failed check observed, as data (the message is its words,
    /// made by the judge's `words`); absent when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<Finding>,
    /// Whether the case is hidden (never shown by `grader check`).
    #[serde(skip)]
    pub hidden: bool,
    /// The case's one-line description, shown to a student beside a failure.
    #[serde(skip)]
    pub description: Option<String>,
    /// The side of the case's board (4, 9, 16): the HTML matrix orders its
    /// columns by it, as the lab goes from the campus 4x4 to the 16x16.
    #[serde(skip)]
    pub side: Option<usize>,
}

/// A report of `function` on a case named `case` that came to `verdict`
/// (its one point for a pass), nothing else set: for tests, which have no
/// [`Case`] at hand ([`TestReport::of`] takes one).
pub fn named(case: &str, function: Function, verdict: Verdict) -> TestReport {
    TestReport {
        case: case.into(),
        function,
        verdict,
        points: u32::from(verdict == Verdict::Pass),
        max_points: 1,
        time_ms: None,
        wall_ms: None,
        reruns: 0,
        check: None,
        fault: None,
        message: String::new(),
        output: String::new(),
        board: None,
        finding: None,
        hidden: false,
        description: None,
        side: None,
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl TestReport {
    /// The test of `case`'s `function` that came to `verdict` with
    /// `message`: the case's points when it passed, none otherwise; no
    /// time, check, fault, output, board or finding yet.
    pub fn of(case: &Case, function: Function, verdict: Verdict, message: String) -> TestReport {
        TestReport {
            case: case.name.clone(),
            function,
            verdict,
            points: if verdict == Verdict::Pass {
                case.points
            } else {
                0
            },
            max_points: case.points,
            time_ms: None,
            wall_ms: None,
            reruns: 0,
            check: None,
            fault: None,
            message,
            output: String::new(),
            board: None,
            finding: None,
            hidden: case.hidden,
            description: case.description.clone(),
            side: Some(case.puzzle.side()),
        }
    }

    /// The message as a person reads it: after the fault's headline when
    /// the grader is at fault (every text format shows a fault so).
    pub fn shown_message(&self) -> std::borrow::Cow<'_, str> {
        shown(self.fault, &self.message)
    }

    /// The test's wall time in seconds for a report: `wall_ms`, else
    /// `time_ms`; `None` when neither is a finite, non-negative number that
    /// fits a report (a forged `1e300` or `NaN` is no time at all).
    pub fn wall_seconds(&self) -> Option<f64> {
        self.wall_ms
            .or(self.time_ms)
            .filter(|ms| ms.is_finite() && (0.0..=MAX_REPORTED_MS).contains(ms))
            .map(|ms| ms / 1000.0)
    }
}

/// The longest time a report writes, in milliseconds (a year): anything
/// beyond is a forged or broken measurement, not a time.
pub const MAX_REPORTED_MS: f64 = 365.0 * 24.0 * 3600.0 * 1000.0;

/// `message`, after `fault`'s headline when there is one.
pub fn shown(fault: Option<Fault>, message: &str) -> std::borrow::Cow<'_, str> {
    match fault {
        Some(fault) => fault.render(message).into(),
        None => message.into(),
    }
}
