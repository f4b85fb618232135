//! Every check the grader makes, in one table: its id (as reports print it,
//! e.g. `solve.leftover`), the function it judges, what it checks, and what
//! a failure of it means for the student's code. check50's checks are the
//! model: a course author reads the list (`grader checks`, or
//! `docs/checks.md`, written from this table by `grader checks --markdown`)
//! to know what a report's check id says.
//!
//! A [`Check`] is a type, not a string: a judge can only fail a check that
//! has an entry here, and the table's rows are the enum's variants.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One row of the table: see [`Check::info`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckInfo {
    /// The id reports print.
    pub id: &'static str,
    /// The lab function it judges (`legal`, `find_empty`, `solve`), or
    /// `any` for a check of the answers' shape.
    pub function: &'static str,
    /// What it checks.
    pub checks: &'static str,
    /// What a failure means, and where to look.
    pub failure_means: &'static str,
}

macro_rules! checks {
    ($($variant:ident = $id:literal, $function:literal,
        checks $checks:literal, means $means:literal;)*) => {
        /// A check the grader makes (one row of [`Check::ALL`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Check {
            $(
                #[doc = $checks]
                $variant,
            )*
        }

        impl Check {
            /// Every check, in the order the table lists them.
            pub const ALL: &'static [Check] = &[$(Check::$variant),*];

            /// The check's row of the table.
            pub fn info(self) -> CheckInfo {
                match self {
                    $(Check::$variant => CheckInfo {
                        id: $id,
                        function: $function,
                        checks: $checks,
                        failure_means: $means,
                    },)*
                }
            }
        }
    };
}

checks! {
    Legal = "legal", "legal",
        checks "`legal(board, r, c, v)` agrees with the rule for every empty cell and digit of the puzzle and of boards derived from it",
        means "the row, column or box scan is off: a loop bound, a box start (`r - r % n`), or the cell itself counted as a clash";
    FindEmptyNone = "find_empty.none", "find_empty",
        checks "`find_empty` reports a cell while one is empty",
        means "it said \"none\" (false in C) on a board that still has an empty cell: the scan stops early or skips cells";
    FindEmptyRange = "find_empty.range", "find_empty",
        checks "the cell `find_empty` returns is on the board",
        means "a row or column outside 0..N-1: an off-by-one in the scan, or the wrong board size";
    FindEmptyFull = "find_empty.full", "find_empty",
        checks "`find_empty` reports none on a full board",
        means "it returned a cell on a board with no empty cell: it must say \"none\" (false in C) then";
    FindEmptyValue = "find_empty.value", "find_empty",
        checks "`find_empty` returns a cell or \"none\", nothing else",
        means "it returned another value (Python's `False`, `(-1, -1)`, a string): return `(row, col)` of an empty cell, or `None` when no cell is empty";
    FindEmptyNotEmpty = "find_empty.not_empty", "find_empty",
        checks "the cell `find_empty` returns holds 0",
        means "it returned a filled cell: the test for an empty cell is wrong";
    FindEmptyPolicy = "find_empty.policy", "find_empty",
        checks "the cell `find_empty` returns is the one the case's policy asks for (first in reading order, or fewest candidates)",
        means "an empty cell, but not the one this course asked for: see `find_empty_policy` in grader.toml";
    SolveShape = "solve.shape", "solve",
        checks "`solve` leaves a board of the size it was given",
        means "the board came back with another number of cells: fill the board passed in, in place";
    SolveRange = "solve.range", "solve",
        checks "every cell `solve` leaves holds 0..=N",
        means "a value past N: the digit loop goes one too far, or the code assumes a 9x9 board";
    SolveGivens = "solve.givens", "solve",
        checks "`solve` leaves every given digit as it was",
        means "a given was overwritten: never write to a cell that was filled at the start";
    SolveResult = "solve.result", "solve",
        checks "`solve` returns false on a puzzle without a solution",
        means "it returned true where no solution exists: it claims success without a complete, legal board";
    SolveLeftover = "solve.leftover", "solve",
        checks "on false, `solve` leaves the board exactly as it was passed in (no leftover digit)",
        means "a digit written on a dead branch was not cleared: set the cell back to 0 after the recursive call returns false";
    SolveGaveUp = "solve.gave_up", "solve",
        checks "`solve` returns true on a puzzle that has a solution",
        means "it gave up too early: a return false inside the digit loop, or the recursive call's true not passed on";
    SolveInPlace = "solve.in_place", "solve",
        checks "on true, the board passed in holds the solution",
        means "the board is unchanged: the search wrote into a copy, or cleared its cells after succeeding";
    SolveIncomplete = "solve.incomplete", "solve",
        checks "on true, no cell is empty",
        means "true returned with an empty cell left: return true only when find_empty finds none";
    SolveDuplicate = "solve.duplicate", "solve",
        checks "on true, every row, column and box holds each digit once",
        means "a digit was placed where the rule forbids it: write only when legal(...) says true";
    ProtocolFd3 = "protocol.fd3", "any",
        checks "the code under test leaves the grader's protocol fd 3 alone (one answer, written by the worker)",
        means "the code wrote on fd 3 (a second `done` line): a solver must not write to file descriptors it did not open";
    ResponseShape = "response.shape", "any",
        checks "the answers that came back are of the kind and number asked",
        means "the test could not be judged: something other than the grader's worker wrote the answers (student code writing to fd 3?)";
    SolveTrace = "solve.trace", "solve",
        checks "the write trace of `solve` can be replayed (it never decides a verdict)",
        means "the trace was malformed or capped; the end state's own check words the failure";
    SolveTraceUntried = "solve.trace.untried", "solve",
        checks "the search tries every digit that fits before giving a cell up (explains a failure)",
        means "the digit loop skipped digits: a wrong bound, or a return inside the loop";
    SolveTraceGiven = "solve.trace.given", "solve",
        checks "the search never writes over a given (explains a failure)",
        means "the step that overwrote a given, quoted with its depth";
    SolveTraceLeftover = "solve.trace.leftover", "solve",
        checks "the search clears a cell before backtracking past it (explains a failure)",
        means "the step where a digit of a dead branch was left behind";
    SolveTraceRange = "solve.trace.range", "solve",
        checks "the search writes only 0..=N (explains a failure)",
        means "the step that wrote a value past N";
    SolveTraceIllegal = "solve.trace.illegal", "solve",
        checks "every digit the search writes is legal when written (explains a failure)",
        means "the step that broke the rule, and the cell it clashed with";
    SolveTraceUntraced = "solve.trace.untraced", "solve",
        checks "the board `solve` leaves is what its recorded writes leave (explains a failure)",
        means "the board was changed other than through the recorded writes (a copy written back, or memory written directly)";
    SolveTraceCopy = "solve.trace.copy", "solve",
        checks "the search writes on the board it was given (explains a failure)",
        means "`solve` returned without one write on the board passed in: it searched a copy";
    SolveTraceAtOnce = "solve.trace.at_once", "solve",
        checks "the search tries a digit before it gives up on a puzzle with a solution (explains a failure)",
        means "`solve` returned false without one write and without calling itself: no search ran (an untouched stub, or a return before the digit loop)";
    SolveTraceUnwritten = "solve.trace.unwritten", "solve",
        checks "the search does not return false before trying a digit that fits (explains a failure)",
        means "a hint: a call gave up without writing, though a digit fit";
    SolveTraceTrueWithEmpty = "solve.trace.true_with_empty", "solve",
        checks "the search returns true only with no empty cell (explains a failure)",
        means "the call that returned true with a cell still empty";
    SolveTraceClearedSolution = "solve.trace.cleared_solution", "solve",
        checks "the search keeps a complete board once found (explains a failure)",
        means "a hint: the board was complete, then a cell was cleared (a clear after the recursive call returned true)";
    SolveTraceTooDeep = "solve.trace.too_deep", "solve",
        checks "the search nests no deeper than a search that fills a cell a call (explains a crash, in `grader check`)",
        means "`solve` called itself deeper than any search needs, and the write watch stopped it: what it wrote before";
}

impl Check {
    /// The id reports print, e.g. `solve.leftover`.
    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// Whether it is a finding of a write trace (`solve.trace.*`), which
    /// only words a failure the end state decided.
    pub fn is_trace_finding(self) -> bool {
        self.id().starts_with("solve.trace.")
    }

    /// Whether it is a trace finding about one step of the search (a
    /// write, a call's return), which `grader check` can show as "the
    /// first step that breaks the rules"; `solve.trace.at_once` is about
    /// the whole run (no step happened).
    pub fn names_a_step(self) -> bool {
        self.is_trace_finding() && self != Check::SolveTraceAtOnce
    }

    /// Whether it is a trace finding that is a hint (what a search that
    /// prunes harder may also do), not a broken rule.
    pub fn is_trace_hint(self) -> bool {
        matches!(
            self,
            Check::SolveTraceUntried
                | Check::SolveTraceUnwritten
                | Check::SolveTraceClearedSolution
        )
    }

    /// The check whose id is `id`.
    pub fn from_id(id: &str) -> Option<Check> {
        Check::ALL.iter().copied().find(|c| c.id() == id)
    }

    /// The table as Markdown (`grader checks --markdown`, `docs/checks.md`).
    pub fn markdown() -> String {
        let mut out = String::from(
            "# The checks\n\n\
             Every check the grader makes, with the id a report prints for a failed test\n\
             (JSON `check`). Written by `grader checks --markdown` from the table in\n\
             `src/check/catalog.rs`; a test keeps the two the same.\n\n\
             Checks named `solve.trace.*` never decide a verdict: the board `solve` leaves\n\
             decides it, and a write trace (Python, or `grader check` on a library) only\n\
             words the failure.\n\n\
             | id | function | what it checks | what a failure means |\n\
             |---|---|---|---|\n",
        );
        for check in Check::ALL {
            let info = check.info();
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                info.id,
                info.function,
                info.checks.replace('|', "\\|"),
                info.failure_means.replace('|', "\\|")
            ));
        }
        out
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl PartialEq<&str> for Check {
    fn eq(&self, other: &&str) -> bool {
        self.id() == *other
    }
}

impl Serialize for Check {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

/// A check in a report is its id, one of the table's (`grader checks`).
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Check {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Check".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let ids: Vec<&str> = Check::ALL.iter().map(|c| c.id()).collect();
        schemars::json_schema!({
            "description": "The id of a failed check: a row of `grader checks` (docs/checks.md).",
            "enum": ids,
        })
    }
}

impl<'de> Deserialize<'de> for Check {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Check, D::Error> {
        let id = String::deserialize(deserializer)?;
        Check::from_id(&id).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{id}` is not a check of this grader (`grader checks` lists them)"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_is_a_trace_finding_about_one_step() {
        assert!(Check::SolveTraceIllegal.names_a_step());
        assert!(Check::SolveTraceUntried.names_a_step());
        assert!(!Check::SolveTraceAtOnce.names_a_step());
        assert!(!Check::SolveGaveUp.names_a_step());
    }

    #[test]
    fn ids_are_unique_and_every_row_is_filled() {
        let mut ids: Vec<&str> = Check::ALL.iter().map(|c| c.id()).collect();
        ids.sort_unstable();
        let count = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), count, "a check id is listed twice");
        for check in Check::ALL {
            let info = check.info();
            assert!(!info.checks.is_empty() && !info.failure_means.is_empty());
            assert!(
                ["legal", "find_empty", "solve", "any"].contains(&info.function),
                "{info:?}"
            );
            assert!(
                info.function == "any" || info.id.starts_with(info.function),
                "{info:?}"
            );
            assert_eq!(Check::from_id(info.id), Some(*check));
        }
    }

    #[test]
    fn a_check_is_written_and_read_as_its_id() {
        let json = serde_json::to_string(&Check::SolveLeftover).unwrap();
        assert_eq!(json, "\"solve.leftover\"");
        assert_eq!(
            serde_json::from_str::<Check>(&json).unwrap(),
            Check::SolveLeftover
        );
        let err = serde_json::from_str::<Check>("\"solve.nope\"").unwrap_err();
        assert!(err.to_string().contains("grader checks"), "{err}");
    }

    /// The JSON report's schema lists exactly these ids for `check`.
    #[test]
    fn the_report_schema_lists_every_check() {
        let schema: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../schemas/report.schema.json"
            ))
            .unwrap(),
        )
        .unwrap();
        let listed = &schema["$defs"]["Check"]["enum"];
        let ids: Vec<&str> = Check::ALL.iter().map(|c| c.id()).collect();
        assert_eq!(
            *listed,
            serde_json::json!(ids),
            "schemas/report.schema.json"
        );
    }

    /// Every check id the judges can fail with is a [`Check`] (the type
    /// says so); this keeps the page a course author reads in step with
    /// the table.
    #[test]
    fn the_docs_page_is_the_table() {
        let page =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/checks.md"))
                .expect(
                    "docs/checks.md: write it with `grader checks --markdown > docs/checks.md`",
                );
        assert_eq!(
            page,
            Check::markdown(),
            "docs/checks.md is stale: run `cargo run -- checks --markdown > docs/checks.md`"
        );
    }
}
