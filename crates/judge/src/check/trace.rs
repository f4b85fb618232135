//! The write trace of a `solve`: every cell write the search made and,
//! where the recorder sees them, every call and return of `solve`,
//! replayed by the grader to check what the lab teaches about the search
//! itself, not only its result. Three recorders make one ([`TraceSource`]),
//! each inside the test child, where the student's code runs: the Python
//! harness on every Python test (`src/worker/python_harness.py`), and, on
//! request (the grader's `protocol::WorkerRequest::trace`,
//! `grader check`'s one extra run), the Rust lab crate's recording `Board`
//! (writes only) and the write watch on a C ABI library's board memory
//! (the `grader-watch` crate, `crates/watch/`).
//!
//! - every placement was legal when it was written;
//! - no given was overwritten;
//! - a `solve` that returned false left the board exactly as it found it: a
//!   digit it left behind is a fake given for the rest of the search, caught
//!   at that return and quoted by the write that left it;
//! - the search wrote in place (a `solve` that returned true without one
//!   write on the board it was given solved a copy);
//! - the recorded writes account for the board the grader got back (a
//!   student cannot hide writes by going around the traced board).
//!
//! The test child sends the trace in a `trace` message just before `done`,
//! as hex, six bytes a record: `row, column, old, new, depth (2 bytes,
//! little end first)`, or an event `255, kind, 0, 0, depth` for a call
//! (`kind` 0) or a return (1 false, 2 true, 3 anything else) of `solve`.
//! Nothing in it is trusted: a malformed trace is an error here, never a
//! panic, and no trace decides a verdict. The end state, judged by
//! [`judge`](super::judge), decides; [`judge_traced`](super::judge_traced)
//! uses the replay only to word a failure the end state shows, and a
//! malformed, capped or missing trace leaves the end state's own
//! message.

use crate::check::catalog::Check;
use serde::{Deserialize, Serialize};
use sudoku_lab::Board;
use sudoku_reference::BoardRules;

use super::failure::Failure;
use super::rule::{cell, clashes};
use crate::case::model::Case;
use crate::finding::{CallsSeen, Finding, IllegalFit, Lang};

/// The most records the Python harness and the Rust recording board keep
/// (and send, 12 hex digits each);
/// later writes are counted as "capped" and not checked. The whole trace
/// travels in one protocol line, which the grader keeps only up to
/// the grader's `protocol::MAX_LINE_BYTES` (1 MiB): 80,000
/// records are 960,000 bytes.
pub const TRACE_CAP: usize = 80_000;

/// The most writes the write watch records on a C ABI library's board
/// (about 30 us each with the calls and returns around them, so 10,000
/// cost about 0.3 s): past them the search runs on at full speed.
pub const WATCH_CAP: usize = 10_000;

/// The check id of the hint "the board was complete, then a cell was
/// cleared" (the clear after a recursive call returned true).
const CLEARED_SOLUTION: Check = Check::SolveTraceClearedSolution;

/// The check id of a trace that cannot be replayed (malformed, or naming
/// cells off the board): it explains nothing, and the end state's own
/// message stands.
pub const MALFORMED: Check = Check::SolveTrace;

/// Whether a trace of `records` from `source` reached its recorder's cap,
/// by the grader's own count (the trace's own `capped` flag was set in the
/// student's process and is not believed).
fn reached_cap(records: &[Record], source: TraceSource) -> bool {
    match source {
        TraceSource::WriteWatch => {
            records
                .iter()
                .filter(|r| matches!(r, Record::Write { .. }))
                .count()
                >= WATCH_CAP
        }
        TraceSource::Python | TraceSource::RustBoard => records.len() >= TRACE_CAP,
    }
}

/// The most writes of the lab's listing counted for a report's comparison
/// (walked in the grader's own process, a few ms per 100,000 writes).
const LISTING_WALK_CAP: u64 = 1_000_000;

/// A trace as a test child sends it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteTrace {
    /// The records, hex-encoded, six bytes each.
    pub records: String,
    /// The recorder stopped at its cap (`TRACE_CAP`, or `WATCH_CAP`
    /// writes for the write watch). Set in the student's process, so
    /// never believed: the grader counts the records itself.
    pub capped: bool,
    /// Who recorded it, which says how a student writes a cell.
    #[serde(default)]
    pub source: TraceSource,
    /// The write watch (see `grader_watch`'s `DeepStop`) or the Python
    /// harness (`WorkerRequest::deep_stop`) stopped `solve` at this many
    /// nested calls, more than a search needs (an endless recursion): the
    /// trace ends with that call. Set in the student's process, so it only
    /// words a failure, never makes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_deep: Option<u32>,
}

/// Who recorded a [`WriteTrace`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceSource {
    /// The Python harness's board of recording lists (with the calls and
    /// returns of `solve`).
    #[default]
    Python,
    /// The Rust lab crate's `Board`, recording `set` (writes only).
    RustBoard,
    /// The write watch on a C ABI library's board memory (writes, and the
    /// calls and returns of `solve` where the watch could see them).
    WriteWatch,
}

/// One decoded record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Record {
    /// `board[row][col] = new` over `old`, with `depth` calls of `solve` active.
    Write {
        row: usize,
        col: usize,
        old: u8,
        new: u8,
        depth: u16,
    },
    /// `solve` was called.
    Call,
    /// `solve` returned: `Some(false)`, `Some(true)`, or `None` for a value
    /// that is not a bool.
    Return(Option<bool>),
}

/// What a trace that passed every check comes to: the counts a report
/// shows beside the listing's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceSummary {
    /// Digits written (writes of a non-zero value).
    pub writes: u64,
    /// Digits cleared (writes of 0 over a digit).
    pub undos: u64,
    /// The trace stopped at `TRACE_CAP` records.
    pub capped: bool,
    /// The lab's listing's own writes and undos on the case's puzzle (the
    /// numbers `grader reference` stores as `listing_writes` and
    /// `listing_undos`), and whether its walk finished within
    /// `LISTING_WALK_CAP` writes.
    pub listing: (u64, u64, bool),
    /// What the search did that a correct one may also do but that explains
    /// a failure (a digit never tried at a cell given up, a cell cleared
    /// after the board was complete): shown only when the end state fails.
    pub hint: Option<Failure>,
}

impl std::fmt::Display for TraceSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let least = if self.capped { "at least " } else { "" };
        write!(
            f,
            "the search wrote {least}{} digit(s) and undid {least}{}",
            self.writes, self.undos
        )?;
        if self.capped {
            write!(
                f,
                " (trace capped at {TRACE_CAP} records, writes and calls: later ones unchecked)"
            )?;
        }
        let (writes, undos, finished) = self.listing;
        let more = if finished { "" } else { "more than " };
        write!(f, "; the lab's listing: {more}{writes} and {more}{undos}")?;
        Ok(())
    }
}

/// Decodes the hex records.
fn decode(trace: &WriteTrace) -> Result<Vec<Record>, String> {
    let hex = trace.records.as_bytes();
    if hex.len() % 12 != 0 {
        return Err(format!(
            "{} hex digits is not a whole number of records",
            hex.len()
        ));
    }
    let nibble = |b: u8| -> Result<u8, String> {
        (b as char)
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| format!("{:?} is not a hex digit", b as char))
    };
    let mut records = Vec::with_capacity(hex.len() / 12);
    let mut bytes = [0u8; 6];
    for chunk in hex.chunks_exact(12) {
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = nibble(chunk[2 * i])? << 4 | nibble(chunk[2 * i + 1])?;
        }
        let depth = u16::from_le_bytes([bytes[4], bytes[5]]);
        records.push(match bytes {
            [255, 0, ..] => Record::Call,
            [255, 1, ..] => Record::Return(Some(false)),
            [255, 2, ..] => Record::Return(Some(true)),
            [255, 3, ..] => Record::Return(None),
            [255, kind, ..] => return Err(format!("unknown event {kind}")),
            [row, col, old, new, ..] => Record::Write {
                row: usize::from(row),
                col: usize::from(col),
                old,
                new,
                depth,
            },
        });
    }
    Ok(records)
}

/// The lab's listing's writes, undos and whether it finished within
/// [`LISTING_WALK_CAP`], on `case`'s puzzle: walked once per puzzle and grader
/// run, not for every traced test (a deep puzzle costs tens of ms).
fn listing_cost(case: &Case) -> (u64, u64, bool) {
    type Costs = std::collections::HashMap<Vec<u8>, (u64, u64, bool)>;
    static WALKED: std::sync::Mutex<Option<Costs>> = std::sync::Mutex::new(None);
    let key = case.puzzle.cells().to_vec();
    if let Some(&cost) = WALKED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(Costs::new)
        .get(&key)
    {
        return cost;
    }
    let walk = sudoku_reference::walk_listing(&case.puzzle, LISTING_WALK_CAP);
    let cost = (walk.writes, walk.undos, walk.finished);
    WALKED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(Costs::new)
        .insert(key, cost);
    cost
}

/// The last write to a cell: its step (1-based), value and depth.
#[derive(Clone, Copy)]
struct LastWrite {
    step: u64,
    value: u8,
    depth: u16,
}

/// How a step is named: with its call depth when the trace has the calls
/// of `solve`, without when it has writes only (the Rust board, the write
/// watch).
fn step_name(step: u64, depth: u16, calls: bool) -> String {
    if calls {
        format!("step {step} (depth {depth})")
    } else {
        format!("step {step}")
    }
}

/// The cells a search has filled and not yet cleared, in the order their
/// digits were first written: the search's stack as the writes show it,
/// for traces without calls. When the search writes a new digit into a
/// cell on the stack (it went back there to try the next digit), every
/// cell filled after it must be empty again: a digit left there was
/// written on a dead branch.
struct OpenCells {
    order: Vec<usize>,
    open: Vec<bool>,
}

impl OpenCells {
    fn new(cells: usize) -> OpenCells {
        OpenCells {
            order: Vec::new(),
            open: vec![false; cells],
        }
    }

    /// Records a write of `new` at cell `i` of `board` (before the write);
    /// returns a cell filled after `i` that still holds a digit, if the
    /// write is a retry at `i`.
    fn write(&mut self, board: &Board, i: usize, new: u8) -> Option<usize> {
        if !self.open[i] {
            if new != 0 {
                self.open[i] = true;
                self.order.push(i);
            }
            return None;
        }
        let at = self.order.iter().rposition(|&j| j == i)?;
        let stale = if new != 0 {
            self.order[at + 1..]
                .iter()
                .copied()
                .find(|&j| board.cells()[j] != 0)
        } else {
            None
        };
        if stale.is_none() {
            // Cells filled after `i` that are empty again leave the stack;
            // on a clear, so does `i` (cells filled after it that still
            // hold digits stay, to be caught when an earlier cell is
            // retried or the search ends).
            let later: Vec<usize> = self.order.drain(at + 1..).collect();
            for j in later {
                if board.cells()[j] == 0 {
                    self.open[j] = false;
                } else {
                    self.order.push(j);
                }
            }
            if new == 0 {
                self.order.retain(|&j| j != i);
                self.open[i] = false;
            }
        }
        stale
    }
}

/// The digits a search tried at each cell on its current visit there,
/// to name a digit it never tried when it gave a cell up (the digit loop's
/// bound): a hint, shown only when the test fails otherwise, since a
/// search that prunes harder than the lab's may skip a digit on purpose.
struct Visits {
    tried: Vec<u32>,
    /// Digit N was written somewhere: the loop reaches N, so its bound is
    /// not why a cell was given up without N.
    top_written: bool,
    /// The digit loop as the student's language spells it.
    digit_loop: &'static str,
    /// The last cell cleared: its index, the step, and the digits that fit
    /// there then. The visit ends when the next write goes elsewhere.
    cleared: Option<(usize, u64, u32)>,
}

impl Visits {
    fn new(cells: usize, digit_loop: &'static str) -> Visits {
        Visits {
            tried: vec![0; cells],
            top_written: false,
            digit_loop,
            cleared: None,
        }
    }

    /// Records a write of `new` over `old` at cell `i`; `board` is the
    /// board after it. Returns the hint for a visit that ended without
    /// trying a digit that fits.
    fn write(&mut self, board: &Board, step: u64, i: usize, old: u8, new: u8) -> Option<Failure> {
        let side = board.side();
        let mut hint = None;
        let continued = match self.cleared.take() {
            Some((j, _, _)) if j == i => true,
            Some((j, step, fits)) => {
                hint = self.gave_up(board, j, step, fits);
                false
            }
            None => false,
        };
        if new != 0 && old == 0 && !continued {
            self.tried[i] = 0;
        }
        if new != 0 && usize::from(new) <= side {
            self.tried[i] |= 1 << (new - 1);
            self.top_written |= usize::from(new) == side;
        }
        if new == 0 && old != 0 {
            let (r, c) = (i / side, i % side);
            let fits = (1..=side as u8)
                .filter(|&v| clashes(board, r, c, v).is_empty())
                .fold(0u32, |mask, v| mask | 1 << (v - 1));
            self.cleared = Some((i, step, fits));
        }
        hint
    }

    /// The search gave up cell `i` (cleared at `step`, where `fits` fit):
    /// a hint if a digit that fits was never tried.
    fn gave_up(&mut self, board: &Board, i: usize, step: u64, fits: u32) -> Option<Failure> {
        let side = board.side();
        let tried = std::mem::take(&mut self.tried[i]);
        let missing = fits & !tried;
        if missing == 0 || tried == 0 {
            return None;
        }
        let list = |mask: u32| -> String {
            (1..=side as u32)
                .filter(|v| mask & 1 << (v - 1) != 0)
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (r, c) = (i / side, i % side);
        let mut shown = board.clone();
        shown.set(r, c, 0);
        // The causes that fit what was seen, likelier first: one digit
        // tried, then the cell given up, is a return (or break) inside the
        // loop; N never written anywhere, with several digits tried here,
        // is the loop's bound; N written elsewhere rules the bound out.
        let top_missing = missing & 1 << (side - 1) != 0;
        let bound = top_missing && !self.top_written;
        let early_cause = "solve returns false (or breaks out of the digit loop) after the first digit \
                     that fits: return false only after the loop has tried every digit";
        let short = format!("your digit loop stops before {side} ({})", self.digit_loop);
        // Early: one digit tried, and a digit after it other than N fit
        // (with only N missing, the bound fits better).
        let after_tried = !((tried << 1) - 1);
        let early = tried.count_ones() == 1 && missing & !(1 << (side - 1)) & after_tried != 0;
        let causes = match (early, bound) {
            (true, true) => format!("most likely {early_cause}; or {short}"),
            (true, false) => format!("most likely {early_cause}"),
            (false, true) => {
                format!("most likely {short}; or solve returns false inside the digit loop")
            }
            (false, false) => {
                "a digit loop that reaches every digit fits neither: check what inside \
                               the loop returns false or breaks out of it before the last digit"
                    .to_string()
            }
        };
        Some(
            Failure::new(
                Check::SolveTraceUntried,
                format!(
                    "at {} the search tried {} and then gave the cell up at step {step}, but {} also fit there and {} never tried: \
                     {causes}",
                    cell(r, c),
                    list(tried),
                    list(missing),
                    if missing.count_ones() == 1 { "was" } else { "were" },
                ),
            )
            .on(&shown, Some((r, c))),
        )
    }
}

/// Replays `trace`, the writes of `solve(input)` which returned `solved` and
/// left `after`, and checks the search (see the module doc).
///
/// # Errors
/// The first failed check, quoting the offending write (step, cell, digit,
/// depth) and showing the board at that moment.
pub fn judge(
    case: &Case,
    n: usize,
    input: &[u8],
    solved: bool,
    after: &[u8],
    trace: &WriteTrace,
) -> Result<TraceSummary, Failure> {
    let records = decode(trace).map_err(|why| {
        Failure::new(
            MALFORMED,
            format!(
                "the write trace of solve is malformed ({why}): did the code write to the grader's pipe?"
            ),
        )
    })?;
    let mut replay = Replay::start(case, n, input, trace, &records)?;
    for record in records {
        match record {
            Record::Write {
                row,
                col,
                old,
                new,
                depth,
            } => replay.write(row, col, old, new, depth)?,
            Record::Call => replay.call(),
            Record::Return(result) => replay.returned(result)?,
        }
    }
    replay.end(case, solved, after)
}

/// The replay of one trace, record by record: the board as the writes
/// leave it, what each cell last got, the calls still open, and what was
/// counted and hinted so far.
struct Replay<'t> {
    trace: &'t WriteTrace,
    /// Whether the trace has `solve`'s calls (Python's, the write watch's).
    calls: bool,
    words: Words,
    givens: Board,
    board: Board,
    last: Vec<Option<LastWrite>>,
    /// The board at each open call's entry, and the step it began at.
    entries: Vec<(Board, u64)>,
    open: OpenCells,
    visits: Visits,
    call_count: usize,
    /// The last record, when it was a return of solve: what the call just
    /// finished returned (for a clear right after it).
    returned: Option<Option<bool>>,
    empty: usize,
    /// The step after which the board was complete, while it still is.
    full_after: Option<u64>,
    summary: TraceSummary,
    step: u64,
    /// A legal write was made at depth 1 (the outermost call).
    depth_one_wrote: bool,
}

impl<'t> Replay<'t> {
    /// A replay of `records` from `trace` on the board `input` of `case`.
    fn start(
        case: &Case,
        n: usize,
        input: &[u8],
        trace: &'t WriteTrace,
        records: &[Record],
    ) -> Result<Replay<'t>, Failure> {
        let Ok(board) = Board::from_cells_unchecked_values(n, input.to_vec()) else {
            return Err(Failure::new(
                MALFORMED,
                "the write trace's board has the wrong size (grader bug, not the student's)"
                    .to_string(),
            ));
        };
        let side = board.side();
        let words = Words::of(trace.source);
        Ok(Replay {
            trace,
            calls: records.iter().any(|r| matches!(r, Record::Call)),
            givens: board.clone(),
            last: vec![None; side * side],
            entries: Vec::new(),
            open: OpenCells::new(side * side),
            visits: Visits::new(side * side, words.digit_loop),
            words,
            call_count: 0,
            returned: None,
            empty: board.cells().iter().filter(|&&v| v == 0).count(),
            full_after: None,
            summary: TraceSummary {
                writes: 0,
                undos: 0,
                capped: reached_cap(records, trace.source),
                listing: listing_cost(case),
                hint: None,
            },
            step: 0,
            depth_one_wrote: false,
            board,
        })
    }

    /// One write: checked against the rules (a cell off the board, a
    /// given overwritten, a leftover, a digit past N, a clash), then made.
    fn write(
        &mut self,
        row: usize,
        col: usize,
        old: u8,
        new: u8,
        depth: u16,
    ) -> Result<(), Failure> {
        self.step += 1;
        let step = self.step;
        let side = self.board.side();
        if row >= side || col >= side {
            return Err(Failure::new(
                MALFORMED,
                format!(
                    "step {step}: the trace names row {row}, column {col}, off the board: {}",
                    self.words.off_board
                ),
            ));
        }
        let at = cell(row, col);
        let named = step_name(step, depth, self.calls);
        let given = self.givens.get(row, col);
        if given != 0 && new != given {
            self.board.set(row, col, new);
            return Err(Failure::new(
                Check::SolveTraceGiven,
                format!(
                    "{named}: solve wrote {new} over the given {at} (which holds {given}): \
                     never write to a cell that was filled at the start"
                ),
            )
            .on(&self.board, Some((row, col))));
        }
        let i = row * side + col;
        if let Some(j) = self.open.write(&self.board, i, new) {
            let stale = self.last[j].map_or(0, |w| w.step);
            let (r, c) = (j / side, j % side);
            return Err(Failure::new(
                Check::SolveTraceLeftover,
                format!(
                    "{named}: solve went back to {at} to try {new} there, but {} still holds {} from step {stale}, \
                     written after {at}'s earlier digit, on the branch that just failed: \
                     a leftover digit is a fake given for the rest of the search; \
                     set the cell back to 0 when the recursive call returns {}, before trying the next digit",
                    cell(r, c),
                    self.board.get(r, c),
                    self.words.falsy
                ),
            )
            .on(&self.board, Some((r, c))));
        }
        if new != 0 {
            self.check_digit(&named, (row, col), new, depth)?;
            self.depth_one_wrote |= depth == 1;
            self.summary.writes += 1;
        } else if old != 0 {
            self.summary.undos += 1;
        }
        self.make(&named, (row, col), new, depth);
        Ok(())
    }

    /// A digit `new` written at `(row, col)` by a call at `depth`: within
    /// 1..=N, and legal where it is written.
    fn check_digit(
        &mut self,
        named: &str,
        (row, col): (usize, usize),
        new: u8,
        depth: u16,
    ) -> Result<(), Failure> {
        let side = self.board.side();
        let at = cell(row, col);
        if usize::from(new) > side {
            self.board.set(row, col, new);
            return Err(Failure::new(
                Check::SolveTraceRange,
                format!(
                    "{named}: solve wrote {} at {at}, outside 1..={side}: \
                     write only digits 1 to {side} (0 clears a cell)",
                    shown(new)
                ),
            )
            .on(&self.board, Some((row, col))));
        }
        let Some(&(unit, (i, j))) = clashes(&self.board, row, col, new).first() else {
            return Ok(());
        };
        let fit = misplaced(
            &self.board,
            (row, col),
            new,
            depth,
            self.depth_one_wrote,
            self.trace.source,
        );
        self.board.set(row, col, new);
        let fact = format!(
            "{named}: solve wrote {new} at {at}, but {} already held {new} (at {}): \
             every placement must be legal when it is written",
            unit.name(self.board.n(), row, col),
            cell(i, j)
        );
        Err(Failure::found_in(
            Check::SolveTraceIllegal,
            Finding::IllegalWrite { fact, fit },
            Some(self.words.lang),
        )
        .on(&self.board, Some((row, col))))
    }

    /// Makes a write the checks let through, and notes the hints it gives
    /// (a digit given up, a complete board cleared).
    fn make(&mut self, named: &str, (row, col): (usize, usize), new: u8, depth: u16) {
        let side = self.board.side();
        let i = row * side + col;
        let was = self.board.get(row, col);
        self.board.set(row, col, new);
        match (was == 0, new == 0) {
            (true, false) => self.empty -= 1,
            (false, true) => self.empty += 1,
            _ => {}
        }
        if self.summary.hint.is_none() {
            self.summary.hint = self.visits.write(&self.board, self.step, i, was, new);
        }
        if self.summary.hint.is_none() && new == 0 && was != 0 {
            if let Some(full) = self.full_after {
                self.summary.hint = Some(self.cleared_solution(named, (row, col), full));
            }
        }
        self.full_after = (self.empty == 0).then_some(self.step);
        self.returned = None;
        self.last[i] = Some(LastWrite {
            step: self.step,
            value: new,
            depth,
        });
    }

    /// The hint for a clear of `(row, col)` on a board complete since
    /// step `full`. What the call on the complete board returned tells the
    /// two bugs apart: true, and the clear came after success; false, and
    /// the base case did not see the board was complete.
    fn cleared_solution(&self, named: &str, (row, col): (usize, usize), full: u64) -> Failure {
        let (truthy, falsy) = (self.words.truthy, self.words.falsy);
        let after_success = format!(
            "when the recursive call returns {truthy}, return {truthy} at once; \
             clear the cell only when it returns {falsy}"
        );
        let base_case = format!(
            "solve must return {truthy} when find_empty finds no empty cell \
             (check find_empty on a full board, and the base case's test)"
        );
        let why = match self.returned {
            Some(Some(true)) => after_success,
            Some(Some(false)) => {
                format!("the call on the complete board returned {falsy}: {base_case}")
            }
            _ => format!("either {after_success}; or {base_case}"),
        };
        Failure::new(
            CLEARED_SOLUTION,
            format!(
                "{named}: the board was complete after step {full}, but solve then cleared {}: {why}",
                cell(row, col)
            ),
        )
        .on(&self.board, Some((row, col)))
    }

    /// A call of `solve` begins.
    fn call(&mut self) {
        self.returned = None;
        self.call_count += 1;
        self.entries.push((self.board.clone(), self.step));
    }

    /// A call of `solve` returns `result`: a false leaves the board as it
    /// found it, a true leaves it complete.
    fn returned(&mut self, result: Option<bool>) -> Result<(), Failure> {
        self.returned = Some(result);
        let Some((entry, entered)) = self.entries.pop() else {
            return Err(Failure::new(
                MALFORMED,
                "the write trace returns from solve more often than it calls it: did the code write to the grader's pipe?"
                    .to_string(),
            ));
        };
        let depth = self.entries.len() + 1;
        // Not for Python, whose messages are worded by the trace on every
        // test, before anyone knows whether its legal passes (a legal that
        // answers false fits as well).
        if result == Some(false)
            && entered == self.step
            && self.summary.hint.is_none()
            && self.trace.source != TraceSource::Python
        {
            self.summary.hint = gave_up_unwritten(
                &self.board,
                self.step,
                depth,
                self.visits.top_written,
                &self.words,
            );
        }
        if result == Some(false) {
            leftover(
                &entry,
                &self.board,
                &self.last,
                self.step,
                Some(self.entries.len()),
                (self.summary.writes, self.summary.undos),
                &self.words,
            )?;
        }
        if result == Some(true) && self.summary.writes > 0 {
            // A board complete earlier and cleared since is the clear
            // after success, not a base case that returned true too soon:
            // say so, in every language alike.
            if let Some(cleared) = self.summary.hint.as_ref().filter(|h| {
                h.check == CLEARED_SOLUTION && self.board.empty_cells().next().is_some()
            }) {
                return Err(cleared.clone());
            }
            true_with_empty(&self.board, self.step, depth, &self.words)?;
        }
        Ok(())
    }

    /// After the last record: a recursion stopped deep, a search that
    /// left digits behind, a board changed where the trace did not see,
    /// a true with no write, a false at once; else the summary.
    fn end(mut self, case: &Case, solved: bool, after: &[u8]) -> Result<TraceSummary, Failure> {
        if let Some(depth) = self
            .trace
            .stopped_deep
            .filter(|_| self.trace.source != TraceSource::RustBoard)
        {
            return Err(too_deep(
                &self.givens,
                &self.board,
                &self.last,
                depth,
                &self.words,
            ));
        }
        if self.summary.capped {
            return Ok(self.summary);
        }
        if self.summary.hint.is_none() {
            if let Some((i, step, fits)) = self.visits.cleared.take() {
                self.summary.hint = self.visits.gave_up(&self.board, i, step, fits);
            }
        }
        if !self.calls && !solved {
            leftover(
                &self.givens,
                &self.board,
                &self.last,
                self.step,
                None,
                (self.summary.writes, self.summary.undos),
                &self.words,
            )?;
        }
        self.untraced(after)?;
        self.no_write(case, solved)?;
        self.at_once(case, solved)?;
        Ok(self.summary)
    }

    /// The board `solve` left (`after`) against the one its writes make:
    /// a cell that differs was changed where the trace did not see.
    fn untraced(&self, after: &[u8]) -> Result<(), Failure> {
        let Ok(after) = Board::from_cells_unchecked_values(self.board.n(), after.to_vec()) else {
            return Ok(());
        };
        let side = self.board.side();
        let Some(i) = (0..side * side).find(|&i| after.cells()[i] != self.board.cells()[i]) else {
            return Ok(());
        };
        let (r, c) = (i / side, i % side);
        Err(Failure::new(
            Check::SolveTraceUntraced,
            format!(
                "after solve, {} holds {}, but the writes {} leave {} there: {}",
                cell(r, c),
                shown(after.get(r, c)),
                self.words.recorded,
                shown(self.board.get(r, c)),
                self.words.untraced
            ),
        )
        .on(&after, Some((r, c))))
    }

    /// A `solve` that returned true without one write on a puzzle with a
    /// solution (a puzzle with none answered true is a wrong answer, not a
    /// copy: the end-state checks say so). Two bugs leave no write: a
    /// search on a copy, and a base case that returns true while a cell is
    /// empty (a lost `!`). A solve seen calling itself searched somewhere:
    /// a copy. Seen called once, or with no calls recorded, either fits.
    fn no_write(&self, case: &Case, solved: bool) -> Result<(), Failure> {
        let solvable = case.solutions != Some(crate::case::model::Solutions::None);
        if !solved || self.summary.writes != 0 || !solvable {
            return Ok(());
        }
        let Some((r, c)) = self.givens.empty_cells().next() else {
            return Ok(());
        };
        let truthy = self.words.truthy;
        let (seen, calls) = if self.calls && self.call_count > 1 {
            (
                format!(", though it called itself {} time(s)", self.call_count - 1),
                CallsSeen::Recursed,
            )
        } else if self.calls {
            (" and without calling itself".to_string(), CallsSeen::Once)
        } else {
            (String::new(), CallsSeen::Unrecorded)
        };
        let fact = format!(
            "solve returned {truthy} without writing a single digit on the board it was given{seen} \
             ({} is still empty)",
            cell(r, c)
        );
        Err(Failure::found_in(
            Check::SolveTraceCopy,
            Finding::NoWrite { fact, calls },
            Some(self.words.lang),
        )
        .on(&self.givens, Some((r, c))))
    }

    /// A search that gave up on a puzzle with a solution, seen called
    /// once and writing nothing: it never tried a digit. Only when the
    /// replay found nothing more precise to say (a hint).
    fn at_once(&self, case: &Case, solved: bool) -> Result<(), Failure> {
        let (false, 0, true, 1, Some(solution), None) = (
            solved,
            self.summary.writes,
            self.calls,
            self.call_count,
            &case.solution,
            &self.summary.hint,
        ) else {
            return Ok(());
        };
        let Some((r, c)) = self.givens.empty_cells().next() else {
            return Ok(());
        };
        Err(Failure::found_in(
            Check::SolveTraceAtOnce,
            Finding::GaveUpAtOnce {
                empty: [r, c],
                fits: solution.get(r, c),
                side: self.board.side(),
            },
            Some(self.words.lang),
        )
        .on(&self.givens, Some((r, c))))
    }
}

/// What fits a recursion that changed no cell, most likely first (a
/// write of the value a cell holds changes nothing, so none is seen).
const NO_CHANGE_CAUSES: &str = "most likely it calls itself before it writes; or it \
     writes where that digit already is (at another cell than find_empty's: a given, say), or \
     writes 0 (a digit loop that starts at 0)";

/// The write watch stopped `solve` at `depth` nested calls (see
/// [`WriteTrace::stopped_deep`]), with `board` as the writes left it: no
/// write at all means it recursed before writing (or wrote 0, which is no
/// write); writes, with the first empty cell never written, mean the
/// digits went to other cells than the one a find_empty like the
/// listing's returns. What was seen is said as fact, the cause as what
/// fits.
fn too_deep(
    givens: &Board,
    board: &Board,
    last: &[Option<LastWrite>],
    depth: u32,
    words: &Words,
) -> Failure {
    let side = givens.side();
    let empty = givens.empty_cells().count();
    let seen = format!(
        "solve called itself {depth} deep, and the grader stopped it there (a board with {empty} \
         empty cell{} needs at most {} nested calls of a search that fills a cell a call; \
         unwatched, this recursion runs until {})",
        if empty == 1 { "" } else { "s" },
        empty + 1,
        words.overflow
    );
    let written: Vec<usize> = (0..side * side).filter(|&i| last[i].is_some()).collect();
    let Some(&latest) = written.iter().max_by_key(|&&i| last[i].map(|w| w.step)) else {
        return Failure::new(
            Check::SolveTraceTooDeep,
            format!(
                "{seen}, and no cell of the board changed: {NO_CHANGE_CAUSES}; write a digit from 1 \
                 to N into the cell find_empty returned, then call solve"
            ),
        )
        .with(Finding::TooDeepNoChange)
        .on(board, givens.empty_cells().next());
    };
    // The first empty cell when it was stopped: where a find_empty like
    // the listing's points.
    let never = board
        .empty_cells()
        .next()
        .filter(|&(r, c)| last[r * side + c].is_none());
    let mut latest_first = written.clone();
    latest_first.sort_by_key(|&i| std::cmp::Reverse(last[i].map_or(0, |w| w.step)));
    let cells: Vec<String> = latest_first
        .iter()
        .take(3)
        .map(|&i| cell(i / side, i % side))
        .collect();
    let message = match never {
        Some((r, c)) => format!(
            "{seen}: its last writes went to {}, but {}, the first empty cell when it was stopped, \
             was never written: most likely the write lands on another cell than the one \
             find_empty returned, so find_empty returns that cell again and again (check the \
             write's index: {})",
            cells.join(", "),
            cell(r, c),
            words.index
        ),
        None => format!(
            "{seen}: its last write was {} at {}; each call must fill the cell find_empty returned \
             before it calls solve",
            shown(board.get(latest / side, latest % side)),
            cell(latest / side, latest % side)
        ),
    };
    Failure::new(Check::SolveTraceTooDeep, message).on(board, never)
}

/// Why an illegal write of `v` at `(row, col)` on `board` (as it was
/// before the write) happened, when what the trace shows fits a cause
/// better than a `legal` that answered true: the digit fits the first
/// empty cell in reading order, and the write's index names that cell
/// with row and column swapped, or with `n` where `N` belongs (C's flat
/// index); or, with the calls of `solve`
/// recorded, the outer call wrote legally and this first illegal write is
/// deeper (the recursive call passes other arguments, as a Python
/// `solve(board)` whose `n` takes its default). Each is said as what
/// fits, never as fact: the trace does not see which cell `legal` was
/// asked about.
fn misplaced(
    board: &Board,
    (row, col): (usize, usize),
    v: u8,
    depth: u16,
    depth_one_wrote: bool,
    source: TraceSource,
) -> IllegalFit {
    // Only the first empty cell in reading order, where a find_empty
    // like the listing's points, counts as the cell meant: any other
    // empty cell the digit fits is chance.
    let meant = board
        .empty_cells()
        .next()
        .filter(|&(r, c)| (r, c) != (row, col) && !board.conflicts(r, c, v));
    if let Some((fr, fc)) = meant {
        if (fr, fc) == (col, row) {
            let (swapped, right) = match source {
                TraceSource::Python => ("board[c][r] = v", "board[r][c] = v"),
                TraceSource::RustBoard => ("board.set(c, r, v)", "board.set(r, c, v)"),
                TraceSource::WriteWatch => ("board[c * N + r] = v", "board[r * N + c] = v"),
            };
            return IllegalFit::Index {
                said: format!(
                    "{v} fits {}, the first empty cell, which is the cell written with row and \
                     column swapped: most likely the write swaps them ({swapped} where {right} \
                     belongs)",
                    cell(fr, fc)
                ),
            };
        }
        // Only C indexes a flat board.
        if source == TraceSource::WriteWatch && fr * board.n() + fc == row * board.side() + col {
            return IllegalFit::Index {
                said: format!(
                    "{v} fits {}, the first empty cell, and index {fr} * n + {fc} is the cell \
                     written: most likely the write's index uses n where N belongs \
                     (board[r * N + c] = v, with N = n * n)",
                    cell(fr, fc)
                ),
            };
        }
    }
    if depth >= 2 && depth_one_wrote {
        return IllegalFit::Deeper { depth };
    }
    IllegalFit::Nothing
}

/// How the student's language says what a message needs.
struct Words {
    /// The language the recorder's submissions are written in.
    lang: Lang,
    /// `False` or `false`.
    falsy: &'static str,
    /// `True` or `true`.
    truthy: &'static str,
    /// The writes the trace saw, as the student made them.
    recorded: &'static str,
    /// What to do when the board changed some way the trace did not see.
    untraced: &'static str,
    /// What to do when the trace names a cell off the board.
    off_board: &'static str,
    /// The digit loop that reaches N, as the language spells it.
    digit_loop: &'static str,
    /// How a cell's write is indexed.
    index: &'static str,
    /// What ends an endless recursion.
    overflow: &'static str,
}

impl Words {
    fn of(source: TraceSource) -> Words {
        match source {
            TraceSource::Python => Words {
                lang: Lang::Python,
                falsy: "False",
                truthy: "True",
                recorded: "made through board[r][c] = v",
                untraced: "the board was changed some other way (list.__setitem__, a patched row, a method); \
                           write cells with board[r][c] = v",
                off_board: "write cells with board[r][c] = v and leave the board's rows as they are",
                digit_loop: "for v in range(1, N + 1), not range(1, N)",
                index: "board[r][c] = v",
                overflow: "Python's recursion limit stops it (RecursionError)",
            },
            TraceSource::RustBoard => Words {
                lang: Lang::Rust,
                falsy: "false",
                truthy: "true",
                recorded: "made with board.set(r, c, v)",
                untraced: "the board was changed some other way; write cells with board.set(r, c, v)",
                off_board: "write cells with board.set(r, c, v)",
                digit_loop: "for v in 1..=N, not 1..N",
                index: "board.set(r, c, v)",
                overflow: "the stack overflows",
            },
            TraceSource::WriteWatch => Words {
                lang: Lang::C,
                falsy: "false",
                truthy: "true",
                recorded: "the grader saw on the board's memory",
                untraced: "the board was changed in a way the grader's write watch could not see \
                           (a system call, or the memory's protection changed); write cells with board[r * N + c] = v",
                off_board: "write only the board's N*N cells",
                digit_loop: "loop while v <= N, not v < N",
                index: "board[r * N + c] = v, with N = n * n",
                overflow: "the stack overflows",
            },
        }
    }
}

/// At a `solve` that returned false, with `calls` calls still active (or
/// `None` at the end of a trace without calls): the board must be as that
/// call found it (`entry`).
fn leftover(
    entry: &Board,
    board: &Board,
    last: &[Option<LastWrite>],
    step: u64,
    calls: Option<usize>,
    (writes, undos): (u64, u64),
    words: &Words,
) -> Result<(), Failure> {
    let side = board.side();
    let Some(i) = (0..side * side).find(|&i| entry.cells()[i] != board.cells()[i]) else {
        return Ok(());
    };
    let (r, c) = (i / side, i % side);
    let falsy = words.falsy;
    let returned = match calls {
        Some(calls) => format!("solve (depth {}) returned {falsy}", calls + 1),
        None => format!("solve returned {falsy}"),
    };
    let message = match last[i] {
        Some(write) if write.value != 0 => {
            // A search that clears elsewhere is told where its clear is
            // missing, not to add one; the last digit is the usual path.
            let top = usize::from(write.value) == side;
            let paths = match (undos, top) {
                (0, false) => String::new(),
                // Several writes and never a clear: no clear anywhere,
                // which the general advice covers.
                (0, true) if writes > 1 => String::new(),
                (0, true) => format!(
                    "; the digit left is {side}, the last one the loop tries: if solve clears \
                     after the other digits, the clear is skipped after the last"
                ),
                (k, top) => format!(
                    "; solve cleared {k} digit(s) before this, so it clears on some paths only: \
                     every way out of the loop body after a failed recursive call must clear the cell{}",
                    if top {
                        format!(" (the digit left here is {side}, the last one the loop tries)")
                    } else {
                        String::new()
                    }
                ),
            };
            format!(
                "{returned} after step {step}, but the write at {} left {} at {} \
                 on a dead branch: a leftover digit is a fake given for the rest of the search; \
                 set the cell back to 0 before trying the next digit or returning {falsy}{paths}",
                step_name(write.step, write.depth, calls.is_some()),
                shown(write.value),
                cell(r, c)
            )
        }
        _ => format!(
            "{returned} after step {step}, but {} holds {} where that call found {}: \
             a solve that fails must leave the board as it found it",
            cell(r, c),
            shown(board.get(r, c)),
            entry.get(r, c)
        ),
    };
    Err(Failure::new(Check::SolveTraceLeftover, message).on(board, Some((r, c))))
}

/// A call of `solve` (at `depth`) that returned false after `step` without
/// writing a digit, though every empty cell had a digit that fits: a hint
/// (a search that prunes harder may do this on purpose). A correct
/// backtracker writes at whichever cell it chose, so its digit loop
/// skipped every digit that fits there; which cause is likelier depends on
/// the digits that fit: only N everywhere (and N never written) points at
/// the loop's bound.
fn gave_up_unwritten(
    board: &Board,
    step: u64,
    depth: usize,
    top_written: bool,
    words: &Words,
) -> Option<Failure> {
    let side = board.side();
    let fits = |r: usize, c: usize| -> Vec<u8> {
        (1..=side as u8)
            .filter(|&v| clashes(board, r, c, v).is_empty())
            .collect()
    };
    let empty: Vec<(usize, usize)> = board.empty_cells().collect();
    let &(r, c) = empty.first()?;
    if empty.iter().any(|&(i, j)| fits(i, j).is_empty()) {
        return None;
    }
    let only_top = empty.iter().all(|&(i, j)| fits(i, j) == [side as u8]);
    let listed: Vec<String> = fits(r, c).iter().map(u8::to_string).collect();
    let falsy = words.falsy;
    let causes = if only_top && !top_written {
        format!(
            "most likely your digit loop stops before {side} ({}); or solve returns {falsy} \
             before the loop reaches {side} (a return {falsy} inside the digit loop)",
            words.digit_loop
        )
    } else {
        format!(
            "most likely solve returns {falsy} before its digit loop tries a digit that fits \
             (a return {falsy} inside the loop: return {falsy} only after it); or it asks legal \
             about another cell than the one it fills (row and column swapped?)"
        )
    };
    let when = if step == 0 {
        "at once".to_string()
    } else {
        format!("after step {step}")
    };
    let mut shown = board.clone();
    shown.set(r, c, 0);
    Some(
        Failure::new(
            Check::SolveTraceUnwritten,
            format!(
                "solve (depth {depth}) returned {falsy} {when} without writing a digit, \
                 though every empty cell had a digit that fits ({} could take {}): {causes}",
                cell(r, c),
                listed.join(", ")
            ),
        )
        .on(&shown, Some((r, c))),
    )
}

/// At a `solve` (at `depth`) that returned true after `step`: the board
/// must be complete, since the search returns true only when no cell is
/// left empty.
fn true_with_empty(board: &Board, step: u64, depth: usize, words: &Words) -> Result<(), Failure> {
    let Some((r, c)) = board.empty_cells().next() else {
        return Ok(());
    };
    let fits = (1..=board.side() as u8).any(|v| clashes(board, r, c, v).is_empty());
    let why = if fits { "" } else { ", where no digit fits" };
    Err(Failure::new(
        Check::SolveTraceTrueWithEmpty,
        format!(
            "solve (depth {depth}) returned {} after step {step} with {} still empty{why}: \
             return {} only when find_empty finds no empty cell; when no digit fits, return {}",
            words.truthy,
            cell(r, c),
            words.truthy,
            words.falsy
        ),
    )
    .on(board, Some((r, c))))
}

/// A recorded value as people read it: 255 stands for anything that was
/// not a small int.
fn shown(value: u8) -> String {
    if value == 255 {
        "a value that is not a digit".to_string()
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::model::Case;

    const CAMPUS: [u8; 16] = [1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0];

    fn write(r: u8, c: u8, old: u8, new: u8, depth: u16) -> String {
        let d = depth.to_le_bytes();
        [r, c, old, new, d[0], d[1]]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn event(kind: u8) -> String {
        write(255, kind, 0, 0, 0)
    }

    fn trace(parts: &[String]) -> WriteTrace {
        WriteTrace {
            records: parts.concat(),
            capped: false,
            source: TraceSource::Python,
            stopped_deep: None,
        }
    }

    fn campus() -> Case {
        Case {
            name: "campus".to_string(),
            description: None,
            puzzle: Board::from_cells(2, CAMPUS.to_vec()).expect("a board"),
            points: 1,
            hidden: false,
            tests: crate::verdict::Function::ALL.to_vec(),
            time_limit_ms: None,
            solutions: None,
            solution: None,
            file: std::path::PathBuf::from("test.toml"),
            line: 1,
        }
    }

    /// The seed's own search on the campus board: eight forced writes.
    fn seed_trace() -> (Vec<String>, Vec<u8>) {
        let solution = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];
        let mut parts = Vec::new();
        let mut depth = 0;
        for (i, &v) in solution.iter().enumerate() {
            if CAMPUS[i] == 0 {
                depth += 1;
                parts.push(event(0));
                parts.push(write((i / 4) as u8, (i % 4) as u8, 0, v, depth));
            }
        }
        parts.push(event(0));
        for _ in 0..=depth {
            parts.push(event(2));
        }
        (parts, solution.to_vec())
    }

    #[test]
    fn the_seed_search_passes_and_is_counted() {
        let (parts, solution) = seed_trace();
        let summary =
            judge(&campus(), 2, &CAMPUS, true, &solution, &trace(&parts)).expect("passes");
        assert_eq!((summary.writes, summary.undos), (8, 0));
        assert_eq!(summary.listing, (8, 0, true));
        assert_eq!(
            summary.to_string(),
            "the search wrote 8 digit(s) and undid 0; the lab's listing: 8 and 0"
        );
    }

    #[test]
    fn an_illegal_placement_is_quoted_by_step_and_depth() {
        let parts = [event(0), write(0, 1, 0, 4, 1)];
        let err = judge(&campus(), 2, &CAMPUS, false, &CAMPUS, &trace(&parts)).unwrap_err();
        assert_eq!(err.check, "solve.trace.illegal");
        assert!(
            err.message.starts_with(
                "step 1 (depth 1): solve wrote 4 at (row 0, col 1), but row 0 already held 4 (at (row 0, col 3))"
            ),
            "{}",
            err.message
        );
        assert_eq!(err.cell, Some((0, 1)));
    }

    #[test]
    fn a_leftover_digit_is_caught_at_the_return_and_quoted_by_its_write() {
        // depth 1 writes (row 0, col 1) = 2, depth 2 writes (row 0, col 2) = 3
        // and returns false
        // without clearing it.
        let parts = [
            event(0),
            write(0, 1, 0, 2, 1),
            event(0),
            write(0, 2, 0, 3, 2),
            event(1),
        ];
        let mut after = CAMPUS.to_vec();
        after[1] = 2;
        after[2] = 3;
        let err = judge(&campus(), 2, &CAMPUS, false, &after, &trace(&parts)).unwrap_err();
        assert_eq!(err.check, "solve.trace.leftover");
        assert!(
            err.message
                .contains("the write at step 2 (depth 2) left 3 at (row 0, col 2)"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_cleared_dead_branch_passes() {
        let parts = [
            event(0),
            write(1, 0, 0, 3, 1),
            event(0),
            event(1),
            write(1, 0, 3, 0, 1),
            event(1),
        ];
        let summary = judge(&campus(), 2, &CAMPUS, false, &CAMPUS, &trace(&parts)).expect("clean");
        assert_eq!((summary.writes, summary.undos), (1, 1));
    }

    #[test]
    fn untraced_changes_and_copies_are_caught() {
        let (_, solution) = seed_trace();
        let err = judge(
            &campus(),
            2,
            &CAMPUS,
            true,
            &solution,
            &trace(&[event(0), event(2)]),
        )
        .unwrap_err();
        assert_eq!(err.check, "solve.trace.untraced");
        let err = judge(
            &campus(),
            2,
            &CAMPUS,
            true,
            &CAMPUS,
            &trace(&[event(0), event(2)]),
        )
        .unwrap_err();
        assert_eq!(err.check, "solve.trace.copy");
    }

    fn writes_only(parts: &[String], source: TraceSource) -> WriteTrace {
        WriteTrace {
            records: parts.concat(),
            capped: false,
            source,
            stopped_deep: None,
        }
    }

    #[test]
    fn an_illegal_write_is_told_what_fits_it_best() {
        // The campus board: (row 0, col 1) is the first empty cell, and 2
        // fits there; (row 1, col 0) is its mirror, where column 0's 2
        // (at (row 2, col 0)) makes 2 illegal.
        let board = Board::from_cells(2, CAMPUS.to_vec()).expect("a board");
        let said = |fit: IllegalFit| match fit {
            IllegalFit::Index { said } => said,
            other => panic!("not an index hint: {other:?}"),
        };
        let swapped = said(misplaced(&board, (1, 0), 2, 1, false, TraceSource::Python));
        assert!(swapped.contains("row and column swapped"), "{swapped}");
        assert!(swapped.contains("board[c][r] = v"), "{swapped}");
        // In C, index 0 * 2 + 1 = 1 is (row 0, col 1) itself: no index
        // hint there; on a board whose first empty cell is (row 1, col 0),
        // index 1 * 2 + 0 = 2 names (row 0, col 2).
        let mut cells = CAMPUS;
        cells[1] = 2;
        cells[2] = 0;
        let board = Board::from_cells_unchecked_values(2, cells.to_vec()).expect("a board");
        let wrong_index = misplaced(&board, (0, 2), 3, 1, false, TraceSource::WriteWatch);
        // (row 0, col 2) is before (row 1, col 0) in reading order: the
        // first empty cell is the one written, so nothing fits better.
        assert_eq!(wrong_index, IllegalFit::Nothing);
        // Row 0 filled (1 2 4 3): the first empty cell is (row 1, col 0),
        // where 3 fits, and index 1 * 2 + 0 = 2 is (row 0, col 2), where
        // row 0's 3 makes it illegal.
        let mut cells = CAMPUS;
        cells[..4].copy_from_slice(&[1, 2, 4, 3]);
        let filled = Board::from_cells_unchecked_values(2, cells.to_vec()).expect("a board");
        let index = said(misplaced(
            &filled,
            (0, 2),
            3,
            1,
            false,
            TraceSource::WriteWatch,
        ));
        assert!(index.contains("uses n where N belongs"), "{index}");
        // Python has no flat index.
        assert_eq!(
            misplaced(&filled, (0, 2), 3, 1, false, TraceSource::Python),
            IllegalFit::Nothing
        );
        // The depth hint stands without a cell that fits better.
        assert_eq!(
            misplaced(&board, (0, 2), 3, 2, true, TraceSource::Python),
            IllegalFit::Deeper { depth: 2 }
        );
        // The outermost call, or no legal write at depth 1 before: nothing.
        assert_eq!(
            misplaced(&board, (0, 2), 3, 1, true, TraceSource::Python),
            IllegalFit::Nothing
        );
        assert_eq!(
            misplaced(&board, (0, 2), 3, 2, false, TraceSource::Python),
            IllegalFit::Nothing
        );
    }

    #[test]
    fn a_recursion_the_watch_stopped_says_what_it_wrote() {
        // Calls on calls and no change: recursing before writing.
        let calls: Vec<String> = (1..=12).map(|_| event(0)).collect();
        let mut stopped = trace(&calls);
        stopped.source = TraceSource::WriteWatch;
        stopped.stopped_deep = Some(12);
        let err = judge(&campus(), 2, &CAMPUS, false, &CAMPUS, &stopped).expect_err("a finding");
        assert_eq!(err.check, Check::SolveTraceTooDeep);
        assert!(
            err.message.starts_with("solve called itself 12 deep"),
            "{}",
            err.message
        );
        assert!(err.message.contains(NO_CHANGE_CAUSES), "{}", err.message);
        // A digit written at (row 0, col 2) again and again while (row 0,
        // col 1), the first empty cell, stays empty: a misplaced write.
        let mut parts = vec![event(0), write(0, 2, 0, 3, 1), event(0)];
        parts.extend((0..10).map(|_| event(0)));
        let mut misplaced = trace(&parts);
        misplaced.source = TraceSource::WriteWatch;
        misplaced.stopped_deep = Some(12);
        let mut after = CAMPUS;
        after[2] = 3;
        let err = judge(&campus(), 2, &CAMPUS, false, &after, &misplaced).expect_err("a finding");
        assert!(
            err.message.contains("its last writes went to (row 0, col 2), but (row 0, col 1), the first empty cell when it was stopped, was never written"),
            "{}",
            err.message
        );
        // The Rust lab crate's board never stops a search: its claim is
        // not read.
        let mut rust = trace(&calls);
        rust.source = TraceSource::RustBoard;
        rust.stopped_deep = Some(12);
        let said = judge(&campus(), 2, &CAMPUS, false, &CAMPUS, &rust);
        assert!(
            !said.is_err_and(|e| e.check == Check::SolveTraceTooDeep),
            "a Rust board cannot stop a search"
        );
    }

    #[test]
    fn without_calls_a_retry_over_a_leftover_digit_is_caught() {
        // On an empty 4x4: (row 0, col 0) = 1, (row 0, col 1) = 2, then back
        // to (row 0, col 0) for its next digit with (row 0, col 1) never
        // cleared.
        let (case, empty) = empty_case();
        let parts = [
            write(0, 0, 0, 1, 0),
            write(0, 1, 0, 2, 0),
            write(0, 0, 1, 3, 0),
        ];
        let mut after = empty.clone();
        after[0] = 3;
        after[1] = 2;
        let err = judge(
            &case,
            2,
            &empty,
            false,
            &after,
            &writes_only(&parts, TraceSource::WriteWatch),
        )
        .unwrap_err();
        assert_eq!(err.check, "solve.trace.leftover");
        assert!(
            err.message.starts_with(
                "step 3: solve went back to (row 0, col 0) to try 3 there, but (row 0, col 1) still holds 2 from step 2"
            ),
            "{}",
            err.message
        );
        assert_eq!(err.cell, Some((0, 1)));
        // The same search with the dead branch cleared breaks no rule ...
        let parts = [
            write(0, 0, 0, 1, 0),
            write(0, 1, 0, 2, 0),
            write(0, 1, 2, 0, 0),
            write(0, 0, 1, 3, 0),
        ];
        let mut after = empty.clone();
        after[0] = 3;
        let err = judge(
            &case,
            2,
            &empty,
            false,
            &after,
            &writes_only(&parts, TraceSource::RustBoard),
        )
        .unwrap_err();
        // ... up to the end, where a solve that returned false left a digit.
        assert_eq!(err.check, "solve.trace.leftover");
        assert!(
            err.message.starts_with(
                "solve returned false after step 4, but the write at step 4 left 3 at (row 0, col 0)"
            ),
            "{}",
            err.message
        );
    }

    /// A case with an empty 4x4 board, and its cells.
    fn empty_case() -> (Case, Vec<u8>) {
        let mut case = campus();
        case.puzzle = Board::empty(2).expect("a board");
        (case, vec![0; 16])
    }

    #[test]
    fn a_digit_never_tried_at_a_cell_given_up_is_a_hint() {
        // On an empty 4x4 the search tries 1 to 3 at (row 0, col 0) and
        // gives up.
        let (case, empty) = empty_case();
        let mut parts = Vec::new();
        for v in 1..=3 {
            parts.push(write(0, 0, 0, v, 0));
            parts.push(write(0, 0, v, 0, 0));
        }
        let judged = |parts: &[String]| {
            judge(
                &case,
                2,
                &empty,
                false,
                &empty,
                &writes_only(parts, TraceSource::WriteWatch),
            )
            .expect("no rule broken")
        };
        let hint = judged(&parts).hint.expect("a hint");
        assert_eq!(hint.check, "solve.trace.untried");
        assert!(
            hint.message.starts_with(
                "at (row 0, col 0) the search tried 1, 2, 3 and then gave the cell up at step 6, but 4 also fit there and was never tried"
            ),
            "{}",
            hint.message
        );
        // Trying the last digit too is no hint.
        parts.push(write(0, 0, 0, 4, 0));
        parts.push(write(0, 0, 4, 0, 0));
        assert_eq!(judged(&parts).hint, None);
    }

    #[test]
    fn the_untried_hint_ranks_the_causes_that_fit() {
        let (case, empty) = empty_case();
        let judged = |parts: &[String]| {
            judge(
                &case,
                2,
                &empty,
                false,
                &empty,
                &writes_only(parts, TraceSource::RustBoard),
            )
            .expect("no rule broken")
            .hint
            .expect("a hint")
            .message
        };
        // One digit tried, then the cell given up: a return inside the loop.
        let early = judged(&[write(0, 0, 0, 1, 0), write(0, 0, 1, 0, 0)]);
        assert!(
            early.contains("most likely solve returns false (or breaks out of the digit loop) after the first digit"),
            "{early}"
        );
        // 1 to 3 tried, 4 never written anywhere: the bound, in Rust's words.
        let mut parts = Vec::new();
        for v in 1..=3 {
            parts.push(write(0, 0, 0, v, 0));
            parts.push(write(0, 0, v, 0, 0));
        }
        let bound = judged(&parts);
        assert!(
            bound.contains("most likely your digit loop stops before 4 (for v in 1..=N, not 1..N)"),
            "{bound}"
        );
        // 4 written elsewhere first: the loop reaches 4, the bound is out.
        let mut parts = vec![write(3, 3, 0, 4, 0), write(3, 3, 4, 0, 0)];
        for v in 1..=3 {
            parts.push(write(0, 0, 0, v, 0));
            parts.push(write(0, 0, v, 0, 0));
        }
        let neither = judged(&parts);
        assert!(!neither.contains("stops before"), "{neither}");
        assert!(neither.contains("fits neither"), "{neither}");
    }

    #[test]
    fn no_write_tells_a_copy_from_a_base_case_by_the_calls() {
        let (_, solution) = seed_trace();
        let copy = |parts: &[String]| {
            judge(&campus(), 2, &CAMPUS, true, &CAMPUS, &trace(parts))
                .unwrap_err()
                .message
        };
        let once = copy(&[event(0), event(2)]);
        assert!(
            once.contains("and without calling itself ((row 0, col 1) is still empty): either it solved a copy"),
            "{once}"
        );
        assert!(
            once.contains("or its base case returns True while a cell is empty"),
            "{once}"
        );
        let searched = copy(&[event(0), event(0), event(0), event(2), event(2), event(2)]);
        assert!(
            searched.contains("though it called itself 2 time(s)")
                && searched.contains("most likely it solved a copy"),
            "{searched}"
        );
        assert!(!searched.contains("base case"), "{searched}");
        let _ = solution;
    }

    #[test]
    fn a_solve_that_gives_up_at_once_is_told_what_fit() {
        let (_, solution) = seed_trace();
        let mut case = campus();
        case.solution = Some(Board::from_cells(2, solution).expect("a board"));
        // Called once, no write, false: the untouched stub.
        let err = judge(
            &case,
            2,
            &CAMPUS,
            false,
            &CAMPUS,
            &trace(&[event(0), event(1)]),
        )
        .unwrap_err();
        assert_eq!(err.check, "solve.trace.at_once", "{err}");
        assert_eq!(
            err.finding.as_deref(),
            Some(&Finding::GaveUpAtOnce {
                empty: [0, 1],
                fits: 2,
                side: 4
            })
        );
        assert!(
            err.message.contains(
                "returned False without writing a digit and without calling itself, on a puzzle \
                 that has a solution (at (row 0, col 1), the first empty cell, the solution's 2 \
                 fits): what fits is a return before the digit loop"
            ),
            "{err}"
        );
        // Seen calling itself: it searched, so it is not said.
        let searched = [event(0), event(0), event(1), event(1)];
        assert!(judge(&case, 2, &CAMPUS, false, &CAMPUS, &trace(&searched)).is_ok());
        // A case without a known solution proves nothing.
        assert!(
            judge(
                &campus(),
                2,
                &CAMPUS,
                false,
                &CAMPUS,
                &trace(&[event(0), event(1)])
            )
            .is_ok()
        );
    }

    #[test]
    fn a_python_clear_after_success_is_named_as_such() {
        // The seed's search with calls, then the last cell cleared on the
        // way back before True is returned.
        let (mut parts, solution) = seed_trace();
        let returns = parts.iter().rev().take_while(|p| *p == &event(2)).count();
        parts.truncate(parts.len() - returns);
        parts.push(event(2));
        parts.push(write(3, 3, 1, 0, 8));
        for _ in 1..returns {
            parts.push(event(2));
        }
        let mut after = solution.clone();
        after[15] = 0;
        let err = judge(&campus(), 2, &CAMPUS, true, &after, &trace(&parts)).unwrap_err();
        assert_eq!(err.check, "solve.trace.cleared_solution", "{err}");
        assert!(
            err.message.contains("the board was complete after step 8"),
            "{err}"
        );
    }

    #[test]
    fn a_clear_after_a_false_on_the_complete_board_names_the_base_case() {
        // The seed's search, but the call on the complete board returns
        // false, and the last cell is cleared: a base case that did not
        // see the board was complete, not a clear after success.
        let solution = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];
        let empties: Vec<usize> = (0..16).filter(|&i| CAMPUS[i] == 0).collect();
        let mut parts = Vec::new();
        for (depth, &i) in empties.iter().enumerate() {
            parts.push(event(0));
            parts.push(write(
                (i / 4) as u8,
                (i % 4) as u8,
                0,
                solution[i],
                depth as u16 + 1,
            ));
        }
        parts.push(event(0));
        parts.push(event(1));
        // Every call clears its cell on the way back and returns false.
        for (depth, &i) in empties.iter().enumerate().rev() {
            parts.push(write(
                (i / 4) as u8,
                (i % 4) as u8,
                solution[i],
                0,
                depth as u16 + 1,
            ));
            parts.push(event(1));
        }
        let summary = judge(&campus(), 2, &CAMPUS, false, &CAMPUS, &trace(&parts));
        let hint = match summary {
            Ok(summary) => summary.hint.expect("a hint"),
            Err(err) => err,
        };
        assert!(
            hint.message.contains("the call on the complete board returned False: solve must return True when find_empty finds no empty cell"),
            "{}",
            hint.message
        );
        assert!(
            !hint.message.contains("return True at once"),
            "{}",
            hint.message
        );
    }

    #[test]
    fn a_false_without_a_write_where_a_digit_fits_is_a_hint_for_libraries() {
        // One empty cell, whose only digit is 4: solve is called and
        // returns false without a write.
        let solution = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];
        let mut puzzle = solution.to_vec();
        puzzle[12] = 0;
        let mut case = campus();
        case.puzzle = Board::from_cells(2, puzzle.clone()).expect("a board");
        let parts = [event(0), event(1)];
        let judged = |source| {
            judge(
                &case,
                2,
                &puzzle,
                false,
                &puzzle,
                &writes_only(&parts, source),
            )
            .expect("no rule broken")
            .hint
        };
        let hint = judged(TraceSource::WriteWatch).expect("a hint");
        assert_eq!(hint.check, "solve.trace.unwritten");
        assert!(
            hint.message.starts_with(
                "solve (depth 1) returned false at once without writing a digit, though every empty cell had a digit that fits ((row 3, col 0) could take 4): most likely your digit loop stops before 4"
            ),
            "{}",
            hint.message
        );
        // Python's messages are worded before legal's tests are known.
        assert_eq!(judged(TraceSource::Python), None);
    }

    #[test]
    fn returning_true_with_an_empty_cell_is_caught() {
        // The first cell is written, then solve returns true at once.
        let parts = [event(0), write(0, 1, 0, 2, 1), event(2)];
        let mut after = CAMPUS.to_vec();
        after[1] = 2;
        let err = judge(&campus(), 2, &CAMPUS, true, &after, &trace(&parts)).unwrap_err();
        assert_eq!(err.check, "solve.trace.true_with_empty");
        assert!(
            err.message.starts_with(
                "solve (depth 1) returned True after step 1 with (row 0, col 2) still empty:"
            ),
            "{}",
            err.message
        );
    }

    #[test]
    fn clearing_a_complete_board_is_a_hint() {
        let (parts, solution) = seed_trace();
        let writes: Vec<String> = parts
            .iter()
            .filter(|p| !p.starts_with("ff"))
            .cloned()
            .chain([write(3, 3, 1, 0, 0)])
            .collect();
        let mut after = solution.clone();
        after[15] = 0;
        let summary = judge(
            &campus(),
            2,
            &CAMPUS,
            true,
            &after,
            &writes_only(&writes, TraceSource::RustBoard),
        )
        .expect("no rule broken");
        let hint = summary.hint.expect("a hint");
        assert_eq!(hint.check, "solve.trace.cleared_solution");
        assert!(
            hint.message.starts_with(
                "step 9: the board was complete after step 8, but solve then cleared (row 3, col 3)"
            ),
            "{}",
            hint.message
        );
    }

    #[test]
    fn givens_and_malformed_traces_fail_without_panicking() {
        let err = judge(
            &campus(),
            2,
            &CAMPUS,
            true,
            &CAMPUS,
            &trace(&[write(0, 0, 1, 2, 1)]),
        )
        .unwrap_err();
        assert_eq!(err.check, "solve.trace.given");
        for records in [
            "abc",
            "zz0000000000",
            "ff0900000000",
            "ff0200000000",
            "090900000100",
        ] {
            let bad = WriteTrace {
                records: records.to_string(),
                capped: false,
                source: TraceSource::Python,
                stopped_deep: None,
            };
            let err = judge(&campus(), 2, &CAMPUS, true, &CAMPUS, &bad).unwrap_err();
            assert_eq!(err.check, "solve.trace", "{records}: {err}");
        }
    }
}
