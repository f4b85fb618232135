//! Property tests on random 4x4 boards against a brute-force oracle: the
//! 288 valid 4x4 grids, enumerated once; a board's solutions are the grids
//! that agree with its givens. The reference must count them exactly (and
//! up to any cap), return one of them, solve in place, leave an unsolvable
//! board unchanged, and walk like the seed's plain listing.

mod common;

use std::sync::OnceLock;
use sudoku_reference::BoardRules;

use common::seed_listing;
use proptest::prelude::*;
use sudoku_lab::{Board, Sudoku};
use sudoku_reference::{Reference, count_and_solve, count_solutions, walk_listing};

/// Every valid full 4x4 grid, found by trying all digits cell by cell with
/// the lab rule ([`Board::conflicts`]), independently of the reference.
fn all_grids() -> &'static [Vec<u8>] {
    static GRIDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    GRIDS.get_or_init(|| {
        fn fill(b: &mut Board, i: usize, out: &mut Vec<Vec<u8>>) {
            if i == 16 {
                out.push(b.cells().to_vec());
                return;
            }
            for v in 1..=4 {
                if !b.conflicts(i / 4, i % 4, v) {
                    b.set(i / 4, i % 4, v);
                    fill(b, i + 1, out);
                    b.set(i / 4, i % 4, 0);
                }
            }
        }
        let mut out = Vec::new();
        fill(&mut Board::empty(2).expect("n = 2"), 0, &mut out);
        assert_eq!(out.len(), 288, "there are 288 valid 4x4 grids");
        out
    })
}

/// The grids that keep every given of `board`.
fn solutions(board: &Board) -> Vec<&'static Vec<u8>> {
    all_grids()
        .iter()
        .filter(|g| {
            board
                .cells()
                .iter()
                .zip(g.iter())
                .all(|(&b, &g)| b == 0 || b == g)
        })
        .collect()
}

/// True iff two givens of `board` clash.
fn clashes(board: &Board) -> bool {
    (0..4).any(|r| (0..4).any(|c| board.get(r, c) != 0 && board.conflicts(r, c, board.get(r, c))))
}

/// Random boards: mostly-empty random cells (often clashing or
/// unsolvable), and givens taken from a valid grid (always solvable),
/// sometimes with a few cells overwritten at random.
fn boards() -> impl Strategy<Value = Board> {
    let random = proptest::collection::vec(prop_oneof![3 => Just(0u8), 1 => 1u8..=4], 16);
    let from_grid = (
        0..288usize,
        proptest::collection::vec(any::<bool>(), 16),
        proptest::collection::vec((0..16usize, 0u8..=4), 0..3),
    )
        .prop_map(|(grid, keep, noise)| {
            let mut cells: Vec<u8> = all_grids()[grid]
                .iter()
                .zip(&keep)
                .map(|(&v, &k)| if k { v } else { 0 })
                .collect();
            for (i, v) in noise {
                cells[i] = v;
            }
            cells
        });
    prop_oneof![random, from_grid]
        .prop_map(|cells| Board::from_cells(2, cells).expect("16 cells of 0..=4"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn counts_equal_the_brute_force(board in boards(), cap in 0u32..6) {
        let want = solutions(&board).len() as u32;
        prop_assert_eq!(count_solutions(&board, 300), want);
        prop_assert_eq!(count_solutions(&board, cap), want.min(cap));
    }

    #[test]
    fn a_returned_solution_is_one_of_the_brute_force_ones(board in boards()) {
        let all = solutions(&board);
        let (count, first) = count_and_solve(&board, 2);
        prop_assert_eq!(count as usize, all.len().min(2));
        match first {
            Some(first) => prop_assert!(all.contains(&&first.cells().to_vec())),
            None => prop_assert!(all.is_empty()),
        }
    }

    #[test]
    fn solve_is_in_place_and_leaves_a_failure_unchanged(board in boards()) {
        let all = solutions(&board);
        let mut b = board.clone();
        let solved = Reference.solve(&mut b);
        prop_assert_eq!(solved, !all.is_empty());
        if solved {
            prop_assert!(all.contains(&&b.cells().to_vec()));
        } else {
            prop_assert_eq!(b, board);
        }
    }

    #[test]
    fn the_walk_is_the_seed_listing(board in boards()) {
        let walk = walk_listing(&board, u64::MAX);
        let (writes, undos, solved, finished) = seed_listing(&board, u64::MAX);
        prop_assert_eq!((walk.writes, walk.undos, walk.solved, walk.finished), (writes, undos, solved, finished));
        prop_assert!(walk.finished);
        // The listing does not check the givens, so a clash can still be
        // "solved"; without one it solves exactly the solvable boards.
        if !clashes(&board) {
            prop_assert_eq!(walk.solved, !solutions(&board).is_empty());
        }
    }
}
