//! `grader-judge-web`: the judge of the lab (`grader-judge`) for the
//! browser check and its Node runner, as a WebAssembly module with a tiny
//! C ABI: JSON in, JSON out (the calling convention is `src/abi.rs`'s:
//! [`alloc`], then an entry point, then [`dealloc`]).
//! The JavaScript engine (`web/engine/`) plans each test here, runs it in
//! Pyodide through the grader's own Python harness, and judges it here:
//! the same plan, judge, trace replay and shrink search as `grader check`.
//!
//! The entry points, each `fn(ptr, len) -> u64` over a JSON request:
//!
//! - `load_cases({files: [{name, text}]})`: the public cases, read by the
//!   judge's case parser and kept; a hidden case is refused;
//! - `select({case?, function?})`: keeps the cases and tests of `grader
//!   check --case NAME --function F` (the Node runner's, once);
//! - `tests({})`: the tests in `grader check`'s order, with their planned
//!   limits (it starts a check);
//! - `swap_after({case, function, verdict, faulted?, explained_by?})`,
//!   `swap_saw({case, observed?})`: when to make the run with the grader's
//!   `legal` (the judge's `SwapWatch`), and what it showed;
//! - `request({case, function, puzzle?, deep_stop?})`: one test's harness
//!   request (its probe);
//! - `judge({case, function, puzzle?, ended, messages, output, wall_ms,
//!   limit_ms, why?})`: what the run came to;
//! - `shrink_start({case})`, `shrink_next({})`, `shrink_keep({same})`: the
//!   search for the smallest failing board, one board at a time;
//! - `finish({path, tests, shrunk, first_steps, load_error?,
//!   missing_module?, build_error?, notes, verbose?})`:
//!   the report in the shape of `grader check --json`, its lines and exit
//!   code;
//! - `notebook({name, text})`: a `.ipynb`'s code cells as Python, as
//!   `grader check` takes them, with the note of the cells taken.
//!
//! Built with `cargo build -p grader-judge-web --release --target
//! wasm32-unknown-unknown` (the grader's `build.rs` does it for `grader
//! package web`).

mod abi;
mod cases;
mod finish;
mod notebook;
mod report;
mod shrink;
mod swap;
mod test;
#[cfg(test)]
mod tests;

pub use abi::{alloc, dealloc};

/// Declares an exported entry point over [`abi::call`].
macro_rules! entry {
    ($($(#[$doc:meta])* $name:ident => $f:path;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// `ptr..ptr+len` must be memory the host filled after `alloc(len)`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(ptr: *const u8, len: usize) -> u64 {
            // SAFETY: the caller's contract, as documented above.
            unsafe { abi::call(ptr, len, $f) }
        }
    )*};
}

entry! {
    /// Reads and keeps the public cases.
    load_cases => cases::load;
    /// Keeps the cases and tests of `--case` and `--function`.
    select => cases::select;
    /// The tests in `grader check`'s order.
    tests => cases::tests;
    /// One test's harness request.
    request => test::request;
    /// What one test's run came to.
    judge => test::judge;
    /// Takes note of a judged test: the case to run with the grader's `legal`.
    swap_after => swap::after;
    /// What the run with the grader's `legal` showed.
    swap_saw => swap::saw;
    /// Starts shrinking a case's failing `solve`.
    shrink_start => shrink::start;
    /// The next smaller board to try, or null.
    shrink_next => shrink::next;
    /// Whether the last board failed the same way.
    shrink_keep => shrink::keep;
    /// The report, its lines and the exit code.
    finish => finish::finish;
    /// A notebook's code cells as a Python program.
    notebook => notebook::convert;
}
