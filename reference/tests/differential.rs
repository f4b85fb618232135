//! Property test on random 9x9 boards against the crates.io `sudoku` crate
//! (a dev-dependency, as in the bench): boards made from a valid grid by
//! keeping a random subset of its cells, sometimes with a few cells
//! overwritten, must get the same count up to 2 from both solvers, and the
//! reference's solution must be valid.

mod common;

use common::solution_error;
use proptest::prelude::*;
use sudoku_lab::Board;
use sudoku_reference::count_and_solve;

/// A valid solved grid (the pattern `(3 * (r % 3) + r / 3 + c) % 9 + 1`).
fn grid() -> Vec<u8> {
    (0..81)
        .map(|i| ((3 * (i / 9 % 3) + i / 27 + i % 9) % 9 + 1) as u8)
        .collect()
}

fn boards() -> impl Strategy<Value = Board> {
    (
        // Relabel the digits, so that the grids differ.
        Just((1..=9u8).collect::<Vec<u8>>()).prop_shuffle(),
        proptest::collection::vec(prop_oneof![2 => Just(false), 1 => Just(true)], 81),
        proptest::collection::vec((0..81usize, 0u8..=9), 0..3),
    )
        .prop_map(|(digits, keep, noise)| {
            let mut cells: Vec<u8> = grid()
                .iter()
                .zip(&keep)
                .map(|(&v, &k)| if k { digits[usize::from(v) - 1] } else { 0 })
                .collect();
            for (i, v) in noise {
                cells[i] = v;
            }
            Board::from_cells(3, cells).expect("81 cells of 0..=9")
        })
}

#[test]
fn the_pattern_grid_is_valid() {
    let g = Board::from_cells(3, grid()).expect("a board");
    assert_eq!(solution_error(&Board::empty(3).expect("n = 3"), &g), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn counts_agree_with_the_sudoku_crate(board in boards()) {
        let anchor = sudoku::Sudoku::from_bytes_slice(board.cells()).expect("digits 0..=9");
        let want = anchor.solutions_count_up_to(2) as u32;
        let (count, first) = count_and_solve(&board, 2);
        prop_assert_eq!(count, want);
        if let Some(first) = first {
            prop_assert_eq!(solution_error(&board, &first), None);
        }
    }
}
