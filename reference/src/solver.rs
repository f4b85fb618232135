//! The fast solver: an in-place backtracker over candidate bitmasks.
//!
//! The state is the grid itself plus one bitmask of used digits per row,
//! column and box (bit `d - 1` set when digit `d` sits there). A cell's
//! candidates are the digits missing from all three masks, so writing a digit
//! is three `|=` and clearing it is three `&= !`: nothing is ever rescanned
//! from the board.
//!
//! Each search node first *propagates*: it writes every naked single (a cell
//! with one candidate) and every hidden single (a digit with one possible
//! cell in a row, column or box) until neither is left, failing early when a
//! cell has no candidate or a digit has no place in a unit. Every write lands
//! on a trail, so the node clears exactly its own writes on the way back. If
//! cells are still empty, it branches on the cell with the fewest candidates:
//! write a digit, recurse, clear, next digit. This is the lab's loop with two
//! cheap habits added; propagation is what turns millions of nodes on a hard
//! 9x9 into a few hundred.
//!
//! The code is generic over the box size through const parameters
//! (`N`, `SIDE = N*N`, `CELLS = SIDE*SIDE`), so every board size gets its own
//! compiled copy with fixed-size arrays and constant loop bounds.

use sudoku_lab::Board;

/// The result of a count: how many solutions were seen (at most the cap)
/// and the cells of the first one, row-major.
pub(crate) type CountResult = (u32, Option<Vec<u8>>);

/// Counts the solutions of `board` up to `cap`, returning the first one.
///
/// A board whose givens already clash (a digit twice in a row, column or
/// box) or hold a value above `N` has no solution.
pub(crate) fn count(board: &Board, cap: u32) -> CountResult {
    match board.n() {
        2 => Search::<2, 4, 16>::count(board.cells(), cap),
        3 => Search::<3, 9, 81>::count(board.cells(), cap),
        4 => Search::<4, 16, 256>::count(board.cells(), cap),
        5 => Search::<5, 25, 625>::count(board.cells(), cap),
        // `Board` only exists for box sizes 2..=5.
        _ => (0, None),
    }
}

/// What propagation left behind at one search node.
enum Step {
    /// A cell has no candidate or a digit has no place in some unit.
    Dead,
    /// Every cell is filled.
    Solved,
    /// The empty cell with the fewest candidates, to branch on.
    Branch(usize),
}

/// Propagation found the current branch impossible.
struct Dead;

/// The search state for a board of side `SIDE = N*N` with `CELLS` cells.
struct Search<const N: usize, const SIDE: usize, const CELLS: usize> {
    /// The grid, row-major, 0 = empty.
    cells: [u8; CELLS],
    /// Digits used in each row, as bits.
    rows: [u32; SIDE],
    /// Digits used in each column, as bits.
    cols: [u32; SIDE],
    /// Digits used in each box, as bits.
    boxes: [u32; SIDE],
    /// The candidates of each empty cell as of the last scan (a superset of
    /// the live ones while propagation writes); 0 for a filled cell.
    cands: [u32; CELLS],
    /// The empty cells are `empty[..n_empty]`, in no particular order.
    empty: [u16; CELLS],
    /// `pos[cell]` is the index of `cell` in `empty`.
    pos: [u16; CELLS],
    /// How many cells are empty.
    n_empty: usize,
    /// Every cell written since the start, in order: `trail[..trail_len]`.
    trail: [u16; CELLS],
    /// The length of the trail.
    trail_len: usize,
    /// Stop once this many solutions were seen.
    cap: u32,
    /// Solutions seen so far.
    found: u32,
    /// The first solution, row-major.
    first: Option<Vec<u8>>,
}

impl<const N: usize, const SIDE: usize, const CELLS: usize> Search<N, SIDE, CELLS> {
    /// All `SIDE` digits as bits.
    const ALL: u32 = (1 << SIDE) - 1;

    /// Counts the solutions of `cells` (row-major, `CELLS` long) up to `cap`.
    fn count(cells: &[u8], cap: u32) -> CountResult {
        const { assert!(SIDE == N * N && CELLS == SIDE * SIDE && SIDE < 32) };
        if cap == 0 || cells.len() != CELLS {
            return (0, None);
        }
        let Some(mut search) = Self::new(cells, cap) else {
            return (0, None);
        };
        search.search();
        (search.found, search.first)
    }

    /// Loads the givens; `None` if two of them clash or one is above `SIDE`.
    fn new(givens: &[u8], cap: u32) -> Option<Self> {
        let mut s = Search {
            cells: [0; CELLS],
            rows: [0; SIDE],
            cols: [0; SIDE],
            boxes: [0; SIDE],
            cands: [0; CELLS],
            empty: [0; CELLS],
            pos: [0; CELLS],
            n_empty: 0,
            trail: [0; CELLS],
            trail_len: 0,
            cap,
            found: 0,
            first: None,
        };
        for (cell, &v) in givens.iter().enumerate() {
            if v == 0 {
                s.empty[s.n_empty] = cell as u16;
                s.pos[cell] = s.n_empty as u16;
                s.n_empty += 1;
                continue;
            }
            if usize::from(v) > SIDE {
                return None;
            }
            let bit = 1 << (v - 1);
            let (r, c, b) = Self::units_of(cell);
            if (s.rows[r] | s.cols[c] | s.boxes[b]) & bit != 0 {
                return None;
            }
            s.cells[cell] = v;
            s.rows[r] |= bit;
            s.cols[c] |= bit;
            s.boxes[b] |= bit;
        }
        Some(s)
    }

    /// The row, column and box of every cell, computed at compile time.
    const UNITS: [[u8; 3]; CELLS] = {
        let mut table = [[0u8; 3]; CELLS];
        let mut cell = 0;
        while cell < CELLS {
            let (r, c) = (cell / SIDE, cell % SIDE);
            table[cell] = [r as u8, c as u8, (r / N * N + c / N) as u8];
            cell += 1;
        }
        table
    };

    /// The row, column and box of `cell`.
    #[inline(always)]
    fn units_of(cell: usize) -> (usize, usize, usize) {
        let [r, c, b] = Self::UNITS[cell];
        (usize::from(r), usize::from(c), usize::from(b))
    }

    /// The digits that may go in `cell` now, as bits.
    #[inline(always)]
    fn live(&self, cell: usize) -> u32 {
        let (r, c, b) = Self::units_of(cell);
        !(self.rows[r] | self.cols[c] | self.boxes[b]) & Self::ALL
    }

    /// Writes the digit `bit` into the empty `cell` and records it on the trail.
    #[inline(always)]
    fn place(&mut self, cell: usize, bit: u32) {
        let (r, c, b) = Self::units_of(cell);
        self.cells[cell] = bit.trailing_zeros() as u8 + 1;
        self.rows[r] |= bit;
        self.cols[c] |= bit;
        self.boxes[b] |= bit;
        self.cands[cell] = 0;
        // Swap-remove from the empty set; `unplace` in reverse order puts it
        // back just by growing the set again.
        let i = usize::from(self.pos[cell]);
        let last = self.empty[self.n_empty - 1];
        self.empty[i] = last;
        self.pos[usize::from(last)] = i as u16;
        self.n_empty -= 1;
        self.empty[self.n_empty] = cell as u16;
        self.pos[cell] = self.n_empty as u16;
        self.trail[self.trail_len] = cell as u16;
        self.trail_len += 1;
    }

    /// Clears the most recent write on the trail.
    #[inline(always)]
    fn unplace(&mut self) {
        self.trail_len -= 1;
        let cell = usize::from(self.trail[self.trail_len]);
        let bit = 1 << (self.cells[cell] - 1);
        let (r, c, b) = Self::units_of(cell);
        self.rows[r] &= !bit;
        self.cols[c] &= !bit;
        self.boxes[b] &= !bit;
        self.cells[cell] = 0;
        self.n_empty += 1;
    }

    /// Clears every write made after the trail had length `mark`.
    fn undo_to(&mut self, mark: usize) {
        while self.trail_len > mark {
            self.unplace();
        }
    }

    /// One search node: propagate, then branch on the fewest-candidates
    /// cell. Leaves the state as it found it. Returns true once `cap`
    /// solutions were seen, so that every caller stops.
    fn search(&mut self) -> bool {
        let mark = self.trail_len;
        let stop = match self.propagate() {
            Step::Dead => false,
            Step::Solved => self.record_solution(),
            Step::Branch(cell) => {
                let mut choices = self.cands[cell];
                let mut stop = false;
                while choices != 0 && !stop {
                    let bit = choices & choices.wrapping_neg();
                    choices ^= bit;
                    self.place(cell, bit); // write
                    stop = self.search(); // recurse
                    self.unplace(); // clear
                }
                stop
            }
        };
        self.undo_to(mark);
        stop
    }

    /// Counts the full grid now on the board; true iff the cap is reached.
    fn record_solution(&mut self) -> bool {
        self.found += 1;
        if self.first.is_none() {
            self.first = Some(self.cells.to_vec());
        }
        self.found >= self.cap
    }

    /// Writes naked and hidden singles until none is left.
    ///
    /// Each round scans the empty cells once, computing their candidates,
    /// writing every cell with a single candidate and remembering the cell
    /// with the fewest. Only a round that writes nothing looks for hidden
    /// singles, over the candidates it has just computed.
    fn propagate(&mut self) -> Step {
        loop {
            let mut wrote = false;
            let mut best = (u32::MAX, 0);
            // Backwards, so that swap-removing the current cell only moves an
            // already visited one into its place.
            let mut i = self.n_empty;
            while i > 0 {
                i -= 1;
                let cell = usize::from(self.empty[i]);
                let m = self.live(cell);
                if m == 0 {
                    return Step::Dead;
                }
                if m & (m - 1) == 0 {
                    self.place(cell, m);
                    wrote = true;
                } else {
                    self.cands[cell] = m;
                    // Two candidates is the fewest possible here, so the
                    // (slow without `popcnt`) bit count is mostly skipped.
                    if best.0 > 2 {
                        let rest = m & (m - 1);
                        let k = if rest & (rest - 1) == 0 {
                            2
                        } else {
                            m.count_ones()
                        };
                        if k < best.0 {
                            best = (k, cell);
                        }
                    }
                }
            }
            if self.n_empty == 0 {
                return Step::Solved;
            }
            if wrote {
                continue;
            }
            match self.hidden_singles() {
                Err(Dead) => return Step::Dead,
                Ok(true) => continue,
                Ok(false) => return Step::Branch(best.1),
            }
        }
    }

    /// Writes every hidden single of every row, column and box; `Ok(true)`
    /// if it wrote any.
    fn hidden_singles(&mut self) -> Result<bool, Dead> {
        let mut wrote = false;
        for u in 0..SIDE {
            let used = self.rows[u];
            wrote |= self.hidden_in_unit(used, |k| u * SIDE + k)?;
        }
        for u in 0..SIDE {
            let used = self.cols[u];
            wrote |= self.hidden_in_unit(used, |k| k * SIDE + u)?;
        }
        for u in 0..SIDE {
            let used = self.boxes[u];
            let origin = u / N * N * SIDE + u % N * N;
            wrote |= self.hidden_in_unit(used, |k| origin + k / N * SIDE + k % N)?;
        }
        Ok(wrote)
    }

    /// Hidden singles of one unit, whose `k`-th cell is `cell_at(k)` and
    /// whose placed digits are `used`.
    ///
    /// `cands` may be stale by the writes of this round, but only ever too
    /// large, so "no cell can take digit d" is still a contradiction, and
    /// "only cell X can take d" still forces d into X, provided X is still
    /// empty and can take d now; if not, d has no place left.
    #[inline(always)]
    fn hidden_in_unit(
        &mut self,
        used: u32,
        cell_at: impl Fn(usize) -> usize,
    ) -> Result<bool, Dead> {
        if used == Self::ALL {
            return Ok(false); // a full unit
        }
        let (mut once, mut twice) = (0u32, 0u32);
        for k in 0..SIDE {
            let m = self.cands[cell_at(k)];
            twice |= once & m;
            once |= m;
        }
        if once | used != Self::ALL {
            return Err(Dead);
        }
        let mut hidden = once & !twice & !used;
        let wrote = hidden != 0;
        while hidden != 0 {
            let bit = hidden & hidden.wrapping_neg();
            hidden ^= bit;
            let cell = (0..SIDE)
                .map(&cell_at)
                .find(|&cell| self.cands[cell] & bit != 0)
                .ok_or(Dead)?;
            if self.live(cell) & bit == 0 {
                return Err(Dead);
            }
            self.place(cell, bit);
        }
        Ok(wrote)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: usize, line: &str) -> Board {
        let cells = line
            .bytes()
            .map(|b| match b {
                b'1'..=b'9' => b - b'0',
                _ => 0,
            })
            .collect();
        Board::from_cells(n, cells).expect("a valid test board")
    }

    #[test]
    fn campus_board_has_its_one_solution() {
        let (count, first) = count(&board(2, "1..4.41.2..3.32."), 5);
        assert_eq!(count, 1);
        assert_eq!(
            first,
            Some(vec![1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1])
        );
    }

    #[test]
    fn empty_4x4_has_288_solutions() {
        assert_eq!(count(&board(2, "................"), 1000).0, 288);
        assert_eq!(count(&board(2, "................"), 7).0, 7);
        assert_eq!(count(&board(2, "................"), 0).0, 0);
    }

    #[test]
    fn empty_boards_of_every_size_have_many_solutions() {
        for n in 2..=5 {
            let empty = Board::empty(n).expect("a supported size");
            let (count, first) = count(&empty, 2);
            assert_eq!(count, 2, "n = {n}");
            let first = first.expect("a solution");
            assert!(!first.contains(&0), "n = {n}: a full grid");
        }
    }

    #[test]
    fn clashing_givens_have_no_solution() {
        assert_eq!(count(&board(2, "11.............."), 2), (0, None));
        assert_eq!(count(&board(2, "1...1..........."), 2), (0, None));
        assert_eq!(count(&board(2, "1....1.........."), 2), (0, None));
    }

    #[test]
    fn value_above_side_has_no_solution() {
        let b = Board::from_cells_unchecked_values(2, {
            let mut v = vec![0; 16];
            v[3] = 9;
            v
        })
        .expect("right length");
        assert_eq!(count(&b, 2), (0, None));
    }

    #[test]
    fn state_is_restored_after_a_count() {
        let b = board(
            3,
            ".................1.....2.3......3.2...1.4......5....6..3......4.7..8...962...7...",
        );
        let mut s = Search::<3, 9, 81>::new(b.cells(), 2).expect("consistent givens");
        let before = (s.cells, s.rows, s.cols, s.boxes, s.n_empty);
        s.search();
        assert_eq!(s.found, 1);
        assert_eq!(s.trail_len, 0);
        assert_eq!(before, (s.cells, s.rows, s.cols, s.boxes, s.n_empty));
    }
}
