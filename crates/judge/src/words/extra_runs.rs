//! What `grader check`'s extra runs say, given what the tests proved: the
//! shape of the smallest failing board ([`SmallBoardShape`]) and when its
//! causes may be offered, and which first steps of a traced run stand
//! beside the helpers' own failures ([`settle`]). The runs are the
//! driver's (the grader's `commands/check.rs`, a browser page); the
//! reading and the words are here, once.

use serde::{Deserialize, Serialize};
use sudoku_lab::Board;
use sudoku_reference::BoardRules;

use super::legal_swap::{LegalSwapView, SwapSeen, worded};
use super::spelling::{DIGIT_LOOP_ANY, digit_loop};
use super::student::{FirstStepView, ShrunkView};
use super::{Context, message};
use crate::check::catalog::Check;
use crate::finding::{Finding, Lang};
use crate::report::TestReport;
use crate::verdict::{Function, Verdict};

/// What the extra runs of one check found, as its driver made them: the
/// views' messages as their judges said them, the run with the grader's
/// `legal` not yet worded.
#[derive(Debug, Default)]
pub struct Found {
    /// The smallest failing boards.
    pub shrunk: Vec<ShrunkView>,
    /// The first steps that break the lab's rules.
    pub first_steps: Vec<FirstStepView>,
    /// What the run with the grader's `legal` showed.
    pub legal_swap: Option<SwapSeen>,
}

/// What the extra runs say, worded and settled ([`Found::said`]).
#[derive(Debug, Default)]
pub struct Said {
    /// The smallest failing boards, with their diagnoses.
    pub shrunk: Vec<ShrunkView>,
    /// The first steps that stand.
    pub first_steps: Vec<FirstStepView>,
    /// The run with the grader's `legal`, worded.
    pub legal_swap: Option<LegalSwapView>,
}

impl Found {
    /// Worded once with `cx` (the language, what the tests proved), as
    /// the tests are, and settled against the check's `tests`
    /// ([`settle`]; `solution_of` gives a case's solution); the run with
    /// the grader's `legal` worded beside the steps that stand.
    pub fn said<'c>(
        mut self,
        tests: &[TestReport],
        cx: &Context,
        solution_of: impl Fn(&str) -> Option<&'c Board>,
    ) -> Said {
        for step in &mut self.first_steps {
            if let Some(finding) = &step.finding {
                step.message = message(finding, Function::Solve, &step.message, cx);
            }
        }
        for view in &mut self.shrunk {
            if let Some(finding) = &view.finding {
                view.message = message(finding, Function::Solve, &view.message, cx);
            }
        }
        settle(
            tests,
            cx.lang,
            solution_of,
            &mut self.first_steps,
            &mut self.shrunk,
        );
        let steps = &self.first_steps;
        let legal_swap = self.legal_swap.map(|seen| {
            worded(
                seen.case,
                seen.observed,
                seen.own,
                steps.iter().map(|f| (f.case.as_str(), f.check)),
            )
        });
        Said {
            shrunk: self.shrunk,
            first_steps: self.first_steps,
            legal_swap,
        }
    }
}

/// A small board whose shape leaves few causes of a `solve` that answered
/// false on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum SmallBoardShape {
    /// No empty cell left: the base case answered false.
    NoEmptyCell,
    /// One empty cell, whose digit in the solution is N: `solve` gave up
    /// without placing N.
    OneCellNeedsTop {
        /// The board's side, N.
        side: usize,
    },
}

impl SmallBoardShape {
    /// The shape of `small`, the smallest board found on which `solve`
    /// failed check `check`, given the case's `solution`: only a
    /// `solve.gave_up` on a full board, or on one empty cell whose digit is
    /// N, has one.
    pub fn of(small: &Board, check: Check, solution: Option<&Board>) -> Option<SmallBoardShape> {
        if check != Check::SolveGaveUp {
            return None;
        }
        let mut empty = small.empty_cells();
        let Some((r, c)) = empty.next() else {
            return Some(SmallBoardShape::NoEmptyCell);
        };
        let side = small.side();
        let needs_top = usize::from(solution?.get(r, c)) == side;
        (empty.next().is_none() && needs_top).then_some(SmallBoardShape::OneCellNeedsTop { side })
    }

    /// Its words in `lang`: the base case as fact; for one cell, two bugs
    /// fit (a digit loop that stops before N, a `return false` inside the
    /// loop), both named, the likelier first, neither as fact.
    pub fn words(self, lang: Option<Lang>) -> String {
        match self {
            SmallBoardShape::NoEmptyCell => "with no empty cell left, your solve answers false: \
                 solve must return true when find_empty finds no empty cell"
                .to_string(),
            SmallBoardShape::OneCellNeedsTop { side } => format!(
                "with a single empty cell, whose digit is {side}, your solve answers false without \
                 placing {side}: most likely your digit loop stops before {side} ({}); or solve \
                 returns false before the loop reaches {side} (a return false inside the digit loop: \
                 return false only after the loop)",
                lang.map_or(DIGIT_LOOP_ANY, digit_loop)
            ),
        }
    }
}

/// The shape of the small board of `view`, whose case's solution is
/// `solution` (see [`SmallBoardShape::of`]).
pub fn shape_of(view: &ShrunkView, solution: Option<&Board>) -> Option<SmallBoardShape> {
    let small = Board::from_cells(view.small_board.n, view.small_board.cells()).ok()?;
    SmallBoardShape::of(&small, view.check?, solution)
}

/// Settles the extra runs' words against the tests of the same check
/// (`tests`), in `lang`: each small board's diagnosis from its shape
/// (`solution_of` gives a case's solution; none when a helper's failure
/// fits as well, or a trace saw a step that says it better), and the
/// first steps a failing `legal` leaves unproven dropped.
pub fn settle<'c>(
    tests: &[TestReport],
    lang: Option<Lang>,
    solution_of: impl Fn(&str) -> Option<&'c Board>,
    first_steps: &mut Vec<FirstStepView>,
    shrunk: &mut [ShrunkView],
) {
    let failing = |t: &&TestReport| t.verdict != Verdict::Pass;
    // The small board's causes assume the helpers are right: with legal or
    // find_empty failing, their wrong answers fit the failure too.
    let helpers_fail = tests
        .iter()
        .filter(failing)
        .any(|t| t.function != Function::Solve);
    // On a full board only find_empty's answer matters: its own failure
    // there is named beside it, as a fact about find_empty, not as the
    // cause (the grader cannot see whether solve asks it).
    let find_empty_full = tests
        .iter()
        .filter(failing)
        .any(|t| t.check == Some(Check::FindEmptyFull));
    // A digit that fit and was never written fits a legal that answered
    // false for it as well as a digit loop that skipped it: with legal
    // failing its own tests, such a step names a cause it cannot prove.
    let legal_fails = tests
        .iter()
        .filter(failing)
        .any(|t| t.function == Function::Legal);
    if legal_fails {
        first_steps.retain(|f| {
            !matches!(
                f.check,
                Check::SolveTraceUntried | Check::SolveTraceUnwritten
            )
        });
    }
    // A search seen writing where the rule forbids it, with legal passing
    // its own tests, asks legal about another cell (or writes first): its
    // giving up on the small board fits that as well as a digit loop's
    // bound, so the small board's digit-loop diagnosis is not offered.
    let wrote_illegally = |case: &str| {
        tests
            .iter()
            .any(|t| t.case == case && matches!(t.finding, Some(Finding::IllegalWrite { .. })))
            || first_steps
                .iter()
                .any(|f| f.case == case && f.check == Check::SolveTraceIllegal)
    };
    // The small board's trace says it with a step: no need twice.
    let said_by_a_step = |case: &str| {
        first_steps
            .iter()
            .any(|f| f.case == case && f.on_small_board && f.check == Check::SolveTraceUnwritten)
    };
    for view in shrunk {
        let full = view.empty == 0;
        let stands =
            !wrote_illegally(&view.case) && !said_by_a_step(&view.case) && (full || !helpers_fail);
        let shape = shape_of(view, solution_of(&view.case)).filter(|_| stands);
        view.diagnosis = shape.map(|shape| {
            let mut words = shape.words(lang);
            if full && find_empty_full {
                words.push_str(
                    "; your find_empty returns a cell on a full board (see find_empty above), \
                     so a solve that asks it goes on searching",
                );
            }
            words
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board_view::BoardView;
    use crate::words::student::Recorder;

    fn board(text: &str) -> Board {
        crate::board_text::parse_board(text).expect("a board")
    }

    fn test(function: Function, verdict: Verdict, check: Option<Check>) -> TestReport {
        TestReport {
            check,
            side: Some(4),
            ..crate::report::named("a", function, verdict)
        }
    }

    fn shrunk(small: &str) -> ShrunkView {
        let small = board(small);
        ShrunkView {
            case: "a".into(),
            full_board: BoardView::of(&board("1...34122143432."), None),
            small_board: BoardView::of(&small, None),
            small_puzzle: String::new(),
            empty: small.empty_cells().count(),
            original_empty: 6,
            runs: 3,
            ms: 1.0,
            stopped_early: false,
            check: Some(Check::SolveGaveUp),
            diagnosis: None,
            verdict: Verdict::Wrong,
            message: String::new(),
            finding: None,
            small_after: None,
            after_is_step: false,
        }
    }

    fn step(check: Check) -> FirstStepView {
        FirstStepView {
            case: "a".into(),
            on_small_board: false,
            source: Recorder::WriteWatch,
            check,
            finding: None,
            message: String::new(),
            board: None,
        }
    }

    #[test]
    fn a_small_board_has_a_shape_only_when_it_leaves_few_causes() {
        let solution = board("1234341221434321");
        let of = |text: &str, check| SmallBoardShape::of(&board(text), check, Some(&solution));
        assert_eq!(
            of("1234341221434321", Check::SolveGaveUp),
            Some(SmallBoardShape::NoEmptyCell)
        );
        // The one empty cell needs 4, the board's N.
        assert_eq!(
            of("123.341221434321", Check::SolveGaveUp),
            Some(SmallBoardShape::OneCellNeedsTop { side: 4 })
        );
        assert_eq!(
            of(".234341221434321", Check::SolveGaveUp),
            None,
            "it needs 1"
        );
        assert_eq!(
            of("12..341221434321", Check::SolveGaveUp),
            None,
            "two cells"
        );
        assert_eq!(of("123.341221434321", Check::SolveLeftover), None);
        let words = SmallBoardShape::OneCellNeedsTop { side: 4 }.words(Some(Lang::Python));
        assert!(words.contains("range(1, n*n + 1)"), "{words}");
    }

    #[test]
    fn a_failing_helper_keeps_the_small_boards_causes_and_legals_unproven_steps_out() {
        let solution = board("1234341221434321");
        let one_cell = "123.341221434321";
        let solve = test(Function::Solve, Verdict::Wrong, Some(Check::SolveGaveUp));
        let legal = test(Function::Legal, Verdict::Wrong, Some(Check::Legal));
        let settled = |tests: &[TestReport], view: ShrunkView| {
            let mut steps = vec![step(Check::SolveTraceUntried)];
            let mut views = vec![view];
            settle(
                tests,
                Some(Lang::C),
                |_| Some(&solution),
                &mut steps,
                &mut views,
            );
            (steps, views.remove(0).diagnosis)
        };
        let (steps, alone) = settled(std::slice::from_ref(&solve), shrunk(one_cell));
        assert_eq!(steps.len(), 1);
        assert!(alone.is_some_and(|d| d.contains("v <= n*n")));
        let (steps, beside_legal) = settled(&[legal, solve.clone()], shrunk(one_cell));
        assert!(steps.is_empty(), "an untried digit fits a wrong legal too");
        assert_eq!(beside_legal, None);
        // On a full board, find_empty's own failure there is said beside it.
        let full_board = test(
            Function::FindEmpty,
            Verdict::Wrong,
            Some(Check::FindEmptyFull),
        );
        let (_, full) = settled(&[full_board, solve], shrunk("1234341221434321"));
        let full = full.expect("a full board's diagnosis stands");
        assert!(full.contains("no empty cell left"), "{full}");
        assert!(
            full.contains("your find_empty returns a cell on a full board"),
            "{full}"
        );
    }
}
