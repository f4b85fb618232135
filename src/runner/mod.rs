//! The parent side of grading: run each test in a confined child process,
//! and turn how it ended into a verdict; the grading loop.
#[cfg(unix)]
pub mod cgroup;
pub mod grade;
pub mod process;
pub mod sandbox_env;
pub mod shrink;
#[cfg(unix)]
pub(crate) mod unix;
