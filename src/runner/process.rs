//! One test in a box of its own ([`run_test`], for tests and benches that
//! run single tests; grading runs every test of a submission in one box:
//! see [`crate::sandbox`]). How a run ended becomes a verdict in
//! [`super::outcome`] (re-exported here).

pub use super::outcome::{
    Kill, Status, TestRun, decode_messages, outcome, signal_name, syscall_name,
};
pub use crate::sandbox::SandboxEnv;
pub use crate::sandbox::run::test_deadlines;

/// Runs `request` alone in a fresh box (see [`crate::sandbox`]) and records
/// how it went; grading runs all tests of a submission in one box. The
/// code is copied into the box's `code/` first (a box sees only its own
/// files), under its own file name. A student's crash or timeout is a
/// normal [`TestRun`]; only the grader's own failures (the box cannot be
/// made or fails) are errors.
///
/// # Errors
/// When the worker process cannot be started or watched.
pub fn run_test(
    request: &crate::protocol::WorkerRequest,
    env: &SandboxEnv,
) -> std::io::Result<TestRun> {
    use crate::protocol::{CodeKind, ViewKind};
    use crate::submission::build::BuildContext;
    static TOOLS: std::sync::OnceLock<Option<BuildContext>> = std::sync::OnceLock::new();
    let kind = match request.kind {
        CodeKind::Library => ViewKind::LibraryTest,
        CodeKind::Python => ViewKind::PythonTest,
    };
    let views: Vec<_> = TOOLS
        .get_or_init(|| BuildContext::new().ok())
        .iter()
        .filter_map(|ctx| ctx.host_view(kind).ok())
        .collect();
    let mut sandbox = crate::sandbox::SubmissionBox::open(env, &views)?;
    let mut request = request.clone();
    if let Some(name) = request.code.file_name() {
        let inside = sandbox.code_dir().join(name);
        // A missing file stays missing: the test reports it as a load error.
        if std::fs::copy(&request.code, &inside).is_ok() {
            request.code = inside;
        }
    }
    sandbox.run_test(&request)
}
