//! `-q`/`--quiet`: fewer words on stderr for scripts and CI logs. Set once
//! by `main` before any command writes; read by [`note!`](crate::note) and by the
//! writers of progress bars and summaries.
//!
//! Silenced: progress bars, status lines (the sandbox in force, the time
//! limits, a shard's share, results reused, reports merged), notes about
//! the run (`note: ...`: repeated runs, time spent at limits, files
//! ignored, built-in cases used) and the per-student table of `grade`,
//! `merge` and `report`, whose closing line stays.
//!
//! Never silenced: errors and warnings; a note that a sandbox safeguard
//! is missing on this host (it says the grade ran less confined); the
//! closing summary line (`58 submissions, 7 passed every test`) that
//! scripts read; `--fail-under`'s count; and every report written.

use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Sets quiet mode for the rest of the process.
pub fn set(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `-q` was given.
pub fn is_quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// `eprintln!` unless `-q` was given: for progress, status and notes,
/// never for errors, warnings or results.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        if !$crate::quiet::is_quiet() {
            eprintln!($($arg)*);
        }
    };
}
