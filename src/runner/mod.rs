//! The parent side of grading: discover submissions, build them, run each
//! test in a worker process, and turn how it ended into a verdict.
pub mod build;
#[cfg(unix)]
pub mod cgroup;
pub mod discover;
pub mod grade;
pub mod process;
pub mod sandbox_env;
#[cfg(unix)]
mod unix;
