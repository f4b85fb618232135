//! The worker program: every process inside a submission's box. The
//! grader starts it once per submission as `<worker> worker` (the
//! `grader-worker` executable, or `grader` itself); it becomes the box
//! process and the box's init (`init.rs`), which forks one child per
//! build and starts the submission's test zygote (`test_zygote.rs`), which
//! forks one child per test (`test_child.rs`: confine, load, ask, report
//! on the protocol fd, see [`crate::protocol`]). ARCHITECTURE.md ("Theory
//! of operation") draws every process of a box.
//!
//! The box's namespaces and cgroup are in place before any child is
//! forked. The test zygote applies what does not depend on the test once
//! (`confine.rs`), and each of its children adds the rest (its CPU limit,
//! its own kill rules); a child of init without a zygote applies it all
//! itself. The next test is always a fresh fork of the zygote or of init,
//! neither of which student code touches.

mod channel;
mod clock;
mod confine;
mod crash;
mod identity;
mod init;
mod interpose;
mod landlock;
/// The student's shared library as a [`sudoku_lab::Sudoku`]; public so the
/// `sandbox` bench can call the same code in-process, unconfined.
pub mod library;
mod mounts;
pub mod python;
pub(crate) mod seccomp;
mod sys;
mod test_child;
mod test_zygote;
mod wipe;

pub use channel::FAILED_EXIT;
pub use identity::{BUILD_IDENTITY, Invocation, identity_line, parse_args};
pub use sys::FORBIDDEN_EXIT;

/// The `grader worker` entry point: the box of one submission (see
/// `worker/init.rs`), which runs its builds and tests until the grader is
/// done.
///
/// # Errors
/// When started by hand, without the grader's pipes.
pub fn main() -> anyhow::Result<u8> {
    wipe::enable();
    init::main()
}
