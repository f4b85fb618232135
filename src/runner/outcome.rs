//! How a test ended, decided from what the grader observed: the pure
//! classifier [`outcome`] from a [`TestRun`] (exit status or signal, box
//! init's kill reason, the OOM counter, the CPU and wall time init
//! measured, the decoded protocol messages) to a verdict, with the
//! messages it words. What a test child wrote on fd 3 is decoded
//! defensively by [`crate::protocol::decode_messages`].
//!
//! Nothing a test child writes after `loading` is trusted further than
//! student code could forge it: see [`outcome`]. Every rule has a row in the table
//! test at the bottom.

use crate::check::Response;
use crate::finding::Finding;
use crate::protocol::{Limits, WorkerMessage};
use crate::verdict::{FaultKind, Outcome, Verdict};

use crate::runner::crash_site::CrashSite;
use crate::sandbox::run::{Kill, Status, TestRun, signal_name};

/// Decides what a finished test child means: `Ok` with the answers and the
/// test's time when it returned normally (then the caller judges the
/// answers), or the `Err` [`Outcome`] that ends the test (timeout, memory,
/// crash, forbidden, error — an error with a
/// [`Fault`](crate::verdict::Fault) when the grader failed). `output` is left empty for the caller.
///
/// A pure function of what the grader observed. What the test child wrote
/// is trusted only as far as student code could not have written it: the
/// messages before the first `loading` come from the worker program alone (so a
/// `worker_failed` counts only there); after it, fd 3 is student text too,
/// so a `done` counts only after `loaded`, alone, and with a clean exit,
/// and the time is never taken from it: the time is the CPU time box
/// init measured for the process.
pub fn outcome(run: &TestRun, limits: &Limits) -> Result<(Response, f64), Outcome> {
    before_the_answer(run, limits)?;
    if let Some(answer) = the_answer(run)? {
        return Ok(answer);
    }
    Err(how_it_ended(run, limits))
}

/// What ends a test before any answer counts: the grader's faults (a
/// worker that failed, a host too busy to time it, a worker that ended
/// before loading the code), a load error, a Python exception.
fn before_the_answer(run: &TestRun, limits: &Limits) -> Result<(), Outcome> {
    let fail = |verdict, message: String| Err(Outcome::new(verdict, message));
    let loaded = run.loaded();
    for message in run.worker_messages() {
        if let WorkerMessage::WorkerFailed { message } = message {
            return Err(Outcome::grader_fault(
                FaultKind::WorkerFailed,
                truncate(message, 2000),
            ));
        }
    }
    if run.killed == Some(Kill::Backstop) {
        return Err(Outcome::grader_fault(
            FaultKind::HostBusy,
            format!(
                "the host was too busy to time this test: after {} ms of wall-clock time it had used only {} ms of its {} ms of CPU time, and had waited {} ms for a CPU; grade again on a quieter machine or with fewer --jobs",
                run.wall_ms, run.cpu_ms, limits.time_limit_ms, run.waited_ms
            ),
        ));
    }
    if let Some(message) = run.messages.iter().find_map(|m| match m {
        WorkerMessage::LoadError { message, .. } if !loaded => Some(message),
        _ => None,
    }) {
        return fail(Verdict::Error, truncate(message, 2000).to_string());
    }
    // A Python exception, reported by the harness before it exits (student
    // text like any other message: it only ever lowers the verdict).
    if !run.timed_out() {
        if let Some((name, message)) = run.messages.iter().find_map(|m| match m {
            WorkerMessage::Exception { name, message } => Some((name, message)),
            _ => None,
        }) {
            let verdict = if name == "MemoryError" {
                Verdict::Memory
            } else {
                Verdict::Crash
            };
            let outcome = Outcome::new(verdict, truncate(message, 4000).to_string());
            return Err(match name.as_str() {
                "RecursionError" => outcome.with(Finding::RecursionLimit),
                _ => outcome,
            });
        }
    }
    if !run.student_code_ran() {
        let mut message = format!(
            "its worker process ended with {} before loading your code",
            if run.timed_out() {
                "a timeout".to_string()
            } else {
                run.status.to_string()
            }
        );
        if let Some(line) = run.output.lines().find(|l| !l.trim().is_empty()) {
            message.push_str(&format!(": {}", truncate(line.trim(), 300)));
        }
        return Err(Outcome::grader_fault(FaultKind::WorkerEnded, message));
    }
    Ok(())
}

/// The answer of a worker that exited cleanly: its one `done` line after
/// `loaded` (a `done` before it was written by a load-time constructor);
/// two are a write to the protocol fd. `None` when there is none.
fn the_answer(run: &TestRun) -> Result<Option<(Response, f64)>, Outcome> {
    if run.status == Status::Exited(0) && !run.timed_out() {
        // The worker answers only after `loaded`: a `done` before it was
        // written by a load-time constructor.
        let after_loaded = run
            .messages
            .iter()
            .skip_while(|m| !matches!(m, WorkerMessage::Loaded));
        let mut dones = after_loaded.filter_map(|m| match m {
            WorkerMessage::Done { response, .. } => Some(response),
            _ => None,
        });
        match (dones.next(), dones.next()) {
            (Some(response), None) => return Ok(Some((response.clone(), run.cpu_ms as f64))),
            (Some(_), Some(_)) => {
                return Err(Outcome {
                    check: Some(crate::check::Check::ProtocolFd3),
                    ..Outcome::new(
                        Verdict::Wrong,
                        "wrote to the grader's protocol fd 3 (more than one `done` line): a solver must not write to fd 3",
                    )
                });
            }
            _ => {}
        }
    }
    Ok(None)
}

/// How a run that gave no answer ended: a refused call, a timeout, the
/// memory limit, a crash or an exit.
fn how_it_ended(run: &TestRun, limits: &Limits) -> Outcome {
    let loaded = run.loaded();
    if let Some(syscall) = run.messages.iter().find_map(|m| match m {
        WorkerMessage::Forbidden { syscall } => Some(*syscall),
        _ => None,
    }) {
        return Outcome::new(Verdict::Forbidden, forbidden_message(Some(syscall), loaded));
    }
    // SIGSYS: a filter killed outright, or the worker's handler could not
    // report (student code closed fd 3) and exited with its own status.
    let handler_exit = run.status == Status::Exited(crate::worker::FORBIDDEN_EXIT);
    if run.status == Status::Signaled(libc_signal::SIGSYS) || handler_exit {
        return Outcome::new(Verdict::Forbidden, forbidden_message(None, loaded));
    }
    let limit_ms = limits.time_limit_ms;
    if run.timed_out() || run.status == Status::Signaled(libc_signal::SIGXCPU) {
        if !loaded {
            return Outcome::new(
                Verdict::Timeout,
                format!(
                    "the library did not finish loading within the time limit of {limit_ms} ms (a load-time constructor that never returns?)"
                ),
            );
        }
        return Outcome::new(Verdict::Timeout, timeout_message(run, limit_ms));
    }
    if run.oom_killed {
        return Outcome::new(
            Verdict::Memory,
            format!(
                "used more than the memory limit of {} MiB",
                limits.memory_limit_mb
            ),
        );
    }
    if run.status == Status::Signaled(libc_signal::SIGKILL) && run.cpu_ms >= limit_ms {
        return Outcome::new(Verdict::Timeout, timeout_message(run, limit_ms));
    }
    crashed(run, limits, loaded)
}

/// A run that ended by a signal or an exit of its own, `loaded` or not.
fn crashed(run: &TestRun, limits: &Limits, loaded: bool) -> Outcome {
    let during = if loaded {
        ""
    } else {
        " while loading (in a load-time constructor)"
    };
    match run.status {
        Status::Signaled(libc_signal::SIGABRT) => {
            let output = &run.output;
            if output.contains("memory allocation of") {
                return Outcome::new(
                    Verdict::Memory,
                    format!(
                        "ran out of memory{during} (limit {} MiB): {}",
                        limits.memory_limit_mb,
                        first_line_with(output, "memory allocation of")
                    ),
                );
            }
            if output.contains("has overflowed its stack") {
                // Not worded by the crash handler's line: where the stack
                // ran out (`solve`, or the `legal` it called) changes from
                // run to run with where the stack starts.
                return Outcome::new(
                    Verdict::Crash,
                    format!("stack overflow{during} (recursion too deep?), ended by SIGABRT"),
                )
                .with(Finding::StackOverflow {
                    during_load: !loaded,
                });
            }
            if output.contains("panicked at") {
                return Outcome::new(
                    Verdict::Crash,
                    format!("panic{during}: {}", panic_summary(output)),
                );
            }
            Outcome::new(Verdict::Crash, format!("aborted{during} (SIGABRT)"))
        }
        Status::Signaled(signal) => {
            let message = match crash_place(run, signal) {
                Some(place) => {
                    let (name, meaning) = signal_meaning(signal);
                    format!("crashed with {name} {place}, {meaning}")
                }
                None => format!("crashed{during} with {}", signal_description(signal)),
            };
            Outcome::new(Verdict::Crash, message)
        }
        Status::Exited(code) if !loaded => Outcome::new(
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
            Outcome::new(Verdict::Crash, message)
        }
    }
}

/// The message of a timeout verdict.
fn timeout_message(run: &TestRun, limit_ms: u64) -> String {
    if run.killed == Some(Kill::Idle) {
        format!(
            "did not finish: it spent {} ms without using or waiting for a CPU (sleeping, or blocked waiting for input), more than the {limit_ms} ms of its time limit allow, having used {} ms of CPU",
            run.idle_ms, run.cpu_ms
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
    if let Some(name) = crate::worker::seccomp::syscall_name(number) {
        return name.to_string();
    }
    format!("syscall {number}")
}

/// What a forbidden call was for, in words.
fn syscall_purpose(number: i64) -> Option<&'static str> {
    let name = crate::worker::seccomp::syscall_name(number)?;
    Some(match name {
        "fork" | "vfork" | "clone" | "clone3" => "creating a process",
        "execve" | "execveat" => "running a program",
        "socket" | "socketpair" | "connect" | "bind" | "listen" | "accept" | "accept4" => {
            "networking"
        }
        "kill" | "tkill" | "tgkill" | "rt_sigqueueinfo" | "rt_tgsigqueueinfo"
        | "pidfd_send_signal" => "signalling another process",
        "ptrace" | "process_vm_readv" | "process_vm_writev" | "kcmp" | "pidfd_open"
        | "pidfd_getfd" => "inspecting another process",
        "prlimit64" | "setpriority" | "sched_setaffinity" | "sched_setscheduler"
        | "sched_setparam" | "sched_setattr" | "fcntl" => "changing another process",
        "chmod" | "fchmod" | "fchmodat" | "fchmodat2" | "chown" | "fchown" | "lchown"
        | "fchownat" | "utime" | "utimes" | "utimensat" | "futimesat" | "setxattr"
        | "lsetxattr" | "fsetxattr" | "removexattr" | "lremovexattr" | "fremovexattr" => {
            "changing a file's metadata"
        }
        _ => return None,
    })
}

/// Signal numbers used in verdicts (the same on every Linux architecture
/// the grader supports).
mod libc_signal {
    pub(super) const SIGABRT: i32 = 6;
    pub(super) const SIGKILL: i32 = 9;
    pub(super) const SIGXCPU: i32 = 24;
    pub(super) const SIGSYS: i32 = 31;
}

/// Where a library's code crashed with `signal`, in words ("in your
/// function `legal`"), from the crash handler's one
/// `crash_site` line after `loaded` (see [`CrashSite`]); `None` when there
/// is none, more than one, a malformed one, or one of another signal. It
/// only words the crash: the wait status decided it.
fn crash_place(run: &TestRun, signal: i32) -> Option<String> {
    let mut sites = run
        .messages
        .iter()
        .skip_while(|m| !matches!(m, WorkerMessage::Loaded))
        .filter_map(|m| match m {
            WorkerMessage::CrashSite { site } => Some(site),
            _ => None,
        });
    let (Some(site), None) = (sites.next(), sites.next()) else {
        return None;
    };
    let site = CrashSite::parse(site)?;
    (site.signal == signal).then(|| site.words())
}

/// A signal's name with what it usually means.
fn signal_description(signal: i32) -> String {
    let (name, meaning) = signal_meaning(signal);
    if meaning.is_empty() {
        name
    } else {
        format!("{name} ({meaning})")
    }
}

/// A signal's name, and what it usually means (empty for a signal without
/// a usual meaning).
fn signal_meaning(signal: i32) -> (String, &'static str) {
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
    (name, meaning)
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
    truncate(
        &format!("{message} (at {})", student_location(location)),
        300,
    )
    .to_string()
}

/// A panic's location as the student can find it: the crate's own files
/// are named relative to it (`src/lib.rs:25:9`, as built); an absolute path
/// is a file of the build's own copy of the lab crate or of Rust's library,
/// named so instead of by a temporary folder that no longer exists.
fn student_location(location: &str) -> String {
    if !location.starts_with('/') {
        return location.to_string();
    }
    if location.contains("/rustc/") {
        return "Rust's standard library, called from your code".to_string();
    }
    match location.rsplit_once("/src/") {
        Some((_, file)) => format!("the lab crate's src/{file}, called from your code"),
        None => "the lab crate, called from your code".to_string(),
    }
}

/// At most `max` bytes of `s`, cut at a character boundary.
fn truncate(s: &str, max: usize) -> &str {
    crate::protocol::truncate_at_char(s, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{decode_messages, overlong_line};
    use crate::verdict::Blame::{self, Grader, Student};
    use proptest::prelude::*;

    const LIMITS: Limits = Limits {
        time_limit_ms: 1000,
        memory_limit_mb: 256,
    };

    fn done(time_ms: f64) -> WorkerMessage {
        WorkerMessage::Done {
            response: Response::Solve {
                solved: true,
                board: vec![1, 2, 3, 4],
            },
            time_ms,
        }
    }

    fn failed(message: &str) -> WorkerMessage {
        WorkerMessage::WorkerFailed {
            message: message.into(),
        }
    }

    fn load_error(message: &str) -> WorkerMessage {
        WorkerMessage::LoadError {
            message: message.into(),
            refusal: None,
            module_line: None,
            missing_module: None,
        }
    }

    use WorkerMessage::{Loaded, Loading};

    /// The crash handler's line (or a forgery of it).
    fn site(site: &str) -> WorkerMessage {
        WorkerMessage::CrashSite { site: site.into() }
    }

    /// What the grader observed, built up one fact at a time.
    #[derive(Clone)]
    struct Seen(TestRun);

    fn seen(status: Status, messages: Vec<WorkerMessage>) -> Seen {
        Seen(TestRun {
            messages,
            garbage: None,
            status,
            killed: None,
            oom_killed: false,
            cpu_ms: 5,
            wall_ms: 7,
            idle_ms: 0,
            waited_ms: 0,
            output: String::new(),
            output_dropped: 0,
            pid: 1234,
        })
    }

    /// Loaded, then ended with `status`.
    fn ran(status: Status) -> Seen {
        seen(status, vec![Loading, Loaded])
    }

    impl Seen {
        fn killed(mut self, kill: Kill, cpu_ms: u64, wall_ms: u64) -> Seen {
            self.0.killed = Some(kill);
            self.0.cpu_ms = cpu_ms;
            self.0.wall_ms = wall_ms;
            self.0.idle_ms = wall_ms.saturating_sub(cpu_ms);
            self
        }
        fn cpu(mut self, cpu_ms: u64) -> Seen {
            self.0.cpu_ms = cpu_ms;
            self
        }
        fn oom(mut self) -> Seen {
            self.0.oom_killed = true;
            self
        }
        fn printed(mut self, output: &str) -> Seen {
            self.0.output = output.into();
            self
        }
        fn garbage(mut self, garbage: &str) -> Seen {
            self.0.garbage = Some(garbage.into());
            self
        }
    }

    /// What the classifier must say.
    enum Want {
        /// Judged, with this time (the grader's CPU measurement).
        Judged(f64),
        /// Ended with this verdict, blame and a phrase of the message.
        Ended(Verdict, Blame, &'static str),
    }
    use Want::{Ended, Judged};

    const SIGABRT: Status = Status::Signaled(6);
    const SIGKILL: Status = Status::Signaled(9);
    const SIGSEGV: Status = Status::Signaled(11);

    fn table() -> Vec<(&'static str, Seen, Want)> {
        let overflow = "\nthread 'main' (77) has overflowed its stack\nfatal runtime error: stack overflow, aborting\n";
        let panic = "thread '<unnamed>' (9) panicked at src/lib.rs:7:37:\nindex out of bounds: the len is 81 but the index is 99\nnote: run with `RUST_BACKTRACE=1`\n";
        vec![
            (
                "done and exit 0: judged, with the grader's CPU time",
                seen(Status::Exited(0), vec![Loading, Loaded, done(0.5)]).cpu(3),
                Judged(3.0),
            ),
            (
                "a forged done with an absurd time: the time is still the grader's",
                seen(Status::Exited(0), vec![Loading, Loaded, done(1e300)]).cpu(4),
                Judged(4.0),
            ),
            (
                "a forged done with a negative time",
                seen(Status::Exited(0), vec![Loading, Loaded, done(-1e300)]).cpu(0),
                Judged(0.0),
            ),
            (
                "two done lines: student code wrote to fd 3",
                seen(
                    Status::Exited(0),
                    vec![Loading, Loaded, done(1.0), done(2.0)],
                ),
                Ended(Verdict::Wrong, Student, "more than one `done`"),
            ),
            (
                "a done forged by a constructor, before loaded, then exit 0",
                seen(Status::Exited(0), vec![Loading, done(0.5)]),
                Ended(Verdict::Crash, Student, "while loading"),
            ),
            (
                "a done, then a crash: the done is not trusted",
                seen(SIGSEGV, vec![Loading, Loaded, done(0.5)]),
                Ended(Verdict::Crash, Student, "SIGSEGV"),
            ),
            (
                "a done, then killed for CPU time",
                seen(Status::Exited(0), vec![Loading, Loaded, done(0.5)]).killed(
                    Kill::Cpu,
                    1000,
                    1000,
                ),
                Ended(Verdict::Timeout, Student, "1000 ms"),
            ),
            (
                "exit 0 without done",
                ran(Status::Exited(0)),
                Ended(
                    Verdict::Crash,
                    Student,
                    "exited with status 0 before returning",
                ),
            ),
            (
                "exit 3 without done, with garbage on fd 3",
                ran(Status::Exited(3)).garbage("hello"),
                Ended(Verdict::Crash, Student, "fd 3: \"hello\""),
            ),
            (
                "an overlong protocol line, then exit: the student's crash",
                ran(Status::Exited(0)).garbage(&overlong_line(2 << 20)),
                Ended(Verdict::Crash, Student, "over the protocol's cap"),
            ),
            (
                "exit while loading",
                seen(Status::Exited(0), vec![Loading]),
                Ended(Verdict::Crash, Student, "while loading"),
            ),
            (
                "the worker died before loading: the grader's fault",
                seen(Status::Exited(2), vec![])
                    .printed("\nerror: unrecognized subcommand 'worker'\n"),
                Ended(
                    Verdict::Error,
                    Grader,
                    "exit status 2 before loading your code: error: unrecognized subcommand",
                ),
            ),
            (
                "worker_failed before loading: the grader's fault",
                seen(Status::Exited(2), vec![failed("cannot join the cgroup")]),
                Ended(Verdict::Error, Grader, "cannot join the cgroup"),
            ),
            (
                "a forged worker_failed after loading, then a clean done: judged",
                seen(
                    Status::Exited(0),
                    vec![Loading, Loaded, failed("not me"), done(0.1)],
                ),
                Judged(5.0),
            ),
            (
                "a forged worker_failed after loading, then exit: the student's crash",
                seen(Status::Exited(2), vec![Loading, Loaded, failed("not me")]),
                Ended(Verdict::Crash, Student, "exited with status 2"),
            ),
            (
                "a forged worker_failed in a constructor, then a crash",
                seen(SIGSEGV, vec![Loading, failed("not me")]),
                Ended(Verdict::Crash, Student, "while loading"),
            ),
            (
                "load error",
                seen(
                    Status::Exited(2),
                    vec![Loading, load_error("the library has no symbol `solve`")],
                ),
                Ended(Verdict::Error, Student, "no symbol `solve`"),
            ),
            (
                "a Python exception in a test: the student's crash",
                seen(
                    Status::Exited(1),
                    vec![
                        Loading,
                        Loaded,
                        WorkerMessage::Exception {
                            name: "IndexError".to_string(),
                            message: "raised IndexError in solve".to_string(),
                        },
                    ],
                ),
                Ended(Verdict::Crash, Student, "raised IndexError in solve"),
            ),
            (
                "a Python MemoryError: memory",
                seen(
                    Status::Exited(1),
                    vec![
                        Loading,
                        Loaded,
                        WorkerMessage::Exception {
                            name: "MemoryError".to_string(),
                            message: "raised MemoryError".to_string(),
                        },
                    ],
                ),
                Ended(Verdict::Memory, Student, "raised MemoryError"),
            ),
            (
                "killed for CPU time",
                ran(SIGKILL).killed(Kill::Cpu, 1003, 1010),
                Ended(Verdict::Timeout, Student, "time limit of 1000 ms"),
            ),
            (
                "killed for sleeping (idle past the limit)",
                ran(SIGKILL).killed(Kill::Idle, 3, 2500),
                Ended(
                    Verdict::Timeout,
                    Student,
                    "without using or waiting for a CPU",
                ),
            ),
            (
                "stopped at the backstop while runnable: the host was too busy",
                ran(SIGKILL).killed(Kill::Backstop, 300, 20000),
                Ended(
                    Verdict::Error,
                    Grader,
                    "the host was too busy to time this test",
                ),
            ),
            (
                "SIGXCPU (the rlimit backstop)",
                ran(Status::Signaled(24)),
                Ended(Verdict::Timeout, Student, "time limit"),
            ),
            (
                "SIGKILL with the CPU limit used up",
                ran(SIGKILL).cpu(2000),
                Ended(Verdict::Timeout, Student, "time limit"),
            ),
            (
                "a constructor that never returns",
                seen(SIGKILL, vec![Loading]).killed(Kill::Cpu, 1000, 1000),
                Ended(Verdict::Timeout, Student, "did not finish loading"),
            ),
            (
                "the cgroup's OOM killer",
                ran(SIGKILL).oom(),
                Ended(Verdict::Memory, Student, "256 MiB"),
            ),
            (
                "Rust's allocation failure",
                ran(SIGABRT).printed("memory allocation of 2147483648 bytes failed\n"),
                Ended(
                    Verdict::Memory,
                    Student,
                    "memory allocation of 2147483648 bytes failed",
                ),
            ),
            (
                "Rust's stack overflow",
                ran(SIGABRT).printed(overflow),
                Ended(Verdict::Crash, Student, "stack overflow"),
            ),
            (
                "a Rust panic",
                ran(SIGABRT).printed(panic),
                Ended(
                    Verdict::Crash,
                    Student,
                    "panic: index out of bounds: the len is 81 but the index is 99 (at src/lib.rs:7:37)",
                ),
            ),
            (
                "abort",
                ran(SIGABRT).printed("boom"),
                Ended(Verdict::Crash, Student, "aborted (SIGABRT)"),
            ),
            (
                "SIGSEGV",
                ran(SIGSEGV),
                Ended(Verdict::Crash, Student, "SIGSEGV (an invalid memory access"),
            ),
            (
                "SIGSEGV with the crash handler's line: the place words it",
                seen(SIGSEGV, vec![Loading, Loaded, site("11 in legal+0x1c")]),
                Ended(
                    Verdict::Crash,
                    Student,
                    "crashed with SIGSEGV in your function `legal`, an invalid memory access",
                ),
            ),
            (
                "SIGFPE at an offset of the library no function covers",
                seen(
                    Status::Signaled(8),
                    vec![Loading, Loaded, site("8 at 0x115c")],
                ),
                Ended(
                    Verdict::Crash,
                    Student,
                    "crashed with SIGFPE at offset 0x115c of your library, an arithmetic error",
                ),
            ),
            (
                "SIGSEGV in libc",
                seen(SIGSEGV, vec![Loading, Loaded, site("11 lib libc.so.6")]),
                Ended(
                    Verdict::Crash,
                    Student,
                    "crashed with SIGSEGV outside your library (in libc.so.6), an invalid",
                ),
            ),
            (
                "a crash line of another signal than the one that ended it: as without",
                seen(SIGSEGV, vec![Loading, Loaded, site("8 in legal+0x1c")]),
                Ended(Verdict::Crash, Student, "crashed with SIGSEGV (an invalid"),
            ),
            (
                "two crash lines (one forged): as without",
                seen(
                    SIGSEGV,
                    vec![
                        Loading,
                        Loaded,
                        site("11 in solve+0x0"),
                        site("11 in legal+0x1c"),
                    ],
                ),
                Ended(Verdict::Crash, Student, "crashed with SIGSEGV (an invalid"),
            ),
            (
                "a malformed crash line: as without",
                seen(
                    SIGSEGV,
                    vec![Loading, Loaded, site("11 in your function `x`+0x0")],
                ),
                Ended(Verdict::Crash, Student, "crashed with SIGSEGV (an invalid"),
            ),
            (
                "a crash line before loaded (a constructor's): as without",
                seen(SIGSEGV, vec![Loading, site("11 in legal+0x1c"), Loaded]),
                Ended(Verdict::Crash, Student, "crashed with SIGSEGV (an invalid"),
            ),
            (
                "a crash line, then a clean done: judged, the line changes nothing",
                seen(
                    Status::Exited(0),
                    vec![Loading, Loaded, site("11 in legal+0x1c"), done(0.1)],
                ),
                Judged(5.0),
            ),
            (
                "a crash line, then exit: the exit's message",
                seen(
                    Status::Exited(3),
                    vec![Loading, Loaded, site("11 in legal+0x1c")],
                ),
                Ended(Verdict::Crash, Student, "exited with status 3"),
            ),
            (
                "a crash line, then abort: aborted",
                seen(SIGABRT, vec![Loading, Loaded, site("11 in legal+0x1c")]).printed("boom"),
                Ended(Verdict::Crash, Student, "aborted (SIGABRT)"),
            ),
            (
                "Rust's stack overflow, with the crash handler's line: as without",
                seen(SIGABRT, vec![Loading, Loaded, site("11 in legal+0xb")]).printed(overflow),
                Ended(
                    Verdict::Crash,
                    Student,
                    "stack overflow (recursion too deep?), ended by SIGABRT",
                ),
            ),
            (
                "SIGFPE",
                ran(Status::Signaled(8)),
                Ended(Verdict::Crash, Student, "SIGFPE"),
            ),
            (
                "an unknown signal",
                ran(Status::Signaled(64)),
                Ended(Verdict::Crash, Student, "signal 64"),
            ),
            (
                "SIGSYS from the filter",
                ran(Status::Signaled(31)),
                Ended(Verdict::Forbidden, Student, "a system call"),
            ),
            (
                "forbidden socket, reported by the handler",
                seen(
                    Status::Exited(crate::worker::FORBIDDEN_EXIT),
                    vec![
                        Loading,
                        Loaded,
                        WorkerMessage::Forbidden {
                            syscall: libc::SYS_socket,
                        },
                    ],
                ),
                Ended(Verdict::Forbidden, Student, "`socket` (networking)"),
            ),
            (
                "forbidden prlimit64 on another process",
                seen(
                    Status::Exited(crate::worker::FORBIDDEN_EXIT),
                    vec![
                        Loading,
                        Loaded,
                        WorkerMessage::Forbidden {
                            syscall: libc::SYS_prlimit64,
                        },
                    ],
                ),
                Ended(
                    Verdict::Forbidden,
                    Student,
                    "`prlimit64` (changing another process)",
                ),
            ),
            (
                "forbidden chmod",
                seen(
                    Status::Exited(crate::worker::FORBIDDEN_EXIT),
                    vec![
                        Loading,
                        Loaded,
                        WorkerMessage::Forbidden {
                            syscall: libc::SYS_fchmodat,
                        },
                    ],
                ),
                Ended(
                    Verdict::Forbidden,
                    Student,
                    "`fchmodat` (changing a file's metadata)",
                ),
            ),
            (
                "an unknown forbidden call while loading",
                seen(
                    Status::Exited(crate::worker::FORBIDDEN_EXIT),
                    vec![Loading, WorkerMessage::Forbidden { syscall: 99_999 }],
                ),
                Ended(Verdict::Forbidden, Student, "`syscall 99999` while loading"),
            ),
            (
                "the handler's exit status without a message",
                ran(Status::Exited(crate::worker::FORBIDDEN_EXIT)),
                Ended(Verdict::Forbidden, Student, "a system call"),
            ),
        ]
    }

    #[test]
    fn every_situation_gets_its_verdict() {
        let mut problems = Vec::new();
        for (situation, Seen(run), want) in table() {
            match (outcome(&run, &LIMITS), want) {
                (Ok((_, time)), Judged(expected)) if time == expected => {}
                (Err(got), Ended(verdict, blame, phrase))
                    if got.verdict == verdict
                        && got.blame() == blame
                        && got.message.contains(phrase)
                        // Every `wrong` names the check it failed.
                        && (verdict != Verdict::Wrong || got.check.is_some()) => {}
                (got, Judged(time)) => problems.push(format!(
                    "{situation}: want judged in {time} ms, got {got:?}"
                )),
                (got, Ended(verdict, blame, phrase)) => problems.push(format!(
                    "{situation}: want {verdict} ({blame:?}) with {phrase:?}, got {got:?}"
                )),
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    proptest! {
        /// Whatever student code writes on fd 3 and however the process
        /// ends, the classifier never panics, a judged test's time is the
        /// grader's, and crash lines change no verdict.
        #[test]
        fn forged_messages_never_panic_and_never_set_the_time(
            lines in prop::collection::vec(
                prop_oneof![
                    Just(Loading),
                    Just(Loaded),
                    ".{0,40}".prop_map(|message| failed(&message)),
                    ".{0,40}".prop_map(|message| load_error(&message)),
                    any::<i64>().prop_map(|syscall| WorkerMessage::Forbidden { syscall }),
                    ".{0,140}".prop_map(|s| site(&s)),
                    "(4|7|8|11) (in [a-z_.]{1,70}\\+0x[0-9a-f]{1,17}|at 0x[0-9a-f]{1,17}|lib [a-z.]{1,70}|program|file|unknown)"
                        .prop_map(|s| site(&s)),
                    (any::<f64>(), prop::collection::vec(any::<u8>(), 0..90), any::<bool>())
                        .prop_map(|(time_ms, board, solved)| WorkerMessage::Done {
                            response: Response::Solve { solved, board },
                            time_ms,
                        }),
                ],
                0..8,
            ),
            signaled in any::<bool>(),
            code in prop_oneof![Just(4), Just(6), Just(7), Just(8), Just(11), any::<i32>()],
            cpu_ms in any::<u64>(),
            wall_ms in any::<u64>(),
            killed in prop::option::of(any::<bool>()),
            oom in any::<bool>(),
            output in ".{0,80}",
        ) {
            let status = if signaled { Status::Signaled(code) } else { Status::Exited(code) };
            let mut run = seen(status, lines).printed(&output).0;
            run.cpu_ms = cpu_ms;
            run.wall_ms = wall_ms;
            run.killed = killed.map(|cpu| if cpu { Kill::Cpu } else { Kill::Idle });
            run.oom_killed = oom;
            let decided = outcome(&run, &LIMITS);
            if let Ok((_, time)) = &decided {
                prop_assert_eq!(*time, cpu_ms as f64);
            }
            // A crash line words a verdict, never decides one.
            let mut without = run.clone();
            without
                .messages
                .retain(|m| !matches!(m, WorkerMessage::CrashSite { .. }));
            let verdict = |decided: &Result<(Response, f64), Outcome>| match decided {
                Ok((response, _)) => Ok(response.clone()),
                Err(outcome) => Err((outcome.verdict, outcome.blame())),
            };
            prop_assert_eq!(verdict(&decided), verdict(&outcome(&without, &LIMITS)));
        }
    }

    #[test]
    fn panic_locations_name_the_students_file_never_the_boxs_copy() {
        let report = |at: &str| format!("\nthread '<unnamed>' (3) panicked at {at}:\nboom\n");
        assert_eq!(
            panic_summary(&report("src/lib.rs:25:9")),
            "boom (at src/lib.rs:25:9)"
        );
        let lab = panic_summary(&report("/tmp/box-1/lab/sudoku-lab/src/lib.rs:244:9"));
        assert_eq!(
            lab,
            "boom (at the lab crate's src/lib.rs:244:9, called from your code)"
        );
        assert!(!lab.contains("/tmp"), "{lab}");
        let core = panic_summary(&report("/rustc/abc/library/core/src/panicking.rs:225:5"));
        assert!(core.contains("Rust's standard library"), "{core}");
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

    #[test]
    fn a_line_over_the_cap_is_never_decoded() {
        // A valid message padded past the cap with JSON whitespace.
        let mut line = b"{\"type\":\"loaded\"".to_vec();
        line.resize(crate::protocol::MAX_LINE_BYTES + 10, b' ');
        line.extend_from_slice(b"}\n{\"type\":\"loading\"}\n");
        let (messages, garbage) = decode_messages(&line);
        assert_eq!(messages, vec![WorkerMessage::Loading]);
        assert!(garbage.is_some_and(|g| g.contains("over the protocol's cap")));
    }

    #[test]
    fn lines_are_cut_while_reading() {
        use crate::protocol::ProtocolLines;
        let mut lines = ProtocolLines::new();
        lines.push(b"{\"type\":\"loading\"}\n{\"type\":");
        // 5 MiB of one line, in chunks, as a pipe delivers it.
        let chunk = vec![b' '; 64 * 1024];
        for _ in 0..80 {
            lines.push(&chunk);
        }
        lines.push(b"\"loaded\"}\n{\"type\":\"loaded\"}\n");
        assert!(lines.bytes().len() < 100, "{}", lines.bytes().len());
        let (messages, garbage) = lines.decode();
        assert_eq!(
            messages,
            vec![WorkerMessage::Loading, WorkerMessage::Loaded]
        );
        assert!(
            garbage
                .as_deref()
                .is_some_and(|g| g.contains("over the protocol's cap")),
            "{garbage:?}"
        );
        // A long but legal line is kept whole.
        let mut ok = ProtocolLines::new();
        let mut line = b"{\"type\":\"loaded\"".to_vec();
        line.resize(crate::protocol::MAX_LINE_BYTES - 1, b' ');
        line.extend_from_slice(b"}\n");
        for piece in line.chunks(4096) {
            ok.push(piece);
        }
        assert_eq!(ok.decode(), (vec![WorkerMessage::Loaded], None));
    }
}
