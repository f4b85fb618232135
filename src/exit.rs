//! The process exit codes, in one place (documented in
//! `docs/guide/instructors.md`, "Exit codes").

/// Everything passed, or the command did its job.
pub const SUCCESS: u8 = 0;

/// Some student test failed, or `reference --check` found a difference.
pub const FAILURE: u8 = 1;

/// Bad usage, bad input (a case file, a board), or the grader itself failed.
pub const USAGE_OR_INPUT: u8 = 2;

/// `grader check` only: the student's code did not build or load (a
/// compile error, a missing symbol), so no test ran. Kept apart from a
/// wrong answer (1) and from the grader's own failure (2).
pub const BUILD_OR_LOAD_ERROR: u8 = 3;

/// True when `err` comes from writing to a closed pipe (`grader check |
/// head`): the reader has all it wanted, so the command ends quietly with
/// [`SUCCESS`].
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
