//! What a Sudoku-lab student implements, in Rust.
//!
//! The lab (see the seed text) asks for three functions on a board of side
//! `N = n*n` with `n x n` boxes: [`Sudoku::legal`], [`Sudoku::find_empty`] and
//! [`Sudoku::solve`], an in-place backtracker that writes a digit, recurses,
//! and clears the cell on failure.
//!
//! A student's crate is a `cdylib` with one `impl Sudoku` and one call of
//! [`export_c_abi!`], which exports the impl as the lab's C ABI
//! (`legal`, `find_empty`, `solve`, `sudoku_abi_version`), the same ABI that C
//! students implement from `include/sudoku_lab.h`:
//!
//! ```
//! use sudoku_lab::{Board, Sudoku};
//!
//! pub struct Mine;
//!
//! impl Sudoku for Mine {
//!     fn legal(&self, board: &Board, r: usize, c: usize, v: u8) -> bool {
//!         // Your code: may `v` go at (r, c) by the lab's rules?
//!         let _ = (board, r, c, v);
//!         todo!()
//!     }
//!     fn find_empty(&self, board: &Board) -> Option<(usize, usize)> {
//!         // Your code: an empty cell, or None when there is none.
//!         let _ = board;
//!         todo!()
//!     }
//!     fn solve(&self, board: &mut Board) -> bool {
//!         // Your code: the in-place backtracker of the lab.
//!         let _ = board;
//!         todo!()
//!     }
//! }
//!
//! sudoku_lab::export_c_abi!(Mine);
//! ```
//!
//! [`Board`] gives the board's size ([`Board::n`], [`Board::side`]) and its
//! cells ([`Board::get`], [`Board::set`]); the lab's rules are yours to
//! write, so the crate holds none of them.
//!
//! The crate has no dependencies and no `unsafe` outside [`ffi`], the glue
//! the macro expands to.
#![deny(missing_docs)]

use std::fmt;

/// Version of the C ABI that [`export_c_abi!`] exports as `sudoku_abi_version`.
pub const ABI_VERSION: u32 = 1;

/// The smallest supported box size `n` (a 4x4 board).
pub const MIN_BOX: usize = 2;

/// The largest supported box size `n` (a 25x25 board).
pub const MAX_BOX: usize = 5;

/// Why a board could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardError {
    /// The box size `n` is outside `MIN_BOX..=MAX_BOX`.
    BoxSize(usize),
    /// The number of cells is not `N*N`.
    Length {
        /// `N*N` for the box size asked for.
        expected: usize,
        /// The number of cells given.
        found: usize,
    },
    /// A cell holds a value above `N`.
    Value {
        /// Row of the cell.
        row: usize,
        /// Column of the cell.
        col: usize,
        /// The value found.
        value: u8,
        /// The largest digit, `N`.
        max: u8,
    },
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::BoxSize(n) => write!(
                f,
                "box size {n} is not supported: use {MIN_BOX}..={MAX_BOX} (boards of side 4 to 25)"
            ),
            BoardError::Length { expected, found } => {
                write!(f, "a board needs {expected} cells, found {found}")
            }
            BoardError::Value {
                row,
                col,
                value,
                max,
            } => write!(
                f,
                "(row {row}, col {col}) holds {value}, but digits run from 1 to {max} (0 = empty)"
            ),
        }
    }
}

impl std::error::Error for BoardError {}

/// A square Sudoku board of side `N = n*n` with `n x n` boxes, row-major,
/// `0` meaning empty and `1..=N` a digit.
///
/// Rows and columns count from 0, in the API and in messages: the top-left
/// cell is `(row 0, col 0)`, as in the lab's listing and the C header.
///
/// A board the grader hands to a traced `solve` records every
/// [`Board::set`] (the grader replays them to name the first step that
/// breaks the lab's rules); a clone is never recorded, and an untraced
/// board pays one branch per `set`.
pub struct Board {
    n: usize,
    cells: Vec<u8>,
    recorder: Option<Box<Recorder>>,
}

impl Clone for Board {
    /// A copy of the cells; a copy is never recorded.
    fn clone(&self) -> Board {
        Board {
            n: self.n,
            cells: self.cells.clone(),
            recorder: None,
        }
    }
}

impl PartialEq for Board {
    fn eq(&self, other: &Board) -> bool {
        self.n == other.n && self.cells == other.cells
    }
}

impl Eq for Board {}

impl std::hash::Hash for Board {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.n.hash(state);
        self.cells.hash(state);
    }
}

/// The writes of a traced board, six bytes each: `row, col, old, new` and
/// two bytes of call depth (0: not known), as the grader's trace format
/// has them.
struct Recorder {
    records: Vec<u8>,
    /// The most records kept; later writes only set `capped`.
    capacity: usize,
    capped: bool,
    /// The cells were borrowed writable ([`Board::cells_mut`]): writes may
    /// have gone unrecorded, so the trace is not used.
    unrecorded: bool,
}

impl Recorder {
    /// Records `board[r][c] = new` over `old`.
    fn record(&mut self, r: usize, c: usize, old: u8, new: u8) {
        if self.records.len() / 6 >= self.capacity {
            self.capped = true;
            return;
        }
        // Rows and columns are below 25, so they fit a byte.
        self.records
            .extend_from_slice(&[r as u8, c as u8, old, new, 0, 0]);
    }
}

impl Board {
    /// An empty board with box size `n`.
    pub fn empty(n: usize) -> Result<Board, BoardError> {
        check_box_size(n)?;
        Ok(Board {
            n,
            cells: vec![0; n.pow(4)],
            recorder: None,
        })
    }

    /// A board with box size `n` from its cells, row-major. Every value must
    /// be `0..=N`.
    pub fn from_cells(n: usize, cells: Vec<u8>) -> Result<Board, BoardError> {
        let board = Board::from_cells_unchecked_values(n, cells)?;
        let side = board.side();
        if let Some(i) = board.cells.iter().position(|&v| usize::from(v) > side) {
            return Err(BoardError::Value {
                row: i / side,
                col: i % side,
                value: board.cells[i],
                max: side as u8,
            });
        }
        Ok(board)
    }

    /// Like [`Board::from_cells`], but keeps values above `N`: for boards a
    /// student's code handed back, where an out-of-range value is a finding
    /// to report, not a reason to refuse the board.
    pub fn from_cells_unchecked_values(n: usize, cells: Vec<u8>) -> Result<Board, BoardError> {
        check_box_size(n)?;
        let side = n * n;
        if cells.len() != side * side {
            return Err(BoardError::Length {
                expected: side * side,
                found: cells.len(),
            });
        }
        Ok(Board {
            n,
            cells,
            recorder: None,
        })
    }

    /// The box size `n` (2 for the campus 4x4, 3 for a 9x9).
    pub fn n(&self) -> usize {
        self.n
    }

    /// The side `N = n*n`, which is also the largest digit.
    pub fn side(&self) -> usize {
        self.n * self.n
    }

    /// The value at row `r`, column `c` (0 = empty).
    ///
    /// # Panics
    /// If `r` or `c` is not below [`Board::side`]; the panic names the
    /// caller's file and line (the student's), not this crate's.
    #[track_caller]
    pub fn get(&self, r: usize, c: usize) -> u8 {
        let side = self.side();
        assert!(
            r < side && c < side,
            "(row {r}, col {c}) is off a board of side {side}: rows and columns count from 0 to {}",
            side - 1
        );
        self.cells[r * side + c]
    }

    /// Writes `v` at row `r`, column `c` (0 clears the cell).
    ///
    /// Any `u8` is accepted, so that a buggy solver's out-of-range write can
    /// be seen and reported by the grader rather than panic in the student's
    /// process.
    ///
    /// # Panics
    /// If `r` or `c` is not below [`Board::side`]; the panic names the
    /// caller's file and line.
    #[track_caller]
    pub fn set(&mut self, r: usize, c: usize, v: u8) {
        let side = self.side();
        assert!(
            r < side && c < side,
            "(row {r}, col {c}) is off a board of side {side}: rows and columns count from 0 to {}",
            side - 1
        );
        if let Some(recorder) = self.recorder.as_deref_mut() {
            recorder.record(r, c, self.cells[r * side + c], v);
        }
        self.cells[r * side + c] = v;
    }

    /// All cells, row-major.
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// All cells, row-major, writable. Writes through it are not
    /// recorded: a traced board borrowed this way is judged by its end
    /// state only.
    pub fn cells_mut(&mut self) -> &mut [u8] {
        if let Some(recorder) = self.recorder.as_deref_mut() {
            recorder.unrecorded = true;
        }
        &mut self.cells
    }

    /// Consumes the board, giving back its cells.
    pub fn into_cells(self) -> Vec<u8> {
        self.cells
    }

    /// True iff no cell is empty.
    pub fn is_full(&self) -> bool {
        !self.cells.contains(&0)
    }

    /// The number of filled cells.
    pub fn filled(&self) -> usize {
        self.cells.iter().filter(|&&v| v != 0).count()
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = self.side();
        writeln!(f, "Board(n = {}):", self.n)?;
        for row in self.cells.chunks(side) {
            let line: Vec<String> = row.iter().map(|v| v.to_string()).collect();
            writeln!(f, "  {}", line.join(" "))?;
        }
        Ok(())
    }
}

fn check_box_size(n: usize) -> Result<(), BoardError> {
    if (MIN_BOX..=MAX_BOX).contains(&n) {
        Ok(())
    } else {
        Err(BoardError::BoxSize(n))
    }
}

/// The lab's three functions, with the seed's meaning.
///
/// The grader's checks are written once against this trait: the reference
/// solver implements it, a student's Rust impl implements it, and a loaded C
/// library is wrapped in it.
pub trait Sudoku {
    /// True iff digit `v` is not in row `r`, column `c`, or the box of
    /// `(r, c)`. Only asked about empty cells.
    fn legal(&self, board: &Board, r: usize, c: usize, v: u8) -> bool;

    /// An empty cell as `(row, column)`, or `None` iff the board is full.
    fn find_empty(&self, board: &Board) -> Option<(usize, usize)>;

    /// Fills the board in place and returns true iff a solution exists. On
    /// false the board must be exactly as it was passed in: every write on a
    /// dead branch cleared.
    fn solve(&self, board: &mut Board) -> bool;
}

/// Exports an implementation of [`Sudoku`] as the lab's C ABI.
///
/// The argument is an expression that makes the solver, evaluated on every
/// call: usually the name of a unit struct. Expands to `#[no_mangle]`
/// functions `legal`, `find_empty`, `solve` and `sudoku_abi_version`, so a
/// `cdylib` crate that calls it once is a complete submission.
///
/// A board from the caller is copied into a [`Board`] and, for `solve`,
/// copied back after the call. A call with a bad board (null pointer, box
/// size outside 2..=5, a value above `N`) answers `false`.
#[macro_export]
macro_rules! export_c_abi {
    ($solver:expr) => {
        /// The lab's `legal`, exported by `sudoku_lab::export_c_abi!`.
        ///
        /// # Safety
        /// `board` must point to `n^4` readable bytes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn legal(
            board: *const u8,
            n: usize,
            r: usize,
            c: usize,
            v: u8,
        ) -> bool {
            // SAFETY: the caller promises `n^4` readable bytes at `board`.
            match unsafe { $crate::ffi::board_from_raw(board, n) } {
                Some(b) if r < b.side() && c < b.side() => {
                    $crate::Sudoku::legal(&$solver, &b, r, c, v)
                }
                _ => false,
            }
        }

        /// The lab's `find_empty`, exported by `sudoku_lab::export_c_abi!`.
        ///
        /// # Safety
        /// `board` must point to `n^4` readable bytes; `r` and `c` must be
        /// writable.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn find_empty(
            board: *const u8,
            n: usize,
            r: *mut usize,
            c: *mut usize,
        ) -> bool {
            // SAFETY: the caller promises `n^4` readable bytes at `board`.
            let Some(b) = (unsafe { $crate::ffi::board_from_raw(board, n) }) else {
                return false;
            };
            match $crate::Sudoku::find_empty(&$solver, &b) {
                // SAFETY: the caller promises `r` and `c` are writable.
                Some((row, col)) => unsafe { $crate::ffi::write_cell(r, c, row, col) },
                None => false,
            }
        }

        /// The lab's `solve`, exported by `sudoku_lab::export_c_abi!`.
        ///
        /// # Safety
        /// `board` must point to `n^4` writable bytes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn solve(board: *mut u8, n: usize) -> bool {
            // SAFETY: the caller promises `n^4` writable bytes at `board`.
            let Some(mut b) = (unsafe { $crate::ffi::board_from_raw(board, n) }) else {
                return false;
            };
            let solved = $crate::Sudoku::solve(&$solver, &mut b);
            // SAFETY: as above; `b` still has `n^4` cells.
            unsafe { $crate::ffi::copy_back(&b, board) };
            solved
        }

        /// `solve` with every [`Board::set`] recorded, for the grader's
        /// write trace; exported by `sudoku_lab::export_c_abi!`.
        ///
        /// # Safety
        /// As [`sudoku_lab::ffi::solve_traced`].
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn sudoku_solve_traced(
            board: *mut u8,
            n: usize,
            records: *mut u8,
            capacity: usize,
            len: *mut usize,
        ) -> u32 {
            // SAFETY: the caller's promises are the ones this function asks.
            unsafe { $crate::ffi::solve_traced(&$solver, board, n, records, capacity, len) }
        }

        /// The version of the lab's C ABI this library implements.
        #[unsafe(no_mangle)]
        pub extern "C" fn sudoku_abi_version() -> u32 {
            $crate::ABI_VERSION
        }
    };
}

/// Glue for [`export_c_abi!`]: the only `unsafe` in this crate. Not for
/// direct use.
#[doc(hidden)]
pub mod ffi {
    use super::{Board, Recorder, Sudoku};

    /// [`solve_traced`]'s status bit: `solve` returned true.
    pub const TRACED_SOLVED: u32 = 1;
    /// [`solve_traced`]'s status bit: more writes than `capacity` records.
    pub const TRACED_CAPPED: u32 = 2;
    /// [`solve_traced`]'s status bit: the board's cells were borrowed
    /// writable or the board replaced, so writes may be missing: the
    /// records are not a trace.
    pub const TRACED_UNRECORDED: u32 = 4;

    /// Runs `solver.solve` on the `n^4` cells at `board` with a recording
    /// [`Board`], copies the cells back, and writes at most `capacity`
    /// six-byte records (`row, col, old, new, 0, 0`) to `records` and their
    /// byte count to `len`. Returns the status bits above; a bad board
    /// answers 0 with no records.
    ///
    /// # Safety
    /// `board` must point to `n^4` writable bytes, `records` to
    /// `6 * capacity` writable bytes, and `len` must be writable.
    pub unsafe fn solve_traced<S: Sudoku>(
        solver: &S,
        board: *mut u8,
        n: usize,
        records: *mut u8,
        capacity: usize,
        len: *mut usize,
    ) -> u32 {
        if records.is_null() || len.is_null() {
            return 0;
        }
        // SAFETY: the caller promises `n^4` readable bytes at `board`.
        let Some(mut b) = (unsafe { board_from_raw(board, n) }) else {
            return 0;
        };
        b.recorder = Some(Box::new(Recorder {
            records: Vec::with_capacity(capacity.min(1 << 20) * 6),
            capacity,
            capped: false,
            unrecorded: false,
        }));
        let solved = solver.solve(&mut b);
        // SAFETY: as above; `b` still has `n^4` cells.
        unsafe { copy_back(&b, board) };
        let mut status = if solved { TRACED_SOLVED } else { 0 };
        match b.recorder.take() {
            Some(recorder) if !recorder.unrecorded => {
                if recorder.capped {
                    status |= TRACED_CAPPED;
                }
                let kept = recorder.records.len().min(capacity * 6);
                // SAFETY: the caller promises `6 * capacity` writable bytes
                // at `records` and a writable `len`; `kept` is no more.
                unsafe {
                    std::ptr::copy_nonoverlapping(recorder.records.as_ptr(), records, kept);
                    len.write(kept);
                }
            }
            _ => {
                status |= TRACED_UNRECORDED;
                // SAFETY: the caller promises a writable `len`.
                unsafe { len.write(0) };
            }
        }
        status
    }

    /// Copies the `n^4` cells at `ptr` into a [`Board`]; `None` for a null
    /// pointer, a box size outside 2..=5, or a value above `N`.
    ///
    /// # Safety
    /// `ptr` must be null or point to `n^4` readable bytes.
    pub unsafe fn board_from_raw(ptr: *const u8, n: usize) -> Option<Board> {
        if ptr.is_null() || !(super::MIN_BOX..=super::MAX_BOX).contains(&n) {
            return None;
        }
        // SAFETY: non-null, and the caller promises n^4 readable bytes.
        let cells = unsafe { std::slice::from_raw_parts(ptr, n.pow(4)) };
        Board::from_cells(n, cells.to_vec()).ok()
    }

    /// Copies `board`'s cells to `ptr`.
    ///
    /// # Safety
    /// `ptr` must point to `board.cells().len()` writable bytes.
    pub unsafe fn copy_back(board: &Board, ptr: *mut u8) {
        // SAFETY: the caller promises that many writable bytes at `ptr`.
        unsafe { std::ptr::copy_nonoverlapping(board.cells().as_ptr(), ptr, board.cells().len()) }
    }

    /// Writes a cell's coordinates through the out-pointers; false if either
    /// is null.
    ///
    /// # Safety
    /// Non-null `r` and `c` must be writable.
    pub unsafe fn write_cell(r: *mut usize, c: *mut usize, row: usize, col: usize) -> bool {
        if r.is_null() || c.is_null() {
            return false;
        }
        // SAFETY: non-null, and the caller promises they are writable.
        unsafe {
            r.write(row);
            c.write(col);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_cells_checks_length_and_values() {
        assert_eq!(
            Board::from_cells(2, vec![0; 15]),
            Err(BoardError::Length {
                expected: 16,
                found: 15
            })
        );
        let mut cells = vec![0; 16];
        cells[5] = 5;
        assert_eq!(
            Board::from_cells(2, cells.clone()).unwrap_err().to_string(),
            "(row 1, col 1) holds 5, but digits run from 1 to 4 (0 = empty)"
        );
        assert!(Board::from_cells_unchecked_values(2, cells).is_ok());
        assert_eq!(Board::empty(6), Err(BoardError::BoxSize(6)));
        assert_eq!(Board::empty(1), Err(BoardError::BoxSize(1)));
    }

    #[test]
    fn filled_counts_the_digits() {
        let b = Board::from_cells(2, vec![1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0]).unwrap();
        assert_eq!(b.filled(), 8);
    }

    /// Fills the first empty cell with 1, clears it, fills it with 2; with
    /// `copy`, writes on a clone; with `raw`, through `cells_mut`.
    struct Writer {
        copy: bool,
        raw: bool,
    }

    impl Sudoku for Writer {
        fn legal(&self, _: &Board, _: usize, _: usize, _: u8) -> bool {
            true
        }
        fn find_empty(&self, board: &Board) -> Option<(usize, usize)> {
            let at = board.cells().iter().position(|&v| v == 0)?;
            Some((at / board.side(), at % board.side()))
        }
        fn solve(&self, board: &mut Board) -> bool {
            let (r, c) = self.find_empty(board).expect("an empty cell");
            if self.copy {
                let mut copy = board.clone();
                copy.set(r, c, 1);
            }
            if self.raw {
                board.cells_mut()[0] = 3;
            }
            board.set(r, c, 1);
            board.set(r, c, 0);
            board.set(r, c, 2);
            true
        }
    }

    /// Runs `writer` through the exported glue with room for `capacity`
    /// records: the status, the records and the board.
    fn traced(writer: &Writer, capacity: usize) -> (u32, Vec<u8>, Vec<u8>) {
        let mut cells = vec![0u8; 16];
        let mut records = vec![0u8; capacity * 6];
        let mut len = 0usize;
        // SAFETY: 16 cells for n = 2, `capacity` records of room, a local `len`.
        let status = unsafe {
            ffi::solve_traced(
                writer,
                cells.as_mut_ptr(),
                2,
                records.as_mut_ptr(),
                capacity,
                &mut len,
            )
        };
        records.truncate(len);
        (status, records, cells)
    }

    #[test]
    fn a_traced_board_records_set_but_not_its_clones() {
        let (status, records, cells) = traced(
            &Writer {
                copy: true,
                raw: false,
            },
            8,
        );
        assert_eq!(status, ffi::TRACED_SOLVED);
        assert_eq!(
            records,
            [0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 0, 0]
        );
        assert_eq!(cells[0], 2);
        let (status, records, _) = traced(
            &Writer {
                copy: false,
                raw: false,
            },
            2,
        );
        assert_eq!(status, ffi::TRACED_SOLVED | ffi::TRACED_CAPPED);
        assert_eq!(records.len(), 12);
        let (status, records, cells) = traced(
            &Writer {
                copy: false,
                raw: true,
            },
            8,
        );
        assert_eq!(status, ffi::TRACED_SOLVED | ffi::TRACED_UNRECORDED);
        assert!(records.is_empty());
        assert_eq!(cells[0], 2);
    }
}
