//! Random complete grids: the starting point of every generated puzzle.
//!
//! The `n` boxes on the main diagonal share no row, column or box, so each
//! can be filled with an independent random permutation of the digits; the
//! reference solver then completes the board. (Such boards have a
//! completion in practice; should one ever not, the shifted pattern grid is
//! used instead, so the generator stays total.) The completion is
//! deterministic, so the grid is then moved around by
//! the validity-preserving symmetries of Sudoku, each chosen at random: a
//! relabelling of the digits, a permutation of the rows inside each band and
//! of the bands, the same for columns and stacks, and a transposition. That
//! reaches far more grids than shuffling a single pattern grid would.

use sudoku_lab::Board;

use super::rng::Rng;

/// A random complete, valid grid with box size `n` (2..=5).
///
/// # Panics
/// If `n` is not a supported box size (callers validate it first).
pub fn random_grid(n: usize, rng: &mut Rng) -> Board {
    let side = n * n;
    let mut board = Board::empty(n).expect("box size validated by the caller");
    for b in 0..n {
        let digits = rng.permutation(side);
        for (k, d) in digits.into_iter().enumerate() {
            board.set(b * n + k / n, b * n + k % n, d as u8 + 1);
        }
    }
    let full = match sudoku_reference::count_and_solve(&board, 1) {
        (1, Some(full)) => full,
        // Not expected (see the module doc); keep the generator total.
        _ => pattern_grid(n),
    };
    shuffle_grid(&full, rng)
}

/// The classic shifted pattern: row `r` is row 0 shifted by
/// `n * (r % n) + r / n`. A valid complete grid for any box size.
pub fn pattern_grid(n: usize) -> Board {
    let side = n * n;
    let cells = (0..side * side)
        .map(|i| {
            let (r, c) = (i / side, i % side);
            ((n * (r % n) + r / n + c) % side + 1) as u8
        })
        .collect();
    Board::from_cells(n, cells).expect("box size validated by the caller")
}

/// Applies random validity-preserving symmetries to a complete grid.
pub fn shuffle_grid(grid: &Board, rng: &mut Rng) -> Board {
    let n = grid.n();
    let side = grid.side();
    let rows = line_order(n, rng);
    let cols = line_order(n, rng);
    let digits = rng.permutation(side);
    let transpose = rng.coin();
    let mut cells = vec![0u8; side * side];
    for r in 0..side {
        for c in 0..side {
            let (sr, sc) = if transpose {
                (cols[c], rows[r])
            } else {
                (rows[r], cols[c])
            };
            let v = grid.get(sr, sc);
            cells[r * side + c] = digits[usize::from(v) - 1] as u8 + 1;
        }
    }
    Board::from_cells(n, cells).expect("a relabelled grid keeps its digits in range")
}

/// A random order of the `n*n` rows (or columns) that keeps bands together:
/// the bands are permuted, and the lines inside each band.
fn line_order(n: usize, rng: &mut Rng) -> Vec<usize> {
    let bands = rng.permutation(n);
    let mut order = Vec::with_capacity(n * n);
    for band in bands {
        for line in rng.permutation(n) {
            order.push(band * n + line);
        }
    }
    order
}

/// True iff `board` is full and every row, column and box holds each digit
/// once (the tests' oracle).
#[cfg(test)]
pub fn is_valid_solution(board: &Board) -> bool {
    use sudoku_reference::BoardRules;
    let side = board.side();
    board.is_full()
        && (0..side).all(|r| {
            (0..side).all(|c| {
                let v = board.get(r, c);
                usize::from(v) <= side && !board.conflicts(r, c, v)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_grids_are_valid() {
        for n in 2..=5 {
            assert!(is_valid_solution(&pattern_grid(n)), "n = {n}");
        }
    }

    #[test]
    fn random_grids_are_valid_and_vary() {
        for n in 2..=4 {
            let mut rng = Rng::new(n as u64);
            let a = random_grid(n, &mut rng);
            let b = random_grid(n, &mut rng);
            assert!(is_valid_solution(&a), "n = {n}: {a:?}");
            assert!(is_valid_solution(&b), "n = {n}: {b:?}");
            assert_ne!(a, b, "n = {n}: two draws gave the same grid");
        }
    }

    #[test]
    fn random_grids_are_deterministic() {
        let a = random_grid(3, &mut Rng::new(99));
        let b = random_grid(3, &mut Rng::new(99));
        assert_eq!(a, b);
    }

    #[test]
    fn a_broken_grid_is_not_a_solution() {
        let mut g = pattern_grid(3);
        let v = g.get(0, 0);
        g.set(0, 0, g.get(0, 1));
        g.set(0, 1, v);
        assert!(!is_valid_solution(&g));
        g.set(0, 0, 0);
        assert!(!is_valid_solution(&g));
    }
}
