//! Running one test in a fresh worker process ([`run_test`]) and turning
//! how it ended into a verdict ([`outcome`]).
//!
//! Why a process per test: the student's library is loaded only inside a
//! confined process (its load-time constructor runs there too), a crash or
//! a timeout loses nothing but that test, and globals never leak from one
//! test into the next. It costs about a millisecond per test.
//!
//! The grader side, per test: spawn `<worker> worker` with a cleared
//! environment, an empty working directory, the request on stdin, the
//! protocol pipe as fd 3, and stdout/stderr on pipes; in the child before
//! exec, a new process group, death with the grader, no core dumps. Then
//! one `poll` loop feeds stdin, reads the protocol fd, drains the student's
//! output (keeping at most [`SandboxEnv::output_cap`] bytes, so the grader's
//! memory stays flat however much is printed), watches the process's CPU
//! time, and enforces a wall-clock deadline; on expiry or exit the whole
//! process group is killed, and the worker is reaped with `wait4` for its
//! resource usage.

use std::time::Duration;

use crate::check::Response;
use crate::protocol::{Limits, WorkerMessage};
use crate::verdict::{Outcome, Verdict};

pub use super::sandbox_env::SandboxEnv;

/// How a worker process ended.
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

/// Why the grader killed a worker before it ended by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kill {
    /// Its CPU time reached the limit.
    Cpu,
    /// The wall-clock deadline passed (sleeping, blocked, or a busy
    /// machine).
    Wall,
}

/// Everything the grader saw of one worker process.
#[derive(Clone, Debug, PartialEq)]
pub struct TestRun {
    /// The protocol messages, in order (possibly forged by student code
    /// that wrote to fd 3: [`outcome`] trusts them only together with the
    /// wait status).
    pub messages: Vec<WorkerMessage>,
    /// The first protocol line that was not a message, truncated.
    pub garbage: Option<String>,
    /// How the process ended.
    pub status: Status,
    /// The grader killed it for time: [`TestRun::killed`] says why.
    pub timed_out: bool,
    /// Why the grader killed it, if it did.
    pub killed: Option<Kill>,
    /// The memory cgroup's OOM killer struck during this test.
    pub oom_killed: bool,
    /// CPU time used (user + system, all threads), in milliseconds.
    pub cpu_ms: u64,
    /// Wall-clock time from spawn to reaping, in milliseconds.
    pub wall_ms: u64,
    /// Peak resident set, in KiB.
    pub max_rss_kb: u64,
    /// What the student's code printed: stdout then stderr, each capped,
    /// with a `[... N bytes dropped ...]` note where output was cut.
    pub output: String,
    /// Bytes of output dropped by the cap.
    pub output_dropped: u64,
    /// The worker's pid (also its process group id); gone by now.
    pub pid: u32,
}

impl TestRun {
    /// Whether the worker reported that the code was loaded.
    pub fn loaded(&self) -> bool {
        self.messages
            .iter()
            .any(|m| matches!(m, WorkerMessage::Loaded))
    }

    /// Whether student code ran at all: the worker reported that its
    /// sandbox was in place and loading began.
    pub fn student_code_ran(&self) -> bool {
        self.messages
            .iter()
            .any(|m| matches!(m, WorkerMessage::Loading | WorkerMessage::Loaded))
    }

    /// The sandbox notes the worker sent (a safeguard only partly applied).
    pub fn sandbox_notes(&self) -> Vec<&str> {
        self.messages
            .iter()
            .filter_map(|m| match m {
                WorkerMessage::SandboxNote { message } => Some(message.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// Runs `request` in a fresh, confined worker process and records how it
/// went. A student's crash or timeout is a normal [`TestRun`]; only the
/// grader's own failures (the worker cannot be started, a cgroup cannot be
/// set up) are errors.
///
/// # Errors
/// When the worker process cannot be started or watched.
pub fn run_test(
    request: &crate::protocol::WorkerRequest,
    env: &SandboxEnv,
) -> std::io::Result<TestRun> {
    #[cfg(unix)]
    {
        unix_run::run(request, env)
    }
    #[cfg(not(unix))]
    {
        let _ = (request, env);
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "running student code needs a unix system",
        ))
    }
}

/// The wall-clock deadline of a test with CPU limit `limit`: twice the
/// limit plus the environment's load allowance (CPU time is the judged
/// limit; the wall clock is a backstop against sleeping and blocking).
pub fn wall_limit(limit: Duration, env: &SandboxEnv) -> Duration {
    limit * 2 + env.load_allowance
}

/// Decides what a finished worker means: `Ok` with the answers and the time
/// spent in student code when it returned normally (then the caller judges
/// the answers), or the `Err` [`Outcome`] that ends the test (timeout,
/// memory, crash, forbidden, error). `output` is left empty for the caller.
pub fn outcome(run: &TestRun, limits: &Limits) -> Result<(Response, f64), Outcome> {
    let fail = |verdict, message: String| Err(Outcome::new(verdict, message));
    let loaded = run.loaded();
    for message in &run.messages {
        match message {
            WorkerMessage::WorkerFailed { message } => {
                return fail(
                    Verdict::Error,
                    format!("the grader could not run this test (not your fault): {message}"),
                );
            }
            WorkerMessage::LoadError { message } if !loaded => {
                return fail(Verdict::Error, message.clone());
            }
            // A Python exception, reported by the harness before it exits.
            WorkerMessage::Exception { name, message } if !run.timed_out => {
                let verdict = if name == "MemoryError" {
                    Verdict::Memory
                } else {
                    Verdict::Crash
                };
                return fail(verdict, message.clone());
            }
            _ => {}
        }
    }
    if !run.student_code_ran() {
        let mut message = format!(
            "the grader could not run this test (not your fault): its worker process ended with {} before loading your code",
            if run.timed_out {
                "a timeout".to_string()
            } else {
                run.status.to_string()
            }
        );
        if let Some(line) = run.output.lines().find(|l| !l.trim().is_empty()) {
            message.push_str(&format!(": {}", truncate(line.trim(), 300)));
        }
        return fail(Verdict::Error, message);
    }
    if run.status == Status::Exited(0) && !run.timed_out {
        let done = run.messages.iter().rev().find_map(|m| match m {
            WorkerMessage::Done { response, time_ms } => Some((response.clone(), *time_ms)),
            _ => None,
        });
        if let Some(done) = done {
            return Ok(done);
        }
    }
    if let Some(syscall) = run.messages.iter().find_map(|m| match m {
        WorkerMessage::Forbidden { syscall } => Some(*syscall),
        _ => None,
    }) {
        return fail(Verdict::Forbidden, forbidden_message(Some(syscall), loaded));
    }
    // SIGSYS: a filter killed outright, or the worker's handler could not
    // report (student code closed fd 3) and exited with its own status.
    #[cfg(unix)]
    let handler_exit = run.status == Status::Exited(crate::worker::FORBIDDEN_EXIT);
    #[cfg(not(unix))]
    let handler_exit = false;
    if run.status == Status::Signaled(libc_signal::SIGSYS) || handler_exit {
        return fail(Verdict::Forbidden, forbidden_message(None, loaded));
    }
    let limit_ms = limits.time_limit_ms;
    if run.timed_out || run.status == Status::Signaled(libc_signal::SIGXCPU) {
        if !loaded {
            return fail(
                Verdict::Timeout,
                format!(
                    "the library did not finish loading within the time limit of {limit_ms} ms (a load-time constructor that never returns?)"
                ),
            );
        }
        return fail(Verdict::Timeout, timeout_message(run, limit_ms));
    }
    if run.oom_killed {
        return fail(
            Verdict::Memory,
            format!(
                "used more than the memory limit of {} MiB",
                limits.memory_limit_mb
            ),
        );
    }
    if run.status == Status::Signaled(libc_signal::SIGKILL) && run.cpu_ms >= limit_ms {
        return fail(Verdict::Timeout, timeout_message(run, limit_ms));
    }
    let during = if loaded {
        ""
    } else {
        " while loading (in a load-time constructor)"
    };
    match run.status {
        Status::Signaled(libc_signal::SIGABRT) => {
            let output = &run.output;
            if output.contains("memory allocation of") {
                return fail(
                    Verdict::Memory,
                    format!(
                        "ran out of memory{during} (limit {} MiB): {}",
                        limits.memory_limit_mb,
                        first_line_with(output, "memory allocation of")
                    ),
                );
            }
            if output.contains("has overflowed its stack") {
                return fail(
                    Verdict::Crash,
                    format!("stack overflow{during} (recursion too deep?), ended by SIGABRT"),
                );
            }
            if output.contains("panicked at") {
                return fail(
                    Verdict::Crash,
                    format!("panic{during}: {}", panic_summary(output)),
                );
            }
            fail(Verdict::Crash, format!("aborted{during} (SIGABRT)"))
        }
        Status::Signaled(signal) => fail(
            Verdict::Crash,
            format!("crashed{during} with {}", signal_description(signal)),
        ),
        Status::Exited(code) if !loaded => fail(
            Verdict::Crash,
            format!(
                "the library ended the process with exit status {code} while loading (a load-time constructor that calls exit?)"
            ),
        ),
        Status::Exited(code) => {
            let mut message = format!(
                "exited with status {code} before returning (exit() called in student code?)"
            );
            if let Some(garbage) = &run.garbage {
                message.push_str(&format!(
                    "; it also wrote to the grader's fd 3: {garbage:?}"
                ));
            }
            fail(Verdict::Crash, message)
        }
    }
}

/// The message of a timeout verdict.
fn timeout_message(run: &TestRun, limit_ms: u64) -> String {
    if run.killed == Some(Kill::Wall) && run.cpu_ms < limit_ms {
        format!(
            "did not finish within {} ms of wall-clock time, having used {} ms of CPU (sleeping, waiting, or a very busy machine?)",
            run.wall_ms, run.cpu_ms
        )
    } else {
        format!(
            "used more than the time limit of {limit_ms} ms of CPU time (an endless loop, or too slow?)"
        )
    }
}

/// The message of a forbidden verdict.
fn forbidden_message(syscall: Option<i64>, loaded: bool) -> String {
    let call = match syscall {
        Some(number) => format!("`{}`", syscall_name(number)),
        None => "a system call".to_string(),
    };
    let when = if loaded {
        ""
    } else {
        " while loading (in a load-time constructor)"
    };
    let what = syscall
        .and_then(syscall_purpose)
        .map(|p| format!(" ({p})"))
        .unwrap_or_default();
    format!(
        "the sandbox refused {call}{what}{when}: a solver needs no processes, network, signals or files"
    )
}

/// The name of a system call number (`syscall N` for one the grader does
/// not know).
pub fn syscall_name(number: i64) -> String {
    #[cfg(target_os = "linux")]
    if let Some(name) = crate::worker::seccomp::syscall_name(number) {
        return name.to_string();
    }
    format!("syscall {number}")
}

/// What a forbidden call was for, in words.
fn syscall_purpose(number: i64) -> Option<&'static str> {
    #[cfg(target_os = "linux")]
    {
        let name = crate::worker::seccomp::syscall_name(number)?;
        Some(match name {
            "fork" | "vfork" | "clone" | "clone3" => "creating a process",
            "execve" | "execveat" => "running a program",
            "socket" | "socketpair" | "connect" | "bind" | "listen" | "accept" | "accept4" => {
                "networking"
            }
            "kill" | "tkill" | "tgkill" | "rt_sigqueueinfo" | "rt_tgsigqueueinfo"
            | "pidfd_send_signal" => "signalling another process",
            "ptrace" | "process_vm_readv" | "process_vm_writev" => "inspecting another process",
            _ => return None,
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = number;
        None
    }
}

/// Signal numbers used in verdicts (the same on every Linux architecture
/// the grader supports, and on the BSDs for these).
mod libc_signal {
    pub const SIGABRT: i32 = 6;
    pub const SIGKILL: i32 = 9;
    pub const SIGXCPU: i32 = 24;
    #[cfg(target_os = "linux")]
    pub const SIGSYS: i32 = 31;
    #[cfg(not(target_os = "linux"))]
    pub const SIGSYS: i32 = 12;
}

/// The conventional name of a signal (`SIGSEGV`), or `signal N`.
pub fn signal_name(signal: i32) -> String {
    #[cfg(unix)]
    {
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
    #[cfg(not(unix))]
    {
        format!("signal {signal}")
    }
}

/// A signal's name with what it usually means.
fn signal_description(signal: i32) -> String {
    let name = signal_name(signal);
    let meaning = match name.as_str() {
        "SIGSEGV" => {
            "an invalid memory access: a null or dangling pointer, an index off the board, or a stack overflow from recursion too deep or frames too large"
        }
        "SIGBUS" => "an invalid memory access",
        "SIGFPE" => "an arithmetic error, such as a division by zero",
        "SIGILL" => "an illegal instruction (undefined behaviour, or `__builtin_trap`)",
        "SIGTRAP" => "a trap instruction",
        "SIGKILL" => "killed from outside",
        "SIGXFSZ" => "wrote to a file",
        _ => "",
    };
    if meaning.is_empty() {
        name
    } else {
        format!("{name} ({meaning})")
    }
}

/// The first line of `text` containing `needle`, trimmed and capped.
fn first_line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    let line = text
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or("")
        .trim();
    truncate(line, 200)
}

/// "panicked at src/lib.rs:7:37: index out of bounds…" from a Rust panic
/// report: the location and the first line of the message.
fn panic_summary(output: &str) -> String {
    let mut lines = output.lines();
    let Some(at) = lines.find(|l| l.contains("panicked at")) else {
        return String::new();
    };
    let location = at
        .split("panicked at")
        .nth(1)
        .unwrap_or("")
        .trim()
        .trim_end_matches(':');
    let message = lines.next().unwrap_or("").trim();
    truncate(&format!("{message} (at {location})"), 300).to_string()
}

/// At most `max` bytes of `s`, cut at a character boundary.
fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
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

/// Splits protocol bytes into messages and the first garbage line.
pub fn decode_messages(bytes: &[u8]) -> (Vec<WorkerMessage>, Option<String>) {
    let mut messages = Vec::new();
    let mut garbage = None;
    for line in bytes.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<WorkerMessage>(line) {
            Ok(message) => messages.push(message),
            Err(_) if garbage.is_none() => {
                let text = String::from_utf8_lossy(line);
                garbage = Some(truncate(&text, 200).to_string());
            }
            Err(_) => {}
        }
    }
    (messages, garbage)
}

#[cfg(unix)]
mod unix_run {
    //! The spawn-and-watch loop of [`run_test`](super::run_test).

    use std::fs::File;
    use std::io::{self, Read, Write};
    use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use super::{Capped, Kill, SandboxEnv, Status, TestRun, decode_messages, join_output};
    use crate::protocol::{SandboxPlan, WorkerRequest};
    use crate::runner::unix;

    /// The most protocol bytes kept per test (the largest real answer is
    /// well under a megabyte; student code may write to fd 3 too).
    const MAX_PROTOCOL_BYTES: usize = 16 << 20;
    /// How often the worker's CPU time is checked.
    const CPU_CHECK: Duration = Duration::from_millis(10);
    /// How long to keep draining output after the process group is dead.
    const DRAIN_GRACE: Duration = Duration::from_millis(200);

    /// See [`run_test`](super::run_test).
    pub(super) fn run(request: &WorkerRequest, env: &SandboxEnv) -> io::Result<TestRun> {
        let mut slot = env.take_slot()?;
        if let Some(slot) = slot.as_mut() {
            slot.set_memory_limit(request.limits.memory_limit_mb)?;
        }
        let result = run_in(request, env, slot.as_ref());
        if let Some(slot) = slot {
            slot.kill_leftovers();
            env.give_back(slot);
        }
        result
    }

    fn run_in(
        request: &WorkerRequest,
        env: &SandboxEnv,
        slot: Option<&crate::runner::cgroup::CgroupSlot>,
    ) -> io::Result<TestRun> {
        let oom_before = slot.map_or(0, |s| s.oom_kills());
        let workdir = env.workdir()?;

        let (protocol_read, protocol_write) = unix::pipe()?;
        let protocol_write_fd = protocol_write.as_raw_fd();
        let mut command = Command::new(&env.worker);
        command
            .arg("worker")
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LANG", "C")
            .current_dir(workdir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: `child_setup` makes only async-signal-safe calls (dup2,
        // fcntl, close_range, setpgid, prctl, setrlimit) and allocates
        // nothing; `protocol_write_fd` stays open in the parent until spawn
        // returns.
        unsafe {
            command.pre_exec(move || unix::child_setup(protocol_write_fd));
        }
        let start = Instant::now();
        let mut child = command.spawn()?;
        drop(protocol_write);
        let pid = child.id() as libc::pid_t;
        // Encoded while the new process execs and starts, which takes
        // longer (a large probe takes a fifth of a millisecond).
        let input = encode_input(request, env, slot);
        let watched = input
            .and_then(|input| watch(&mut child, pid, &input, protocol_read, request, env, start));
        // Whatever happened, nothing of this test survives it (the worker
        // itself too, should it have left its group).
        unix::kill_group(pid);
        unix::kill_process(pid);
        let reaped = unix::wait4(pid)?;
        let wall_ms = start.elapsed().as_millis() as u64;
        let watched = watched?;
        let watched = drain_rest(watched);
        let status = match (
            unix::exit_code(reaped.status),
            unix::term_signal(reaped.status),
        ) {
            (Some(code), _) => Status::Exited(code),
            (None, Some(signal)) => Status::Signaled(signal),
            (None, None) => Status::Exited(-1),
        };
        let oom_killed = slot.is_some_and(|s| s.oom_kills() > oom_before);
        let (messages, garbage) = decode_messages(&watched.protocol);
        let garbage = garbage.or(watched
            .protocol_overflow
            .then(|| format!("more than {MAX_PROTOCOL_BYTES} bytes of protocol output")));
        Ok(TestRun {
            messages,
            garbage,
            status,
            timed_out: watched.killed.is_some(),
            killed: watched.killed,
            oom_killed,
            cpu_ms: reaped.cpu_ms,
            wall_ms,
            max_rss_kb: reaped.max_rss_kb,
            output: join_output(&watched.stdout, &watched.stderr),
            output_dropped: watched.stdout.dropped() + watched.stderr.dropped(),
            pid: pid as u32,
        })
    }

    /// The [`WorkerInput`](crate::protocol::WorkerInput) for `request` as JSON, without copying the
    /// request.
    pub(super) fn encode_input(
        request: &WorkerRequest,
        env: &SandboxEnv,
        slot: Option<&crate::runner::cgroup::CgroupSlot>,
    ) -> io::Result<Vec<u8>> {
        /// `WorkerInput` by reference: the same fields, the same JSON.
        #[derive(serde::Serialize)]
        struct InputRef<'a> {
            request: &'a WorkerRequest,
            sandbox: SandboxPlan,
        }
        let input = InputRef {
            request,
            sandbox: env.plan(request.limits.memory_limit_mb, slot),
        };
        serde_json::to_vec(&input).map_err(io::Error::other)
    }

    /// What the watch loop collected.
    struct Watched {
        protocol: Vec<u8>,
        protocol_overflow: bool,
        stdout: Capped,
        stderr: Capped,
        killed: Option<Kill>,
        /// Output pipes still open after the loop.
        open: Vec<(File, Stream)>,
    }

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Stream {
        Protocol,
        Stdout,
        Stderr,
    }

    impl Watched {
        /// Reads what is available on `file`; false at end of file.
        fn read(&mut self, file: &mut File, stream: Stream, buf: &mut [u8]) -> bool {
            match file.read(buf) {
                Ok(0) => false,
                Ok(n) => {
                    match stream {
                        Stream::Stdout => self.stdout.push(&buf[..n]),
                        Stream::Stderr => self.stderr.push(&buf[..n]),
                        Stream::Protocol => {
                            if self.protocol.len() + n <= MAX_PROTOCOL_BYTES {
                                self.protocol.extend_from_slice(&buf[..n]);
                            } else {
                                self.protocol_overflow = true;
                            }
                        }
                    }
                    true
                }
                Err(err) => matches!(
                    err.kind(),
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                ),
            }
        }
    }

    /// Feeds stdin, reads the pipes, and enforces the limits until the
    /// worker ends or is killed. Does not reap it.
    fn watch(
        child: &mut std::process::Child,
        pid: libc::pid_t,
        input: &[u8],
        protocol: std::os::fd::OwnedFd,
        request: &WorkerRequest,
        env: &SandboxEnv,
        start: Instant,
    ) -> io::Result<Watched> {
        let cpu_limit_ms = request.limits.time_limit_ms;
        let deadline = start + super::wall_limit(Duration::from_millis(cpu_limit_ms), env);
        let pidfd = unix::pidfd_open(pid);
        let mut stdin = child.stdin.take();
        if let Some(stdin) = &stdin {
            unix::set_nonblocking(stdin.as_raw_fd())?;
        }
        let mut written = 0;
        let mut open: Vec<(File, Stream)> = vec![(File::from(protocol), Stream::Protocol)];
        if let Some(out) = child.stdout.take() {
            open.push((File::from(std::os::fd::OwnedFd::from(out)), Stream::Stdout));
        }
        if let Some(err) = child.stderr.take() {
            open.push((File::from(std::os::fd::OwnedFd::from(err)), Stream::Stderr));
        }
        let mut watched = Watched {
            protocol: Vec::new(),
            protocol_overflow: false,
            stdout: Capped::new(env.output_cap / 2),
            stderr: Capped::new(env.output_cap / 2),
            killed: None,
            open: Vec::new(),
        };
        let ticks = unix::clock_ticks();
        let mut next_cpu_check = start + CPU_CHECK;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let now = Instant::now();
            if now >= deadline {
                watched.killed = Some(Kill::Wall);
                break;
            }
            if now >= next_cpu_check {
                if process_cpu_ms(pid, ticks).is_some_and(|cpu| cpu >= cpu_limit_ms) {
                    watched.killed = Some(Kill::Cpu);
                    break;
                }
                next_cpu_check = now + CPU_CHECK;
            }
            let mut fds: Vec<libc::pollfd> = Vec::with_capacity(5);
            let pollfd = |fd: BorrowedFd<'_>, events| libc::pollfd {
                fd: fd.as_raw_fd(),
                events,
                revents: 0,
            };
            if let Some(pidfd) = &pidfd {
                fds.push(pollfd(pidfd.as_fd(), libc::POLLIN));
            }
            let stdin_slot = stdin.as_ref().map(|s| {
                fds.push(pollfd(s.as_fd(), libc::POLLOUT));
                fds.len() - 1
            });
            let first_pipe = fds.len();
            for (file, _) in &open {
                fds.push(pollfd(file.as_fd(), libc::POLLIN));
            }
            let wait_until = deadline.min(next_cpu_check);
            let mut timeout = wait_until
                .saturating_duration_since(now)
                .as_millis()
                .min(1000) as i32
                + 1;
            if pidfd.is_none() {
                // No pidfd: poll the exit every few milliseconds.
                timeout = timeout.min(5);
            }
            unix::poll(&mut fds, timeout)?;

            let stdin_ready = stdin_slot.is_some_and(|i| fds[i].revents != 0);
            if let (true, Some(pipe)) = (stdin_ready, stdin.as_mut()) {
                match pipe.write(&input[written..]) {
                    Ok(n) => written += n,
                    Err(err) if err.kind() == io::ErrorKind::WouldBlock => {}
                    Err(_) => written = input.len(),
                }
                if written >= input.len() {
                    stdin = None;
                }
            }
            let mut still_open = Vec::with_capacity(open.len());
            for (index, (mut file, stream)) in open.into_iter().enumerate() {
                let revents = fds[first_pipe + index].revents;
                if revents == 0 || watched.read(&mut file, stream, &mut buf) {
                    still_open.push((file, stream));
                }
            }
            open = still_open;
            let exited = match &pidfd {
                Some(_) => fds[0].revents != 0,
                None => unix::has_exited(pid),
            };
            if exited {
                break;
            }
        }
        watched.open = open;
        Ok(watched)
    }

    /// Reads what is left in the output pipes after the process group was
    /// killed, for at most [`DRAIN_GRACE`].
    fn drain_rest(mut watched: Watched) -> Watched {
        let until = Instant::now() + DRAIN_GRACE;
        let mut buf = vec![0u8; 64 * 1024];
        let mut open = std::mem::take(&mut watched.open);
        while !open.is_empty() {
            let now = Instant::now();
            if now >= until {
                break;
            }
            let mut fds: Vec<libc::pollfd> = open
                .iter()
                .map(|(file, _)| libc::pollfd {
                    fd: file.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect();
            let timeout = (until - now).as_millis() as i32 + 1;
            if unix::poll(&mut fds, timeout).is_err() {
                break;
            }
            let mut still_open = Vec::with_capacity(open.len());
            for (index, (mut file, stream)) in open.into_iter().enumerate() {
                if fds[index].revents == 0 || watched.read(&mut file, stream, &mut buf) {
                    still_open.push((file, stream));
                }
            }
            open = still_open;
        }
        watched
    }

    /// The CPU time of process `pid` (all threads) from `/proc/<pid>/stat`.
    fn process_cpu_ms(pid: libc::pid_t, ticks: u64) -> Option<u64> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // Fields after the command name, which is in parentheses and may
        // hold spaces: state is field 3, utime 14, stime 15.
        let rest = &text[text.rfind(')')? + 2..];
        let mut fields = rest.split(' ');
        let utime: u64 = fields.nth(11)?.parse().ok()?;
        let stime: u64 = fields.next()?.parse().ok()?;
        Some((utime + stime) * 1000 / ticks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        time_limit_ms: 1000,
        memory_limit_mb: 256,
    };

    fn done() -> WorkerMessage {
        WorkerMessage::Done {
            response: Response::Solve {
                solved: true,
                board: vec![1, 2, 3, 4],
            },
            time_ms: 0.5,
        }
    }

    /// A run that loaded and then ended with `status`, printing `output`.
    fn run(status: Status, messages: Vec<WorkerMessage>, output: &str) -> TestRun {
        TestRun {
            messages,
            garbage: None,
            status,
            timed_out: false,
            killed: None,
            oom_killed: false,
            cpu_ms: 5,
            wall_ms: 7,
            max_rss_kb: 2000,
            output: output.to_string(),
            output_dropped: 0,
            pid: 1234,
        }
    }

    fn loaded(status: Status, output: &str) -> TestRun {
        run(
            status,
            vec![WorkerMessage::Loading, WorkerMessage::Loaded],
            output,
        )
    }

    /// A run that died while loading the code.
    fn loading(status: Status) -> TestRun {
        run(status, vec![WorkerMessage::Loading], "")
    }

    fn failure(run: &TestRun) -> Outcome {
        match outcome(run, &LIMITS) {
            Ok(ok) => panic!("expected a failure, got {ok:?}"),
            Err(outcome) => outcome,
        }
    }

    fn expect(run: &TestRun, verdict: Verdict, needle: &str) {
        let outcome = failure(run);
        assert_eq!(outcome.verdict, verdict, "{outcome:?}");
        assert!(
            outcome.message.contains(needle),
            "{:?} lacks {needle:?}",
            outcome.message
        );
    }

    #[test]
    fn python_exceptions_are_crashes_and_memory_errors_memory() {
        let raised = |name: &str| {
            run(
                Status::Exited(1),
                vec![
                    WorkerMessage::Loading,
                    WorkerMessage::Loaded,
                    WorkerMessage::Exception {
                        name: name.to_string(),
                        message: format!("raised {name} in solve"),
                    },
                ],
                "",
            )
        };
        expect(
            &raised("IndexError"),
            Verdict::Crash,
            "raised IndexError in solve",
        );
        expect(
            &raised("MemoryError"),
            Verdict::Memory,
            "raised MemoryError",
        );
    }

    #[test]
    fn done_and_exit_zero_is_judged() {
        let run = run(Status::Exited(0), vec![WorkerMessage::Loaded, done()], "");
        let (response, time) = outcome(&run, &LIMITS).expect("ok");
        assert_eq!(time, 0.5);
        assert!(matches!(response, Response::Solve { solved: true, .. }));
    }

    #[test]
    fn done_without_a_clean_exit_is_not_trusted() {
        // Student code forged a `done` line and then crashed.
        let forged = run(
            Status::Signaled(11),
            vec![WorkerMessage::Loaded, done()],
            "",
        );
        expect(&forged, Verdict::Crash, "SIGSEGV");
        let mut late = run(Status::Exited(0), vec![WorkerMessage::Loaded, done()], "");
        late.timed_out = true;
        late.killed = Some(Kill::Cpu);
        late.cpu_ms = 1000;
        expect(&late, Verdict::Timeout, "1000 ms");
    }

    #[test]
    fn exit_without_done_is_a_crash() {
        expect(
            &loaded(Status::Exited(0), ""),
            Verdict::Crash,
            "exited with status 0 before returning",
        );
        expect(&loaded(Status::Exited(3), ""), Verdict::Crash, "status 3");
        expect(&loading(Status::Exited(0)), Verdict::Crash, "while loading");
        let worker = run(
            Status::Exited(2),
            vec![],
            "\nerror: unrecognized subcommand 'worker'\n",
        );
        expect(&worker, Verdict::Error, "not your fault");
        expect(
            &worker,
            Verdict::Error,
            "exit status 2 before loading your code: error: unrecognized subcommand",
        );
    }

    #[test]
    fn timeouts() {
        let mut cpu = loaded(Status::Signaled(9), "");
        cpu.timed_out = true;
        cpu.killed = Some(Kill::Cpu);
        cpu.cpu_ms = 1003;
        expect(&cpu, Verdict::Timeout, "time limit of 1000 ms");
        let mut wall = loaded(Status::Signaled(9), "");
        wall.timed_out = true;
        wall.killed = Some(Kill::Wall);
        wall.cpu_ms = 3;
        wall.wall_ms = 2500;
        expect(&wall, Verdict::Timeout, "2500 ms of wall-clock time");
        expect(
            &loaded(Status::Signaled(24), ""),
            Verdict::Timeout,
            "time limit",
        );
        let mut hard = loaded(Status::Signaled(9), "");
        hard.cpu_ms = 2000;
        expect(&hard, Verdict::Timeout, "time limit");
        let mut constructor = loading(Status::Signaled(9));
        constructor.timed_out = true;
        constructor.killed = Some(Kill::Cpu);
        expect(&constructor, Verdict::Timeout, "did not finish loading");
    }

    #[test]
    fn memory() {
        let mut oom = loaded(Status::Signaled(9), "");
        oom.oom_killed = true;
        expect(&oom, Verdict::Memory, "256 MiB");
        let rust = loaded(
            Status::Signaled(6),
            "memory allocation of 2147483648 bytes failed\n",
        );
        expect(
            &rust,
            Verdict::Memory,
            "memory allocation of 2147483648 bytes failed",
        );
    }

    #[test]
    fn forbidden_names_the_call() {
        let socket = run(
            Status::Exited(crate::worker::FORBIDDEN_EXIT),
            vec![
                WorkerMessage::Loaded,
                WorkerMessage::Forbidden {
                    syscall: libc::SYS_socket,
                },
            ],
            "",
        );
        expect(&socket, Verdict::Forbidden, "`socket` (networking)");
        let unknown = run(
            Status::Exited(crate::worker::FORBIDDEN_EXIT),
            vec![
                WorkerMessage::Loading,
                WorkerMessage::Forbidden { syscall: 99_999 },
            ],
            "",
        );
        expect(
            &unknown,
            Verdict::Forbidden,
            "`syscall 99999` while loading",
        );
        expect(
            &loaded(Status::Exited(crate::worker::FORBIDDEN_EXIT), ""),
            Verdict::Forbidden,
            "a system call",
        );
        expect(
            &loaded(Status::Signaled(31), ""),
            Verdict::Forbidden,
            "a system call",
        );
    }

    #[test]
    fn aborts_are_told_apart_by_their_message() {
        let overflow = "\nthread 'main' (77) has overflowed its stack\nfatal runtime error: stack overflow, aborting\n";
        expect(
            &loaded(Status::Signaled(6), overflow),
            Verdict::Crash,
            "stack overflow",
        );
        let panic = "thread '<unnamed>' (9) panicked at src/lib.rs:7:37:\nindex out of bounds: the len is 81 but the index is 99\nnote: run with `RUST_BACKTRACE=1`\n";
        let outcome = failure(&loaded(Status::Signaled(6), panic));
        assert_eq!(outcome.verdict, Verdict::Crash);
        assert_eq!(
            outcome.message,
            "panic: index out of bounds: the len is 81 but the index is 99 (at src/lib.rs:7:37)"
        );
        expect(
            &loaded(Status::Signaled(6), "boom"),
            Verdict::Crash,
            "aborted (SIGABRT)",
        );
    }

    #[test]
    fn other_signals_are_named() {
        expect(
            &loaded(Status::Signaled(11), ""),
            Verdict::Crash,
            "SIGSEGV (an invalid memory access",
        );
        expect(&loaded(Status::Signaled(8), ""), Verdict::Crash, "SIGFPE");
        expect(
            &loaded(Status::Signaled(64), ""),
            Verdict::Crash,
            "signal 64",
        );
        expect(
            &loading(Status::Signaled(11)),
            Verdict::Crash,
            "while loading",
        );
    }

    #[test]
    fn load_and_worker_errors() {
        let load = run(
            Status::Exited(2),
            vec![WorkerMessage::LoadError {
                message: "the library has no symbol `solve`".into(),
            }],
            "",
        );
        expect(&load, Verdict::Error, "no symbol `solve`");
        let worker = run(
            Status::Exited(2),
            vec![WorkerMessage::WorkerFailed {
                message: "the sandbox could not join the cgroup".into(),
            }],
            "",
        );
        expect(&worker, Verdict::Error, "not your fault");
    }

    #[cfg(unix)]
    #[test]
    fn the_input_is_encoded_as_a_worker_input() {
        use crate::protocol::{CodeKind, WorkerInput, WorkerRequest};
        let env = SandboxEnv::detect();
        let request = WorkerRequest {
            kind: CodeKind::Library,
            code: "/tmp/x/lib.so".into(),
            probe: crate::check::Probe::Solve {
                n: 2,
                board: vec![1, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            },
            limits: LIMITS,
            python: None,
        };
        let encoded = unix_run::encode_input(&request, &env, None).expect("encodes");
        let input = WorkerInput {
            request,
            sandbox: env.plan(LIMITS.memory_limit_mb, None),
        };
        assert_eq!(encoded, serde_json::to_vec(&input).expect("encodes"));
    }

    #[test]
    fn signal_names() {
        assert_eq!(signal_name(libc::SIGSEGV), "SIGSEGV");
        assert_eq!(signal_name(libc::SIGXCPU), "SIGXCPU");
        assert_eq!(signal_name(200), "signal 200");
        assert_eq!(
            Status::Signaled(libc::SIGKILL).to_string(),
            "signal SIGKILL"
        );
        assert_eq!(Status::Exited(1).to_string(), "exit status 1");
    }

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

    #[test]
    fn protocol_lines_decode_and_garbage_is_kept_once() {
        let bytes = b"{\"type\":\"loaded\"}\nhello from the student\n\n{\"type\":\"forbidden\",\"syscall\":41}\nmore junk\n";
        let (messages, garbage) = decode_messages(bytes);
        assert_eq!(
            messages,
            vec![
                WorkerMessage::Loaded,
                WorkerMessage::Forbidden { syscall: 41 }
            ]
        );
        assert_eq!(garbage.as_deref(), Some("hello from the student"));
    }
}
