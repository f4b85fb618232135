//! The write watch: runs a C ABI library's `solve` on a board that lives in
//! a page of its own, made read-only, so that every store to a cell traps;
//! each trapped store is let through with a single step and recorded as a
//! [`Trace`] record ([`RECORD_BYTES`] bytes: row, column, old value, new
//! value, depth as a little-endian `u16`; row 255 for a call, column 0, or
//! a return, column 1 for false, 2 for true, 3 for anything else). The
//! grader's worker calls [`solve_watched`] and hands the records to the
//! grader, whose replay (`grader`'s `check/trace.rs`) reads them.
//!
//! A crate of its own because it is a debugger inside the student's
//! process: x86-64 single-stepping, signal handlers and page protections,
//! nearly all of it `unsafe`, tested here on its own (each `unsafe fn` says
//! its contract under `# Safety`).
//!
//! Why: a C `solve` writes its board through a raw pointer, so there is no
//! `board[r][c] = v` to hook as in Python or the Rust lab crate. The memory
//! itself is the only place every write passes through.
//!
//! How, for one store:
//!
//! 1. the store faults (SIGSEGV, `si_addr` in the board page); the handler
//!    makes the page writable, snapshots the cells, sets the trap flag (TF)
//!    in the saved RFLAGS and returns, so the store runs again, once;
//! 2. right after it, the CPU traps (SIGTRAP, `TRAP_TRACE`); the handler
//!    diffs the cells against the snapshot, appends one record per changed
//!    cell (the clears of that instruction first, then the other changes,
//!    each in index order), clears TF and makes the page read-only again.
//!
//! A write of the value a cell already holds changes nothing and is not
//! recorded. Past `cap` writes the trace is marked capped, the page stays
//! writable and the watch stops, so a long search runs at full speed.
//!
//! The calls and returns of `solve` are followed too, where the library's
//! text segment can be made writable (else writes carry depth 0 and there
//! are no events): an int3 at `solve`'s entry records the call (depth =
//! active calls), remembers the entry stack pointer and puts an int3 at the
//! return address when it lies in the library's text; an int3 at such a
//! return site is a return when the stack pointer is 8 above the entry's
//! of an active call, with `al` the bool. After either the original byte
//! runs once, single-stepped, and the int3 goes back. Frames sharing an
//! entry stack pointer (tail calls) return together; frames skipped over
//! (a longjmp) return "anything else"; the outermost call returns to the
//! grader and is recorded after it. Only the thread that runs the watch is
//! followed: a breakpoint hit in another thread takes every int3 out and
//! stops the events (the trace then has calls without returns, which the
//! grader's replay does not check).
//!
//! Anything the watch does not recognise as its own (a fault elsewhere, a
//! second fault on the page it just made writable, a trap it did not ask
//! for) is handed back: the SIGSEGV or SIGTRAP disposition from before the
//! watch is restored and the signal happens again, so the process ends the
//! way an unwatched run would (for SIGSEGV that is the Rust runtime's
//! handler, which tells a stack overflow from any other bad access). The
//! student's code runs in this process and may install handlers, change
//! the page's protection or write around the watch: none of that can make
//! the watch loop or read outside its page; the grader judges the final
//! board anyway, and a trace that does not account for it is caught there.
//!
//! Linux x86-64 only; elsewhere, or when a step of the set-up fails, the
//! caller falls back to an untraced `solve` and the end-state checks.

pub mod foreign;

use sudoku_lab::Board;

/// `bool solve(uint8_t *board, size_t n)`.
pub type SolveFn = unsafe extern "C" fn(*mut u8, usize) -> bool;

/// Bytes per record of a [`Trace`].
pub const RECORD_BYTES: usize = 6;

/// What the watch recorded: the records, [`RECORD_BYTES`] each, in the
/// order the writes (and calls and returns) happened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// The records, back to back.
    pub records: Vec<u8>,
    /// More than the cap of writes happened: the rest were not recorded.
    pub capped: bool,
}

/// Runs `solve` on `board` under the watch, recording at most `cap` writes.
///
/// # Safety
/// `solve` must be the `solve` of a loaded C ABI library (or any function
/// of that type), and stay loaded for the call. The watch then contains
/// what the code does to its own board page and its signals; what else it
/// does is the caller's to confine (the grader calls this inside its box).
///
/// # Errors
/// Why the watch is not available here; `board` is untouched then and no
/// student code has run.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub unsafe fn solve_watched(
    solve: SolveFn,
    board: &mut Board,
    cap: usize,
    stop: Option<DeepStop>,
) -> Result<(bool, Trace), String> {
    // One watch at a time in this process: the handlers and their state are
    // process-wide.
    let _guard = imp::LOCK.lock().unwrap_or_else(|e| e.into_inner());
    imp::run(solve, board, cap, stop)
}

/// What the watch does when `solve` nests deeper than `depth` active
/// calls (a search that fills one cell a call never does; an endless
/// recursion would end in a stack overflow that loses the trace): instead
/// of that call, `then` runs, on the student's stack, with the board's
/// cells as they are, the trace so far (its last record that call) and the
/// depth reached. The watch's handlers are gone by then; the student's
/// frames below it are abandoned, so `then` must end the process.
/// Followed only where the calls are (see the module doc).
#[derive(Clone, Copy, Debug)]
pub struct DeepStop {
    /// The most active calls of `solve` let run.
    pub depth: usize,
    /// What ends the process in place of the next call.
    pub then: fn(&[u8], Trace, usize) -> !,
}

/// Runs `solve` on `board` under the watch, recording at most `cap` writes.
///
/// # Safety
/// As on Linux x86-64 (nothing is called here).
///
/// # Errors
/// Always here: the watch needs Linux on x86-64.
#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
pub unsafe fn solve_watched(
    solve: SolveFn,
    board: &mut Board,
    cap: usize,
    stop: Option<DeepStop>,
) -> Result<(bool, Trace), String> {
    let _ = (solve, board, cap, stop);
    Err("the write watch needs Linux on x86-64".to_string())
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod imp {
    use std::cell::UnsafeCell;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU8, AtomicUsize, Ordering};

    use sudoku_lab::Board;

    use super::{DeepStop, RECORD_BYTES, SolveFn, Trace};

    /// Serialises [`super::solve_watched`] calls.
    pub(super) static LOCK: Mutex<()> = Mutex::new(());

    /// The most cells a board has (n = 5: 25 x 25).
    const MAX_CELLS: usize = 625;
    /// Bytes per record.
    const RECORD: usize = RECORD_BYTES;
    /// The trap flag in RFLAGS.
    const TF: i64 = 0x100;
    /// `si_code` of a single-step trap (`TRAP_TRACE` in `<signal.h>`).
    const TRAP_TRACE: i32 = 2;
    /// The size of the signal stack the watch installs.
    const ALT_STACK: usize = 64 * 1024;
    /// The int3 instruction.
    const INT3: u8 = 0xCC;
    /// `si_code` of an int3 (the kernel sends it as `SI_KERNEL`).
    const SI_KERNEL: i32 = 0x80;
    /// `si_code` of a breakpoint (`TRAP_BRKPT`).
    const TRAP_BRKPT: i32 = 1;
    /// The most breakpoints: `solve`'s entry and the return sites of the
    /// calls of it.
    const MAX_BREAKPOINTS: usize = 64;
    /// The most active calls of `solve` followed.
    const MAX_FRAMES: usize = 1 << 14;
    /// Records of room per allowed write, for the calls and returns.
    const ROOM_PER_WRITE: usize = 3;

    /// No watch, or the watch stopped (capped, or handed a signal back).
    const OFF: u8 = 0;
    /// Watching: the page is read-only.
    const IDLE: u8 = 1;
    /// A handler is setting up a step.
    const BUSY: u8 = 2;
    /// One store is being let through: the page is writable and TF is set
    /// in the thread [`Watch::stepper`].
    const STEPPING: u8 = 3;

    /// What the handlers share with [`run`]. Everything is an atomic: a
    /// handler may run in any thread of the process (the student's code
    /// may start threads), and atomics are async-signal-safe.
    struct Watch {
        /// The board page's address (0: none).
        page: AtomicUsize,
        /// Its size.
        page_size: AtomicUsize,
        /// The cells on it: the board's first `cells` bytes.
        cells: AtomicUsize,
        /// The board's side (rows, columns).
        side: AtomicUsize,
        /// [`OFF`], [`IDLE`], [`BUSY`] or [`STEPPING`].
        state: AtomicU8,
        /// The thread that is stepping (its tid).
        stepper: AtomicI32,
        /// The cells before the stepped store.
        snapshot: [AtomicU8; MAX_CELLS],
        /// The record buffer, `capacity` records long, owned by [`run`].
        records: AtomicPtr<u8>,
        /// How many records fit (writes, calls and returns).
        capacity: AtomicUsize,
        /// How many are written.
        len: AtomicUsize,
        /// How many writes may be recorded (the cap).
        write_cap: AtomicUsize,
        /// How many are.
        writes: AtomicUsize,
        /// A write past the cap was seen, or the buffer was full: nothing
        /// more is recorded.
        capped: AtomicBool,
    }

    static WATCH: Watch = Watch {
        page: AtomicUsize::new(0),
        page_size: AtomicUsize::new(0),
        cells: AtomicUsize::new(0),
        side: AtomicUsize::new(0),
        state: AtomicU8::new(OFF),
        stepper: AtomicI32::new(0),
        snapshot: [const { AtomicU8::new(0) }; MAX_CELLS],
        records: AtomicPtr::new(std::ptr::null_mut()),
        capacity: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        write_cap: AtomicUsize::new(0),
        writes: AtomicUsize::new(0),
        capped: AtomicBool::new(false),
    };

    /// The calls and returns of `solve`, followed with breakpoints in one
    /// thread (the one that runs the watch; see [`run`]).
    struct Events {
        /// Following: the breakpoints are (being) put in place.
        on: AtomicBool,
        /// The thread followed.
        thread: AtomicI32,
        /// `solve`'s entry.
        entry: AtomicUsize,
        /// The library's text segment, `[lo, hi)`, writable while the watch
        /// runs.
        text: [AtomicUsize; 2],
        /// Breakpoint addresses (slot 0: the entry) and the bytes they
        /// replaced; the first `count` slots are used.
        at: [AtomicUsize; MAX_BREAKPOINTS],
        byte: [AtomicU8; MAX_BREAKPOINTS],
        count: AtomicUsize,
        /// The stack pointer at each active call's entry (where its return
        /// address is); `depth` are active.
        frames: [AtomicUsize; MAX_FRAMES],
        depth: AtomicUsize,
        /// A breakpoint being stepped over, to put back after the step.
        reinsert: AtomicUsize,
    }

    static EVENTS: Events = Events {
        on: AtomicBool::new(false),
        thread: AtomicI32::new(0),
        entry: AtomicUsize::new(0),
        text: [const { AtomicUsize::new(0) }; 2],
        at: [const { AtomicUsize::new(0) }; MAX_BREAKPOINTS],
        byte: [const { AtomicU8::new(0) }; MAX_BREAKPOINTS],
        count: AtomicUsize::new(0),
        frames: [const { AtomicUsize::new(0) }; MAX_FRAMES],
        depth: AtomicUsize::new(0),
        reinsert: AtomicUsize::new(0),
    };

    /// The [`DeepStop`] of the running watch: the depth (0: none), `then`
    /// as an address, and the depth reached when it fired.
    struct Stop {
        depth: AtomicUsize,
        then: AtomicUsize,
        reached: AtomicUsize,
    }

    static STOP: Stop = Stop {
        depth: AtomicUsize::new(0),
        then: AtomicUsize::new(0),
        reached: AtomicUsize::new(0),
    };

    /// The SIGSEGV and SIGTRAP dispositions from before the watch.
    struct Previous(UnsafeCell<[libc::sigaction; 2]>);

    // SAFETY: [`run`] writes the cell only while none of the watch's
    // handlers is installed (before it installs them, under [`LOCK`]); the
    // handlers and [`run`]'s restore only read it, while it is not written.
    unsafe impl Sync for Previous {}

    // SAFETY: an all-zero sigaction is a valid value (SIG_DFL, no flags,
    // empty mask); it is overwritten before any use.
    static PREVIOUS: Previous = Previous(UnsafeCell::new(unsafe { std::mem::zeroed() }));
    const SEGV: usize = 0;
    const TRAP: usize = 1;

    /// This thread's id (async-signal-safe: a bare system call).
    fn tid() -> i32 {
        // SAFETY: gettid takes no arguments and cannot fail.
        unsafe { libc::syscall(libc::SYS_gettid) as i32 }
    }

    /// Puts the disposition of `signal` from before the watch back.
    fn restore(signal: libc::c_int, which: usize) {
        // SAFETY: `PREVIOUS` holds the disposition read by sigaction before
        // the watch's were installed (see `Previous`); sigaction is
        // async-signal-safe.
        unsafe {
            let previous = PREVIOUS.0.get().cast::<libc::sigaction>().add(which);
            libc::sigaction(signal, previous, std::ptr::null_mut());
        }
    }

    /// `mprotect` of the board page; false when it failed.
    fn protect(page: usize, size: usize, prot: libc::c_int) -> bool {
        // SAFETY: `page` is the watch's own page-aligned mapping of `size`
        // bytes (or, if the student replaced it, whatever is mapped there:
        // mprotect then fails or changes that mapping, never memory safety
        // of ours).
        unsafe { libc::mprotect(page as *mut libc::c_void, size, prot) == 0 }
    }

    /// Sets or clears TF in the interrupted context's saved RFLAGS.
    ///
    /// # Safety
    /// `context` is the `ucontext_t` the kernel passed to an SA_SIGINFO
    /// handler that is running now.
    unsafe fn set_trap_flag(context: *mut libc::c_void, on: bool) {
        let context = context.cast::<libc::ucontext_t>();
        // SAFETY: per the contract, `context` points to the live ucontext of
        // this signal; REG_EFL indexes its RFLAGS slot.
        unsafe {
            let flags = &mut (*context).uc_mcontext.gregs[libc::REG_EFL as usize];
            if on {
                *flags |= TF;
            } else {
                *flags &= !TF;
            }
        }
    }

    /// Reads register `reg` (`REG_*`) of the interrupted context.
    ///
    /// # Safety
    /// As for [`set_trap_flag`].
    unsafe fn register(context: *mut libc::c_void, reg: libc::c_int) -> usize {
        // SAFETY: per the contract; `reg` is one of libc's REG_* indices.
        unsafe { (*context.cast::<libc::ucontext_t>()).uc_mcontext.gregs[reg as usize] as usize }
    }

    /// Sets the interrupted context's instruction pointer.
    ///
    /// # Safety
    /// As for [`set_trap_flag`].
    unsafe fn set_rip(context: *mut libc::c_void, rip: usize) {
        // SAFETY: per the contract.
        unsafe {
            (*context.cast::<libc::ucontext_t>()).uc_mcontext.gregs[libc::REG_RIP as usize] =
                rip as i64;
        }
    }

    /// Reads cell `i` of the page.
    ///
    /// # Safety
    /// The page is mapped and readable and `i < cells`.
    unsafe fn cell(page: usize, i: usize) -> u8 {
        // SAFETY: per the contract; a volatile read because other threads
        // of the student's may write the page.
        unsafe { std::ptr::read_volatile((page as *const u8).add(i)) }
    }

    /// The SIGSEGV handler (see the module doc).
    extern "C" fn on_segv(
        _signal: libc::c_int,
        info: *mut libc::siginfo_t,
        context: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler;
        // for SIGSEGV, si_addr is the faulting address.
        let addr = unsafe { (*info).si_addr() } as usize;
        let page = WATCH.page.load(Ordering::SeqCst);
        let size = WATCH.page_size.load(Ordering::SeqCst);
        if page == 0 || addr < page || addr - page >= size {
            return restore(libc::SIGSEGV, SEGV);
        }
        match WATCH
            .state
            .compare_exchange(IDLE, BUSY, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => {}
            // Another thread is setting up or stepping its store: the page
            // is (about to be) writable; retry the store.
            Err(BUSY) => return,
            Err(STEPPING) if WATCH.stepper.load(Ordering::SeqCst) != tid() => return,
            // A fault on the page this thread's store was let through on,
            // or after the watch stopped: not the watch's.
            Err(_) => return restore(libc::SIGSEGV, SEGV),
        }
        // Writable first: the student may have made the page unreadable.
        if !protect(page, size, libc::PROT_READ | libc::PROT_WRITE) {
            WATCH.state.store(OFF, Ordering::SeqCst);
            return restore(libc::SIGSEGV, SEGV);
        }
        let cells = WATCH.cells.load(Ordering::SeqCst).min(MAX_CELLS).min(size);
        for (i, slot) in WATCH.snapshot.iter().enumerate().take(cells) {
            // SAFETY: the page is mapped and readable (mprotect succeeded on
            // it) and `i < cells <= size`.
            slot.store(unsafe { cell(page, i) }, Ordering::Relaxed);
        }
        WATCH.stepper.store(tid(), Ordering::SeqCst);
        // SAFETY: `context` is this handler's ucontext.
        unsafe { set_trap_flag(context, true) };
        WATCH.state.store(STEPPING, Ordering::SeqCst);
    }

    /// The SIGTRAP handler: the end of a stepped store, a breakpoint of the
    /// watch's, or the end of a step over one (see the module doc).
    extern "C" fn on_trap(
        _signal: libc::c_int,
        info: *mut libc::siginfo_t,
        context: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
        let code = unsafe { (*info).si_code };
        let me = tid();
        if code == SI_KERNEL || code == TRAP_BRKPT {
            // SAFETY: `context` is this handler's ucontext.
            let at = unsafe { register(context, libc::REG_RIP) }.wrapping_sub(1);
            if let Some(slot) = breakpoint_at(at) {
                // SAFETY: as above.
                unsafe { breakpoint(context, slot, at, me) };
                return;
            }
        } else if code == TRAP_TRACE {
            let write = WATCH.state.load(Ordering::SeqCst) == STEPPING
                && WATCH.stepper.load(Ordering::SeqCst) == me;
            let reinsert = if EVENTS.thread.load(Ordering::SeqCst) == me {
                EVENTS.reinsert.swap(0, Ordering::SeqCst)
            } else {
                0
            };
            if write || reinsert != 0 {
                // SAFETY: as above.
                unsafe { set_trap_flag(context, false) };
                if reinsert != 0 {
                    arm(reinsert);
                }
                if write {
                    stepped();
                }
                return;
            }
        }
        // Not the watch's: the previous disposition takes it, as if the
        // watch were not there (a breakpoint or TF of the student's own,
        // unhandled, ends the process). The signal is blocked while this
        // handler runs, so it is delivered on return.
        restore(libc::SIGTRAP, TRAP);
        // SAFETY: tgkill to this very thread; integer arguments only.
        unsafe {
            libc::syscall(
                libc::SYS_tgkill,
                libc::getpid(),
                libc::c_long::from(me),
                libc::SIGTRAP,
            );
        }
    }

    /// The stepped store ran: records the cells it changed (clears first,
    /// then the other changes, each in index order) and makes the page
    /// read-only again, or leaves it writable for good once capped.
    fn stepped() {
        let page = WATCH.page.load(Ordering::SeqCst);
        let size = WATCH.page_size.load(Ordering::SeqCst);
        let cells = WATCH.cells.load(Ordering::SeqCst).min(MAX_CELLS).min(size);
        let side = WATCH.side.load(Ordering::SeqCst).max(1);
        for clears in [true, false] {
            for (i, slot) in WATCH.snapshot.iter().enumerate().take(cells) {
                let old = slot.load(Ordering::Relaxed);
                // SAFETY: the page was made readable and writable when the
                // step began; a student who unmapped it since gets the
                // fault, which SIGSEGV being blocked here turns fatal.
                let new = unsafe { cell(page, i) };
                if old == new || (new == 0 && old != 0) != clears {
                    continue;
                }
                append_write((i / side) as u8, (i % side) as u8, old, new);
            }
        }
        if WATCH.capped.load(Ordering::SeqCst) {
            // Stop watching: the page stays writable.
            WATCH.state.store(OFF, Ordering::SeqCst);
            events_off();
        } else if protect(page, size, libc::PROT_READ) {
            WATCH.state.store(IDLE, Ordering::SeqCst);
        } else {
            WATCH.state.store(OFF, Ordering::SeqCst);
        }
    }

    /// Appends one record; false (and the trace capped) when the buffer is
    /// full. Called by the followed or stepping thread's handlers, one at a
    /// time (the state machine), or by [`run`] after the call.
    fn append(record: [u8; RECORD]) -> bool {
        let len = WATCH.len.load(Ordering::SeqCst);
        let records = WATCH.records.load(Ordering::SeqCst);
        if len >= WATCH.capacity.load(Ordering::SeqCst) || records.is_null() {
            WATCH.capped.store(true, Ordering::SeqCst);
            return false;
        }
        // SAFETY: `records` is `run`'s buffer of `capacity * RECORD` bytes,
        // alive for the whole watch, and `len < capacity`.
        unsafe {
            std::ptr::copy_nonoverlapping(record.as_ptr(), records.add(len * RECORD), RECORD);
        }
        WATCH.len.store(len + 1, Ordering::SeqCst);
        true
    }

    /// Records a write at the current depth (0 when calls are not followed),
    /// or marks the trace capped past the cap.
    fn append_write(row: u8, col: u8, old: u8, new: u8) {
        if WATCH.capped.load(Ordering::SeqCst) {
            return;
        }
        let writes = WATCH.writes.load(Ordering::SeqCst);
        if writes >= WATCH.write_cap.load(Ordering::SeqCst) {
            WATCH.capped.store(true, Ordering::SeqCst);
            return;
        }
        let depth = if EVENTS.on.load(Ordering::SeqCst) {
            EVENTS.depth.load(Ordering::SeqCst)
        } else {
            0
        };
        let [lo, hi] = (depth.min(usize::from(u16::MAX)) as u16).to_le_bytes();
        if append([row, col, old, new, lo, hi]) {
            WATCH.writes.store(writes + 1, Ordering::SeqCst);
        }
    }

    /// Records a call (`kind` 0) or a return (1 false, 2 true, 3 anything
    /// else) with `depth` calls active after it; nothing once capped.
    fn append_event(kind: u8, depth: usize) {
        if WATCH.capped.load(Ordering::SeqCst) {
            return;
        }
        let [lo, hi] = (depth.min(usize::from(u16::MAX)) as u16).to_le_bytes();
        if !append([255, kind, 0, 0, lo, hi]) {
            events_off();
        }
    }

    /// The slot of the watch's breakpoint at `at`.
    fn breakpoint_at(at: usize) -> Option<usize> {
        let count = EVENTS.count.load(Ordering::SeqCst).min(MAX_BREAKPOINTS);
        (0..count).find(|&slot| EVENTS.at[slot].load(Ordering::SeqCst) == at)
    }

    /// The text byte at `at`, as an atomic (so that the stores of two
    /// threads' handlers are ordered with [`Events::on`]).
    ///
    /// # Safety
    /// `at` is inside the text segment [`run`] made writable, and it still
    /// is.
    unsafe fn text_byte<'a>(at: usize) -> &'a AtomicU8 {
        // SAFETY: per the contract; AtomicU8 has u8's layout.
        unsafe { &*(at as *const AtomicU8) }
    }

    /// Puts the int3 at `at` (a breakpoint slot's address) back, unless the
    /// calls stopped being followed meanwhile.
    fn arm(at: usize) {
        let Some(slot) = breakpoint_at(at) else {
            return;
        };
        // SAFETY: breakpoints are only ever set inside the writable text,
        // and every one is restored (by `events_off`) before the text is
        // made read-only again.
        let byte = unsafe { text_byte(at) };
        byte.store(INT3, Ordering::SeqCst);
        // If another thread turned the events off since the check, its
        // restore may have run before the store above: restore again.
        if !EVENTS.on.load(Ordering::SeqCst) {
            byte.store(EVENTS.byte[slot].load(Ordering::SeqCst), Ordering::SeqCst);
        }
    }

    /// Stops following calls: every breakpoint gets its byte back.
    fn events_off() {
        if !EVENTS.on.swap(false, Ordering::SeqCst) {
            return;
        }
        let count = EVENTS.count.load(Ordering::SeqCst).min(MAX_BREAKPOINTS);
        for slot in 0..count {
            let at = EVENTS.at[slot].load(Ordering::SeqCst);
            // SAFETY: as in `arm`.
            let byte = unsafe { text_byte(at) };
            byte.store(EVENTS.byte[slot].load(Ordering::SeqCst), Ordering::SeqCst);
        }
        EVENTS.reinsert.store(0, Ordering::SeqCst);
    }

    /// A breakpoint of the watch's was hit at `at` (slot `slot`): records
    /// the call or return, then lets the original instruction run once (it
    /// is stepped, and the int3 put back after it).
    ///
    /// # Safety
    /// `context` is the running SIGTRAP handler's ucontext.
    unsafe fn breakpoint(context: *mut libc::c_void, slot: usize, at: usize, me: i32) {
        if EVENTS.on.load(Ordering::SeqCst) && EVENTS.thread.load(Ordering::SeqCst) == me {
            if slot == 0 {
                // SAFETY: per the contract.
                if unsafe { called(context) } {
                    // Too deep: the handler returns into `stopped`, in
                    // place of this call of solve (its entry's stack is a
                    // function's entry's).
                    // SAFETY: per the contract.
                    unsafe { set_rip(context, stopped as extern "C" fn() -> ! as usize) };
                    return;
                }
            } else {
                // SAFETY: per the contract.
                unsafe { returned(context) };
            }
        } else {
            // Another thread (or a breakpoint left over): stop following.
            events_off();
        }
        // SAFETY: per the contract.
        unsafe { set_rip(context, at) };
        // SAFETY: as in `arm`.
        let byte = unsafe { text_byte(at) };
        byte.store(EVENTS.byte[slot].load(Ordering::SeqCst), Ordering::SeqCst);
        if EVENTS.on.load(Ordering::SeqCst) {
            EVENTS.reinsert.store(at, Ordering::SeqCst);
            // SAFETY: per the contract.
            unsafe { set_trap_flag(context, true) };
        }
    }

    /// `solve` was entered: records the call, pushes the frame, and puts a
    /// breakpoint at the return address if it is in the library's text.
    ///
    /// # Safety
    /// As for [`breakpoint`].
    unsafe fn called(context: *mut libc::c_void) -> bool {
        // SAFETY: per the contract.
        let rsp = unsafe { register(context, libc::REG_RSP) };
        let depth = EVENTS.depth.load(Ordering::SeqCst);
        if depth >= MAX_FRAMES {
            events_off();
            return false;
        }
        EVENTS.frames[depth].store(rsp, Ordering::SeqCst);
        EVENTS.depth.store(depth + 1, Ordering::SeqCst);
        append_event(0, depth + 1);
        let limit = STOP.depth.load(Ordering::SeqCst);
        if limit > 0 && depth + 1 > limit && STOP.then.load(Ordering::SeqCst) != 0 {
            STOP.reached.store(depth + 1, Ordering::SeqCst);
            events_off();
            WATCH.state.store(OFF, Ordering::SeqCst);
            return true;
        }
        // SAFETY: at a function's entry the stack pointer points at the
        // return address the call pushed (an entry reached some other way
        // with a bad stack would have faulted on its first push anyway).
        let back = unsafe { std::ptr::read_volatile(rsp as *const usize) };
        let (lo, hi) = (
            EVENTS.text[0].load(Ordering::SeqCst),
            EVENTS.text[1].load(Ordering::SeqCst),
        );
        if back == EVENTS.entry.load(Ordering::SeqCst)
            || !(lo..hi).contains(&back)
            || breakpoint_at(back).is_some()
        {
            return false;
        }
        let count = EVENTS.count.load(Ordering::SeqCst);
        if count >= MAX_BREAKPOINTS {
            events_off();
            return false;
        }
        // SAFETY: `back` is inside the writable text (checked above).
        let byte = unsafe { text_byte(back) };
        EVENTS.byte[count].store(byte.load(Ordering::SeqCst), Ordering::SeqCst);
        EVENTS.at[count].store(back, Ordering::SeqCst);
        EVENTS.count.store(count + 1, Ordering::SeqCst);
        arm(back);
        false
    }

    /// A return site was reached: a return of the frame whose entry stack
    /// pointer is 8 below the stack pointer now (else a jump, ignored).
    /// Frames above it left unseen (a longjmp) return "anything else";
    /// frames that share its entry stack pointer (tail calls) return with
    /// it. The value is `al`.
    ///
    /// # Safety
    /// As for [`breakpoint`].
    unsafe fn returned(context: *mut libc::c_void) {
        // SAFETY: per the contract.
        let (rsp, rax) = unsafe {
            (
                register(context, libc::REG_RSP),
                register(context, libc::REG_RAX),
            )
        };
        let depth = EVENTS.depth.load(Ordering::SeqCst).min(MAX_FRAMES);
        let Some(frame) = (0..depth)
            .rev()
            .find(|&i| EVENTS.frames[i].load(Ordering::SeqCst).wrapping_add(8) == rsp)
        else {
            return;
        };
        let kind = match rax & 0xff {
            0 => 1,
            1 => 2,
            _ => 3,
        };
        let mut depth = depth;
        while depth > frame + 1 {
            depth -= 1;
            append_event(3, depth);
        }
        let entry_rsp = rsp.wrapping_sub(8);
        while depth > 0 && EVENTS.frames[depth - 1].load(Ordering::SeqCst) == entry_rsp {
            depth -= 1;
            append_event(kind, depth);
        }
        EVENTS.depth.store(depth, Ordering::SeqCst);
    }

    /// An anonymous private mapping, unmapped on drop.
    struct Mapping {
        addr: *mut libc::c_void,
        len: usize,
    }

    impl Mapping {
        fn new(len: usize) -> Result<Mapping, String> {
            // SAFETY: a fresh anonymous mapping; no existing memory is
            // touched.
            let addr = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if addr == libc::MAP_FAILED {
                return Err(format!("mmap: {}", std::io::Error::last_os_error()));
            }
            Ok(Mapping { addr, len })
        }
    }

    impl Drop for Mapping {
        fn drop(&mut self) {
            // SAFETY: our own mapping (or whatever the student mapped over
            // it: then munmap removes that, which nothing of ours uses).
            unsafe { libc::munmap(self.addr, self.len) };
        }
    }

    /// Installs `handler` for `signal` (SA_SIGINFO | SA_ONSTACK, every
    /// signal blocked while it runs), saving the previous disposition.
    fn install(
        signal: libc::c_int,
        which: usize,
        handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void),
    ) -> Result<(), String> {
        // SAFETY: a zeroed sigaction is valid (see `PREVIOUS`).
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = handler as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        // SAFETY: `sa_mask` is a valid sigset_t inside `action`; the
        // previous disposition goes to `PREVIOUS`, which no handler of the
        // watch reads yet (this runs before they are installed, under
        // `LOCK`); the handler is async-signal-safe.
        let ret = unsafe {
            libc::sigfillset(&mut action.sa_mask);
            let previous = PREVIOUS.0.get().cast::<libc::sigaction>().add(which);
            libc::sigaction(signal, &action, previous)
        };
        if ret != 0 {
            return Err(format!("sigaction: {}", std::io::Error::last_os_error()));
        }
        Ok(())
    }

    /// The signal stack the watch installs, and the one it replaced.
    struct AltStack {
        _memory: Mapping,
        previous: libc::stack_t,
    }

    impl AltStack {
        fn install() -> Result<AltStack, String> {
            let memory = Mapping::new(ALT_STACK)?;
            let stack = libc::stack_t {
                ss_sp: memory.addr,
                ss_flags: 0,
                ss_size: ALT_STACK,
            };
            // SAFETY: a zeroed stack_t is a valid out-value.
            let mut previous: libc::stack_t = unsafe { std::mem::zeroed() };
            // SAFETY: `stack` describes `memory`, which lives as long as the
            // returned value, whose drop puts `previous` back first.
            if unsafe { libc::sigaltstack(&stack, &mut previous) } != 0 {
                return Err(format!("sigaltstack: {}", std::io::Error::last_os_error()));
            }
            Ok(AltStack {
                _memory: memory,
                previous,
            })
        }
    }

    impl Drop for AltStack {
        fn drop(&mut self) {
            let mut previous = self.previous;
            if previous.ss_flags & libc::SS_ONSTACK != 0 {
                // Not a flag sigaltstack accepts on input.
                previous.ss_flags &= !libc::SS_ONSTACK;
            }
            // SAFETY: puts back the stack this thread had (or disables it);
            // no handler is running on ours now.
            unsafe { libc::sigaltstack(&previous, std::ptr::null_mut()) };
        }
    }

    /// The library's executable segment, made writable for the breakpoints
    /// while the watch runs; on drop every breakpoint is taken out and the
    /// segment gets its protection back.
    struct Text {
        /// Page-aligned start and length of the pages made writable.
        pages: (usize, usize),
        /// Their protection before.
        prot: libc::c_int,
    }

    impl Text {
        /// Finds the loaded object's executable segment that holds `entry`
        /// and makes its pages writable as well. `None` when there is no
        /// such segment, when its pages are shared with another segment
        /// (changing their protection would change that one's), or when
        /// mprotect refuses.
        fn open(entry: usize, page_size: usize) -> Option<(Text, usize, usize)> {
            struct Search {
                entry: usize,
                page_size: usize,
                found: Option<(usize, usize, libc::c_int)>,
                shared: bool,
            }
            unsafe extern "C" fn each(
                info: *mut libc::dl_phdr_info,
                _size: libc::size_t,
                data: *mut libc::c_void,
            ) -> libc::c_int {
                // SAFETY: `data` is the `Search` passed below, alive and not
                // otherwise borrowed during the call; `info` is the loader's
                // valid description of one object, with `dlpi_phnum` headers.
                let (search, info) = unsafe { (&mut *data.cast::<Search>(), &*info) };
                let page = search.page_size;
                let headers: Vec<libc::Elf64_Phdr> = (0..usize::from(info.dlpi_phnum))
                    // SAFETY: as above: `i < dlpi_phnum`.
                    .map(|i| unsafe { *info.dlpi_phdr.add(i) })
                    .filter(|h| h.p_type == libc::PT_LOAD)
                    .collect();
                let span = |h: &libc::Elf64_Phdr| {
                    let lo = (info.dlpi_addr as usize).wrapping_add(h.p_vaddr as usize);
                    (lo, lo.wrapping_add(h.p_memsz as usize))
                };
                let Some(text) = headers.iter().find(|h| {
                    let (lo, hi) = span(h);
                    h.p_flags & libc::PF_X != 0 && (lo..hi).contains(&search.entry)
                }) else {
                    return 0;
                };
                let (lo, hi) = span(text);
                let (first, last) = (lo / page * page, hi.div_ceil(page) * page);
                search.shared = headers.iter().any(|h| {
                    let (l, h) = span(h);
                    (l, h) != (lo, hi) && l / page * page < last && h.div_ceil(page) * page > first
                });
                let mut prot = 0;
                for (flag, p) in [
                    (libc::PF_R, libc::PROT_READ),
                    (libc::PF_W, libc::PROT_WRITE),
                    (libc::PF_X, libc::PROT_EXEC),
                ] {
                    if text.p_flags & flag != 0 {
                        prot |= p;
                    }
                }
                search.found = Some((lo, hi, prot));
                1
            }
            let mut search = Search {
                entry,
                page_size,
                found: None,
                shared: false,
            };
            // SAFETY: `each` matches the callback type and only uses
            // `search` through the pointer, during the call.
            unsafe { libc::dl_iterate_phdr(Some(each), (&raw mut search).cast()) };
            let (lo, hi, prot) = search.found.filter(|_| !search.shared)?;
            let first = lo / page_size * page_size;
            let len = hi.div_ceil(page_size) * page_size - first;
            let writable = prot | libc::PROT_READ | libc::PROT_WRITE | libc::PROT_EXEC;
            protect(first, len, writable).then_some((
                Text {
                    pages: (first, len),
                    prot,
                },
                lo,
                hi,
            ))
        }
    }

    impl Drop for Text {
        fn drop(&mut self) {
            events_off();
            protect(self.pages.0, self.pages.1, self.prot);
        }
    }

    /// Where a call too deep goes instead of `solve` (see [`DeepStop`]):
    /// puts the signal dispositions back, then hands the board and the
    /// trace so far to `then`, which ends the process.
    extern "C" fn stopped() -> ! {
        restore(libc::SIGTRAP, TRAP);
        restore(libc::SIGSEGV, SEGV);
        let page = WATCH.page.load(Ordering::SeqCst);
        let cells = WATCH.cells.load(Ordering::SeqCst);
        let len = WATCH
            .len
            .load(Ordering::SeqCst)
            .min(WATCH.capacity.load(Ordering::SeqCst));
        let records = WATCH.records.load(Ordering::SeqCst);
        // SAFETY: `run` is still running below the student's frames, so the
        // board page (read-only, `cells` bytes) and the record mapping
        // (`len` records written) it owns are both mapped.
        let (board, written) = unsafe {
            (
                std::slice::from_raw_parts(page as *const u8, cells),
                match records.is_null() {
                    true => &[][..],
                    false => std::slice::from_raw_parts(records, len * RECORD),
                },
            )
        };
        let trace = Trace {
            records: written.to_vec(),
            capped: WATCH.capped.load(Ordering::SeqCst),
        };
        // SAFETY: `run` stored a `fn(&[u8], Trace, usize) -> !` here.
        let then = unsafe {
            std::mem::transmute::<usize, fn(&[u8], Trace, usize) -> !>(
                STOP.then.load(Ordering::SeqCst),
            )
        };
        then(board, trace, STOP.reached.load(Ordering::SeqCst))
    }

    /// [`super::solve_watched`] without the lock, for a caller that holds it
    /// (or a forked child, where nobody else can).
    pub(super) fn run(
        solve: SolveFn,
        board: &mut Board,
        cap: usize,
        stop: Option<DeepStop>,
    ) -> Result<(bool, Trace), String> {
        let n = board.n();
        let side = board.side();
        let cells = board.cells().len();
        // SAFETY: sysconf with a constant name.
        let page_size = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
            .ok()
            .filter(|&size| size >= cells && size > 0)
            .ok_or("the page size is unknown or smaller than the board")?;
        if cells > MAX_CELLS {
            return Err(format!(
                "a board of {cells} cells is larger than the watch's"
            ));
        }
        let capacity = cap.saturating_mul(ROOM_PER_WRITE).saturating_add(16);
        let bytes = capacity
            .checked_mul(RECORD)
            .ok_or("the trace cap is too large")?;
        // Mapped, not allocated: pages are zeroed lazily, only as records
        // reach them, and a failure is an error, not an abort.
        let records = match bytes {
            0 => None,
            _ => {
                Some(Mapping::new(bytes).map_err(|err| format!("no memory for the trace: {err}"))?)
            }
        };
        let records_ptr = records
            .as_ref()
            .map_or(std::ptr::null_mut(), |m| m.addr.cast::<u8>());

        let page = Mapping::new(page_size)?;
        let base = page.addr as usize;
        // SAFETY: the page is ours, writable and at least `cells` bytes.
        unsafe { std::ptr::copy_nonoverlapping(board.cells().as_ptr(), page.addr.cast(), cells) };
        if !protect(base, page_size, libc::PROT_READ) {
            return Err(format!("mprotect: {}", std::io::Error::last_os_error()));
        }

        WATCH.state.store(OFF, Ordering::SeqCst);
        WATCH.page.store(base, Ordering::SeqCst);
        WATCH.page_size.store(page_size, Ordering::SeqCst);
        WATCH.cells.store(cells, Ordering::SeqCst);
        WATCH.side.store(side, Ordering::SeqCst);
        WATCH.stepper.store(0, Ordering::SeqCst);
        WATCH.records.store(records_ptr, Ordering::SeqCst);
        WATCH.capacity.store(capacity, Ordering::SeqCst);
        WATCH.len.store(0, Ordering::SeqCst);
        WATCH.write_cap.store(cap, Ordering::SeqCst);
        WATCH.writes.store(0, Ordering::SeqCst);
        WATCH.capped.store(false, Ordering::SeqCst);

        let entry = solve as usize;
        EVENTS.on.store(false, Ordering::SeqCst);
        EVENTS.thread.store(tid(), Ordering::SeqCst);
        EVENTS.entry.store(entry, Ordering::SeqCst);
        EVENTS.count.store(0, Ordering::SeqCst);
        EVENTS.depth.store(0, Ordering::SeqCst);
        EVENTS.reinsert.store(0, Ordering::SeqCst);
        STOP.depth
            .store(stop.map_or(0, |s| s.depth.max(1)), Ordering::SeqCst);
        STOP.then
            .store(stop.map_or(0, |s| s.then as usize), Ordering::SeqCst);
        STOP.reached.store(0, Ordering::SeqCst);

        let stack = AltStack::install()?;
        install(libc::SIGSEGV, SEGV, on_segv)?;
        if let Err(err) = install(libc::SIGTRAP, TRAP, on_trap) {
            restore(libc::SIGSEGV, SEGV);
            return Err(err);
        }
        // The calls and returns, where the text can be made writable: a
        // breakpoint at the entry (the handlers are in place).
        let text = Text::open(entry, page_size).map(|(text, lo, hi)| {
            EVENTS.text[0].store(lo, Ordering::SeqCst);
            EVENTS.text[1].store(hi, Ordering::SeqCst);
            // SAFETY: `entry` is inside the text segment just made writable.
            let byte = unsafe { text_byte(entry) };
            EVENTS.byte[0].store(byte.load(Ordering::SeqCst), Ordering::SeqCst);
            EVENTS.at[0].store(entry, Ordering::SeqCst);
            EVENTS.count.store(1, Ordering::SeqCst);
            EVENTS.on.store(true, Ordering::SeqCst);
            arm(entry);
            text
        });
        WATCH.state.store(IDLE, Ordering::SeqCst);

        // SAFETY: student code: `page` holds the board's n^4 cells (in a
        // page of its own) for the whole call, as the ABI requires; the
        // function pointer is valid while the caller's library is loaded,
        // and has `solve`'s C signature (a bool is its low byte).
        let solved =
            unsafe { super::foreign::call(solve as usize, [page.addr as usize, n, 0, 0, 0]) } as u8
                != 0;

        WATCH.state.store(OFF, Ordering::SeqCst);
        let followed = EVENTS.on.load(Ordering::SeqCst);
        drop(text);
        restore(libc::SIGTRAP, TRAP);
        restore(libc::SIGSEGV, SEGV);
        drop(stack);
        WATCH.page.store(0, Ordering::SeqCst);
        // Readable again, whatever the student did to it; if that fails the
        // page is gone (unmapped by the student) and the board stays as it
        // was given.
        if protect(base, page_size, libc::PROT_READ) {
            // SAFETY: the page is mapped and readable and holds `cells`
            // bytes.
            let after = unsafe { std::slice::from_raw_parts(page.addr.cast::<u8>(), cells) };
            board.cells_mut().copy_from_slice(after);
        }
        drop(page);
        if followed {
            // The outermost call returns to the grader, where no breakpoint
            // is: its return (and that of its tail calls, and "anything
            // else" for frames left unseen above them) is recorded here.
            let mut depth = EVENTS.depth.load(Ordering::SeqCst).min(MAX_FRAMES);
            let outer = EVENTS.frames[0].load(Ordering::SeqCst);
            while depth > 0 {
                depth -= 1;
                let kind = match EVENTS.frames[depth].load(Ordering::SeqCst) == outer {
                    true => 1 + u8::from(solved),
                    false => 3,
                };
                append_event(kind, depth);
            }
        }
        EVENTS.depth.store(0, Ordering::SeqCst);
        WATCH.records.store(std::ptr::null_mut(), Ordering::SeqCst);

        let len = WATCH.len.load(Ordering::SeqCst).min(capacity);
        let capped = WATCH.capped.load(Ordering::SeqCst);
        let written: &[u8] = match &records {
            // SAFETY: the handlers wrote `len <= capacity` records into the
            // mapping of `capacity * RECORD` bytes; none runs any more.
            Some(m) => unsafe { std::slice::from_raw_parts(m.addr.cast::<u8>(), len * RECORD) },
            None => &[],
        };
        Ok((
            solved,
            Trace {
                records: written.to_vec(),
                capped,
            },
        ))
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use std::path::Path;
    use std::process::Command;

    use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
    use sudoku_lab::Board;

    use super::{RECORD_BYTES, SolveFn, Trace, imp};

    /// One test at a time: a test that forks ([`in_child`]) while another
    /// thread is inside `dlopen` or `dlclose` (building or dropping a
    /// library) gives its child the loader's lock held for good, and the
    /// watch's `dl_iterate_phdr` in the child then waits forever.
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn serial() -> std::sync::MutexGuard<'static, ()> {
        SERIAL.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The lab listing in C, the correct fixture every grading test uses.
    const LISTING: &str = include_str!("../../../submissions/c-listing.c");

    /// The listing without the clear after a dead branch (a bug fixture).
    const NO_CLEAR: &str = include_str!("../../../submissions/bug-no-clear.c");

    /// The includes the test variants need beyond the lab header.
    const EXTRA_INCLUDES: &str =
        "#include <string.h>\n#include <sys/mman.h>\n#include <emmintrin.h>\n";

    /// The listing's `legal` and `find_empty` (the fixture up to its
    /// `solve`), for variants that bring their own `solve`.
    fn helpers() -> &'static str {
        let end = LISTING
            .find("\nbool solve(")
            .expect("c-listing.c defines solve");
        &LISTING[..end]
    }

    /// The campus board of the lab's handout: solved without backtracking.
    const CAMPUS: [u8; 16] = [1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0];
    const CAMPUS_SOLVED: [u8; 16] = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];
    /// A 4x4 board on which the listing backtracks once.
    const BACKTRACK: [u8; 16] = [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 4];
    const BACKTRACK_SOLVED: [u8; 16] = [4, 2, 1, 3, 1, 3, 4, 2, 2, 4, 3, 1, 3, 1, 2, 4];

    /// A test library: built, loaded as the worker loads it, and its
    /// `solve` resolved for [`super::solve_watched`].
    struct Built {
        solve: SolveFn,
        _raw: Library,
        _dir: tempfile::TempDir,
    }

    /// Compiles the listing's helpers + `solve_source` into a shared
    /// library and loads it.
    fn build(solve_source: &str) -> Built {
        build_source(&format!("{}\n{solve_source}", helpers()))
    }

    /// Compiles a whole C source (with the lab header on the include path
    /// and the test variants' extra includes) and loads it.
    fn build_source(whole_source: &str) -> Built {
        let dir = tempfile::tempdir().expect("temp dir");
        let source = dir.path().join("sudoku.c");
        std::fs::write(&source, format!("{EXTRA_INCLUDES}{whole_source}")).expect("write source");
        let so = dir.path().join("libsudoku.so");
        let include = concat!(env!("CARGO_MANIFEST_DIR"), "/../../lab/include");
        let output = Command::new("cc")
            .args(["-shared", "-fPIC", "-O2", "-std=gnu11", "-I", include, "-o"])
            .arg(&so)
            .arg(&source)
            .output()
            .expect("cc runs");
        assert!(
            output.status.success(),
            "cc failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let (raw, solve) = resolve(&so);
        Built {
            solve,
            _raw: raw,
            _dir: dir,
        }
    }

    /// `solve` of the library at `so` (loaded again: the same handle).
    fn resolve(so: &Path) -> (Library, SolveFn) {
        // SAFETY: a library this test just built; its constructors are
        // the compiler's.
        let raw = unsafe { Library::open(Some(so), RTLD_NOW | RTLD_LOCAL) }.expect("opens");
        // SAFETY: `solve` has the ABI's type; the pointer is used only
        // while `raw` (kept in `Built`) is loaded.
        let solve = *unsafe { raw.get::<SolveFn>(b"solve") }.expect("has solve");
        (raw, solve)
    }

    /// One decoded write: (row, col, old, new), after checking depth 0.
    type Write = (u8, u8, u8, u8);

    /// One decoded record: `(row, col, old, new, depth)`, row 255 for a
    /// call (col 0) or a return (col 1 false, 2 true, 3 other).
    type Record = (u8, u8, u8, u8, u16);

    fn decode_all(trace: &Trace) -> Vec<Record> {
        assert_eq!(trace.records.len() % RECORD_BYTES, 0, "whole records");
        trace
            .records
            .chunks_exact(RECORD_BYTES)
            .map(|r| (r[0], r[1], r[2], r[3], u16::from_le_bytes([r[4], r[5]])))
            .collect()
    }

    /// The writes of a trace, without their depths.
    fn decode(trace: &Trace) -> Vec<Write> {
        decode_all(trace)
            .into_iter()
            .filter(|r| r.0 != 255)
            .map(|(r, c, old, new, _)| (r, c, old, new))
            .collect()
    }

    /// Replays `writes` on `start` (side 4), checking each `old`.
    fn replay(start: &[u8], writes: &[Write]) -> Vec<u8> {
        let mut cells = start.to_vec();
        for (step, &(r, c, old, new)) in writes.iter().enumerate() {
            let i = usize::from(r) * 4 + usize::from(c);
            assert_eq!(cells[i], old, "step {step}: old value");
            assert_ne!(old, new, "step {step}: a write that changes nothing");
            cells[i] = new;
        }
        cells
    }

    /// Runs `built`'s solve under the watch (holding the watch's lock).
    fn watched(built: &Built, cells: &[u8], cap: usize) -> (bool, Vec<u8>, Vec<Write>, bool) {
        let mut board = Board::from_cells_unchecked_values(2, cells.to_vec()).expect("board");
        // SAFETY: `built` keeps the library that `solve` is from loaded.
        let (solved, trace) =
            unsafe { super::solve_watched(built.solve, &mut board, cap, None) }.expect("watch");
        let writes = decode(&trace);
        (solved, board.into_cells(), writes, trace.capped)
    }

    /// The writes of the listing on `board` with (`clear`) or without the
    /// clear after a dead branch, as the C code makes them.
    fn expected(board: [u8; 16], clear: bool) -> Vec<Write> {
        fn go(b: &mut [u8; 16], clear: bool, out: &mut Vec<Write>) -> bool {
            let Some(i) = b.iter().position(|&v| v == 0) else {
                return true;
            };
            let (r, c) = (i / 4, i % 4);
            for v in 1..=4u8 {
                let legal = (0..4).all(|k| b[r * 4 + k] != v && b[k * 4 + c] != v)
                    && (0..4).all(|k| b[(r / 2 * 2 + k / 2) * 4 + c / 2 * 2 + k % 2] != v);
                if legal {
                    out.push((r as u8, c as u8, b[i], v));
                    b[i] = v;
                    if go(b, clear, out) {
                        return true;
                    }
                    if clear {
                        out.push((r as u8, c as u8, v, 0));
                        b[i] = 0;
                    }
                }
            }
            false
        }
        let mut b = board;
        let mut out = Vec::new();
        go(&mut b, clear, &mut out);
        out
    }

    /// The full trace of the listing (with or without the clear) on
    /// `board`: calls, writes and returns with their depths.
    fn expected_records(board: [u8; 16], clear: bool) -> Vec<Record> {
        fn go(b: &mut [u8; 16], clear: bool, depth: u16, out: &mut Vec<Record>) -> bool {
            out.push((255, 0, 0, 0, depth));
            let result = 'call: {
                let Some(i) = b.iter().position(|&v| v == 0) else {
                    break 'call true;
                };
                let (r, c) = (i / 4, i % 4);
                for v in 1..=4u8 {
                    let legal = (0..4).all(|k| b[r * 4 + k] != v && b[k * 4 + c] != v)
                        && (0..4).all(|k| b[(r / 2 * 2 + k / 2) * 4 + c / 2 * 2 + k % 2] != v);
                    if legal {
                        out.push((r as u8, c as u8, b[i], v, depth));
                        b[i] = v;
                        if go(b, clear, depth + 1, out) {
                            break 'call true;
                        }
                        if clear {
                            out.push((r as u8, c as u8, v, 0, depth));
                            b[i] = 0;
                        }
                    }
                }
                false
            };
            out.push((255, 1 + u8::from(result), 0, 0, depth - 1));
            result
        }
        let mut b = board;
        let mut out = Vec::new();
        go(&mut b, clear, 1, &mut out);
        out
    }

    fn watched_records(built: &Built, cells: &[u8], cap: usize) -> (bool, Vec<u8>, Vec<Record>) {
        let mut board = Board::from_cells_unchecked_values(2, cells.to_vec()).expect("board");
        // SAFETY: `built` keeps the library that `solve` is from loaded.
        let (solved, trace) =
            unsafe { super::solve_watched(built.solve, &mut board, cap, None) }.expect("watch");
        (solved, board.into_cells(), decode_all(&trace))
    }

    #[test]
    fn calls_and_returns_of_solve_are_recorded_with_depths() {
        let _serial = serial();
        let built = build_source(LISTING);
        let (solved, _, records) = watched_records(&built, &BACKTRACK, 1000);
        assert!(solved);
        assert_eq!(records, expected_records(BACKTRACK, true));
        let (_, _, records) = watched_records(&built, &CAMPUS, 1000);
        assert_eq!(records, expected_records(CAMPUS, true));
        // An unsolvable board: every call returns false.
        let dead = [0, 0, 0, 0, 0, 3, 0, 0, 1, 2, 0, 0, 4, 0, 0, 0];
        let (solved, after, records) = watched_records(&built, &dead, 1000);
        assert!(!solved);
        assert_eq!(after, dead);
        assert_eq!(records, expected_records(dead, true));
        assert!(records.iter().any(|r| r.0 == 255 && r.1 == 1 && r.4 > 0));
        let built = build_source(NO_CLEAR);
        let (solved, _, records) = watched_records(&built, &dead, 1000);
        assert!(!solved);
        assert_eq!(records, expected_records(dead, false));
    }

    #[test]
    fn tail_calls_return_together() {
        let _serial = serial();
        // The recursive call through a volatile pointer, with no local whose
        // address escapes, compiles to an indirect jump (`jmp *`): a sibling
        // call. Every call shares the outermost return address.
        let built = build(
            r#"
static const uint8_t solved4[16] = {1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1};
bool solve(uint8_t *board, size_t n) {
    size_t i = 0;
    while (i < 16 && board[i] != 0) {
        i++;
    }
    if (i == 16) {
        return true;
    }
    board[i] = solved4[i];
    bool (*volatile next)(uint8_t *, size_t) = solve;
    return next(board, n);
}
"#,
        );
        let (solved, after, records) = watched_records(&built, &CAMPUS, 1000);
        assert!(solved);
        assert_eq!(after, CAMPUS_SOLVED);
        assert_eq!(records, expected_records(CAMPUS, true));
    }

    #[test]
    fn listing_on_the_campus_board_writes_eight_digits_in_reading_order() {
        let _serial = serial();
        let built = build_source(LISTING);
        let (solved, after, writes, capped) = watched(&built, &CAMPUS, 1000);
        assert!(solved);
        assert!(!capped);
        assert_eq!(after, CAMPUS_SOLVED);
        assert_eq!(writes.len(), 8);
        let empties: Vec<usize> = (0..16).filter(|&i| CAMPUS[i] == 0).collect();
        for (&(r, c, old, new), &i) in writes.iter().zip(&empties) {
            assert_eq!((usize::from(r), usize::from(c)), (i / 4, i % 4));
            assert_eq!((old, new), (0, CAMPUS_SOLVED[i]));
        }
        assert_eq!(writes, expected(CAMPUS, true));
        assert_eq!(replay(&CAMPUS, &writes), after);
    }

    #[test]
    fn a_dead_branch_left_on_the_board_shows_as_an_overwrite() {
        let _serial = serial();
        let built = build_source(NO_CLEAR);
        let (solved, after, writes, capped) = watched(&built, &BACKTRACK, 1000);
        assert!(solved && !capped);
        assert_eq!(after, BACKTRACK_SOLVED);
        assert_eq!(writes, expected(BACKTRACK, false));
        assert!(writes.iter().all(|w| w.3 != 0), "no clears");
        assert!(writes.contains(&(1, 2, 2, 4)), "the overwrite: {writes:?}");
        assert_eq!(replay(&BACKTRACK, &writes), after);
    }

    #[test]
    fn one_store_that_changes_several_cells_records_its_clears_first() {
        let _serial = serial();
        // One 16-byte SSE store over the campus board.
        let built = build(
            r#"
bool solve(uint8_t *board, size_t n) {
    (void)n;
    static const uint8_t next[16] = {0, 2, 0, 4, 3, 0, 1, 0, 2, 0, 0, 3, 0, 3, 2, 1};
    _mm_storeu_si128((__m128i *)board, _mm_loadu_si128((const __m128i *)next));
    return true;
}
"#,
        );
        let next = [0, 2, 0, 4, 3, 0, 1, 0, 2, 0, 0, 3, 0, 3, 2, 1];
        let (solved, after, writes, _) = watched(&built, &CAMPUS, 1000);
        assert!(solved);
        assert_eq!(after, next);
        // Clears: index 0 (1) and 5 (4); then the others in index order.
        assert_eq!(
            writes,
            vec![
                (0, 0, 1, 0),
                (1, 1, 4, 0),
                (0, 1, 0, 2),
                (1, 0, 0, 3),
                (3, 3, 0, 1)
            ]
        );
    }

    #[test]
    fn memset_and_memcpy_are_recorded_cell_by_cell() {
        let _serial = serial();
        let built = build(
            r#"
static const uint8_t solved4[16] = {1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1};
bool solve(uint8_t *board, size_t n) {
    memset(board, 0, n * n * n * n);
    memcpy(board, solved4, n * n * n * n);
    return true;
}
"#,
        );
        let (solved, after, writes, _) = watched(&built, &CAMPUS, 1000);
        assert!(solved);
        assert_eq!(after, CAMPUS_SOLVED);
        let clears: Vec<Write> = (0..16)
            .filter(|&i| CAMPUS[i] != 0)
            .map(|i| ((i / 4) as u8, (i % 4) as u8, CAMPUS[i], 0))
            .collect();
        let fills: Vec<Write> = (0..16)
            .map(|i| ((i / 4) as u8, (i % 4) as u8, 0, CAMPUS_SOLVED[i]))
            .collect();
        assert_eq!(writes, [clears, fills].concat());
    }

    #[test]
    fn a_solve_that_writes_nothing_has_an_empty_trace() {
        let _serial = serial();
        let built =
            build("bool solve(uint8_t *board, size_t n) { (void)board; (void)n; return true; }");
        let (solved, after, writes, capped) = watched(&built, &CAMPUS, 1000);
        assert!(solved && !capped);
        assert_eq!(after, CAMPUS);
        assert!(writes.is_empty());
    }

    #[test]
    fn rewriting_a_cell_with_its_own_value_is_not_a_write() {
        let _serial = serial();
        let built = build(
            r#"
bool solve(uint8_t *board, size_t n) {
    (void)n;
    volatile uint8_t *b = board;
    b[0] = b[0];
    b[1] = 2;
    b[1] = 2;
    return false;
}
"#,
        );
        let (solved, after, writes, _) = watched(&built, &CAMPUS, 1000);
        assert!(!solved);
        assert_eq!(writes, vec![(0, 1, 0, 2)]);
        assert_eq!(replay(&CAMPUS, &writes), after);
    }

    #[test]
    fn the_cap_stops_the_trace_not_the_search() {
        let _serial = serial();
        let built = build_source(LISTING);
        let (solved, after, writes, capped) = watched(&built, &CAMPUS, 3);
        assert!(solved && capped);
        assert_eq!(after, CAMPUS_SOLVED);
        assert_eq!(writes, expected(CAMPUS, true)[..3]);
        // Exactly at the cap is not capped.
        let (_, _, writes, capped) = watched(&built, &CAMPUS, 8);
        assert_eq!(writes.len(), 8);
        assert!(!capped);
        let (solved, after, writes, capped) = watched(&built, &CAMPUS, 0);
        assert!(solved && capped && writes.is_empty());
        assert_eq!(after, CAMPUS_SOLVED);
    }

    #[test]
    fn writes_around_the_watch_are_not_recorded_and_do_not_hang() {
        let _serial = serial();
        // The student makes the page writable, then unreadable, itself.
        let built = build(
            r#"
bool solve(uint8_t *board, size_t n) {
    (void)n;
    volatile uint8_t *b = board;
    void *page = (void *)((uintptr_t)board & ~(uintptr_t)4095);
    b[1] = 2;
    mprotect(page, 4096, PROT_READ | PROT_WRITE);
    b[2] = 3;
    mprotect(page, 4096, PROT_NONE);
    b[4] = 3;
    mprotect(page, 4096, PROT_READ);
    return true;
}
"#,
        );
        let (solved, after, writes, capped) = watched(&built, &CAMPUS, 1000);
        assert!(solved && !capped);
        let mut want = CAMPUS;
        want[1] = 2;
        want[2] = 3;
        want[4] = 3;
        assert_eq!(after, want);
        // b[2] went around the watch; b[4] on a PROT_NONE page still traps.
        assert_eq!(writes, vec![(0, 1, 0, 2), (1, 0, 0, 3)]);
    }

    /// Runs `f` in a forked child (holding the watch's lock across the
    /// fork, so the child starts with no watch under way) and returns its
    /// wait status.
    fn in_child(f: impl FnOnce()) -> libc::c_int {
        let _guard = imp::LOCK.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the child only runs `f` (which calls the watch without its
        // lock: the parent holds it) and `_exit`s; glibc keeps malloc usable
        // after fork.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork");
        if pid == 0 {
            let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_ok();
            // SAFETY: ends the child without running the parent's atexit
            // handlers or destructors.
            unsafe { libc::_exit(if ok { 0 } else { 101 }) };
        }
        let mut status = 0;
        // SAFETY: waits for our own child; `status` is writable.
        let got = unsafe { libc::waitpid(pid, &mut status, 0) };
        assert_eq!(got, pid);
        status
    }

    fn run_in_child(built: &Built, cells: &'static [u8], watch: bool) -> libc::c_int {
        let solve = built.solve;
        in_child(move || {
            let mut board = Board::from_cells_unchecked_values(2, cells.to_vec()).expect("board");
            if watch {
                let _ = imp::run(solve, &mut board, 1000, None);
            } else {
                // SAFETY: the board's cells, writable, for the call.
                unsafe { solve(board.cells_mut().as_mut_ptr(), 2) };
            }
        })
    }

    fn signal_of(status: libc::c_int) -> Option<libc::c_int> {
        libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status))
    }

    #[test]
    fn a_null_pointer_write_dies_of_sigsegv() {
        let _serial = serial();
        let built = build(
            r#"
bool solve(uint8_t *board, size_t n) {
    board[1] = 2;
    volatile uint8_t *null = (volatile uint8_t *)(uintptr_t)(n - 2);
    *null = 1;
    return true;
}
"#,
        );
        assert_eq!(
            signal_of(run_in_child(&built, &CAMPUS, true)),
            Some(libc::SIGSEGV)
        );
        assert_eq!(
            signal_of(run_in_child(&built, &CAMPUS, false)),
            Some(libc::SIGSEGV)
        );
        // The control: the same child without the fault exits normally.
        let fine = build_source(LISTING);
        assert_eq!(run_in_child(&fine, &CAMPUS, true), 0);
    }

    #[test]
    fn a_stack_overflow_ends_as_it_does_unwatched() {
        let _serial = serial();
        let built = build(
            r#"
bool solve(uint8_t *board, size_t n) {
    /* Small frames, each touched: the recursion meets the stack's guard
     * page (larger frames could step over it, and where the fault lands
     * would depend on the caller's depth). */
    volatile uint8_t frame[64];
    for (size_t i = 0; i < sizeof frame; i++) {
        frame[i] = board[0];
    }
    board[1] = 2;
    board[1] = 0;
    bool deeper = solve(board, n);
    return deeper && frame[n] == 0;
}
"#,
        );
        let unwatched = signal_of(run_in_child(&built, &CAMPUS, false));
        let watched = signal_of(run_in_child(&built, &CAMPUS, true));
        // The Rust runtime's handler (the previous disposition) reports the
        // overflow and aborts, watched or not.
        assert_eq!(unwatched, Some(libc::SIGABRT), "the control");
        assert_eq!(watched, unwatched);
    }

    /// The [`super::DeepStop`] of the test below: exits 40 + the depth
    /// reached when the trace ends with that call, holds its one write (a
    /// write of the value a cell holds is none) and a call a depth, and the
    /// board holds the write.
    fn stopped_here(board: &[u8], trace: Trace, depth: usize) -> ! {
        let records = decode_all(&trace);
        let last_is_the_call = records.last() == Some(&(255, 0, 0, 0, depth as u16));
        let writes = records.iter().filter(|r| r.0 != 255).count();
        let calls = records.iter().filter(|r| r.0 == 255 && r.1 == 0).count();
        let ok = last_is_the_call && writes == 1 && calls == depth && board[1] == 2;
        // SAFETY: ends this forked child at once.
        unsafe { libc::_exit(if ok { 40 + depth as i32 } else { 1 }) }
    }

    #[test]
    fn a_recursion_deeper_than_the_stop_ends_with_its_trace() {
        let _serial = serial();
        // Writes at another cell than the empty one (a wrong index), then
        // recurses: endless, and a stack overflow unwatched.
        let built = build(
            r#"
bool solve(uint8_t *board, size_t n) {
    volatile uint8_t frame[64];
    for (size_t i = 0; i < sizeof frame; i++) {
        frame[i] = board[0];
    }
    board[1] = 2;
    bool deeper = solve(board, n);
    return deeper && frame[n] == 0;
}
"#,
        );
        let solve = built.solve;
        let status = in_child(move || {
            let mut board = Board::from_cells_unchecked_values(2, CAMPUS.to_vec()).expect("board");
            let stop = super::DeepStop {
                depth: 5,
                then: stopped_here,
            };
            let _ = imp::run(solve, &mut board, 1000, Some(stop));
        });
        assert!(libc::WIFEXITED(status), "{status}");
        assert_eq!(libc::WEXITSTATUS(status), 46, "the stop fired at depth 6");
        // A search within the depth runs to its end as without a stop.
        let fine = build_source(LISTING);
        let status = in_child(move || {
            let mut board = Board::from_cells_unchecked_values(2, CAMPUS.to_vec()).expect("board");
            let stop = super::DeepStop {
                depth: 9,
                then: stopped_here,
            };
            let (solved, _) = imp::run(fine.solve, &mut board, 1000, Some(stop)).expect("watch");
            assert!(solved);
        });
        assert_eq!(status, 0);
    }

    #[test]
    fn a_trap_flag_of_the_students_own_ends_the_process() {
        let _serial = serial();
        let built = build(
            r#"
bool solve(uint8_t *board, size_t n) {
    board[1] = 2;
    __asm__ volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq\n\tnop" ::: "memory", "cc");
    board[2] = 3;
    (void)n;
    return true;
}
"#,
        );
        assert_eq!(
            signal_of(run_in_child(&built, &CAMPUS, false)),
            Some(libc::SIGTRAP)
        );
        assert_eq!(
            signal_of(run_in_child(&built, &CAMPUS, true)),
            Some(libc::SIGTRAP)
        );
    }
}
