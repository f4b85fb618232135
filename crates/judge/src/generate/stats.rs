//! Where the generator's time goes: making grids, the removal loop, the
//! reference's counting inside it, the minimality check, and the listing
//! walks of the difficulty band. Filled in as it runs; printed by
//! `grader generate` when asked (see the grader's `commands::generate`).

use std::fmt;
use std::time::{Duration, Instant};

use sudoku_lab::Board;

/// Time and call counts of one generator run, summed over all puzzles and
/// all candidates (kept or rejected).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Candidates made (one random grid each).
    pub candidates: u64,
    /// Time spent making complete grids.
    pub grids: Duration,
    /// Time in the removal loop, counting included.
    pub removal: Duration,
    /// Time inside `count_solutions` calls made by the removal loop.
    pub removal_counting: Duration,
    /// `count_solutions` calls made by the removal loop.
    pub removal_counts: u64,
    /// Time checking minimality and unsolvability (all of it counting).
    pub verify_counting: Duration,
    /// `count_solutions` calls made by those checks.
    pub verify_counts: u64,
    /// Time looking for an unsolvable-deep extra given, counting excluded.
    pub dead_end_search: Duration,
    /// Time in `walk_listing` for the difficulty band.
    pub listing: Duration,
    /// `walk_listing` calls for the difficulty band.
    pub listing_walks: u64,
}

impl Stats {
    /// Time in the removal loop outside `count_solutions`: the search
    /// proper (choosing, removing, restoring givens).
    pub fn removal_search(&self) -> Duration {
        self.removal.saturating_sub(self.removal_counting)
    }

    /// Counts the solutions of `board` up to 2 for the removal loop, timed.
    pub fn count_for_removal(&mut self, board: &Board) -> u32 {
        let start = Instant::now();
        let count = sudoku_reference::count_solutions(board, 2);
        self.removal_counting += start.elapsed();
        self.removal_counts += 1;
        count
    }

    /// Counts the solutions of `board` up to 2 for a check, timed.
    pub fn count_for_check(&mut self, board: &Board) -> u32 {
        let start = Instant::now();
        let count = sudoku_reference::count_solutions(board, 2);
        self.verify_counting += start.elapsed();
        self.verify_counts += 1;
        count
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        writeln!(f, "candidates:        {}", self.candidates)?;
        writeln!(f, "grids:             {:10.1} ms", ms(self.grids))?;
        writeln!(
            f,
            "removal loop:      {:10.1} ms (search {:.1} ms + counting {:.1} ms in {} calls)",
            ms(self.removal),
            ms(self.removal_search()),
            ms(self.removal_counting),
            self.removal_counts
        )?;
        writeln!(
            f,
            "checks (counting): {:10.1} ms in {} calls",
            ms(self.verify_counting),
            self.verify_counts
        )?;
        writeln!(f, "dead-end search:   {:10.1} ms", ms(self.dead_end_search))?;
        write!(
            f,
            "band walks:        {:10.1} ms in {} walks",
            ms(self.listing),
            self.listing_walks
        )
    }
}
