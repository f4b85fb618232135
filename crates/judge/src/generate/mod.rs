//! The puzzle generator behind `grader generate` (issue 4): fresh puzzles
//! with exactly one solution, optionally minimal, optionally in a band of
//! difficulty for the seed's listing, or unsolvable in a way only a search
//! can tell; the same seed always gives the same puzzles.
//!
//! One puzzle is made from candidates until one fits the request:
//!
//! 1. a random complete grid ([`grid`]);
//! 2. givens removed in random order while the puzzle stays unique, down to
//!    `--clues` or, failing that, as far as uniqueness allows ([`carve`]; a
//!    full pass leaves a minimal puzzle);
//! 3. with `--minimal`, a check that no given can go; with
//!    `--unsolvable-deep`, one wrong but unclashing given added ([`deep`]);
//! 4. with a band, a walk of the seed's listing to count its undos
//!    ([`band`]).
//!
//! A candidate that misses is dropped and the next one tried, up to
//! [`Request::max_attempts`]; then [`generate`] fails and says which part of
//! the request to relax. All randomness comes from [`rng::Rng`], seeded per
//! puzzle by `(seed, index)`, so puzzle `i` of a seed does not depend on how
//! many were asked for.

pub mod band;
pub mod carve;
pub mod deep;
pub mod grid;
pub mod rng;
pub mod stats;

use std::time::Instant;

use sudoku_lab::{Board, MAX_BOX, MIN_BOX};

pub use band::{BandFit, LISTING_CAP, MAX_BAND, UndoBand};
pub use rng::Rng;
pub use stats::Stats;

/// Candidates tried per puzzle before giving up, unless a request says
/// otherwise.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 200;

/// The givens a 25x25 puzzle keeps unless `--clues` says otherwise.
///
/// The removal loop proves uniqueness with the reference's counting after
/// every removal. On a 25x25 that proof takes microseconds down to about
/// 320 givens and then grows roughly 25-fold per 10 givens fewer (about a
/// second per check at 300 on the machine this was measured on), so the
/// default stops at a comfortable 350 and `--minimal` (which would need a
/// full pass, far below that) is refused for 25x25.
pub const DEFAULT_CLUES_25X25: usize = 350;

/// What to generate (one puzzle at a time; see [`generate`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Box size, 2..=5.
    pub n: usize,
    /// Givens to keep; `None`: as few as uniqueness allows (for 25x25:
    /// [`DEFAULT_CLUES_25X25`]). For an unsolvable-deep puzzle, the givens of
    /// the final board (the unique puzzle it is made from has one fewer).
    pub clues: Option<usize>,
    /// No given can be removed without losing uniqueness (for an
    /// unsolvable-deep puzzle: the unique puzzle it is made from).
    pub minimal: bool,
    /// The undos of the seed's listing on the final board.
    pub band: UndoBand,
    /// Make a puzzle with no solution and open domains instead.
    pub unsolvable_deep: bool,
    /// The run's seed.
    pub seed: u64,
    /// Candidates tried per puzzle before giving up.
    pub max_attempts: u32,
}

/// A generated puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The puzzle.
    pub puzzle: Board,
    /// Its only solution; `None` for an unsolvable-deep puzzle.
    pub solution: Option<Board>,
    /// Candidates tried for it, this one included.
    pub attempts: u32,
}

/// Why nothing could be generated.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GenerateError {
    /// The box size is not supported.
    #[error("box size {0} is not supported: use --n 2 (4x4), 3 (9x9), 4 (16x16) or 5 (25x25)")]
    BoxSize(usize),
    /// `--clues` cannot be met on this board size.
    #[error("--clues {clues} is out of range for a {side}x{side} board: use {min}..={max}{why}")]
    Clues {
        /// The number asked for.
        clues: usize,
        /// The board side.
        side: usize,
        /// The smallest allowed.
        min: usize,
        /// The largest allowed.
        max: usize,
        /// A short reason, starting with "; " (or empty).
        why: &'static str,
    },
    /// `--minimal` on a board where a full removal pass is out of reach.
    #[error(
        "--minimal is out of reach on a 25x25: proving uniqueness takes the reference seconds per check below about 320 givens; use --clues 320 or more instead"
    )]
    MinimalOutOfReach,
    /// `--min-undos` is above `--max-undos`.
    #[error("--min-undos {min} is above --max-undos {max}: give a band with min <= max")]
    EmptyBand {
        /// `--min-undos`.
        min: u64,
        /// `--max-undos`.
        max: u64,
    },
    /// A band end is beyond what the listing walk measures.
    #[error(
        "{flag} {value} is beyond what is measured (the listing walk stops at {LISTING_CAP} writes): use at most {MAX_BAND}"
    )]
    BandTooHigh {
        /// The flag.
        flag: &'static str,
        /// Its value.
        value: u64,
    },
    /// No candidate fitted the request.
    #[error("puzzle {index}: none of {attempts} candidates fitted ({tally}); {hint}")]
    Exhausted {
        /// The index of the puzzle in the run.
        index: u64,
        /// Candidates tried.
        attempts: u32,
        /// Why they were dropped, e.g. "150 below the band, 50 not minimal".
        tally: String,
        /// What to relax.
        hint: &'static str,
    },
}

impl Request {
    /// A request for unique puzzles of box size `n`, as few givens as
    /// uniqueness allows, no band, seed 1.
    pub fn new(n: usize) -> Request {
        Request {
            n,
            clues: None,
            minimal: false,
            band: UndoBand::default(),
            unsolvable_deep: false,
            seed: 1,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
        }
    }

    /// The givens the removal aims at for the final board: `clues`, or the
    /// 25x25 default; `None` for as few as uniqueness allows.
    pub fn target_clues(&self) -> Option<usize> {
        self.clues
            .or((self.n == MAX_BOX).then_some(DEFAULT_CLUES_25X25))
    }

    /// True iff every unique puzzle made is minimal: asked for, or implied
    /// by a removal pass that runs to the end (see [`carve`]).
    pub fn makes_minimal(&self) -> bool {
        self.minimal || self.target_clues().is_none()
    }

    /// Checks that the request can be met at all.
    pub fn validate(&self) -> Result<(), GenerateError> {
        if !(MIN_BOX..=MAX_BOX).contains(&self.n) {
            return Err(GenerateError::BoxSize(self.n));
        }
        if self.minimal && self.n == MAX_BOX {
            return Err(GenerateError::MinimalOutOfReach);
        }
        let side = self.n * self.n;
        if let Some(clues) = self.clues {
            // Proven minimum numbers of givens for a unique puzzle: 4 on a
            // 4x4, 17 on a 9x9 (McGuire, Tugemann and Civario, 2012); none
            // is known for larger boards.
            let (mut min, why) = match self.n {
                2 => (4, "; a unique 4x4 needs at least 4 givens"),
                3 => (17, "; a unique 9x9 needs at least 17 givens"),
                _ => (1, ""),
            };
            let mut max = side * side;
            if self.unsolvable_deep {
                // One given more than a unique puzzle, and an empty cell
                // besides the extra given's (a board one short of full has
                // only its solution's digit legal in the gap).
                min += 1;
                max -= 1;
            }
            if !(min..=max).contains(&clues) {
                return Err(GenerateError::Clues {
                    clues,
                    side,
                    min,
                    max,
                    why,
                });
            }
        }
        for (flag, value) in [
            ("--min-undos", self.band.min),
            ("--max-undos", self.band.max),
        ] {
            if let Some(value) = value
                && value > MAX_BAND
            {
                return Err(GenerateError::BandTooHigh { flag, value });
            }
        }
        if let (Some(min), Some(max)) = (self.band.min, self.band.max)
            && min > max
        {
            return Err(GenerateError::EmptyBand { min, max });
        }
        Ok(())
    }
}

/// Why a candidate was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Miss {
    /// Uniqueness stopped the removal above `--clues`.
    TooManyClues,
    /// Not minimal at `--clues` givens.
    NotMinimal,
    /// No wrong given kept the domains open.
    NoDeadEnd,
    /// Too few undos.
    BelowBand,
    /// Too many undos.
    AboveBand,
}

impl Miss {
    const ALL: [Miss; 5] = [
        Miss::TooManyClues,
        Miss::NotMinimal,
        Miss::NoDeadEnd,
        Miss::BelowBand,
        Miss::AboveBand,
    ];

    fn label(self) -> &'static str {
        match self {
            Miss::TooManyClues => "could not get down to --clues",
            Miss::NotMinimal => "not minimal",
            Miss::NoDeadEnd => "no deep dead end",
            Miss::BelowBand => "below the band",
            Miss::AboveBand => "above the band",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Miss::TooManyClues => "ask for more givens (--clues) or drop --clues",
            Miss::NotMinimal => "ask for fewer givens (--clues) or drop --minimal",
            Miss::NoDeadEnd => "ask for fewer givens (--clues) or a larger board",
            Miss::BelowBand => "widen the band: lower --min-undos",
            Miss::AboveBand => "widen the band: raise --max-undos",
        }
    }
}

/// Generates puzzle `index` of the run `request.seed`.
///
/// The request must have passed [`Request::validate`] (this returns its
/// error otherwise). Time is added to `stats`.
pub fn generate(
    request: &Request,
    index: u64,
    stats: &mut Stats,
) -> Result<Generated, GenerateError> {
    request.validate()?;
    let mut rng = Rng::for_item(request.seed, index);
    let mut misses = [0u32; Miss::ALL.len()];
    for attempt in 1..=request.max_attempts {
        match candidate(request, &mut rng, stats) {
            Ok((puzzle, solution)) => {
                return Ok(Generated {
                    puzzle,
                    solution,
                    attempts: attempt,
                });
            }
            Err(miss) => misses[miss as usize] += 1,
        }
    }
    let (worst, _) = Miss::ALL
        .iter()
        .zip(misses)
        .max_by_key(|&(_, count)| count)
        .expect("Miss::ALL is not empty");
    let tally = Miss::ALL
        .iter()
        .zip(misses)
        .filter(|&(_, count)| count > 0)
        .map(|(miss, count)| format!("{count} {}", miss.label()))
        .collect::<Vec<_>>()
        .join(", ");
    Err(GenerateError::Exhausted {
        index,
        attempts: request.max_attempts,
        tally,
        hint: worst.hint(),
    })
}

/// One candidate: a puzzle and its solution, or why it was dropped.
fn candidate(
    request: &Request,
    rng: &mut Rng,
    stats: &mut Stats,
) -> Result<(Board, Option<Board>), Miss> {
    stats.candidates += 1;
    let start = Instant::now();
    let grid = grid::random_grid(request.n, rng);
    stats.grids += start.elapsed();

    let target = request
        .target_clues()
        .map(|clues| clues - usize::from(request.unsolvable_deep));
    let puzzle = carve::carve(&grid, target.unwrap_or(0), rng, stats);
    if target.is_some_and(|target| puzzle.filled() > target) {
        return Err(Miss::TooManyClues);
    }
    // Without --clues the pass ran to the end, which makes the puzzle
    // minimal; it is checked all the same when minimality was asked for.
    if request.minimal && !carve::is_minimal(&puzzle, stats) {
        return Err(Miss::NotMinimal);
    }
    let (board, solution) = if request.unsolvable_deep {
        let dead = deep::dead_end(&puzzle, &grid, rng, stats).ok_or(Miss::NoDeadEnd)?;
        (dead, None)
    } else {
        (puzzle, Some(grid))
    };
    if !request.band.is_open() {
        let start = Instant::now();
        let (fit, _) = request.band.fit(&board);
        stats.listing += start.elapsed();
        stats.listing_walks += 1;
        match fit {
            BandFit::Inside => {}
            BandFit::Below => return Err(Miss::BelowBand),
            BandFit::Above => return Err(Miss::AboveBand),
        }
    }
    Ok((board, solution))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sudoku_reference::{count_solutions, walk_listing};

    fn request(n: usize) -> Request {
        Request {
            seed: 2026,
            ..Request::new(n)
        }
    }

    #[test]
    fn unique_puzzles_on_4x4_and_9x9() {
        for n in 2..=3 {
            let g = generate(&request(n), 0, &mut Stats::default()).expect("a puzzle");
            assert_eq!(count_solutions(&g.puzzle, 2), 1);
            let solution = g.solution.expect("a unique puzzle has its solution");
            assert!(grid::is_valid_solution(&solution));
            assert_eq!(
                sudoku_reference::count_and_solve(&g.puzzle, 2).1,
                Some(solution)
            );
        }
    }

    #[test]
    fn a_25x25_stops_at_the_default_clues() {
        let g = generate(&request(5), 0, &mut Stats::default()).expect("a puzzle");
        assert_eq!(g.puzzle.filled(), DEFAULT_CLUES_25X25);
        assert_eq!(count_solutions(&g.puzzle, 2), 1);
        assert!(!Request::new(5).makes_minimal());
        assert!(Request::new(4).makes_minimal());
    }

    #[test]
    fn minimal_puzzles_are_minimal() {
        for n in 2..=3 {
            let req = Request {
                minimal: true,
                ..request(n)
            };
            for index in 0..3 {
                let g = generate(&req, index, &mut Stats::default()).expect("a puzzle");
                assert!(carve::is_minimal(&g.puzzle, &mut Stats::default()));
            }
        }
    }

    #[test]
    fn clues_are_met_exactly() {
        let req = Request {
            clues: Some(30),
            ..request(3)
        };
        let g = generate(&req, 0, &mut Stats::default()).expect("a puzzle");
        assert_eq!(g.puzzle.filled(), 30);
        assert_eq!(count_solutions(&g.puzzle, 2), 1);
    }

    #[test]
    fn the_same_seed_and_index_give_the_same_puzzle() {
        let req = Request {
            minimal: true,
            ..request(3)
        };
        let a = generate(&req, 4, &mut Stats::default()).expect("a puzzle");
        let b = generate(&req, 4, &mut Stats::default()).expect("a puzzle");
        assert_eq!(a, b);
        let c = generate(&req, 5, &mut Stats::default()).expect("a puzzle");
        assert_ne!(a.puzzle, c.puzzle);
        let other_seed = Request { seed: 7, ..req };
        let d = generate(&other_seed, 4, &mut Stats::default()).expect("a puzzle");
        assert_ne!(a.puzzle, d.puzzle);
    }

    #[test]
    fn unsolvable_deep_puzzles_have_no_solution_and_open_domains() {
        for n in 2..=3 {
            let req = Request {
                unsolvable_deep: true,
                ..request(n)
            };
            for index in 0..3 {
                let g = generate(&req, index, &mut Stats::default()).expect("a puzzle");
                assert_eq!(g.solution, None);
                assert_eq!(count_solutions(&g.puzzle, 2), 0);
                assert!(deep::has_open_domains(&g.puzzle));
            }
        }
        let req = Request {
            unsolvable_deep: true,
            clues: Some(26),
            ..request(3)
        };
        let g = generate(&req, 0, &mut Stats::default()).expect("a puzzle");
        assert_eq!(g.puzzle.filled(), 26);
    }

    #[test]
    fn band_filtering_keeps_only_puzzles_in_the_band() {
        let req = Request {
            band: UndoBand {
                min: Some(50),
                max: Some(5_000),
            },
            ..request(3)
        };
        let mut stats = Stats::default();
        for index in 0..3 {
            let g = generate(&req, index, &mut stats).expect("a puzzle");
            let walk = walk_listing(&g.puzzle, u64::MAX);
            assert!(walk.finished && walk.solved);
            assert!((50..=5_000).contains(&walk.undos), "{walk:?}");
        }
        assert!(stats.listing_walks >= 3);
    }

    #[test]
    fn an_impossible_band_fails_with_a_hint() {
        // The listing cannot make 1000 undos on a unique 4x4.
        let req = Request {
            band: UndoBand {
                min: Some(1_000),
                max: None,
            },
            max_attempts: 20,
            ..request(2)
        };
        let err = generate(&req, 0, &mut Stats::default()).expect_err("no such 4x4");
        assert!(
            matches!(&err, GenerateError::Exhausted { attempts: 20, hint, .. } if hint.contains("lower --min-undos")),
            "{err}"
        );
        assert!(err.to_string().contains("20 below the band"), "{err}");
    }

    #[test]
    fn bad_requests_are_refused() {
        let bad = |req: Request| req.validate().expect_err("refused");
        assert_eq!(bad(Request::new(6)), GenerateError::BoxSize(6));
        assert!(matches!(
            bad(Request {
                clues: Some(16),
                ..Request::new(3)
            }),
            GenerateError::Clues { min: 17, .. }
        ));
        assert!(matches!(
            bad(Request {
                clues: Some(82),
                ..Request::new(3)
            }),
            GenerateError::Clues { max: 81, .. }
        ));
        assert!(matches!(
            bad(Request {
                clues: Some(81),
                unsolvable_deep: true,
                ..Request::new(3)
            }),
            GenerateError::Clues { max: 80, .. }
        ));
        let band = UndoBand {
            min: Some(5),
            max: Some(4),
        };
        assert_eq!(
            bad(Request {
                band,
                ..Request::new(3)
            }),
            GenerateError::EmptyBand { min: 5, max: 4 }
        );
        let band = UndoBand {
            min: None,
            max: Some(u64::MAX),
        };
        assert!(matches!(
            bad(Request {
                band,
                ..Request::new(3)
            }),
            GenerateError::BandTooHigh { .. }
        ));
        assert!(Request::new(5).validate().is_ok());
        assert_eq!(
            bad(Request {
                minimal: true,
                ..Request::new(5)
            }),
            GenerateError::MinimalOutOfReach
        );
    }
}
