//! What a check observed, as data: a [`Finding`] is made by the judges,
//! the trace replay and the outcome of a run, travels with the test's
//! report, and is worded once, at the edge, by [`crate::words`] in the
//! student's language. No stage reads a message to decide anything: what
//! a later stage needs to know (which board, which cell, what the trace
//! saw, whether the board came back as it was passed in) is a field here.
//!
//! Some findings still carry the words their judge made for the part of
//! the failure no later stage needs to know (`fact`): those are shown as
//! they are, and the part a later stage narrows (the cause) is built from
//! the typed fields.

use serde::{Deserialize, Serialize};

/// The language a submission is written in, which spells the words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    /// C, or a library with the C ABI.
    C,
    /// Python, or a notebook.
    Python,
    /// Rust.
    Rust,
}

impl Lang {
    /// The language of a submission of `kind` (`c`, `library`, `python`,
    /// `rust`, as reports name kinds); `None` for anything else.
    pub fn of_kind(kind: &str) -> Option<Lang> {
        match kind {
            "c" | "library" => Some(Lang::C),
            "python" => Some(Lang::Python),
            "rust" => Some(Lang::Rust),
            _ => None,
        }
    }
}

/// How a trace saw `solve` call itself on a run that wrote nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CallsSeen {
    /// The recorder does not see calls.
    Unrecorded,
    /// Called once: no recursive call.
    Once,
    /// It called itself: it searched somewhere.
    Recursed,
}

/// What fits a write that broke the rule better than a `legal` that
/// answered true.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "fits", rename_all = "snake_case")]
pub enum IllegalFit {
    /// Nothing the trace shows: the write itself, or the `legal` it asked.
    Nothing,
    /// The digit fits the first empty cell, which the write's index names
    /// wrongly (row and column swapped, `n` for `N`): said by the
    /// recorder's spelling.
    Index {
        /// What fits, in the recorder's spelling.
        said: String,
    },
    /// The outermost call wrote legally and this first broken write is
    /// deeper: the recursive call passes other arguments.
    Deeper {
        /// The depth of the write (1 is the outermost call).
        depth: u16,
    },
}

/// One thing a check observed about a test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "finding", rename_all = "snake_case")]
pub enum Finding {
    /// `legal` or `find_empty` answered wrong; the judge's message says
    /// how. `on_test_board`: asked about a board of the grader's making,
    /// not the case's puzzle.
    Answer {
        /// Asked about a board other than the case's puzzle.
        on_test_board: bool,
    },
    /// `find_empty` reported none while a cell is empty.
    FindEmptyNone {
        /// Asked about a board other than the case's puzzle.
        on_test_board: bool,
        /// The first empty cell, `[row, col]`.
        empty: [usize; 2],
    },
    /// `find_empty` returned a cell on a full board.
    FindEmptyFull {
        /// Asked about a board other than the case's puzzle.
        on_test_board: bool,
        /// The cell it returned, `[row, col]`.
        returned: [usize; 2],
    },
    /// `find_empty` returned a value that is neither a cell nor "none".
    FindEmptyValue {
        /// Asked about a board other than the case's puzzle.
        on_test_board: bool,
        /// The value, as the harness described it (the student's text,
        /// already cut to a short printable line).
        value: String,
        /// The first empty cell, `[row, col]`; `None` on a full board.
        first_empty: Option<[usize; 2]>,
    },
    /// `solve` returned false and left the board as it was passed in, on a
    /// puzzle that has a solution.
    SolveGaveUp {
        /// The board's side (its largest digit).
        side: usize,
        /// A cell whose digit in the solution is `side`, the last digit a
        /// loop tries, when there is one: a loop's bound would miss it.
        needs_top: Option<[usize; 2]>,
    },
    /// `solve` returned true on a puzzle with no solution and left the
    /// board exactly as it was passed in.
    SolveTrueUnchanged,
    /// The trace: `solve` returned true without one write on the board it
    /// was given, on a puzzle that has a solution. Two bugs fit (a search
    /// on a copy, a base case that returns true while a cell is empty).
    NoWrite {
        /// What was seen, in the judge's words.
        fact: String,
        /// What the trace saw of its calls.
        calls: CallsSeen,
    },
    /// The trace: the first write that broke the rule.
    IllegalWrite {
        /// The step, the cell, the digit and the clash, in the judge's
        /// words.
        fact: String,
        /// What fits it better than a `legal` that answered true.
        fit: IllegalFit,
    },
    /// The trace: `solve` returned false on a puzzle with a solution
    /// without one write and without calling itself.
    GaveUpAtOnce {
        /// The first empty cell, `[row, col]`.
        empty: [usize; 2],
        /// The solution's digit there, which fits it.
        fits: u8,
        /// The board's side, N.
        side: usize,
    },
    /// The write watch stopped a recursion that changed no cell.
    TooDeepNoChange,
    /// The run overflowed its stack (the worker told it for certain).
    StackOverflow {
        /// While the library was loading (a constructor), not in a call.
        during_load: bool,
    },
    /// Python's recursion limit stopped the run (`RecursionError`).
    RecursionLimit,
}

impl Finding {
    /// Whether the board a report shows is one of the grader's making,
    /// not the case's puzzle (the case's description is about the puzzle).
    pub fn on_test_board(&self) -> bool {
        matches!(
            self,
            Finding::Answer {
                on_test_board: true
            } | Finding::FindEmptyNone {
                on_test_board: true,
                ..
            } | Finding::FindEmptyFull {
                on_test_board: true,
                ..
            } | Finding::FindEmptyValue {
                on_test_board: true,
                ..
            }
        )
    }
}
