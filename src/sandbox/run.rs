//! What a run in a box produced, as the grader saw it: how the run's
//! first process (the test child that box init, or the submission's test
//! zygote, forked for it) ended
//! ([`Status`], [`Kill`], from init's [`RunEnd`](crate::protocol::RunEnd)),
//! everything recorded of a test ([`TestRun`]), the deadlines init holds a
//! test to ([`test_deadlines`]), and the capped capture of the student's
//! output (`Capped`). The verdict is decided from a [`TestRun`] above the
//! box, by the runner (its `outcome` module); this file names nothing
//! above it.

use std::time::Duration;

use crate::protocol::{Deadlines, WorkerMessage};

/// How a test child ended, as box init reaped it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it.
    Signaled(i32),
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Status::Exited(code) => write!(f, "exit status {code}"),
            Status::Signaled(signal) => write!(f, "signal {}", signal_name(signal)),
        }
    }
}

/// Why box init killed a test child before it ended by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kill {
    /// Its CPU time reached the limit.
    Cpu,
    /// It did not want a CPU (slept, blocked, stopped) for longer than
    /// its limit allows: time spent waiting for a CPU does not count.
    Idle,
    /// The wall-clock backstop passed while it was still runnable and
    /// under its CPU limit: the host was too busy to time it (undecided,
    /// never a verdict).
    Backstop,
}

/// Everything the grader saw of one test: init's account of the test
/// child, the cgroup's OOM counter, and what the child wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct TestRun {
    /// The protocol messages, in order (possibly forged by student code
    /// that wrote to fd 3: the runner trusts them only together with the
    /// wait status).
    pub messages: Vec<WorkerMessage>,
    /// The first protocol line that was not a message, truncated.
    pub garbage: Option<String>,
    /// How the process ended.
    pub status: Status,
    /// Why box init killed it, if it did.
    pub killed: Option<Kill>,
    /// The memory cgroup's OOM killer struck during this test.
    pub oom_killed: bool,
    /// CPU time used (user + system, all threads), in milliseconds.
    pub cpu_ms: u64,
    /// Wall-clock time from init's start of the test to its end, in
    /// milliseconds.
    pub wall_ms: u64,
    /// Of that, the time it did not want a CPU (sleeping, blocked).
    pub idle_ms: u64,
    /// The time its threads waited for a CPU on a busy host.
    pub waited_ms: u64,
    /// What the student's code printed: stdout then stderr, each capped,
    /// with a `[... N bytes dropped ...]` note where output was cut.
    pub output: String,
    /// Bytes of output dropped by the cap.
    pub output_dropped: u64,
    /// The box process's pid (also its process group id), as the grader
    /// started it.
    pub pid: u32,
}

impl TestRun {
    /// The messages written before the first `loading`: only the worker
    /// program runs in the test child then, so only these can be trusted
    /// to come from it.
    pub fn worker_messages(&self) -> impl Iterator<Item = &WorkerMessage> {
        self.messages
            .iter()
            .take_while(|m| !matches!(m, WorkerMessage::Loading))
    }

    /// Whether the box stopped it for time ([`TestRun::killed`] says why).
    pub fn timed_out(&self) -> bool {
        self.killed.is_some()
    }

    /// Whether the test child reported that the code was loaded.
    pub fn loaded(&self) -> bool {
        self.messages
            .iter()
            .any(|m| matches!(m, WorkerMessage::Loaded))
    }

    /// Whether student code ran at all: the test child reported that its
    /// sandbox was in place and loading began.
    pub fn student_code_ran(&self) -> bool {
        self.messages
            .iter()
            .any(|m| matches!(m, WorkerMessage::Loading | WorkerMessage::Loaded))
    }
}

/// The conventional name of a signal (`SIGSEGV`), or `signal N`.
pub(crate) fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGCHLD => "SIGCHLD",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGVTALRM => "SIGVTALRM",
        libc::SIGPROF => "SIGPROF",
        libc::SIGSYS => "SIGSYS",
        _ => return format!("signal {signal}"),
    };
    name.to_string()
}

/// When a box stops a test with CPU limit `limit`, allowing
/// `load_allowance` for loading the code (the sandbox's
/// `SandboxEnv::load_allowance`; see [`Deadlines::for_cpu_limit`]).
pub(crate) fn test_deadlines(limit: Duration, load_allowance: Duration) -> Deadlines {
    Deadlines::for_cpu_limit(limit.as_millis() as u64, load_allowance)
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
