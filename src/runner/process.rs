//! Running one test in a fresh worker process ([`run_test`]); how it ended
//! becomes a verdict in [`super::outcome`] (re-exported here).
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

pub use super::outcome::{
    GRADER_FAULT, Kill, Status, TestRun, decode_messages, outcome, signal_name, syscall_name,
};
pub use super::sandbox_env::SandboxEnv;

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

#[cfg(unix)]
mod unix_run {
    //! The spawn-and-watch loop of [`run_test`](super::run_test).

    use std::fs::File;
    use std::io::{self, Read, Write};
    use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use super::{Capped, Kill, SandboxEnv, Status, TestRun, join_output};
    use crate::protocol::{ProtocolLines, SandboxPlan, WorkerRequest};
    use crate::runner::unix;

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
        // Lines over the cap were cut while reading: nothing decodes them.
        let (messages, garbage) = watched.protocol.decode();
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
        protocol: ProtocolLines,
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
                        Stream::Protocol => self.protocol.push(&buf[..n]),
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
            protocol: ProtocolLines::new(),
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
    use crate::protocol::Limits;

    const LIMITS: Limits = Limits {
        time_limit_ms: 1000,
        memory_limit_mb: 256,
    };

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
        };
        let encoded = unix_run::encode_input(&request, &env, None).expect("encodes");
        let input = WorkerInput {
            request,
            sandbox: env.plan(LIMITS.memory_limit_mb, None),
        };
        assert_eq!(encoded, serde_json::to_vec(&input).expect("encodes"));
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
}
