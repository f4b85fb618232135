//! The questions a test asks of student code, and its answers: plain data,
//! serialisable as JSON so that a test child in any language (the worker
//! program, the Python harness) can read them.
//!
//! Both are adjacently tagged, `{"function": "solve", "args": {...}}`: with
//! the tag first (as serde writes it), serde decodes the arguments straight
//! into the types, where an internally tagged enum would first copy the
//! whole object (up to 20,000 `legal` queries) into a generic tree.

use serde::{Deserialize, Serialize};

/// What to ask of student code for one test. Boards are row-major cells of
/// a board with box size `n`. Holds no expected answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "function", content = "args", rename_all = "snake_case")]
pub enum Probe {
    /// Call `legal(boards[b], r, c, v)` for each `[b, r, c, v]` of `queries`.
    Legal {
        /// Box size.
        n: usize,
        /// The boards asked about.
        boards: Vec<Vec<u8>>,
        /// `[board index, row, column, digit]`.
        queries: Vec<[usize; 4]>,
    },
    /// Call `find_empty` on each board.
    FindEmpty {
        /// Box size.
        n: usize,
        /// The boards asked about.
        boards: Vec<Vec<u8>>,
    },
    /// Call `solve` on the board, in place.
    Solve {
        /// Box size.
        n: usize,
        /// The start board.
        board: Vec<u8>,
    },
}

/// What student code answered to a [`Probe`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "function", content = "args", rename_all = "snake_case")]
pub enum Response {
    /// One answer per query, in order.
    Legal {
        /// `legal`'s answers.
        answers: Vec<bool>,
    },
    /// One answer per board, in order: `[row, column]` or `null` for "none".
    FindEmpty {
        /// `find_empty`'s answers.
        answers: Vec<Option<[usize; 2]>>,
    },
    /// What `solve` returned, and the board as it left it.
    Solve {
        /// The return value.
        solved: bool,
        /// The board after the call, cells as written (may be out of range).
        board: Vec<u8>,
    },
}
