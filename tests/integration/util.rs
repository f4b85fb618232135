//! Helpers shared by the integration tests: the real `grader` binary (run
//! in a folder, with or without input), the repository's folders, and
//! output as text.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `grader` binary cargo built for these tests.
pub(crate) fn grader_exe() -> &'static str {
    env!("CARGO_BIN_EXE_grader")
}

/// A command running the `grader` binary, to be given arguments.
pub(crate) fn grader() -> Command {
    Command::new(grader_exe())
}

/// The repository root (where `cases/`, `submissions/` and `data/` are).
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The puzzle set `name` of the repository's `data/` folder.
pub(crate) fn data(name: &str) -> PathBuf {
    root().join("data").join(name)
}

/// Output bytes as text, invalid UTF-8 replaced.
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `grader ARGS` in `dir` and waits for it.
pub(crate) fn run_in(dir: &Path, args: &[&str]) -> Output {
    grader()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run grader")
}

/// Runs `grader ARGS` in `dir` with `stdin` piped in, and waits for it.
pub(crate) fn run_with_stdin(dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = grader()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start grader");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("write stdin");
    drop(input);
    child.wait_with_output().expect("run grader")
}
