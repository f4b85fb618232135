//! Shrinking a failing `solve`: the smallest board on which the student's
//! `solve` still fails the same way, as property-based testing tools shrink
//! a failing input.
//!
//! Starting from the failing puzzle, cells are filled in — from the
//! reference solution when the puzzle has one (so it stays solvable), else
//! with a digit legal there (a puzzle with no solution keeps none when
//! givens are added; the reference count confirms it) — and a fill is kept
//! while the student's `solve` still fails with the same verdict and the
//! same failed check. Fills are tried in halving groups, then one cell at a
//! time until no single fill keeps the failure: a local minimum. The search
//! is the judge's (`grader_judge::shrink`, shared with the browser check);
//! every try is one ordinary test of the submission's session
//! ([`Session::test`]); the search stops at a budget of runs and time.

use std::time::{Duration, Instant};
use sudoku_reference::BoardRules;

use sudoku_lab::Board;

use crate::case::Case;
use crate::check::Failure;
use crate::runner::session::Session;
use crate::verdict::{Function, Verdict};
pub use grader_judge::shrink::{Shrinker, fill, smaller_case};

/// How much a shrink may cost.
#[derive(Clone, Copy, Debug)]
pub struct ShrinkBudget {
    /// At most this many test runs.
    pub max_runs: usize,
    /// At most this much wall time.
    pub max_time: Duration,
}

impl Default for ShrinkBudget {
    fn default() -> Self {
        ShrinkBudget {
            max_runs: 200,
            max_time: Duration::from_secs(10),
        }
    }
}

/// How a test failed: the verdict and, for `wrong`, the failed check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureClass {
    /// The verdict.
    pub verdict: Verdict,
    /// The failed check's id (`solve.leftover`, ...), for `wrong`.
    pub check: Option<crate::check::Check>,
}

impl FailureClass {
    /// The class of a test that ended with `verdict` and `failure`.
    pub fn of(verdict: Verdict, failure: Option<&Failure>) -> FailureClass {
        FailureClass {
            verdict,
            check: failure.map(|f| f.check),
        }
    }
}

/// The smallest failing board found.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The board: the failing puzzle with cells filled in.
    pub puzzle: Board,
    /// Its empty cells.
    pub empty: usize,
    /// The empty cells of the original puzzle.
    pub original_empty: usize,
    /// The test runs it took.
    pub runs: usize,
    /// The wall time it took.
    pub elapsed: Duration,
    /// True if the budget ran out before a local minimum was confirmed.
    pub stopped_early: bool,
    /// The failure on the small board: its message, board and cell.
    pub failure: Option<Failure>,
    /// The failure's message (also for verdicts other than `wrong`).
    pub message: String,
}

/// Shrinks the failing `solve` test of `case`, which failed as `class`.
/// `None` when no cell could be filled while keeping the failure (the
/// puzzle is already minimal), or the puzzle has no empty cell. The search
/// itself is the judge's ([`Shrinker`]); this runs its boards.
pub fn shrink_solve(
    session: &mut Session<'_>,
    case: &Case,
    class: &FailureClass,
    budget: ShrinkBudget,
) -> Option<Shrunk> {
    let start = Instant::now();
    let mut shrinker = Shrinker::new(case);
    let mut runs = 0;
    let mut last: Option<(Option<Failure>, String)> = None;
    let mut stopped_early = false;
    while let Some(candidate) = shrinker.next_board() {
        if runs >= budget.max_runs || start.elapsed() >= budget.max_time {
            stopped_early = true;
            break;
        }
        runs += 1;
        match fails_the_same(session, case, &candidate, class) {
            Try::Same(failure, message) => {
                shrinker.keep(true);
                last = Some((failure, message));
            }
            Try::Different => shrinker.keep(false),
            Try::GraderFault => {
                stopped_early = true;
                break;
            }
        }
    }
    let (failure, message) = last?;
    let board = shrinker.board().clone();
    Some(Shrunk {
        empty: board.empty_cells().count(),
        puzzle: board,
        original_empty: shrinker.original_empty(),
        runs,
        elapsed: start.elapsed(),
        stopped_early,
        failure,
        message,
    })
}

/// What one try came to.
enum Try {
    Same(Option<Failure>, String),
    Different,
    GraderFault,
}

/// Runs the student's `solve` on `puzzle` as a case of its own.
fn fails_the_same(
    session: &mut Session<'_>,
    case: &Case,
    puzzle: &Board,
    class: &FailureClass,
) -> Try {
    let small = smaller_case(case, puzzle);
    let run = session.test(&small, Function::Solve, false);
    if run.report.fault.is_some() {
        return Try::GraderFault;
    }
    if FailureClass::of(run.report.verdict, run.failure.as_ref()) == *class {
        Try::Same(run.failure, run.report.message)
    } else {
        Try::Different
    }
}
