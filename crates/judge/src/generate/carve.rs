//! Carving a puzzle out of a complete grid: remove givens in random order,
//! keeping each removal only if the puzzle still has exactly one solution.
//!
//! One pass over the cells is enough for minimality. Removing givens only
//! ever adds solutions, so a given that had to stay when it was tried (its
//! removal gave two or more solutions) would still have to stay on the
//! smaller puzzle the pass ends with. [`is_minimal`] checks that claim
//! directly instead of trusting it.

use std::time::Instant;

use sudoku_lab::Board;

use super::rng::Rng;
use super::stats::Stats;

/// Removes givens of the complete `grid` in a random order, each only if
/// the puzzle stays unique, until `floor` givens remain or every cell has
/// been tried. The result has exactly one solution, `grid`.
pub fn carve(grid: &Board, floor: usize, rng: &mut Rng, stats: &mut Stats) -> Board {
    let start = Instant::now();
    let mut puzzle = grid.clone();
    let mut givens = puzzle.filled();
    for i in rng.permutation(puzzle.cells().len()) {
        if givens <= floor {
            break;
        }
        let value = puzzle.cells()[i];
        if value == 0 {
            continue;
        }
        puzzle.cells_mut()[i] = 0;
        if stats.count_for_removal(&puzzle) == 1 {
            givens -= 1;
        } else {
            puzzle.cells_mut()[i] = value;
        }
    }
    stats.removal += start.elapsed();
    puzzle
}

/// True iff `puzzle` has exactly one solution and removing any single
/// given leaves two or more.
pub fn is_minimal(puzzle: &Board, stats: &mut Stats) -> bool {
    if stats.count_for_check(puzzle) != 1 {
        return false;
    }
    let mut probe = puzzle.clone();
    for i in 0..probe.cells().len() {
        let value = probe.cells()[i];
        if value == 0 {
            continue;
        }
        probe.cells_mut()[i] = 0;
        let count = stats.count_for_check(&probe);
        probe.cells_mut()[i] = value;
        if count < 2 {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::grid::random_grid;
    use super::*;

    #[test]
    fn a_full_pass_gives_a_unique_minimal_puzzle() {
        for (n, seed) in [(2, 1), (2, 2), (3, 3), (3, 4)] {
            let mut rng = Rng::new(seed);
            let mut stats = Stats::default();
            let grid = random_grid(n, &mut rng);
            let puzzle = carve(&grid, 0, &mut rng, &mut stats);
            let (count, solution) = sudoku_reference::count_and_solve(&puzzle, 2);
            assert_eq!(count, 1, "n = {n}: {puzzle:?}");
            assert_eq!(solution.as_ref(), Some(&grid));
            assert!(puzzle.filled() < grid.filled(), "nothing was removed");
            assert!(is_minimal(&puzzle, &mut stats), "n = {n}: {puzzle:?}");
            // The givens are the grid's own digits.
            for (p, g) in puzzle.cells().iter().zip(grid.cells()) {
                assert!(*p == 0 || p == g);
            }
            assert!(stats.removal_counts >= grid.filled() as u64 - puzzle.filled() as u64);
        }
    }

    #[test]
    fn the_floor_stops_the_removal() {
        let mut rng = Rng::new(5);
        let mut stats = Stats::default();
        let grid = random_grid(3, &mut rng);
        let puzzle = carve(&grid, 40, &mut rng, &mut stats);
        assert_eq!(puzzle.filled(), 40);
        assert_eq!(sudoku_reference::count_solutions(&puzzle, 2), 1);
        // 40 givens on a 9x9 is far from minimal.
        assert!(!is_minimal(&puzzle, &mut stats));
    }

    #[test]
    fn non_unique_and_removable_puzzles_are_not_minimal() {
        let mut stats = Stats::default();
        let empty = Board::empty(2).expect("n = 2");
        assert!(!is_minimal(&empty, &mut stats));
        let grid = random_grid(2, &mut Rng::new(8));
        // A full grid is unique, but any single given can go.
        assert!(!is_minimal(&grid, &mut stats));
    }
}
