//! Unsolvable puzzles that only a search can tell ("unsolvable-deep").
//!
//! Start from a puzzle with exactly one solution and add one given in an
//! empty cell: a digit that clashes with nothing on the board but differs
//! from the solution's digit there. Every solution of the new board would
//! be a solution of the old one with that digit in that cell, and the old
//! one has only its own, so the new board has none. The extra given is kept
//! only if the board still has *open domains* ([`has_open_domains`]): no
//! empty cell without a legal digit, and no row, column or box in which a
//! missing digit has no legal place, so the contradiction is not visible
//! before the search starts.

use std::time::Instant;
use sudoku_reference::BoardRules;

use sudoku_lab::Board;

use super::rng::Rng;
use super::stats::Stats;

/// Adds to the unique `puzzle` (whose solution is `solution`) one wrong but
/// directly unclashing given, chosen at random among those that keep the
/// domains open, and returns the board; `None` if no such given exists.
/// The result is checked to have no solution.
pub fn dead_end(
    puzzle: &Board,
    solution: &Board,
    rng: &mut Rng,
    stats: &mut Stats,
) -> Option<Board> {
    let start = Instant::now();
    let side = puzzle.side();
    let mut choices: Vec<(usize, usize, u8)> = Vec::new();
    for (r, c) in puzzle.empty_cells() {
        for v in 1..=side as u8 {
            if v != solution.get(r, c) && !puzzle.conflicts(r, c, v) {
                choices.push((r, c, v));
            }
        }
    }
    rng.shuffle(&mut choices);
    let mut board = puzzle.clone();
    let mut found = None;
    for (r, c, v) in choices {
        board.set(r, c, v);
        if has_open_domains(&board) {
            found = Some(board.clone());
            break;
        }
        board.set(r, c, 0);
    }
    let searched = start.elapsed();
    stats.dead_end_search += searched;
    // The argument in the module doc says 0; the reference confirms it.
    found.filter(|board| stats.count_for_check(board) == 0)
}

/// True iff every empty cell of `board` has at least one legal digit and,
/// in every row, column and box, every digit missing from it has at least
/// one empty cell of it where it is legal. (Givens that already clash make
/// this false as well.)
pub fn has_open_domains(board: &Board) -> bool {
    let side = board.side();
    let n = board.n();
    let full: u32 = (1u32 << side) - 1;
    let mut rows = vec![0u32; side];
    let mut cols = vec![0u32; side];
    let mut boxes = vec![0u32; side];
    for (i, &value) in board.cells().iter().enumerate() {
        let (r, c, v) = (i / side, i % side, usize::from(value));
        if v == 0 {
            continue;
        }
        if v > side {
            return false;
        }
        let bit = 1u32 << (v - 1);
        let b = r / n * n + c / n;
        if (rows[r] | cols[c] | boxes[b]) & bit != 0 {
            return false; // clashing givens
        }
        rows[r] |= bit;
        cols[c] |= bit;
        boxes[b] |= bit;
    }
    // The digits each unit can still place, from its empty cells' candidates.
    let mut row_reach = vec![0u32; side];
    let mut col_reach = vec![0u32; side];
    let mut box_reach = vec![0u32; side];
    for (r, c) in board.empty_cells() {
        let b = r / n * n + c / n;
        let candidates = full & !(rows[r] | cols[c] | boxes[b]);
        if candidates == 0 {
            return false;
        }
        row_reach[r] |= candidates;
        col_reach[c] |= candidates;
        box_reach[b] |= candidates;
    }
    (0..side).all(|u| {
        rows[u] | row_reach[u] == full
            && cols[u] | col_reach[u] == full
            && boxes[u] | box_reach[u] == full
    })
}

#[cfg(test)]
mod tests {
    use super::super::carve::carve;
    use super::super::grid::random_grid;
    use super::*;

    fn board(n: usize, cells: &[u8]) -> Board {
        Board::from_cells(n, cells.to_vec()).expect("a valid test board")
    }

    #[test]
    fn dead_ends_have_no_solution_and_open_domains() {
        for (n, seed) in [(2, 11), (3, 12), (3, 13)] {
            let mut rng = Rng::new(seed);
            let mut stats = Stats::default();
            let grid = random_grid(n, &mut rng);
            let puzzle = carve(&grid, 0, &mut rng, &mut stats);
            let Some(dead) = dead_end(&puzzle, &grid, &mut rng, &mut stats) else {
                // Possible on a 4x4 in principle; the seeds here have one.
                panic!("n = {n}: no dead end for {puzzle:?}");
            };
            assert_eq!(sudoku_reference::count_solutions(&dead, 2), 0);
            assert!(has_open_domains(&dead));
            assert_eq!(dead.filled(), puzzle.filled() + 1);
            let walk = sudoku_reference::walk_listing(&dead, 1_000_000_000);
            assert!(walk.finished && !walk.solved);
            assert!(walk.undos >= 1, "the listing must undo something");
        }
    }

    #[test]
    fn a_cell_without_a_legal_digit_is_a_closed_domain() {
        // r1c2 (0-based (0,1)) can hold nothing: 2 and 3 in its row, 1 and 4
        // in its column.
        let b = board(2, &[2, 0, 3, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0]);
        assert!(!has_open_domains(&b));
    }

    #[test]
    fn a_digit_without_a_place_in_a_unit_is_a_closed_domain() {
        // Row 0 is `. . 3 4`; the 1 at r2c1 sits in the box of both empty
        // cells of row 0, so row 0 has no place for its missing 1, while
        // each of those cells still has 2 as a candidate.
        let b = board(2, &[0, 0, 3, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        // Sanity: (0,0) and (0,1) each still have a candidate.
        assert!(!b.conflicts(0, 0, 2) && !b.conflicts(0, 1, 2));
        assert!(!has_open_domains(&b));
    }

    #[test]
    fn clashing_givens_are_not_open() {
        let b = board(2, &[1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(!has_open_domains(&b));
    }

    #[test]
    fn empty_and_solvable_boards_are_open() {
        assert!(has_open_domains(&Board::empty(3).expect("n = 3")));
        let campus = board(2, &[1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0]);
        assert!(has_open_domains(&campus));
    }
}
