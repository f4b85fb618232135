//! The difficulty band: how many undos the seed's reading-order listing
//! may make on a generated puzzle (`--min-undos` / `--max-undos`).

use sudoku_lab::Board;
use sudoku_reference::{ListingWalk, walk_listing};

/// The most writes a band check lets the listing make: the cap of the
/// walks `grader reference` stores, so a band means what the stored
/// `listing_undos` say. A walk that gets this far has at least
/// `LISTING_CAP - N*N` undos, which is what `--min-undos` can ask for at
/// most.
pub const LISTING_CAP: u64 = crate::case::LISTING_WALK_CAP;

/// The largest `--min-undos` / `--max-undos`: what a walk capped at
/// [`LISTING_CAP`] writes can still tell apart on any board (25x25 has 625
/// cells).
pub const MAX_BAND: u64 = LISTING_CAP - 625;

/// A band of undo counts; an end left `None` is open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UndoBand {
    /// The fewest undos accepted.
    pub min: Option<u64>,
    /// The most undos accepted.
    pub max: Option<u64>,
}

/// What a band check saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BandFit {
    /// In the band.
    Inside,
    /// Too few undos.
    Below,
    /// Too many undos.
    Above,
}

impl UndoBand {
    /// True iff both ends are open, so every puzzle fits.
    pub fn is_open(&self) -> bool {
        self.min.is_none() && self.max.is_none()
    }

    /// Walks the listing on `board` only as far as the band needs and says
    /// where the board falls, with the (possibly cut short) walk.
    ///
    /// Both ends must be at most [`MAX_BAND`] (checked by
    /// [`super::Request::validate`]).
    pub fn fit(&self, board: &Board) -> (BandFit, ListingWalk) {
        let empties = board.cells().iter().filter(|&&v| v == 0).count() as u64;
        // While the walk runs, writes - undos is its depth, at most the
        // number of empty cells; so once writes pass max + empties, the
        // undos have passed max and the walk can stop.
        let cap = match self.max {
            Some(max) => max
                .saturating_add(empties)
                .saturating_add(1)
                .min(LISTING_CAP),
            None => LISTING_CAP,
        };
        let walk = walk_listing(board, cap);
        (self.judge(&walk), walk)
    }

    /// Where a walk made by [`UndoBand::fit`] falls in the band.
    fn judge(&self, walk: &ListingWalk) -> BandFit {
        // With `max` set, the walk is cut only after more than `max` undos
        // (see `fit`). With only `min` set, a walk cut at `LISTING_CAP` has
        // at least `LISTING_CAP - N*N >= MAX_BAND >= min` undos.
        if let Some(max) = self.max
            && (walk.undos > max || !walk.finished)
        {
            return BandFit::Above;
        }
        if let Some(min) = self.min
            && walk.undos < min
        {
            return BandFit::Below;
        }
        BandFit::Inside
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(writes: u64, undos: u64, finished: bool) -> ListingWalk {
        ListingWalk {
            writes,
            undos,
            solved: finished,
            finished,
        }
    }

    #[test]
    fn an_open_band_takes_everything() {
        let band = UndoBand::default();
        assert!(band.is_open());
        assert_eq!(band.judge(&walk(10, 0, true)), BandFit::Inside);
        assert_eq!(
            band.judge(&walk(LISTING_CAP, LISTING_CAP - 9, false)),
            BandFit::Inside
        );
    }

    #[test]
    fn finished_walks_are_judged_exactly() {
        let band = UndoBand {
            min: Some(5),
            max: Some(10),
        };
        assert_eq!(band.judge(&walk(54, 4, true)), BandFit::Below);
        assert_eq!(band.judge(&walk(55, 5, true)), BandFit::Inside);
        assert_eq!(band.judge(&walk(60, 10, true)), BandFit::Inside);
        assert_eq!(band.judge(&walk(61, 11, true)), BandFit::Above);
    }

    #[test]
    fn a_walk_cut_past_max_is_above() {
        let band = UndoBand {
            min: None,
            max: Some(10),
        };
        assert_eq!(band.judge(&walk(61, 3, false)), BandFit::Above);
    }

    #[test]
    fn the_band_check_stops_early_and_agrees_with_a_full_walk() {
        // A carved 9x9, on which the listing undoes something: the band's
        // own capped walk must say the same as an uncapped one.
        let mut rng = crate::generate::Rng::new(3);
        let grid = crate::generate::grid::random_grid(3, &mut rng);
        let board = crate::generate::carve::carve(
            &grid,
            0,
            &mut rng,
            &mut crate::generate::Stats::default(),
        );
        let full = walk_listing(&board, u64::MAX);
        assert!(full.finished && full.undos > 0, "{full:?}");
        for max in [0, full.undos.saturating_sub(1), full.undos, full.undos + 5] {
            let band = UndoBand {
                min: None,
                max: Some(max),
            };
            let (fit, seen) = band.fit(&board);
            let expected = if full.undos <= max {
                BandFit::Inside
            } else {
                BandFit::Above
            };
            assert_eq!(
                fit, expected,
                "max {max}, full walk {full:?}, seen {seen:?}"
            );
        }
    }
}
