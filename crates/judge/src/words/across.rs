//! What the tests of one submission prove together, where one test alone
//! leaves two causes: the words of a finding name the cause this proves,
//! and say on which other test the proof stands. Nothing here changes a
//! verdict, and nothing reads a message: each proof is read from the
//! tests' verdicts, checks and findings.
//!
//! A `solve` that returns true without writing a digit either solved a
//! copy or has a base case that returns true while a cell is empty (a lost
//! `!`). The puzzles with no solution tell them apart: the base case
//! returns true there too, with the board as it was passed in; a search on
//! a copy finds nothing and returns false.

use serde::{Deserialize, Serialize};

use super::spelling;
use crate::check::catalog::Check;
use crate::finding::{Finding, Lang};
use crate::report::TestReport;
use crate::verdict::{Function, Verdict};

/// What a helper's own tests showed (`legal`'s, or `find_empty`'s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LegalTests {
    /// Some ran, every one passed, and none was left out.
    Pass,
    /// One failed.
    Fail,
    /// None ran, or some were left out (`--fail-fast`, `--function`).
    #[default]
    Unknown,
}

impl LegalTests {
    /// What `tests` show of `legal`; `complete` when no test of the plan
    /// was left out.
    pub fn of(tests: &[TestReport], complete: bool) -> LegalTests {
        LegalTests::of_function(tests, complete, Function::Legal)
    }

    /// What `tests` show of `function`'s own tests; `complete` as in
    /// [`LegalTests::of`].
    pub fn of_function(tests: &[TestReport], complete: bool, function: Function) -> LegalTests {
        let mut legal = tests.iter().filter(|t| t.function == function).peekable();
        if legal.peek().is_none() {
            return LegalTests::Unknown;
        }
        let all_pass = legal.all(|t| t.verdict == Verdict::Pass);
        match (all_pass, complete) {
            (false, _) => LegalTests::Fail,
            (true, true) => LegalTests::Pass,
            (true, false) => LegalTests::Unknown,
        }
    }
}

/// What the no-solution puzzles showed of `solve`'s base case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "proof", content = "case", rename_all = "snake_case")]
pub enum BaseCase {
    /// On this no-solution case, `solve` returned true and left the board
    /// as it was passed in.
    TrueOnEmpty(String),
    /// On this no-solution case, `solve` rightly returned false.
    FalseOnUnsolvable(String),
}

impl BaseCase {
    /// What `tests` show, `unsolvable` telling which cases have no
    /// solution; `None` when no `solve` test ran on one.
    pub fn of(tests: &[TestReport], unsolvable: impl Fn(&str) -> bool) -> Option<BaseCase> {
        let on_unsolvable: Vec<&TestReport> = tests
            .iter()
            .filter(|t| t.function == Function::Solve && unsolvable(&t.case))
            .collect();
        if let Some(t) = on_unsolvable
            .iter()
            .find(|t| t.finding == Some(Finding::SolveTrueUnchanged))
        {
            return Some(BaseCase::TrueOnEmpty(t.case.clone()));
        }
        on_unsolvable
            .iter()
            .find(|t| t.verdict == Verdict::Pass)
            .map(|t| BaseCase::FalseOnUnsolvable(t.case.clone()))
    }

    /// The one cause this proves, in `lang`'s words.
    pub fn cause(&self, lang: Option<Lang>) -> String {
        let (truthy, falsy) = spelling::booleans(lang);
        match self {
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
        }
    }
}

/// A board size the code was written for, as the tests proved it: every
/// test of one box size passes, each other size has a failure (see
/// `FixedSize::of`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FixedSize {
    /// The box size every test of which passes.
    pub n: usize,
    /// Each other size's tests, smallest first: each has a failure.
    pub others: Vec<SizeTally>,
}

/// The tests of one board size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SizeTally {
    /// The board's side (4, 9, 16).
    pub side: usize,
    /// How many of its tests failed.
    pub failing: usize,
    /// How many ran.
    pub tests: usize,
}

impl FixedSize {
    /// The board size the code was written for, when the tests show it:
    /// every test on boxes of one size `n` passes, on each of at least two
    /// other sizes some test fails, and on at least one of them the
    /// failure has the shape a fixed size predicts: a test of `legal` or
    /// `find_empty` fails (those two take no search strategy, only the
    /// board's size), or, on a smaller board, `solve` left a digit past
    /// its N (`solve.range`: a digit loop to the fixed N). A `solve` that
    /// fails on bigger boards alone (an early `return false`, a lost
    /// argument) does not fit, and is not told it. `size_of` gives a
    /// case's `n`.
    pub fn of(tests: &[TestReport], size_of: impl Fn(&str) -> Option<usize>) -> Option<FixedSize> {
        /// One box size's tests.
        #[derive(Default)]
        struct Tally {
            n: usize,
            tests: usize,
            failing: usize,
            /// Failing tests of `legal` or `find_empty`.
            helpers_failing: usize,
            /// `solve` tests that left a digit past N.
            past_n: usize,
        }
        let mut sizes: Vec<Tally> = Vec::new();
        for test in tests {
            let n = size_of(&test.case)?;
            let at = match sizes.iter().position(|s| s.n == n) {
                Some(at) => at,
                None => {
                    sizes.push(Tally {
                        n,
                        ..Tally::default()
                    });
                    sizes.len() - 1
                }
            };
            let tally = &mut sizes[at];
            let failing = test.verdict != Verdict::Pass;
            tally.tests += 1;
            tally.failing += usize::from(failing);
            tally.helpers_failing += usize::from(failing && test.function != Function::Solve);
            tally.past_n += usize::from(test.check == Some(Check::SolveRange));
        }
        sizes.sort_unstable_by_key(|s| s.n);
        let mut passing = sizes.iter().filter(|s| s.failing == 0);
        let n = passing.next()?.n;
        let others: Vec<&Tally> = sizes.iter().filter(|s| s.n != n).collect();
        // A digit past N shows the fixed size only on a smaller board.
        let shaped = |s: &&Tally| s.helpers_failing > 0 || (s.n < n && s.past_n > 0);
        if passing.next().is_some()
            || others.len() < 2
            || others.iter().any(|s| s.failing == 0)
            || !others.iter().any(shaped)
        {
            return None;
        }
        Some(FixedSize {
            n,
            others: others
                .iter()
                .map(|s| SizeTally {
                    side: s.n * s.n,
                    failing: s.failing,
                    tests: s.tests,
                })
                .collect(),
        })
    }

    /// What it says, in `lang`'s spelling: what fixed numbers do (a 4x4
    /// read with rows of 9 raises IndexError, or reads off its end; a
    /// 16x16 is searched in its top-left 9x9).
    pub fn words(&self, lang: Option<Lang>) -> String {
        let n = self.n;
        let side = n * n;
        let failed: Vec<String> = self
            .others
            .iter()
            .map(|s| {
                let other = s.side;
                format!("{} of {} tests on the {other}x{other}s", s.failing, s.tests)
            })
            .collect();
        let spelled = spelling::sized_loops(lang);
        format!(
            "your code assumes a {side}x{side} board (n = {n}): every {side}x{side} test passes, \
             but tests fail on every other size ({}). Use n and N = n*n instead of {side} and {n} \
             ({spelled}): a {side} or {n} written into the code reads or writes past a smaller \
             board and misses cells or digits of a bigger one",
            failed.join(", ")
        )
    }
}

/// [`FixedSize::of`], worded in `lang`.
pub fn fixed_board_size(
    tests: &[TestReport],
    size_of: impl Fn(&str) -> Option<usize>,
    lang: Option<Lang>,
) -> Option<String> {
    FixedSize::of(tests, size_of).map(|f| f.words(lang))
}
