//! A student's shared library, loaded with `dlopen` and wrapped as a
//! [`Sudoku`](sudoku_lab::Sudoku): the only place where the test child calls student code. All the
//! `unsafe` of loading and calling lives here.

use std::cell::RefCell;
use std::path::Path;
use sudoku_reference::BoardRules;

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW, Symbol};
use sudoku_lab::{ABI_VERSION, Board, Sudoku};

use crate::check::trace::{TRACE_CAP, WATCH_CAP};
use crate::check::{Probe, ProbeError, Response, WriteTrace};
use crate::protocol::{LoaderRefusal, WorkerMessage};

/// `bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v)`.
type LegalFn = unsafe extern "C" fn(*const u8, usize, usize, usize, u8) -> bool;
/// `bool find_empty(const uint8_t *board, size_t n, size_t *r, size_t *c)`.
type FindEmptyFn = unsafe extern "C" fn(*const u8, usize, *mut usize, *mut usize) -> bool;
/// `bool solve(uint8_t *board, size_t n)`.
type SolveFn = unsafe extern "C" fn(*mut u8, usize) -> bool;
/// `uint32_t sudoku_solve_traced(uint8_t *board, size_t n, uint8_t *records,
/// size_t capacity, size_t *len)`, exported by the Rust lab crate's
/// `export_c_abi!` (see `sudoku_lab::ffi::solve_traced`).
type SolveTracedFn = unsafe extern "C" fn(*mut u8, usize, *mut u8, usize, *mut usize) -> u32;
/// `uint32_t sudoku_abi_version(void)`.
type VersionFn = unsafe extern "C" fn() -> u32;

// Every call of a student's function goes through the calls below: on
// x86-64 through `grader_watch::foreign::call`, a frame without unwind
// tables, so that a panic or exception in the library never walks into the
// grader's frames (see that module); a `bool` is the low byte returned.

/// Calls a library's `legal`.
///
/// # Safety
/// `legal` is a loaded library's `legal`; `board` points at the n^4 cells.
unsafe fn call_legal(
    legal: LegalFn,
    board: *const u8,
    n: usize,
    r: usize,
    c: usize,
    v: u8,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's contract; `legal` has the C signature named.
    return unsafe {
        grader_watch::foreign::call(legal as usize, [board as usize, n, r, c, usize::from(v)])
    } as u8
        != 0;
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract.
    return unsafe { legal(board, n, r, c, v) };
}

/// Calls a library's `find_empty`.
///
/// # Safety
/// As [`call_legal`]; `r` and `c` are writable.
unsafe fn call_find_empty(
    find_empty: FindEmptyFn,
    board: *const u8,
    n: usize,
    r: *mut usize,
    c: *mut usize,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's contract; `find_empty` has the C signature named.
    return unsafe {
        grader_watch::foreign::call(
            find_empty as usize,
            [board as usize, n, r as usize, c as usize, 0],
        )
    } as u8
        != 0;
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract.
    return unsafe { find_empty(board, n, r, c) };
}

/// Calls a library's `solve`.
///
/// # Safety
/// `solve` is a loaded library's `solve`; `board` points at the n^4
/// writable cells.
unsafe fn call_solve(solve: SolveFn, board: *mut u8, n: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's contract; `solve` has the C signature named.
    return unsafe { grader_watch::foreign::call(solve as usize, [board as usize, n, 0, 0, 0]) }
        as u8
        != 0;
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract.
    return unsafe { solve(board, n) };
}

/// Calls the Rust lab crate's recording `solve`.
///
/// # Safety
/// As [`call_solve`]; `records` has room for `capacity` records and `len`
/// is writable.
unsafe fn call_solve_traced(
    traced: SolveTracedFn,
    board: *mut u8,
    n: usize,
    records: *mut u8,
    capacity: usize,
    len: *mut usize,
) -> u32 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's contract; `traced` has the C signature named.
    return unsafe {
        grader_watch::foreign::call(
            traced as usize,
            [board as usize, n, records as usize, capacity, len as usize],
        )
    } as u32;
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract.
    return unsafe { traced(board, n, records, capacity, len) };
}

/// Calls a library's `sudoku_abi_version`.
///
/// # Safety
/// `version` is a loaded library's `sudoku_abi_version`.
unsafe fn call_version(version: VersionFn) -> u32 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's contract; it takes no arguments.
    return unsafe { grader_watch::foreign::call(version as usize, [0; 5]) } as u32;
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract.
    return unsafe { version() };
}

/// A loaded library with the lab's C ABI. The function pointers are only
/// valid while `_library` is loaded, which is as long as this value lives.
pub struct CLibrary {
    legal: LegalFn,
    find_empty: FindEmptyFn,
    solve: SolveFn,
    /// The Rust lab crate's recording `solve`, if the library has one.
    solve_traced: Option<SolveTracedFn>,
    /// A copy of the board for `legal` and `find_empty`, which take a
    /// `const` pointer that a careless student may still write through.
    scratch: RefCell<Vec<u8>>,
    /// Keeps the code mapped; dropped last.
    _library: Library,
}

impl CLibrary {
    /// Loads `path` (running its load-time constructors) and resolves the
    /// three functions; checks `sudoku_abi_version` if the library has it.
    /// `display` is the name used in messages.
    ///
    /// # Errors
    /// A message for the student: the loader's error, a missing symbol, or
    /// a wrong ABI version.
    pub fn load(path: &Path, display: &Path) -> Result<CLibrary, LoadFailed> {
        // SAFETY: loading runs the library's constructors: arbitrary student
        // code, which is why the test child confines itself before this call.
        // RTLD_NOW makes an unresolved reference a load error, not a crash
        // in the middle of a test.
        let library = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }
            .map_err(|err| load_failure(&err, path, display))?;
        // SAFETY: each type matches the lab's C header (sudoku_lab.h); the
        // pointers are copied out but used only while `library` lives in
        // the returned value.
        let legal = *unsafe { symbol::<LegalFn>(&library, "legal") }.map_err(LoadFailed::said)?;
        // SAFETY: as above.
        let find_empty =
            *unsafe { symbol::<FindEmptyFn>(&library, "find_empty") }.map_err(LoadFailed::said)?;
        // SAFETY: as above.
        let solve = *unsafe { symbol::<SolveFn>(&library, "solve") }.map_err(LoadFailed::said)?;
        // SAFETY: as above; the optional version function takes no arguments.
        if let Ok(version) = unsafe { library.get::<VersionFn>("sudoku_abi_version") } {
            // SAFETY: the symbol has the header's type; calling it runs
            // student code, already confined.
            let found = unsafe { call_version(*version) };
            if found != ABI_VERSION {
                return Err(LoadFailed::said(format!(
                    "the library's `sudoku_abi_version` returns {found}, but the grader speaks version {ABI_VERSION}: rebuild it against this lab's header or crate"
                )));
            }
        }
        // SAFETY: as above; the type is the lab crate's `sudoku_solve_traced`.
        let solve_traced = unsafe { library.get::<SolveTracedFn>("sudoku_solve_traced") }
            .ok()
            .map(|symbol| *symbol);
        Ok(CLibrary {
            legal,
            find_empty,
            solve,
            solve_traced,
            scratch: RefCell::new(Vec::new()),
            _library: library,
        })
    }

    /// `grader check`'s experiment: makes the library's own calls of
    /// `legal` call the grader's instead (see [`super::interpose`]), for
    /// a test of boxes of side `n`; `file` is the library's file, read to
    /// find the slots. The grader's tests of `legal` still call the
    /// student's (`self.legal`, resolved before).
    ///
    /// # Errors
    /// Why it is not possible (no PLT slot for `legal`, not x86-64 Linux).
    pub(crate) fn stand_in_legal(&self, file: &Path, n: usize) -> Result<usize, String> {
        super::interpose::redirect_legal(file, self.legal as usize, n)
    }

    /// Copies `board`'s cells into the scratch buffer and returns a pointer
    /// to them.
    fn scratch_copy(&self, board: &Board) -> std::cell::RefMut<'_, Vec<u8>> {
        let mut scratch = self.scratch.borrow_mut();
        scratch.clear();
        scratch.extend_from_slice(board.cells());
        scratch
    }
}

/// The longest part of the loader's own message kept (it quotes names
/// from the student's file).
const REASON_CAP: usize = 400;

/// The longest function name a refusal carries.
const NAME_CAP: usize = 60;

/// The loader's reasons that mean the file is no shared library for this
/// machine (glibc's words, `dlerror`).
const NOT_A_LIBRARY: [&str; 6] = [
    "invalid ELF header",
    "wrong ELF class",
    "file too short",
    "only ET_DYN and ET_EXEC can be loaded",
    "cannot dynamically load position-independent executable",
    "ELF file OS ABI invalid",
];

/// Why a library did not load: the words for the student, and, when the
/// loader refused it, what it refused, told apart here, once, from the
/// loader's own reason (the report words a hint from that, never from the
/// message).
#[derive(Debug)]
pub struct LoadFailed {
    /// The message for the student.
    pub message: String,
    /// What the loader refused, when it did.
    pub refusal: Option<LoaderRefusal>,
}

impl std::fmt::Display for LoadFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl LoadFailed {
    /// A load error that is no refusal of the loader's.
    fn said(message: String) -> LoadFailed {
        LoadFailed {
            message,
            refusal: None,
        }
    }

    /// The protocol line that tells it.
    pub fn into_message(self) -> WorkerMessage {
        WorkerMessage::LoadError {
            message: self.message,
            refusal: self.refusal,
            module_line: None,
            missing_module: None,
        }
    }
}

/// The message of a failed `dlopen`: the loader's own reason first
/// (`undefined symbol: sqrt`, `invalid ELF header`), without the path it
/// was loaded by (the box's, or `/proc/self/fd/N`), so the student reads
/// what the loader found; what it refused goes beside it as data.
fn load_failure(err: &libloading::Error, path: &Path, display: &Path) -> LoadFailed {
    // libloading's own words are "dlopen failed"; the loader's (dlerror)
    // are its source.
    let Some(source) = std::error::Error::source(err) else {
        return LoadFailed::said(format!(
            "cannot load your library: the loader failed and gave no reason ({err})"
        ));
    };
    let said = source.to_string();
    let reason = said
        .strip_prefix(&format!("{}: ", path.display()))
        .or_else(|| said.strip_prefix(&format!("{}: ", display.display())))
        .unwrap_or(&said);
    let reason: String = reason.chars().take(REASON_CAP).collect();
    LoadFailed {
        refusal: refusal(&reason),
        message: format!("cannot load your library: {reason}"),
    }
}

/// What the loader's `reason` says it refused, if it is one of the
/// refusals a hint explains.
fn refusal(reason: &str) -> Option<LoaderRefusal> {
    if let Some(rest) = reason.split("undefined symbol: ").nth(1) {
        let name = rest.split([' ', ',', '(']).next().unwrap_or("");
        let plain = name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.' || ch == '@');
        return (!name.is_empty() && name.len() <= NAME_CAP && plain).then(|| {
            LoaderRefusal::UndefinedSymbol {
                name: name.to_string(),
            }
        });
    }
    NOT_A_LIBRARY
        .iter()
        .any(|words| reason.contains(words))
        .then_some(LoaderRefusal::NotALibrary)
}

/// Resolves `name` in `library`, with a message naming the symbol if it is
/// missing.
///
/// # Safety
/// `T` must be the symbol's real type.
unsafe fn symbol<T>(library: &Library, name: &str) -> Result<Symbol<T>, String> {
    // SAFETY: the caller promises `T` is the symbol's type.
    unsafe { library.get::<T>(name) }.map_err(|_| {
        format!(
            "the library has no symbol `{name}`: export it with `#[no_mangle] extern \"C\"` (Rust) or check its spelling (C)"
        )
    })
}

impl Sudoku for CLibrary {
    fn legal(&self, board: &Board, r: usize, c: usize, v: u8) -> bool {
        let scratch = self.scratch_copy(board);
        // SAFETY: `scratch` holds the board's n^4 cells for the whole call,
        // as the ABI requires; the function pointer is valid while
        // `self._library` is loaded.
        super::crash::student_call(|| unsafe {
            call_legal(self.legal, scratch.as_ptr(), board.n(), r, c, v)
        })
    }

    fn find_empty(&self, board: &Board) -> Option<(usize, usize)> {
        let scratch = self.scratch_copy(board);
        let (mut r, mut c) = (usize::MAX, usize::MAX);
        // SAFETY: as in `legal`; `r` and `c` are writable locals.
        let found = super::crash::student_call(|| unsafe {
            call_find_empty(self.find_empty, scratch.as_ptr(), board.n(), &mut r, &mut c)
        });
        found.then_some((r, c))
    }

    fn solve(&self, board: &mut Board) -> bool {
        let n = board.n();
        let cells = board.cells_mut();
        // SAFETY: `cells` is the board's n^4 writable bytes, borrowed
        // mutably for the whole call; any byte value is a valid u8.
        super::crash::student_call(|| unsafe { call_solve(self.solve, cells.as_mut_ptr(), n) })
    }
}

/// Runs a `solve` probe with its writes recorded: through the Rust lab
/// crate's recording board when the library exports one, else under the
/// write watch (C, or any `.so`). `None` for the trace when neither could
/// record (the test is still run, untraced, and judged by its end state).
///
/// # Errors
/// [`ProbeError`] for a malformed probe board; no student code ran then.
pub fn solve_traced(
    library: &CLibrary,
    n: usize,
    cells: &[u8],
) -> Result<(Response, Option<WriteTrace>), ProbeError> {
    let probe = Probe::Solve {
        n,
        board: cells.to_vec(),
    };
    let mut board = Board::from_cells(n, cells.to_vec())
        .map_err(|reason| ProbeError::Board { index: 0, reason })?;
    let (solved, trace) = match library.solve_traced {
        Some(traced) => recorded_solve(traced, &mut board),
        None => {
            let stop = grader_watch::DeepStop {
                depth: deepest_search(&board),
                then: stopped_too_deep,
            };
            // SAFETY: `library.solve` is the loaded library's `solve`, and
            // `library` keeps it loaded for the call.
            let watched = super::crash::student_call(|| unsafe {
                grader_watch::solve_watched(library.solve, &mut board, WATCH_CAP, Some(stop))
            });
            match watched {
                Ok((solved, trace)) => (solved, Some(watched_trace(&trace))),
                Err(_) => return crate::check::execute(library, &probe).map(|r| (r, None)),
            }
        }
    };
    Ok((
        Response::Solve {
            solved,
            board: board.into_cells(),
        },
        trace,
    ))
}

/// The write watch's records as the protocol carries a trace: hex, six
/// bytes a record (see `crate::check::trace`).
fn watched_trace(trace: &grader_watch::Trace) -> WriteTrace {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut records = String::with_capacity(trace.records.len() * 2);
    for &byte in &trace.records {
        records.push(char::from(HEX[usize::from(byte >> 4)]));
        records.push(char::from(HEX[usize::from(byte & 15)]));
    }
    WriteTrace {
        records,
        capped: trace.capped,
        source: crate::check::TraceSource::WriteWatch,
        stopped_deep: None,
    }
}

/// The most nested calls of `solve` the watch lets run on `board`: a
/// search that fills one cell a call needs one more than the empty cells;
/// this allows a call a digit at each, more than any search the lab
/// teaches and far less than a stack holds.
fn deepest_search(board: &Board) -> usize {
    (board.empty_cells().count() + 1) * board.side() + 1
}

/// The watch's [`grader_watch::DeepStop`]: `solve` nested deeper than
/// [`deepest_search`], an endless recursion whose stack overflow would lose
/// the trace. Reports the trace so far, marked with the depth, and the
/// board as it is (with `false`: solve never returned) as the test's
/// answer, and ends the test. Only `grader check`'s traced run gets here;
/// its verdict stays the untraced run's.
fn stopped_too_deep(cells: &[u8], trace: grader_watch::Trace, depth: usize) -> ! {
    let mut trace = watched_trace(&trace);
    trace.stopped_deep = Some(u32::try_from(depth).unwrap_or(u32::MAX));
    super::channel::send(&crate::protocol::WorkerMessage::Trace { trace });
    super::channel::send(&crate::protocol::WorkerMessage::Done {
        response: Response::Solve {
            solved: false,
            board: cells.to_vec(),
        },
        time_ms: 0.0,
    });
    super::sys::exit_now(0)
}

/// Calls the Rust lab crate's recording `solve` on `board`.
fn recorded_solve(traced: SolveTracedFn, board: &mut Board) -> (bool, Option<WriteTrace>) {
    const RECORD: usize = 6;
    let mut records = vec![0u8; TRACE_CAP * RECORD];
    let mut len = 0usize;
    let n = board.n();
    let cells = board.cells_mut();
    // SAFETY: `cells` is the board's n^4 writable bytes, `records` has
    // `TRACE_CAP` records of room and `len` is a writable local, all for the
    // whole call; the function pointer is valid while the library is loaded.
    let status = super::crash::student_call(|| unsafe {
        call_solve_traced(
            traced,
            cells.as_mut_ptr(),
            n,
            records.as_mut_ptr(),
            TRACE_CAP,
            &mut len,
        )
    });
    let solved = status & sudoku_lab::ffi::TRACED_SOLVED != 0;
    if status & sudoku_lab::ffi::TRACED_UNRECORDED != 0 || len > records.len() {
        return (solved, None);
    }
    records.truncate(len);
    let trace = WriteTrace {
        records: records.iter().map(|b| format!("{b:02x}")).collect(),
        capped: status & sudoku_lab::ffi::TRACED_CAPPED != 0,
        source: crate::check::TraceSource::RustBoard,
        stopped_deep: None,
    };
    (solved, Some(trace))
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use std::process::Command;

    /// A 4x4 board on which the listing backtracks once, and its solution.
    const BACKTRACK: [u8; 16] = [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 4];
    const BACKTRACK_SOLVED: [u8; 16] = [4, 2, 1, 3, 1, 3, 4, 2, 2, 4, 3, 1, 3, 1, 2, 4];

    /// The worker's own path for a C library without a recording `solve`:
    /// loaded as a worker loads it, `solve` run under the write watch
    /// (`crates/watch`), the records handed on as the protocol's hex trace,
    /// which replays from the board given to the board left.
    #[test]
    fn the_worker_path_traces_through_the_watch() {
        let dir = tempfile::tempdir().expect("temp dir");
        let so = dir.path().join("libsudoku.so");
        let output = Command::new("cc")
            .args(["-shared", "-fPIC", "-O2", "-std=gnu11", "-I"])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/lab/include"))
            .arg("-o")
            .arg(&so)
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/submissions/c-listing.c"
            ))
            .output()
            .expect("cc runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let library = CLibrary::load(&so, &so).expect("loads");
        let (response, trace) = solve_traced(&library, 2, &BACKTRACK).expect("ok");
        assert_eq!(
            response,
            Response::Solve {
                solved: true,
                board: BACKTRACK_SOLVED.to_vec()
            }
        );
        let trace = trace.expect("a trace");
        assert_eq!(trace.source, crate::check::TraceSource::WriteWatch);
        assert!(!trace.capped);
        let bytes: Vec<u8> = (0..trace.records.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&trace.records[i..i + 2], 16).expect("hex"))
            .collect();
        assert_eq!(bytes.len() % grader_watch::RECORD_BYTES, 0, "whole records");
        let mut cells = BACKTRACK;
        let mut clears = 0;
        for record in bytes.chunks_exact(grader_watch::RECORD_BYTES) {
            let [row, col, old, new, ..] = *record else {
                unreachable!("six bytes")
            };
            if row == 255 {
                continue; // a call or a return
            }
            let i = usize::from(row) * 4 + usize::from(col);
            assert_eq!(cells[i], old, "{record:?}");
            cells[i] = new;
            clears += usize::from(new == 0);
        }
        assert_eq!(cells, BACKTRACK_SOLVED);
        assert!(clears > 0, "the listing clears once on this board");
    }

    /// A load failure leads with the loader's reason, without the path it
    /// was loaded by.
    #[test]
    fn a_load_failure_says_the_loaders_reason() {
        let dir = tempfile::tempdir().expect("temp dir");
        let source = dir.path().join("calls.c");
        std::fs::write(
            &source,
            "double nowhere_to_be_found(double);\ndouble twice(double x) { return 2 * nowhere_to_be_found(x); }\n",
        )
        .expect("write");
        let so = dir.path().join("lib.so");
        let output = Command::new("cc")
            .args(["-shared", "-fPIC", "-O2", "-o"])
            .arg(&so)
            .arg(&source)
            .output()
            .expect("cc runs");
        assert!(output.status.success(), "{output:?}");
        let Err(failed) = CLibrary::load(&so, &so) else {
            panic!("loads without its symbol")
        };
        assert_eq!(
            failed.message,
            "cannot load your library: undefined symbol: nowhere_to_be_found"
        );
        assert_eq!(
            failed.refusal,
            Some(LoaderRefusal::UndefinedSymbol {
                name: "nowhere_to_be_found".into()
            })
        );
        let text = dir.path().join("text.so");
        std::fs::write(&text, "not a library at all, just some text\n".repeat(40)).expect("write");
        let Err(failed) = CLibrary::load(&text, &text) else {
            panic!("text loads")
        };
        assert_eq!(
            failed.message,
            "cannot load your library: invalid ELF header"
        );
        assert_eq!(failed.refusal, Some(LoaderRefusal::NotALibrary));
        // A name that is no symbol's, or another reason: no refusal.
        assert_eq!(refusal("undefined symbol: a\u{1b}[2J"), None);
        assert_eq!(refusal("cannot open shared object file"), None);
    }
}
