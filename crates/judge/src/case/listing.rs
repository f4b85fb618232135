//! How hard a case is for the seed's listing: the writes and undos of the
//! lab's plain reading-order backtracker on its puzzle, and the time limit
//! they suggest. `grader reference` stores these in each case
//! (`listing_writes`, `listing_undos`, `listing_capped`,
//! `suggested_time_limit_ms`) and `--check` verifies them; `grader generate`
//! writes them for the cases it makes.
//!
//! # The suggested time limit
//!
//! ```text
//! suggested_time_limit_ms = max(1000, ceil100(writes * PYTHON_SLOWDOWN * SAFETY * 1000 / C_RATE[n]))
//! ```
//!
//! where `ceil100` rounds up to a multiple of 100 ms, and:
//!
//! - `C_RATE[n]` is the writes per second of the seed's listing translated
//!   plainly into C (`find_empty` scanning from r1c1, `legal` scanning the
//!   row, column and box; `gcc -O2`), measured on the project machine (2
//!   cores, shared) as the best of three runs over generated minimal puzzles
//!   whose write counts matched [`walk_listing`] exactly: 4x4 30 M/s, 9x9
//!   15.6 M/s, 16x16 5.9 M/s, 25x25 3.6 M/s (rounded down below). The cost
//!   of a write grows with the board because both scans do.
//! - `PYTHON_SLOWDOWN = 100`: the seed's own Python listing (Python 3.11,
//!   same machine and puzzles) ran 165 k writes/s on 9x9 (95x slower than C)
//!   and 73 k writes/s on 16x16 (81x); a student's Python solution is the
//!   slowest kind the grader runs, and the limit must let a correct one pass.
//! - `SAFETY = 3`: the machines that grade are shared and loaded (the same
//!   runs varied by 2x under load), and the sandbox adds start-up time.
//! - the 1000 ms floor is the default `time_limit_ms` (SPEC 3): a suggestion
//!   never asks for less than a case gets anyway.
//!
//! So a 9x9 allows about 50,000 listing writes per suggested second: the
//! seed's campus board gets 1000 ms, a 9x9 whose listing writes 200,000
//! digits 4000 ms. The walk stops at [`LISTING_WALK_CAP`] writes; a case
//! that reaches it is marked `listing_capped = true` and its numbers (and
//! the limit) are lower bounds: the plain listing is then far too slow for
//! that puzzle (minutes in Python), which is worth knowing when choosing it.

use sudoku_lab::Board;
use sudoku_reference::walk_listing;

/// The most writes a listing walk makes before stopping: ten million, a
/// fraction of a second for the walk (about 28 M writes/s on 16x16 here)
/// and, by the formula above, more than three minutes of the Python
/// listing on a 9x9, so a case past it is too slow for the lab whatever
/// the exact count.
pub const LISTING_WALK_CAP: u64 = 10_000_000;

/// Writes per second of the seed's listing in plain C on the project
/// machine, for box sizes 2, 3, 4, 5 (see the module doc).
pub const C_LISTING_RATE: [u64; 4] = [30_000_000, 15_000_000, 5_500_000, 3_500_000];

/// How many times slower the seed's Python listing is than the C one.
pub const PYTHON_SLOWDOWN: u64 = 100;

/// Headroom for loaded machines and sandbox start-up.
pub const SAFETY: u64 = 3;

/// The smallest suggested time limit: the default per-test limit.
pub const MIN_SUGGESTED_MS: u64 = super::model::DEFAULT_TIME_LIMIT_MS;

/// What the seed's listing does on a case's puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListingCost {
    /// Digits written (at most [`LISTING_WALK_CAP`]).
    pub writes: u64,
    /// Writes cleared again on a dead branch.
    pub undos: u64,
    /// The walk stopped at [`LISTING_WALK_CAP`]: both counts are lower
    /// bounds.
    pub capped: bool,
    /// The time limit the counts suggest, in milliseconds.
    pub suggested_time_limit_ms: u64,
}

impl ListingCost {
    /// Walks the seed's listing on `board` (up to [`LISTING_WALK_CAP`]
    /// writes) and derives the suggested time limit.
    pub fn measure(board: &Board) -> ListingCost {
        let walk = walk_listing(board, LISTING_WALK_CAP);
        ListingCost {
            writes: walk.writes,
            undos: walk.undos,
            capped: !walk.finished,
            suggested_time_limit_ms: suggested_time_limit_ms(board.n(), walk.writes),
        }
    }
}

/// The suggested time limit in milliseconds for a case of box size `n`
/// (2..=5) on which the listing writes `writes` digits (module doc).
pub fn suggested_time_limit_ms(n: usize, writes: u64) -> u64 {
    let rate = C_LISTING_RATE[n.clamp(2, 5) - 2];
    let scaled = u128::from(writes) * u128::from(PYTHON_SLOWDOWN * SAFETY) * 1000;
    let ms = scaled.div_ceil(u128::from(rate));
    let ms = u64::try_from(ms.div_ceil(100) * 100).unwrap_or(u64::MAX);
    ms.max(MIN_SUGGESTED_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: usize, cells: &[u8]) -> Board {
        Board::from_cells(n, cells.to_vec()).expect("a valid test board")
    }

    #[test]
    fn the_campus_board_needs_no_more_than_the_floor() {
        let campus = board(2, &[1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0]);
        assert_eq!(
            ListingCost::measure(&campus),
            ListingCost {
                writes: 8,
                undos: 0,
                capped: false,
                suggested_time_limit_ms: 1000
            }
        );
    }

    #[test]
    fn the_formula_scales_with_writes_and_board_size() {
        // 9x9: 15 M/s in C, 100x for Python, 3x safety: 50,000 writes a
        // second.
        assert_eq!(suggested_time_limit_ms(3, 0), 1000);
        assert_eq!(suggested_time_limit_ms(3, 50_000), 1000);
        assert_eq!(suggested_time_limit_ms(3, 50_001), 1100);
        assert_eq!(suggested_time_limit_ms(3, 200_000), 4000);
        assert_eq!(suggested_time_limit_ms(3, 10_000_000), 200_000);
        // The same writes cost more on a bigger board.
        assert!(suggested_time_limit_ms(4, 200_000) > suggested_time_limit_ms(3, 200_000));
        assert!(suggested_time_limit_ms(5, 200_000) > suggested_time_limit_ms(4, 200_000));
        // Rounded up to 100 ms, never overflowing.
        assert_eq!(suggested_time_limit_ms(3, 123_456) % 100, 0);
        assert!(suggested_time_limit_ms(5, u64::MAX) > u64::MAX / 100);
    }

    #[test]
    fn a_walk_past_the_cap_is_marked() {
        // Column 9 holds 1..8 and row 9 holds a 9, so r9c9 has no digit;
        // the listing only finds out there, after trying every filling of
        // the cells before it, far more than the cap.
        let mut cells = vec![0u8; 81];
        for r in 0..8 {
            cells[r * 9 + 8] = r as u8 + 1;
        }
        cells[8 * 9] = 9;
        let cost = ListingCost::measure(&board(3, &cells));
        assert!(cost.capped);
        assert_eq!(cost.writes, LISTING_WALK_CAP);
        assert!(cost.undos > LISTING_WALK_CAP - 81);
        assert_eq!(
            cost.suggested_time_limit_ms,
            suggested_time_limit_ms(3, LISTING_WALK_CAP)
        );
    }
}
