//! The words of the findings, made once, here: every report (`grade`'s
//! terminal, JSON, HTML, Gradescope, Classroom; `grader check`; a browser
//! page through WebAssembly) words a [`Finding`] by [`message`], in the
//! submission's language ([`spelling`]). A cause is named only when the
//! [`Context`] carries its proof (what several tests proved together:
//! [`across`]); otherwise the words say what was observed and what fits.
//!
//! - [`across`]: what the tests of one submission prove together;
//! - [`extra_runs`]: what `grader check`'s extra runs say beside them;
//! - [`spelling`]: code spelled in the student's language;
//! - [`student`]: the student's view of a check, as lines and boards.

pub mod across;
pub mod extra_runs;
pub mod legal_swap;
pub mod load_hints;
pub mod spelling;
pub mod student;

use crate::finding::{CallsSeen, Finding, IllegalFit, Lang};
use crate::verdict::Function;
pub use across::{BaseCase, LegalTests};
use spelling::DIGIT_LOOP_ANY;

/// What the words of one submission's findings may rest on besides the
/// finding itself: the language, and what its other tests proved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// The submission's language; `None` spells all three.
    pub lang: Option<Lang>,
    /// What `legal`'s own tests showed.
    pub legal: LegalTests,
    /// What `find_empty`'s own tests showed.
    pub find_empty: LegalTests,
    /// What the puzzles with no solution proved of `solve`'s base case.
    pub base_case: Option<BaseCase>,
    /// `find_empty` reported no empty cell on a board that has one, in
    /// its own tests: a `solve` that asks it sees nothing to fill.
    pub find_empty_misses: bool,
}

/// What endless recursion in `solve` most likely is, two causes at most: a
/// write at another cell than find_empty's (or none) sends find_empty back
/// to the same cell; a 0 written looks like no write.
pub const ENDLESS_RECURSION: &str = "Most likely solve recursed without writing a digit into the \
     cell find_empty returned (no write before the call, or a write at another cell: find_empty \
     then returns the same cell again and again), or wrote 0 (a digit loop that starts at 0); \
     write a digit from 1 to N into that cell before the recursive call";

/// The message for `finding`, a failure of a test of `function`; `said`
/// is what the judge or the run said, for the findings whose words stay
/// the judge's (see [`Finding`]).
pub fn message(finding: &Finding, function: Function, said: &str, cx: &Context) -> String {
    let lang = cx.lang;
    let (truthy, falsy) = spelling::booleans(lang);
    match finding {
        Finding::Answer { .. } | Finding::TooDeepNoChange | Finding::SolveTrueUnchanged => {
            said.to_string()
        }
        Finding::FindEmptyNone {
            on_test_board,
            empty,
        } => format!(
            "{} reported none, but {} is empty: report none ({}) only when no cell is empty",
            who(*on_test_board),
            cell(*empty),
            spelling::none(lang)
        ),
        Finding::FindEmptyFull {
            on_test_board,
            returned,
        } => format!(
            "{} returned {} on a full board: report none ({}) when no cell is empty",
            who(*on_test_board),
            cell(*returned),
            spelling::none(lang)
        ),
        Finding::FindEmptyValue {
            on_test_board,
            value,
            first_empty,
        } => match first_empty {
            None => format!(
                "{} returned `{value}` on a full board: report none ({}) when no cell is \
                 empty, nothing else",
                who(*on_test_board),
                spelling::none(lang)
            ),
            Some(empty) => format!(
                "{} returned `{value}`, but {} is empty: return an empty cell as (row, col), \
                 and none ({}) only when no cell is empty",
                who(*on_test_board),
                cell(*empty),
                spelling::none(lang)
            ),
        },
        Finding::GaveUpAtOnce { empty, fits, side } => {
            // The helpers' own answers fit too unless their tests proved
            // them right.
            let helpers = if cx.legal == LegalTests::Pass && cx.find_empty == LegalTests::Pass {
                ""
            } else {
                ", or a legal or find_empty that answered wrong (they are not known to pass \
                 their own tests)"
            };
            format!(
                "solve returned {falsy} without writing a digit and without calling itself, on a \
                 puzzle that has a solution (at {}, the first empty cell, the solution's {fits} \
                 fits): what fits is a return before the digit loop (as the untouched stub \
                 does), a loop that stops before {fits}, or legal asked about another cell or \
                 digit{helpers}; try every digit from 1 to {side} inclusive at the cell \
                 find_empty gives, write it when legal(board, r, c, v) says {truthy}, and call \
                 solve again",
                cell(*empty)
            )
        }
        Finding::SolveGaveUp { side, needs_top } => match needs_top {
            Some(at) => format!(
                "solve returned {falsy} and left the board as it was passed in, but this puzzle \
                 has a solution (it needs {side} at {}): a solve whose digit loop tries every digit \
                 from 1 to {side} inclusive ({}) and returns {falsy} only after all of them failed \
                 at a cell finds it",
                cell(*at),
                lang.map_or(DIGIT_LOOP_ANY, spelling::digit_loop)
            ),
            None => format!(
                "solve returned {falsy} and left the board as it was passed in, but this puzzle \
                 has a solution: return {falsy} only after every digit failed at the cell, not \
                 after the first, and return {truthy} as soon as a recursive call returns {truthy}"
            ),
        },
        Finding::NoWrite { fact, calls } => {
            let copy = "it solved a copy: the board you were given must hold the solution, so \
                        write into it";
            let base = format!(
                "its base case returns {truthy} while a cell is empty: return {truthy} only when \
                 find_empty finds no empty cell"
            );
            let why = match (&cx.base_case, calls) {
                _ if cx.find_empty_misses => format!(
                    "your find_empty reports no empty cell on a board that has one (see \
                     find_empty above), and a solve that asks it finds nothing to fill and \
                     returns {truthy} at once: make find_empty pass first"
                ),
                (Some(proof), _) => proof.cause(lang),
                (None, CallsSeen::Recursed) => format!("most likely {copy}"),
                (None, CallsSeen::Once) => format!("either {copy}; or {base}"),
                (None, CallsSeen::Unrecorded) => format!("most likely {copy}; or {base}"),
            };
            format!("{fact}: {why}")
        }
        Finding::IllegalWrite { fact, fit } => {
            let why = match (fit, cx.legal) {
                (IllegalFit::Index { said }, _) => said.clone(),
                (IllegalFit::Deeper { depth }, LegalTests::Pass) => format!(
                    "the writes of the outermost call kept the rules and this first broken one is \
                     at depth {depth}: your legal passes its own tests, so most likely the \
                     recursive call passes other arguments than solve got (call {})",
                    spelling::recursive_call(lang)
                ),
                (IllegalFit::Deeper { depth }, LegalTests::Unknown) => format!(
                    "the writes of the outermost call kept the rules and this first broken one is \
                     at depth {depth}: if your legal passes its own tests, most likely the \
                     recursive call passes other arguments than solve got (call {})",
                    spelling::recursive_call(lang)
                ),
                (IllegalFit::Nothing, LegalTests::Pass) => {
                    format!(
                        "your legal passes its own tests, so most likely solve wrote this digit \
                     before asking legal about it (write-then-check), or asked legal about \
                     another cell or digit: call legal(board, r, c, v) with the row r and the \
                     column c of the cell, and write v only when it returned {truthy}"
                    )
                }
                (IllegalFit::Nothing | IllegalFit::Deeper { .. }, LegalTests::Fail) => format!(
                    "write a digit only when legal(board, r, c, v) returns {truthy} for that \
                     cell; your legal fails its own tests above, so a legal that answered \
                     {truthy} here fits"
                ),
                (IllegalFit::Nothing, LegalTests::Unknown) => format!(
                    "write a digit only when legal(board, r, c, v) returns {truthy} for that cell \
                     (r the row, c the column); a solve that does so wrote this digit because its \
                     legal answered {truthy} here, or wrote before it asked"
                ),
            };
            format!("{fact}: {why}")
        }
        Finding::StackOverflow { during_load } => {
            if *during_load {
                return said.to_string();
            }
            format!(
                "{function} crashed with a stack overflow: it called itself without end. \
                 {ENDLESS_RECURSION}"
            )
        }
        Finding::RecursionLimit if function == Function::Solve => {
            format!("{said}\nsolve called itself without end (RecursionError). {ENDLESS_RECURSION}")
        }
        Finding::RecursionLimit => said.to_string(),
    }
}

/// The function, and the board when it is not the case's puzzle.
fn who(on_test_board: bool) -> &'static str {
    if on_test_board {
        "find_empty, on a test board (not the case's puzzle),"
    } else {
        "find_empty"
    }
}

/// A cell in the lab's terms: `(row 1, col 2)`, counted from 0.
pub fn cell([r, c]: [usize; 2]) -> String {
    format!("(row {r}, col {c})")
}

#[cfg(test)]
mod tests;

impl Context {
    /// The context of one submission's `tests` in `lang`: `complete` when
    /// no test of the plan was left out, `unsolvable` telling which cases
    /// have no solution.
    pub fn of(
        tests: &[crate::report::TestReport],
        complete: bool,
        lang: Option<Lang>,
        unsolvable: impl Fn(&str) -> bool,
    ) -> Context {
        let find_empty_misses = tests.iter().any(|t| {
            matches!(
                t.finding,
                Some(
                    Finding::FindEmptyNone { .. }
                        | Finding::FindEmptyValue {
                            first_empty: Some(_),
                            ..
                        }
                )
            )
        });
        Context {
            lang,
            legal: LegalTests::of(tests, complete),
            find_empty: LegalTests::of_function(tests, complete, Function::FindEmpty),
            // A solve whose find_empty sees no empty cell returns true
            // there whatever its base case: no proof of it.
            base_case: BaseCase::of(tests, unsolvable).filter(|_| !find_empty_misses),
            find_empty_misses,
        }
    }
}

/// Words every test of `tests` that carries a finding, in `cx`: its
/// message becomes the finding's words. Call once per test: the judge's
/// own message is what the words of some findings start from.
pub fn word_tests(tests: &mut [crate::report::TestReport], cx: &Context) {
    for test in tests {
        if let Some(finding) = &test.finding {
            test.message = message(finding, test.function, &test.message, cx);
        }
    }
}
