//! Calls into a student's library through a frame that no unwinder walks
//! past: [`call`].
//!
//! Why: code in the library may start an unwind (a Rust panic, a C++
//! exception). The unwinder then walks the stack up from the student's
//! frames, and on every frame of ours that it finds unwind tables for it
//! calls our personality routine with its own context. When the grader is
//! linked with an unwinder of its own (the portable build links LLVM's
//! libunwind statically, while the student's library uses the system's
//! libgcc_s), that routine reads the other unwinder's context as its own
//! and the process dies with SIGSEGV in the grader's code: a panic became
//! "your code jumped into the grader's test program". The call below
//! passes through a few instructions without unwind tables, so the walk
//! ends there ("end of stack") whoever links what: a Rust panic then
//! aborts with its message printed, as it does under any host.
//!
//! On x86-64 only (the worker's crash handler and the write watch are
//! x86-64 too); elsewhere the caller calls the function directly.

#[cfg(target_arch = "x86_64")]
std::arch::global_asm!(
    // No .cfi_startproc: the function has no entry in .eh_frame, on
    // purpose. The frame pointer is pushed so that the callee starts with
    // the stack aligned as the ABI wants (16 bytes at the call).
    ".text",
    ".p2align 4",
    ".globl grader_watch_call_foreign",
    ".hidden grader_watch_call_foreign",
    ".type grader_watch_call_foreign,@function",
    "grader_watch_call_foreign:",
    "push rbp",
    "mov rbp, rsp",
    "mov rax, rdi",
    "mov rdi, rsi",
    "mov rsi, rdx",
    "mov rdx, rcx",
    "mov rcx, r8",
    "mov r8, r9",
    "call rax",
    "pop rbp",
    "ret",
    ".size grader_watch_call_foreign, . - grader_watch_call_foreign",
);

#[cfg(target_arch = "x86_64")]
unsafe extern "C" {
    fn grader_watch_call_foreign(
        function: usize,
        a0: usize,
        a1: usize,
        a2: usize,
        a3: usize,
        a4: usize,
    ) -> usize;
}

/// Calls the C function at `function` with up to five integer or pointer
/// arguments (pad with 0), through a frame without unwind tables, and
/// returns `rax` as it was on return. The callee's return type decides
/// which bits mean something: the low 8 for a `bool`, the low 32 for a
/// `uint32_t`.
///
/// # Safety
/// `function` must be a function of the C ABI that takes at most five
/// integer or pointer arguments (each given here widened to `usize`) and
/// returns an integer, `bool` or nothing, and the arguments must be what
/// it may be called with.
#[cfg(target_arch = "x86_64")]
pub unsafe fn call(function: usize, args: [usize; 5]) -> usize {
    let [a0, a1, a2, a3, a4] = args;
    // SAFETY: the caller's contract; the trampoline only moves the
    // arguments one register along and calls.
    unsafe { grader_watch_call_foreign(function, a0, a1, a2, a3, a4) }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::call;

    extern "C" fn add(a: usize, b: usize, c: usize, d: usize, e: usize) -> usize {
        a + 10 * b + 100 * c + 1000 * d + 10000 * e
    }

    extern "C" fn is_odd(v: u8) -> bool {
        v % 2 == 1
    }

    #[test]
    fn every_argument_reaches_its_place_and_the_result_comes_back() {
        // SAFETY: `add` takes five usize and returns one.
        let got = unsafe { call(add as *const () as usize, [1, 2, 3, 4, 5]) };
        assert_eq!(got, 54321);
    }

    /// `_Unwind_Backtrace`'s callback: counts the frames the unwinder
    /// walks.
    extern "C" fn count_frame(
        _context: *mut std::ffi::c_void,
        frames: *mut std::ffi::c_void,
    ) -> i32 {
        // SAFETY: `frames` is the `usize` that `frames_seen` passes.
        unsafe { *frames.cast::<usize>() += 1 };
        0 // _URC_NO_REASON: go on
    }

    unsafe extern "C" {
        /// The system unwinder's walk (libgcc_s, which std links), the
        /// walk an unwind's search makes.
        fn _Unwind_Backtrace(
            trace: extern "C" fn(*mut std::ffi::c_void, *mut std::ffi::c_void) -> i32,
            argument: *mut std::ffi::c_void,
        ) -> i32;
    }

    /// How many frames the unwinder walks from inside a called function:
    /// the C ABI shape of a student's function that panics.
    #[inline(never)]
    extern "C" fn frames_seen(_: usize, _: usize, _: usize, _: usize, _: usize) -> usize {
        let mut frames = 0usize;
        // SAFETY: the callback only counts, into `frames`.
        unsafe { _Unwind_Backtrace(count_frame, (&raw mut frames).cast()) };
        frames
    }

    #[test]
    fn the_unwinder_walk_stops_at_the_call() {
        // Called directly, the walk goes on through this test, the test
        // harness and the thread's start: many frames.
        let direct = frames_seen(0, 0, 0, 0, 0);
        // SAFETY: `frames_seen` takes five usize and returns one.
        let through = unsafe { call(frames_seen as *const () as usize, [0; 5]) };
        assert!(
            through <= 2 && direct > through + 3,
            "through the call the unwinder walked {through} frames, directly {direct}: \
             it must stop at the call's frame (frames_seen's and at most one more)"
        );
    }

    #[test]
    fn a_bool_is_its_low_byte() {
        // SAFETY: `is_odd` takes one integer (a u8, passed widened) and
        // returns a bool.
        let odd = |v| unsafe { call(is_odd as *const () as usize, [v, 0, 0, 0, 0]) } as u8 != 0;
        assert!(odd(3));
        assert!(!odd(4));
    }
}
