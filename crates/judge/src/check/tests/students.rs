//! In-test solvers: one `impl Sudoku` with a switch per bug class the checks
//! must catch, plus a correct one with a fewest-candidates `find_empty`.
//!
//! `solve` searches with its own correct rule and a fewest-candidates cell
//! order (fast enough in a debug build), so that a `legal` or `find_empty`
//! bug shows only in the function it is in.

use sudoku_lab::{Board, Sudoku};
use sudoku_reference::BoardRules;

/// A bug class (or none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bug {
    /// Correct, `find_empty` in reading order.
    None,
    /// Correct, `find_empty` returns a cell with the fewest legal digits.
    Fewest,
    /// `solve` never clears a cell on failure.
    NoClear,
    /// `solve` clears on failure, except the first cell it wrote.
    PartialClear,
    /// `legal` ignores the box.
    LegalNoBox,
    /// `legal` ignores the column.
    LegalNoColumn,
    /// `legal` takes the box origin as `(r / n, c / n)`.
    WrongBoxOrigin,
    /// `find_empty` scans column by column.
    ColumnMajor,
    /// `find_empty` returns `(0, 0)` on a full board.
    NeverNone,
    /// `solve` returns true even when it fails.
    AlwaysTrue,
    /// `solve` fills a fresh empty board and hands that back.
    OverwritesGivens,
    /// `solve` solves a copy and returns its result.
    SolvesCopy,
    /// `solve` tries digits `1..=N+1`, so dead ends get `N+1`.
    OutOfRange,
    /// `legal` checks only the box's diagonal cells `(br + i, bc + i)`.
    LegalDiagonalBox,
    /// `find_empty` never looks at the last row.
    SkipsLastRow,
    /// `find_empty` never looks at the last column.
    SkipsLastColumn,
    /// `find_empty` scans a fixed 9x9 region (`range(9)`), whatever the
    /// board's size.
    Fixed9x9,
}

/// A student's solver with `Bug`.
pub(super) struct Student(pub Bug);

impl Sudoku for Student {
    fn legal(&self, b: &Board, r: usize, c: usize, v: u8) -> bool {
        let (n, side) = (b.n(), b.side());
        let in_row = (0..side).any(|j| b.get(r, j) == v);
        let in_col = self.0 != Bug::LegalNoColumn && (0..side).any(|i| b.get(i, c) == v);
        let (br, bc) = if self.0 == Bug::WrongBoxOrigin {
            (r / n, c / n)
        } else {
            (r / n * n, c / n * n)
        };
        let in_box = match self.0 {
            Bug::LegalNoBox => false,
            Bug::LegalDiagonalBox => (0..n).any(|i| b.get(br + i, bc + i) == v),
            _ => (br..br + n).any(|i| (bc..bc + n).any(|j| b.get(i, j) == v)),
        };
        !(in_row || in_col || in_box)
    }

    fn find_empty(&self, b: &Board) -> Option<(usize, usize)> {
        let side = b.side();
        match self.0 {
            Bug::Fewest => fewest(b),
            Bug::ColumnMajor => (0..side)
                .flat_map(|c| (0..side).map(move |r| (r, c)))
                .find(|&(r, c)| b.get(r, c) == 0),
            Bug::NeverNone => Some(b.empty_cells().next().unwrap_or((0, 0))),
            Bug::SkipsLastRow => b.empty_cells().find(|&(r, _)| r + 1 < side),
            Bug::SkipsLastColumn => b.empty_cells().find(|&(_, c)| c + 1 < side),
            Bug::Fixed9x9 => b.empty_cells().find(|&(r, c)| r < 9 && c < 9),
            _ => b.empty_cells().next(),
        }
    }

    fn solve(&self, board: &mut Board) -> bool {
        match self.0 {
            Bug::AlwaysTrue => {
                self.search(board, 0);
                true
            }
            Bug::OverwritesGivens => {
                let Ok(mut fresh) = Board::empty(board.n()) else {
                    return false;
                };
                let solved = self.search(&mut fresh, 0);
                *board = fresh;
                solved
            }
            Bug::SolvesCopy => self.search(&mut board.clone(), 0),
            _ => self.search(board, 0),
        }
    }
}

impl Student {
    /// Backtracking with digit masks per row, column and box (fast enough
    /// for the unsolvable 9x9 in a debug build), cell order: fewest digits.
    fn search(&self, b: &mut Board, depth: usize) -> bool {
        let mut masks = Masks::of(b);
        self.step(b, &mut masks, depth)
    }

    fn step(&self, b: &mut Board, m: &mut Masks, depth: usize) -> bool {
        let Some((r, c)) = m.fewest(b) else {
            return true;
        };
        let top = b.side() + usize::from(self.0 == Bug::OutOfRange);
        for v in 1..=top as u8 {
            if usize::from(v) > b.side() || m.allows(r, c, v) {
                b.set(r, c, v);
                m.flip(r, c, v);
                if self.step(b, m, depth + 1) {
                    return true;
                }
                let keep = self.0 == Bug::NoClear || (self.0 == Bug::PartialClear && depth == 0);
                if !keep {
                    b.set(r, c, 0);
                    m.flip(r, c, v);
                }
            }
        }
        false
    }
}

/// Which digits each row, column and box holds, as bits.
struct Masks {
    n: usize,
    rows: Vec<u32>,
    cols: Vec<u32>,
    boxes: Vec<u32>,
}

impl Masks {
    fn of(b: &Board) -> Masks {
        let side = b.side();
        let mut m = Masks {
            n: b.n(),
            rows: vec![0; side],
            cols: vec![0; side],
            boxes: vec![0; side],
        };
        for r in 0..side {
            for c in 0..side {
                if b.get(r, c) != 0 {
                    m.flip(r, c, b.get(r, c));
                }
            }
        }
        m
    }

    /// Toggles digit `v` at `(r, c)`; digits above `N` are not tracked.
    fn flip(&mut self, r: usize, c: usize, v: u8) {
        if usize::from(v) > self.n * self.n {
            return;
        }
        let bit = 1 << v;
        self.rows[r] ^= bit;
        self.cols[c] ^= bit;
        self.boxes[r / self.n * self.n + c / self.n] ^= bit;
    }

    fn allows(&self, r: usize, c: usize, v: u8) -> bool {
        let used = self.rows[r] | self.cols[c] | self.boxes[r / self.n * self.n + c / self.n];
        used & (1 << v) == 0
    }

    fn fewest(&self, b: &Board) -> Option<(usize, usize)> {
        let side = b.side();
        let all = ((1u32 << side) - 1) << 1;
        b.empty_cells().min_by_key(|&(r, c)| {
            let used = self.rows[r] | self.cols[c] | self.boxes[r / self.n * self.n + c / self.n];
            (all & !used).count_ones()
        })
    }
}

/// The first empty cell, in reading order, with the fewest legal digits.
fn fewest(b: &Board) -> Option<(usize, usize)> {
    b.empty_cells().min_by_key(|&(r, c)| {
        (1..=b.side() as u8)
            .filter(|&v| !b.conflicts(r, c, v))
            .count()
    })
}
