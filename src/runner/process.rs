//! One test in a box of its own ([`run_test`], for tests and benches that
//! run single tests; grading runs every test of a submission in one box:
//! see [`super::sandbox`]), the wall-clock backstop, and the capped
//! capture of the student's output. How a run ended becomes a verdict in
//! [`super::outcome`] (re-exported here).

use std::time::Duration;

pub use super::outcome::{
    GRADER_FAULT, Kill, Status, TestRun, decode_messages, outcome, signal_name, syscall_name,
};
pub use super::sandbox_env::SandboxEnv;

/// Runs `request` alone in a fresh box (see [`super::sandbox`]) and records
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
    let mut sandbox = super::sandbox::SubmissionBox::open(env)?;
    sandbox.run_test(request)
}

/// The wall-clock deadline of a test with CPU limit `limit`: twice the
/// limit plus the environment's load allowance (CPU time is the judged
/// limit; the wall clock is a backstop against sleeping and blocking).
pub fn wall_limit(limit: Duration, env: &SandboxEnv) -> Duration {
    limit * 2 + env.load_allowance
}

/// The student's output of one stream: the first bytes and the last bytes,
/// with a count of what was dropped in between.
#[derive(Debug)]
pub(crate) struct Capped {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    head_cap: usize,
    tail_cap: usize,
    total: u64,
}

impl Capped {
    /// Keeps up to `cap` bytes: the first 7/8 and the last 1/8 of them.
    pub(crate) fn new(cap: usize) -> Capped {
        let tail_cap = cap / 8;
        Capped {
            head: Vec::new(),
            tail: std::collections::VecDeque::new(),
            head_cap: cap - tail_cap,
            tail_cap,
            total: 0,
        }
    }

    /// Adds a chunk of output.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.head_cap - self.head.len();
        if room > 0 {
            let take = room.min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_cap..]);
        } else {
            self.tail.extend(bytes);
            let excess = self.tail.len().saturating_sub(self.tail_cap);
            self.tail.drain(..excess);
        }
    }

    /// Bytes dropped in the middle.
    pub(crate) fn dropped(&self) -> u64 {
        self.total - self.head.len() as u64 - self.tail.len() as u64
    }

    /// The kept output as text (invalid UTF-8 replaced), with the note.
    pub(crate) fn render(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        let dropped = self.dropped();
        if dropped > 0 {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!("[... {dropped} bytes dropped ...]\n"));
        }
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        text.push_str(&String::from_utf8_lossy(&tail));
        text
    }
}

/// Joins stdout and stderr for [`TestRun::output`].
pub(crate) fn join_output(stdout: &Capped, stderr: &Capped) -> String {
    let mut text = stdout.render();
    let err = stderr.render();
    if !text.is_empty() && !err.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&err);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn capped_output_keeps_head_and_tail() {
        let mut capped = Capped::new(64);
        for _ in 0..1000 {
            capped.push(b"0123456789");
        }
        capped.push(b"THE END");
        assert_eq!(capped.dropped(), 10_007 - 64);
        let text = capped.render();
        assert!(text.starts_with("0123456789"));
        assert!(text.contains("[... 9943 bytes dropped ...]"), "{text}");
        assert!(text.ends_with("THE END"), "{text}");
        let mut small = Capped::new(64);
        small.push(b"hello\xff");
        assert_eq!(small.render(), "hello\u{fffd}");
        assert_eq!(small.dropped(), 0);
    }

    #[test]
    fn output_joins_stdout_then_stderr() {
        let mut out = Capped::new(100);
        out.push(b"printed");
        let mut err = Capped::new(100);
        err.push(b"warned\n");
        assert_eq!(join_output(&out, &err), "printed\nwarned\n");
    }
}
