//! What the tests of one submission prove together, where one test alone
//! leaves two causes: `grader check` words a failure with it, and says on
//! which other test the proof stands. Nothing here changes a verdict.
//!
//! A `solve` that returns true without writing a digit either solved a
//! copy or has a base case that returns true while a cell is empty (a lost
//! `!`). The puzzles with no solution tell them apart: the base case
//! returns true there too, with the board as it was passed in; a search on
//! a copy finds nothing and returns false.

use crate::case::{Case, Solutions};
use crate::check::Check;
use crate::check::trace::OUTER_CALL_KEPT_THE_RULES;
use crate::report::TestReport;
use crate::verdict::{Function, Verdict};

/// The words a trace's no-write finding gives both causes with (see
/// `check::trace`): a message holding one of these is reworded.
const BOTH_CAUSES: [&str; 2] = [
    ": either it solved a copy",
    ": most likely it solved a copy; or",
];

/// What the no-solution puzzles showed of `solve`'s base case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BaseCase {
    /// On this no-solution case, `solve` returned true and left the board
    /// as it was passed in.
    TrueOnEmpty(String),
    /// On this no-solution case, `solve` rightly returned false.
    FalseOnUnsolvable(String),
}

impl BaseCase {
    /// What `tests` show, `cases` giving each case's solutions; `None`
    /// when no `solve` test ran on a puzzle with no solution.
    pub(crate) fn of(tests: &[TestReport], cases: &[Case]) -> Option<BaseCase> {
        let unsolvable = |name: &str| {
            cases
                .iter()
                .any(|c| c.name == name && c.solutions == Some(Solutions::None))
        };
        let on_unsolvable: Vec<&TestReport> = tests
            .iter()
            .filter(|t| t.function == Function::Solve && unsolvable(&t.case))
            .collect();
        if let Some(t) = on_unsolvable.iter().find(|t| {
            t.verdict == Verdict::Wrong
                && t.check == Some(Check::SolveResult)
                && t.message
                    .contains("the board is exactly as it was passed in")
        }) {
            return Some(BaseCase::TrueOnEmpty(t.case.clone()));
        }
        on_unsolvable
            .iter()
            .find(|t| t.verdict == Verdict::Pass)
            .map(|t| BaseCase::FalseOnUnsolvable(t.case.clone()))
    }

    /// `message` with its two causes narrowed to the one this proves, or
    /// `None` when it does not give both. `truthy`/`falsy` are the
    /// language's `true`/`false`.
    pub(crate) fn reword(&self, message: &str, truthy: &str, falsy: &str) -> Option<String> {
        let at = BOTH_CAUSES.iter().find_map(|words| message.find(words))?;
        let cause = match self {
            BaseCase::TrueOnEmpty(case) => format!(
                "its base case returns {truthy} while a cell is empty: on {case}, a puzzle with \
                 no solution, solve also returned {truthy} and left the board as it was passed \
                 in, which a search on a copy would not do; return {truthy} only when find_empty \
                 finds no empty cell"
            ),
            BaseCase::FalseOnUnsolvable(case) => format!(
                "most likely it solved a copy: on {case}, a puzzle with no solution, solve rightly \
                 returned {falsy}, so its base case does not return {truthy} while a cell is \
                 empty; the board you were given must hold the solution, so write into it"
            ),
        };
        Some(format!("{}: {cause}", &message[..at]))
    }
}

/// True when `legal` is known to pass its own tests: some ran, every one
/// passed, and none was left out (`complete`: no `--fail-fast` stop).
pub(crate) fn legal_passes(tests: &[TestReport], complete: bool) -> bool {
    let mut legal = tests
        .iter()
        .filter(|t| t.function == Function::Legal)
        .peekable();
    complete && legal.peek().is_some() && legal.all(|t| t.verdict == Verdict::Pass)
}

/// The hint of a first illegal write deeper than the outermost call (the
/// recursive call's arguments), worded by what `legal`'s own tests showed:
/// with `legal` passing every one of them, its condition is met and goes;
/// with `legal` failing one, a `legal` that answered true fits as well, and
/// the hint gives way to the rule. `None` when `message` has no such hint.
pub(crate) fn deeper_illegal_write(message: &str, legal_passes: bool) -> Option<String> {
    let at = message.find(OUTER_CALL_KEPT_THE_RULES)?;
    if legal_passes {
        return Some(message.replacen(
            "if your legal passes its own tests, ",
            "your legal passes its own tests, so ",
            1,
        ));
    }
    Some(format!(
        "{}write a digit only when legal(board, r, c, v) returns true for that cell, row first; \
         if solve does, legal answered true here",
        &message[..at]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(case: &str, verdict: Verdict, check: Option<Check>, message: &str) -> TestReport {
        TestReport {
            case: case.into(),
            function: Function::Solve,
            verdict,
            points: 0,
            max_points: 1,
            time_ms: None,
            wall_ms: None,
            reruns: 0,
            check,
            fault: None,
            message: message.into(),
            output: String::new(),
            board: None,
            hidden: false,
            description: None,
            side: None,
        }
    }

    fn case(name: &str, solutions: Option<Solutions>) -> Case {
        Case {
            name: name.to_string(),
            description: None,
            puzzle: sudoku_lab::Board::empty(2).expect("a board"),
            points: 1,
            hidden: false,
            tests: Function::ALL.to_vec(),
            time_limit_ms: None,
            solutions,
            solution: None,
            file: std::path::PathBuf::from("test.toml"),
            line: 1,
        }
    }

    fn cases() -> Vec<Case> {
        vec![case("open", None), case("dead", Some(Solutions::None))]
    }

    const NO_WRITE: &str = "solve returned true without writing a single digit on the board it \
        was given and without calling itself ((row 0, col 1) is still empty): either it solved a \
        copy: the board you were given must hold the solution, so write into it; or its base case \
        returns true while a cell is empty: return true only when find_empty finds no empty cell";

    #[test]
    fn a_true_on_a_puzzle_without_solution_names_the_base_case() {
        let tests = vec![
            test("open", Verdict::Wrong, Some(Check::SolveInPlace), NO_WRITE),
            test(
                "dead",
                Verdict::Wrong,
                Some(Check::SolveResult),
                "solve returned true, but this puzzle has no solution, and the board is exactly as it was passed in ((row 0, col 0) is still empty)",
            ),
        ];
        let proof = BaseCase::of(&tests, &cases()).expect("evidence");
        assert_eq!(proof, BaseCase::TrueOnEmpty("dead".into()));
        let said = proof.reword(NO_WRITE, "true", "false").expect("reworded");
        assert!(
            said.starts_with("solve returned true without writing a single digit"),
            "{said}"
        );
        assert!(said.contains(": its base case returns true while a cell is empty: on dead"));
        assert!(!said.contains("copy:"), "{said}");
    }

    #[test]
    fn a_false_on_a_puzzle_without_solution_points_at_the_copy() {
        let tests = vec![
            test("open", Verdict::Wrong, Some(Check::SolveInPlace), NO_WRITE),
            test("dead", Verdict::Pass, None, ""),
        ];
        let proof = BaseCase::of(&tests, &cases()).expect("evidence");
        let said = proof.reword(NO_WRITE, "true", "false").expect("reworded");
        assert!(
            said.contains(": most likely it solved a copy: on dead"),
            "{said}"
        );
        assert!(!said.contains("or its base case"), "{said}");
    }

    #[test]
    fn a_deeper_illegal_write_is_worded_by_legals_own_tests() {
        let message = format!(
            "step 2 (depth 2): solve wrote 1 at (row 0, col 1), but the box already held 1: every \
             placement must be legal when it is written: {OUTER_CALL_KEPT_THE_RULES}2: if your legal \
             passes its own tests, most likely the recursive call passes other arguments"
        );
        let passing = deeper_illegal_write(&message, true).expect("a hint");
        assert!(
            passing.contains("your legal passes its own tests, so most likely the recursive call"),
            "{passing}"
        );
        let failing = deeper_illegal_write(&message, false).expect("a hint");
        assert!(!failing.contains("recursive call"), "{failing}");
        assert!(failing.ends_with("legal answered true here"), "{failing}");
        assert!(
            failing.starts_with("step 2 (depth 2): solve wrote 1"),
            "{failing}"
        );
        assert_eq!(deeper_illegal_write("solve wrote 1", true), None);
        // No legal test run (`--function solve`), or one left out: legal
        // is not known to pass.
        let legal = |verdict| TestReport {
            function: Function::Legal,
            ..test("open", verdict, None, "")
        };
        assert!(legal_passes(&[legal(Verdict::Pass)], true));
        assert!(!legal_passes(&[legal(Verdict::Pass)], false));
        assert!(!legal_passes(&[legal(Verdict::Wrong)], true));
        assert!(!legal_passes(
            &[test("open", Verdict::Wrong, None, "")],
            true
        ));
    }

    #[test]
    fn without_a_puzzle_that_has_no_solution_nothing_is_proved() {
        let tests = vec![test(
            "open",
            Verdict::Wrong,
            Some(Check::SolveInPlace),
            NO_WRITE,
        )];
        assert_eq!(BaseCase::of(&tests, &cases()), None);
        // Another failure of a no-solution case (a given overwritten) is no
        // proof either way.
        let tests = vec![test(
            "dead",
            Verdict::Wrong,
            Some(Check::SolveGivens),
            "solve returned true on a puzzle that has no solution, and the given changed",
        )];
        assert_eq!(BaseCase::of(&tests, &cases()), None);
        // A message that does not give both causes is left alone.
        let proof = BaseCase::FalseOnUnsolvable("dead".into());
        assert_eq!(proof.reword("solve returned false", "true", "false"), None);
    }
}
