//! One test in a box of its own ([`run_test`], for tests and benches that
//! run single tests; grading runs every test of a submission in one box:
//! see [`crate::sandbox`]). How a run ended becomes a verdict in
//! [`super::outcome`] (re-exported here).

pub use super::outcome::{
    GRADER_FAULT, Kill, Status, TestRun, decode_messages, outcome, signal_name, syscall_name,
};
pub use crate::sandbox::SandboxEnv;
pub use crate::sandbox::run::test_deadlines;

/// Runs `request` alone in a fresh box (see [`crate::sandbox`]) and records
/// how it went; grading runs all tests of a submission in one box. A
/// student's crash or timeout is a normal [`TestRun`]; only the grader's
/// own failures (the box cannot be made or fails) are errors.
///
/// # Errors
/// When the worker process cannot be started or watched.
pub fn run_test(
    request: &crate::protocol::WorkerRequest,
    env: &SandboxEnv,
) -> std::io::Result<TestRun> {
    let mut sandbox = crate::sandbox::SubmissionBox::open(env, Vec::new())?;
    sandbox.run_test(request)
}
