//! [`ProbeError`]: why a [`Probe`](super::Probe) cannot be asked.
//!
//! A probe comes from the grader's own planner, so a malformed one means the
//! grader and its worker disagree (different versions, or a corrupted
//! message): it is the grader's error, never the student's, and is reported
//! before any student code is called.

use sudoku_lab::BoardError;

/// A malformed [`Probe`](super::Probe): bad box size, wrong board length,
/// a value above `N`, or a query off the board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// A board of the probe is not a valid board.
    #[error(
        "board {index} of the probe is malformed: {reason}; the grader and worker disagree, rebuild both from the same version"
    )]
    Board {
        /// Index of the board in the probe (0 for a solve probe).
        index: usize,
        /// What is wrong with it.
        reason: BoardError,
    },
    /// A legal query names a board the probe does not have.
    #[error(
        "legal query {index} asks about board {board}, but the probe has only {boards} board(s)"
    )]
    NoSuchBoard {
        /// Index of the query.
        index: usize,
        /// The board index it names.
        board: usize,
        /// How many boards the probe has.
        boards: usize,
    },
    /// A legal query names a cell off the board.
    #[error(
        "legal query {index} asks about row {row}, column {col} (0-based), off a board of side {side}"
    )]
    Cell {
        /// Index of the query.
        index: usize,
        /// The row it names.
        row: usize,
        /// The column it names.
        col: usize,
        /// The board's side `N`.
        side: usize,
    },
    /// A legal query names a digit outside `1..=N`.
    #[error("legal query {index} asks about digit {digit}, outside 1..={side}")]
    Digit {
        /// Index of the query.
        index: usize,
        /// The digit it names.
        digit: usize,
        /// The board's side `N`, the largest digit.
        side: usize,
    },
    /// A legal query names a filled cell: the lab only asks `legal` about
    /// empty cells.
    #[error("legal query {index} asks about r{}c{}, which is not empty: legal is only asked about empty cells", row + 1, col + 1)]
    NotEmpty {
        /// Index of the query.
        index: usize,
        /// The row it names.
        row: usize,
        /// The column it names.
        col: usize,
    },
}
