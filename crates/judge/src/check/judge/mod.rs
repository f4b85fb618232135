//! Step 3 of a test, on the grader side: judge a [`Response`] against the
//! rule and the reference, and name the first failed check.
//!
//! A failed check is a [`Failure`]: a stable id (`legal`, `find_empty.policy`,
//! `solve.leftover`, ...), a message for the student that names the function,
//! the cell and what to fix, and the board and cell a report draws. Checks
//! run in the order that gives the most useful message first: a value out of
//! range before validity, a changed given before a duplicate.

mod find_empty;
mod legal;
mod solve;

use sudoku_lab::Board;

use super::catalog::Check;
use super::error::ProbeError;
use super::execute::{check_queries, probe_boards};
use super::failure::{Failure, Judgement};
use super::probe::{Probe, Response};
use super::trace::{self, TraceSummary, WriteTrace};
use crate::case::model::{Case, FindEmptyPolicy};
use crate::finding::Finding;

/// Judges `response`, the answers to `probe` (planned for `case`), under
/// `policy` for `find_empty`.
///
/// A response of the wrong kind or with the wrong number of answers is
/// [`Judgement::Wrong`] (check `response.shape`). A malformed probe cannot
/// come from [`plan`](super::plan); if one does, it is
/// [`Judgement::BadProbe`], the grader's fault.
pub fn judge(
    case: &Case,
    policy: FindEmptyPolicy,
    probe: &Probe,
    response: &Response,
) -> Judgement {
    let result = match (probe, response) {
        (Probe::Legal { n, boards, queries }, Response::Legal { answers }) => {
            let boards = match probe_boards(*n, boards)
                .and_then(|boards| check_queries(&boards, queries).map(|()| boards))
            {
                Ok(boards) => boards,
                Err(error) => return Judgement::BadProbe(error),
            };
            legal::judge(&case.puzzle, &boards, queries, answers)
                .map_err(|f| answer(f, &case.puzzle))
        }
        (Probe::FindEmpty { n, boards }, Response::FindEmpty { answers }) => {
            match probe_boards(*n, boards) {
                Ok(boards) => find_empty::judge(&case.puzzle, &boards, policy, answers)
                    .map_err(|f| answer(f, &case.puzzle)),
                Err(error) => return Judgement::BadProbe(error),
            }
        }
        (
            Probe::Solve { n, board },
            Response::Solve {
                solved,
                board: after,
            },
        ) => match Board::from_cells(*n, board.to_vec()) {
            Ok(input) => solve::judge(case, &input, *solved, after),
            Err(reason) => return Judgement::BadProbe(ProbeError::Board { index: 0, reason }),
        },
        _ => Err(Failure::new(
            Check::ResponseShape,
            format!(
                "the worker answered a {} probe with {} answers; the test could not be judged",
                probe_name(probe),
                response_name(response)
            ),
        )),
    };
    match result {
        Ok(()) => Judgement::Pass,
        Err(failure) => Judgement::Wrong(failure),
    }
}

/// Judges like [`judge`] — the end state alone decides the verdict, in
/// every language — and, for a `solve` that came with a write trace
/// (Python submissions, and libraries traced on request), replays the
/// search (`trace::judge`) to *explain* a failure.
///
/// A trace is recorded inside the student's process, where the student's
/// code can reach it, so it is evidence of nothing: it never passes a test
/// and never makes one fail. When the end state fails, the trace's first
/// rule-breaking step (or, failing that, its hint: a digit never tried, a
/// solution cleared) words the failure, under the end state's check id;
/// when the end state passes, the test passes and the trace gives only the
/// counts a report shows. A malformed, capped or missing trace changes
/// nothing but the wording.
pub fn judge_traced(
    case: &Case,
    policy: FindEmptyPolicy,
    probe: &Probe,
    response: &Response,
    trace: Option<&WriteTrace>,
) -> (Judgement, Option<TraceSummary>) {
    let judgement = judge(case, policy, probe, response);
    if let Judgement::BadProbe(_) = judgement {
        return (judgement, None);
    }
    let (
        Some(trace),
        Probe::Solve { n, board },
        Response::Solve {
            solved,
            board: after,
        },
    ) = (trace, probe, response)
    else {
        return (judgement, None);
    };
    let replay = trace::judge(case, *n, board, *solved, after, trace);
    match (judgement, replay) {
        (Judgement::Pass, Ok(summary)) => (Judgement::Pass, Some(summary)),
        (Judgement::Pass, Err(_)) => (Judgement::Pass, None),
        (Judgement::Wrong(end), Ok(mut summary)) => {
            let explained = match summary.hint.take() {
                Some(hint) => explain(end, hint),
                None => end,
            };
            (Judgement::Wrong(explained), Some(summary))
        }
        (Judgement::Wrong(end), Err(step)) if step.check == trace::MALFORMED => {
            (Judgement::Wrong(end), None)
        }
        (Judgement::Wrong(end), Err(step)) => (Judgement::Wrong(explain(end, step)), None),
        (Judgement::BadProbe(error), _) => (Judgement::BadProbe(error), None),
    }
}

/// The end state's failure `end`, worded by what the trace showed: the
/// trace's message and board, under the end state's check id (what
/// decided the verdict, and what a shrinker compares).
fn explain(end: Failure, trace: Failure) -> Failure {
    Failure {
        check: end.check,
        explained_by: Some(trace.check),
        // The words are the trace's: so is the finding (the end state's
        // would word the end state again).
        finding: trace.finding,
        ..trace
    }
}

/// A failed answer of `legal` or `find_empty`, with the finding that says
/// on which board it was asked, when the judge gave none more precise.
fn answer(failure: Failure, puzzle: &Board) -> Failure {
    if failure.finding.is_some() {
        return failure;
    }
    let on_test_board = failure.board.as_ref().is_some_and(|b| b != puzzle);
    failure.with(Finding::Answer { on_test_board })
}

fn probe_name(probe: &Probe) -> &'static str {
    match probe {
        Probe::Legal { .. } => "legal",
        Probe::FindEmpty { .. } => "find_empty",
        Probe::Solve { .. } => "solve",
    }
}

fn response_name(response: &Response) -> &'static str {
    match response {
        Response::Legal { .. } => "legal",
        Response::FindEmpty { .. } => "find_empty",
        Response::Solve { .. } => "solve",
    }
}
