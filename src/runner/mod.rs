//! The parent side of grading: run each test in a confined child process,
//! and turn how it ended into a verdict; the grading loop.
#[cfg(unix)]
pub mod cgroup;
#[cfg(unix)]
pub mod cleanup;
pub mod grade;
pub mod outcome;
pub mod process;
#[cfg(target_os = "linux")]
pub mod sandbox;
pub mod sandbox_env;
pub mod shrink;
#[cfg(unix)]
pub mod uids;
#[cfg(unix)]
pub(crate) mod unix;
