//! The box's init: one process per submission, inside the box, that runs
//! every build and every test of that submission and kills whatever each
//! run leaves behind.
//!
//! The grader starts `<worker> worker` with stdin = the command pipe, fds
//! 1-3 = the student's stdout, stderr and protocol pipes, fd 4 = the event
//! pipe ([`crate::protocol::BOX_EVENTS_FD`]). With namespaces, the grader's
//! `pre_exec` hook has already unshared new PID, mount, network, IPC and
//! UTS namespaces, so this process forks the box's init, pid 1 of the new
//! PID namespace: when it ends, the kernel kills everything in the box (no
//! daemon survives the submission), and after each run it kills every
//! other process with `kill(-1)`. In its private mount namespace it builds
//! the box's private root and moves into it (`mounts.rs`): only the union
//! of the box's views ([`crate::protocol::BoxSetup::views`]), its own
//! `/proc` (only the box's processes) and a few device nodes.
//!
//! Per run, init forks one child, which closes the command and event pipes
//! and takes `/dev/null` as stdin, or, for a test, hands the test to the
//! submission's test zygote (`test_zygote.rs`, started at the first test),
//! which forks the test child and tells init its pid and its end. Without
//! a PID namespace (a non-root `grader check`) the zygote serves too:
//! init is a subreaper (`PR_SET_CHILD_SUBREAPER`), so whatever a test
//! leaves behind is init's descendant, and init kills that tree (all of
//! it but the zygote) where pid 1 would `kill(-1)`. A test child is confined
//! (rlimits, Landlock on its kind's view, the uid drop, seccomp: the
//! zygote's once and the child's own additions, or all of it in a child
//! of init, see `run_library` in `worker/mod.rs`) before it loads the
//! student's library, so load-time constructors are confined; a build
//! child confines itself (rlimits, the uid drop, no_new_privs, Landlock on
//! its kind's view) and `execve`s the compiler or cargo. Init measures the
//! child's CPU time (for a build, the whole tree's), the time it did not
//! want a CPU and the wall time itself, kills it at a deadline, kills
//! everything else it left (all but the test zygote), reaps it all, and
//! reports a [`RunEnd`] on the event pipe, which student code cannot
//! reach. ARCHITECTURE.md ("Theory of operation")
//! tabulates these processes.
//!
//! Init never runs student code and stays single-threaded, so forking from
//! it is safe; it keeps root (inside its namespaces) only to make the box
//! and to drop each child's privileges.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd};
use std::time::{Duration, Instant};

use super::clock::RunClock;
use super::mounts;
use super::sys;
use super::test_zygote::{self, Report, ZygoteKey};
use crate::protocol::{
    BOX_EVENTS_FD, BoxCommand, BoxEvent, BoxSetup, BuildJob, CodeKind, Deadlines, MAX_INPUT_BYTES,
    PROTOCOL_FD, RunEnd, RunKill, ViewKind, WorkerInput,
};

/// How often init checks a running test's CPU and idle time.
const CPU_CHECK: Duration = Duration::from_millis(5);

/// How often init checks a running build (a reading walks its whole
/// process tree).
const BUILD_CHECK: Duration = Duration::from_millis(20);

/// Exit status of a run's child that could not set itself up.
const EXEC_FAILED: i32 = crate::protocol::BOX_SETUP_FAILED_EXIT;

/// The `<worker> worker` entry point: set up the box, then serve commands
/// until the grader closes the command pipe.
///
/// # Errors
/// When started by hand (no event pipe).
pub(super) fn main() -> anyhow::Result<u8> {
    // SAFETY: F_GETFD only reads fd flags.
    if unsafe { libc::fcntl(BOX_EVENTS_FD, libc::F_GETFD) } == -1 || !sys::protocol_fd_open() {
        anyhow::bail!(
            "the worker (`grader-worker`, `grader worker`) is the box `grader grade` and `grader check` start for each submission, with pipes on fds 3 and 4; do not run it by hand"
        );
    }
    // SAFETY: fd 0 is the command pipe the grader passed; this File is its
    // only owner.
    let stdin = unsafe { std::fs::File::from_raw_fd(0) };
    let mut commands = BufReader::with_capacity(1 << 16, stdin);
    let setup: BoxSetup = match read_line(&mut commands) {
        Ok(Some(line)) => match serde_json::from_slice(&line) {
            Ok(setup) => setup,
            Err(err) => return Ok(failed(format!("a malformed box setup: {err}"))),
        },
        Ok(None) => return Ok(0),
        Err(err) => return Ok(failed(format!("cannot read the box setup: {err}"))),
    };
    if setup.namespaces {
        // This process entered the new namespaces with the grader's
        // unshare, but only its children enter the new PID namespace:
        // fork the box's init, and wait for it.
        match sys::fork() {
            Ok(0) => {}
            Ok(init) => {
                drop(commands);
                for fd in 1..=BOX_EVENTS_FD {
                    sys::close(fd);
                }
                let code = match sys::wait_for(init, false) {
                    Some((_, waited)) if libc::WIFEXITED(waited.status) => {
                        libc::WEXITSTATUS(waited.status)
                    }
                    _ => 1,
                };
                sys::exit_now(code);
            }
            Err(err) => return Ok(failed(format!("cannot fork the box's init: {err}"))),
        }
    }
    Ok(Init::new(setup).serve(commands))
}

/// Reports a box failure on the event pipe; returns the exit status.
fn failed(message: String) -> u8 {
    send(&BoxEvent::Failed { message });
    super::channel::FAILED_EXIT
}

/// Writes one event line to the event pipe; a broken pipe means the grader
/// is gone, and so is the box.
fn send(event: &BoxEvent) {
    let Ok(mut line) = serde_json::to_vec(event) else {
        sys::exit_now(i32::from(super::channel::FAILED_EXIT));
    };
    line.push(b'\n');
    if sys::write_all(BOX_EVENTS_FD, &line).is_err() {
        sys::exit_now(i32::from(super::channel::FAILED_EXIT));
    }
}

/// The same pipe behind a new, empty buffer: the old one, freed, is wiped
/// (`wipe.rs`), so no child forked later finds an earlier command in it.
/// A reader that holds bytes past the line it gave (the grader sent the
/// next command early) is kept, so nothing is lost.
fn fresh_reader(reader: BufReader<std::fs::File>) -> BufReader<std::fs::File> {
    if !reader.buffer().is_empty() {
        return reader;
    }
    let capacity = reader.capacity();
    BufReader::with_capacity(capacity, reader.into_inner())
}

/// One line from the command pipe, without its newline; `None` at the end.
fn read_line(reader: &mut impl BufRead) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    let n = reader
        .by_ref()
        .take(MAX_INPUT_BYTES + 1)
        .read_until(b'\n', &mut line)?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        return Err(std::io::Error::other("a command line without its end"));
    }
    line.pop();
    Ok(Some(line))
}

/// What a run's child does.
enum Child<'a> {
    /// A test.
    Test(Box<WorkerInput>),
    /// A build tool.
    Build(&'a BuildJob),
}

/// The box's init process.
struct Init {
    setup: BoxSetup,
    /// Pid 1 of the box's PID namespace: `kill(-1)` reaches exactly the
    /// box.
    pid_one: bool,
    /// The test zygote of the box's tests, once started.
    zygote: Option<ZygoteHandle>,
    /// Why the interpreter cannot be a test zygote, once found out.
    python_zygote_unavailable: Option<String>,
    /// Whether init is a subreaper: every orphan of the box is its child.
    subreaper: bool,
}

/// Init's end of the test zygote.
struct ZygoteHandle {
    /// Its pid.
    pid: libc::pid_t,
    /// The library and plan it was confined for.
    key: ZygoteKey,
    /// Tests to it.
    commands: std::fs::File,
    /// Its `started` and `ended` lines.
    reports: BufReader<std::fs::File>,
}

/// How starting a test zygote went.
enum Started {
    /// It is ready for tests.
    Ready(ZygoteHandle),
    /// It ended before it was ready (a safeguard it could not apply is on
    /// the protocol fd): its end is the test's.
    Failed(ZygoteHandle),
    /// The interpreter cannot be a zygote here (no `ctypes`): the box
    /// runs its Python tests each in a child of its own.
    Unavailable(String),
}

/// What [`watch`] saw of a run.
struct Watched {
    /// Why init stopped it, if it did.
    killed: Option<RunKill>,
    /// How it ended, when it ended on its own.
    waited: Option<sys::Waited>,
    /// Its clock.
    clock: RunClock,
}

impl Watched {
    /// The run's end, from what was watched and how it ended.
    fn end(self, waited: sys::Waited, cpu_ms: u64, wall_ms: u64, leftovers: u32) -> RunEnd {
        RunEnd {
            wait_status: waited.status,
            cpu_ms,
            wall_ms,
            idle_ms: self.clock.idle().as_millis() as u64,
            waited_ms: self.clock.waited().as_millis() as u64,
            killed: self.killed,
            leftovers,
        }
    }
}

/// Waits `wait` (at least a millisecond), or less when `wake` becomes
/// readable.
fn sleep_on(wake: Option<i32>, wait: Duration) {
    match wake {
        Some(fd) => {
            sys::poll_in(fd, (wait.as_millis() as i32).max(1));
        }
        None => std::thread::sleep(wait.max(Duration::from_millis(1))),
    }
}

/// The wait status and usage of a run whose end init could not learn.
fn killed_status() -> sys::Waited {
    sys::Waited {
        status: libc::SIGKILL,
        cpu_ms: 0,
    }
}

/// Watches run `pid` (with `tree`, its whole process tree) until `ended`
/// reports its end or a deadline passes: its CPU time against the limit,
/// the time it did not want a CPU against the idle limit, the wall clock
/// against the backstop. Sleeps between readings on `wake` (an fd that
/// becomes readable when the run ends), or plainly.
fn watch(
    pid: libc::pid_t,
    tree: bool,
    start: Instant,
    deadlines: Deadlines,
    wake: Option<i32>,
    mut ended: impl FnMut() -> Option<sys::Waited>,
) -> Watched {
    let backstop = start + Duration::from_millis(deadlines.backstop_ms);
    let idle_limit = Duration::from_millis(deadlines.idle_ms);
    let cpu_limit = Duration::from_millis(deadlines.cpu_ms);
    let tick = if tree { BUILD_CHECK } else { CPU_CHECK };
    let mut clock = RunClock::new(pid, tree, start);
    let mut killed = None;
    let mut waited = None;
    // Most tests end within the first tick: wait for that first, and read
    // the clock only for a run still going (a reading walks /proc).
    let mut first = true;
    loop {
        if let Some(w) = ended() {
            waited = Some(w);
            break;
        }
        if std::mem::take(&mut first) {
            sleep_on(wake, tick);
            continue;
        }
        clock.read();
        let cpu = if tree {
            clock.tree_cpu()
        } else {
            sys::process_cpu_ms(pid).map_or(Duration::ZERO, Duration::from_millis)
        };
        if cpu >= cpu_limit {
            killed = Some(RunKill::Cpu);
            break;
        }
        if clock.idle() > idle_limit && !clock.runnable_now() {
            killed = Some(RunKill::Idle);
            break;
        }
        let now = Instant::now();
        if now >= backstop {
            killed = Some(RunKill::Backstop);
            break;
        }
        sleep_on(wake, backstop.saturating_duration_since(now).min(tick));
    }
    Watched {
        killed,
        waited,
        clock,
    }
}

impl Init {
    fn new(setup: BoxSetup) -> Init {
        let pid_one = setup.namespaces && sys::pid() == 1;
        Init {
            setup,
            pid_one,
            zygote: None,
            python_zygote_unavailable: None,
            subreaper: false,
        }
    }

    /// Whether tests may run in a test zygote: as pid 1 of the box's PID
    /// namespace (`kill(-1)` ends all the box), or in a box without
    /// namespaces when init is a subreaper (what a test leaves is init's
    /// descendant, found and killed as a tree). A box with namespaces
    /// whose init is not pid 1 has neither.
    fn zygote_allowed(&self) -> bool {
        self.setup.test_zygote && (self.pid_one || (!self.setup.namespaces && self.subreaper))
    }

    /// Prepares the box, reports ready, then runs each command.
    fn serve(mut self, mut commands: BufReader<std::fs::File>) -> u8 {
        {
            // Init dies with the grader (and with it the whole box).
            let _ = sys::die_with_parent(sys::parent_pid());
            self.subreaper = sys::become_subreaper().is_ok();
        }
        let notes = if self.setup.namespaces {
            match mounts::prepare(&self.setup) {
                Ok(notes) => notes,
                Err(message) => return failed(message),
            }
        } else {
            Vec::new()
        };
        send(&BoxEvent::Ready { notes });
        loop {
            let line = match read_line(&mut commands) {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(err) => return failed(format!("cannot read a command: {err}")),
            };
            let command: BoxCommand = match serde_json::from_slice(&line) {
                Ok(command) => command,
                Err(err) => return failed(format!("a malformed command: {err}")),
            };
            // The request's bytes leave init's heap before anything is
            // forked: the line is freed (and so wiped, `wipe.rs`), and the
            // reader's buffer, which holds them too, is made anew.
            drop(line);
            commands = fresh_reader(commands);
            let end = match command {
                BoxCommand::Test { input, deadlines } => {
                    let fd = commands.get_ref().as_raw_fd();
                    // A library test under the write watch runs in a child
                    // of init of its own: forked from the zygote, a watched
                    // run ended with a stray SIGTRAP in 2 of 5 bench runs
                    // (never so in 5 runs this way; not yet understood).
                    // Watched runs are rare: `grader check`'s extra run.
                    let zygote = match input.request.kind {
                        CodeKind::Library => !input.request.trace,
                        CodeKind::Python => self.python_zygote_unavailable.is_none(),
                    };
                    if zygote && self.zygote_allowed() {
                        self.run_in_zygote(deadlines, fd, input)
                    } else {
                        self.run(deadlines, fd, Child::Test(Box::new(input)))
                    }
                }
                BoxCommand::Build(job) => {
                    let fd = commands.get_ref().as_raw_fd();
                    self.run(job.deadlines, fd, Child::Build(&job))
                }
            };
            match end {
                Ok(end) => send(&BoxEvent::Finished(end)),
                Err(err) => return failed(format!("cannot start a run: {err}")),
            }
        }
        self.stop_zygote();
        self.kill_the_rest(None);
        0
    }

    /// Forks a child that runs `child`, watches its CPU time and the time
    /// it does not want a CPU ([`RunClock`]), kills it at a deadline,
    /// kills whatever else it started, and reaps everything.
    ///
    /// A test's CPU time is its process's (all threads); a build's is its
    /// whole tree's. The wall clock alone never decides: past the backstop
    /// a run still runnable and under its CPU limit ends undecided.
    fn run(
        &mut self,
        deadlines: Deadlines,
        command_fd: i32,
        child: Child<'_>,
    ) -> std::io::Result<RunEnd> {
        let tree = matches!(child, Child::Build(_));
        let start = Instant::now();
        let pid = sys::fork()?;
        if pid == 0 {
            // The child: no command or event pipe, stdin from /dev/null,
            // a process group of its own.
            sys::close(command_fd);
            sys::close(BOX_EVENTS_FD);
            if sys::null_fd(0).is_err() || sys::new_process_group().is_err() {
                sys::exit_now(EXEC_FAILED);
            }
            match child {
                Child::Test(input) => self.test_child(*input),
                Child::Build(job) => self.build_child(job),
            }
        }
        let pidfd = sys::pidfd_open(pid);
        let wake = pidfd.as_ref().map(|fd| fd.as_raw_fd());
        let mut watched = watch(pid, tree, start, deadlines, wake, || {
            sys::wait_for(pid, true).map(|(_, w)| w)
        });
        if watched.killed.is_some() {
            sys::kill(pid, libc::SIGKILL);
        }
        let waited = match watched.waited.take() {
            Some(w) => w,
            None => sys::wait_for(pid, false).map_or(killed_status(), |(_, w)| w),
        };
        let wall_ms = start.elapsed().as_millis() as u64;
        let leftovers = if self.pid_one {
            // kill(-1) reaches the test zygote too.
            let leftovers = self.kill_the_rest(Some(pid));
            self.zygote = None;
            leftovers
        } else {
            // The zygote ends first: init reaps until no child is left.
            self.stop_zygote();
            self.kill_the_rest(Some(pid))
        };
        let cpu_ms = if tree {
            // The build's tree: what its first process reaped of its
            // children, or what init saw of the tree, whichever is more.
            waited
                .cpu_ms
                .max(watched.clock.tree_cpu().as_millis() as u64)
        } else {
            waited.cpu_ms
        };
        Ok(watched.end(waited, cpu_ms, wall_ms, leftovers))
    }

    /// Runs a library test in a child of the submission's test zygote
    /// ([`test_zygote`]), starting the zygote first when there is none (or
    /// it holds another library): init watches and kills the child as one
    /// of its own, and the zygote tells it the child's pid and how it
    /// ended.
    fn run_in_zygote(
        &mut self,
        deadlines: Deadlines,
        command_fd: i32,
        mut input: WorkerInput,
    ) -> std::io::Result<RunEnd> {
        let start = Instant::now();
        // A Python zygote execs the interpreter at once (a fresh address
        // space), so its line may exist before the fork.
        let python_line = match input.request.kind {
            CodeKind::Library => None,
            CodeKind::Python => match super::python::zygote_line(&input) {
                Ok(line) => Some(line),
                // A source that cannot be used: the per-test child says so
                // as it always has.
                Err(_) => return self.run(deadlines, command_fd, Child::Test(Box::new(input))),
            },
        };
        if self.zygote.as_ref().is_some_and(|z| !z.key.fits(&input)) {
            self.stop_zygote();
        }
        if self.zygote.is_none() {
            let key = ZygoteKey::of(&input);
            match self.start_zygote(command_fd, &mut input, key)? {
                Started::Ready(zygote) => self.zygote = Some(zygote),
                Started::Failed(zygote) => {
                    self.zygote = Some(zygote);
                    return Ok(self.zygote_failed(start));
                }
                Started::Unavailable(why) => {
                    self.python_zygote_unavailable = Some(why);
                    return self.run(deadlines, command_fd, Child::Test(Box::new(input)));
                }
            }
        }
        // A library's line is made only now, after any fork of a zygote:
        // a library zygote keeps for good what init held when it was forked.
        let line = match python_line {
            Some(line) => line,
            None => {
                let mut line = serde_json::to_vec(&input).map_err(std::io::Error::other)?;
                line.push(b'\n');
                line
            }
        };
        drop(input);
        let Some(zygote) = self.zygote.as_mut() else {
            return Err(std::io::Error::other("no test zygote"));
        };
        let written = zygote.commands.write_all(&line);
        drop(line);
        let started = match written {
            Ok(()) => test_zygote::read_report(&mut zygote.reports),
            Err(_) => None,
        };
        // Without a PID namespace a pid names any process of the host:
        // init takes only the zygote's own child.
        // (A child already reaped has no parent left to read: it is gone,
        // and nothing of it can be killed by mistake.)
        let own_child = |pid: libc::pid_t| {
            self.pid_one || sys::parent_of(pid).is_none_or(|parent| parent == zygote.pid)
        };
        let pid = match started {
            Some(Report::Started(pid)) if pid > 1 && pid != zygote.pid && own_child(pid) => pid,
            // The zygote could not confine itself (it said why on the
            // protocol fd) or is gone: its end is this test's.
            _ => return Ok(self.zygote_failed(start)),
        };
        // The child's clock starts when it exists: the time the zygote
        // took to be scheduled and fork it is not the child's idle time.
        let start = Instant::now();
        let reports_fd = zygote.reports.get_ref().as_raw_fd();
        let reports = &mut zygote.reports;
        // Woken when the child ends (a pidfd serves any process).
        let pidfd = sys::pidfd_open(pid);
        // Once the zygote is gone, its child is init's (init is the
        // subreaper): init learns its end from the kernel itself.
        let mut zygote_gone = false;
        let pidfd_raw = pidfd.as_ref().map(|fd| fd.as_raw_fd());
        let mut ended = |block: bool| -> Option<sys::Waited> {
            // A child that is gone is reported at once: wait for the line.
            let block = block || pidfd_raw.is_some_and(|fd| sys::poll_in(fd, 0));
            if !zygote_gone
                && (block || !reports.buffer().is_empty() || sys::poll_in(reports_fd, 0))
            {
                match test_zygote::read_report(reports) {
                    Some(Report::Ended(p, w)) if p == pid => return Some(w),
                    Some(_) => return Some(killed_status()),
                    None => zygote_gone = true,
                }
            }
            if zygote_gone {
                return sys::wait_for(pid, !block).map(|(_, w)| w);
            }
            None
        };
        let wake = pidfd.as_ref().map(|fd| fd.as_raw_fd());
        let mut watched = watch(pid, false, start, deadlines, wake, || ended(false));
        if watched.killed.is_some() {
            sys::kill(pid, libc::SIGKILL);
        }
        let waited = match watched.waited.take() {
            Some(w) => w,
            None => ended(true).unwrap_or_else(killed_status),
        };
        if zygote_gone {
            self.stop_zygote();
        }
        let wall_ms = start.elapsed().as_millis() as u64;
        let leftovers = self.kill_all_but_zygote();
        let cpu_ms = waited.cpu_ms;
        Ok(watched.end(waited, cpu_ms, wall_ms, leftovers))
    }

    /// Forks the test zygote for `input`'s code, with a command pipe and a
    /// report pipe to init; a Python zygote first gets its hello line and
    /// says whether it is ready.
    fn start_zygote(
        &self,
        command_fd: i32,
        input: &mut WorkerInput,
        key: ZygoteKey,
    ) -> std::io::Result<Started> {
        let (command_read, command_write) = sys::pipe()?;
        let (report_read, report_write) = sys::pipe()?;
        let hello = match input.request.kind {
            CodeKind::Library => None,
            CodeKind::Python => Some(
                super::python::zygote_hello(input.sandbox.seccomp)
                    .map_err(std::io::Error::other)?,
            ),
        };
        let pid = sys::fork()?;
        if pid == 0 {
            sys::close(command_fd);
            sys::close(BOX_EVENTS_FD);
            drop(command_write);
            drop(report_read);
            let view_kind = match input.request.kind {
                CodeKind::Library => ViewKind::LibraryTest,
                CodeKind::Python => ViewKind::PythonTest,
            };
            let view = self.setup.views.iter().find(|v| v.kind == view_kind);
            // The first test's questions stay with init: the zygote keeps
            // only what every test shares (this frame never returns here,
            // so what it does not free now, every child would inherit).
            let empty = crate::check::Probe::Solve {
                n: 0,
                board: Vec::new(),
            };
            drop(std::mem::replace(&mut input.request.probe, empty));
            match input.request.kind {
                CodeKind::Library => {
                    if sys::null_fd(0).is_err() || sys::new_process_group().is_err() {
                        sys::exit_now(EXEC_FAILED);
                    }
                    test_zygote::serve(
                        key,
                        view,
                        command_read.into_raw_fd(),
                        report_write.into_raw_fd(),
                    )
                }
                CodeKind::Python => {
                    // The command pipe on stdin, the report pipe on fd 4
                    // (init's event pipe, closed above): where the
                    // harness's zygote reads and writes them.
                    let placed = sys::dup_onto(command_read.as_raw_fd(), 0)
                        .and_then(|()| sys::dup_onto(report_write.as_raw_fd(), BOX_EVENTS_FD));
                    drop((command_read, report_write));
                    if placed.is_err() || sys::new_process_group().is_err() {
                        sys::exit_now(EXEC_FAILED);
                    }
                    test_zygote::serve_python(input, view)
                }
            }
        }
        let mut zygote = ZygoteHandle {
            pid,
            key,
            commands: std::fs::File::from(command_write),
            reports: BufReader::new(std::fs::File::from(report_read)),
        };
        let Some(hello) = hello else {
            return Ok(Started::Ready(zygote));
        };
        let mut answer = String::new();
        if zygote.commands.write_all(&hello).is_ok() {
            let _ = Read::by_ref(&mut zygote.reports)
                .take(256)
                .read_line(&mut answer);
        }
        Ok(match answer.trim_end() {
            "ready" => Started::Ready(zygote),
            unavailable if unavailable.starts_with("unavailable") => {
                let pid = zygote.pid;
                drop(zygote);
                let _ = sys::wait_for(pid, false);
                Started::Unavailable(unavailable.to_string())
            }
            _ => Started::Failed(zygote),
        })
    }

    /// Ends the test zygote: closing its command pipe ends it; the kill
    /// makes sure.
    fn stop_zygote(&mut self) {
        if let Some(zygote) = self.zygote.take() {
            let pid = zygote.pid;
            drop(zygote);
            sys::kill(pid, libc::SIGKILL);
            let _ = sys::wait_for(pid, false);
        }
    }

    /// The end of a test whose zygote failed before forking it: the
    /// zygote's own end (a safeguard it could not apply is on the
    /// protocol fd already).
    fn zygote_failed(&mut self, start: Instant) -> RunEnd {
        let waited = match self.zygote.take() {
            Some(zygote) => {
                let pid = zygote.pid;
                drop(zygote);
                sys::wait_for(pid, false).map_or(killed_status(), |(_, w)| w)
            }
            None => killed_status(),
        };
        let leftovers = self.kill_the_rest(None);
        RunEnd {
            wait_status: waited.status,
            cpu_ms: waited.cpu_ms,
            wall_ms: start.elapsed().as_millis() as u64,
            idle_ms: 0,
            waited_ms: 0,
            killed: None,
            leftovers,
        }
    }

    /// Kills every process of the box but init and the test zygote, and
    /// reaps those that were init's; returns how many there were. As pid 1,
    /// the box is every process its `/proc` shows; without a PID namespace
    /// it is init's descendants (init is a subreaper, so an orphan of the
    /// box is its child).
    fn kill_all_but_zygote(&mut self) -> u32 {
        let zygote = self.zygote.as_ref().map_or(0, |z| z.pid);
        let own = sys::pid();
        let doomed: Vec<libc::pid_t> = if self.pid_one {
            sys::all_pids()
                .into_iter()
                .filter(|&p| p != own && p != zygote && p != 1)
                .collect()
        } else {
            sys::descendants(own, zygote)
        };
        if doomed.is_empty() {
            return 0;
        }
        for &pid in &doomed {
            sys::kill(pid, libc::SIGKILL);
        }
        let until = Instant::now() + Duration::from_secs(2);
        loop {
            while let Some((pid, _)) = sys::wait_for(-1, true) {
                if pid == zygote {
                    self.zygote = None;
                }
            }
            let alive = doomed
                .iter()
                .any(|p| std::path::Path::new(&format!("/proc/{p}")).exists());
            if !alive || Instant::now() >= until {
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        doomed.len() as u32
    }

    /// Kills every process of the box but init and reaps them all; returns
    /// how many there were. As pid 1 of the box's PID namespace,
    /// `kill(-1)` reaches exactly the box. Without that namespace: the
    /// run's process group, and every process of the box's user (a helper
    /// that drops to that user sends `kill(-1)`: one uid per box).
    fn kill_the_rest(&self, group: Option<libc::pid_t>) -> u32 {
        if self.pid_one {
            sys::kill(-1, libc::SIGKILL);
        } else {
            if let Some(group) = group.filter(|&g| g > 1) {
                sys::kill(-group, libc::SIGKILL);
            }
            if let Some(uid) = self.setup.uid {
                self.kill_user(uid);
            }
        }
        // Reap: our children and, as the subreaper, orphans of the run.
        let mut count = 0;
        let until = Instant::now() + Duration::from_secs(2);
        while Instant::now() < until {
            match sys::wait_for(-1, true) {
                Some(_) => count += 1,
                None => {
                    // No child left at all (ECHILD), or some still dying.
                    // SAFETY: waitid with WNOHANG|WNOWAIT only peeks.
                    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
                    // SAFETY: `info` is valid for writes.
                    let r = unsafe {
                        libc::waitid(
                            libc::P_ALL,
                            0,
                            &mut info,
                            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                        )
                    };
                    if r != 0 {
                        break;
                    }
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
        }
        count
    }

    /// Kills every process of `uid` from a helper that drops to it.
    fn kill_user(&self, uid: u32) {
        let gid = self.setup.gid.unwrap_or(uid);
        if let Ok(0) = sys::fork() {
            if sys::drop_privileges(uid, gid).is_ok() {
                sys::kill(-1, libc::SIGKILL);
            }
            sys::exit_now(0);
        }
    }

    /// A test child: the per-test confinement and the test, held to the
    /// view of its kind.
    fn test_child(&self, input: WorkerInput) -> ! {
        // The box is in its cgroup and namespaces already; the plan's uid
        // is the box's (the grader claimed it).
        let kind = match input.request.kind {
            CodeKind::Library => ViewKind::LibraryTest,
            CodeKind::Python => ViewKind::PythonTest,
        };
        let view = self.setup.views.iter().find(|v| v.kind == kind);
        super::test_child::run_test_in_child(&input, view)
    }

    /// A build child: confine, then `execve` the tool.
    fn build_child(&self, job: &BuildJob) -> ! {
        let fail = |what: &str, err: &dyn std::fmt::Display| -> ! {
            let message = format!(
                "{}the box could not {what}: {err}\n",
                crate::protocol::BOX_SETUP_FAILED_PREFIX
            );
            let _ = sys::write_all(2, message.as_bytes());
            sys::exit_now(EXEC_FAILED)
        };
        sys::close(PROTOCOL_FD);
        if let Err(err) = std::env::set_current_dir(&job.cwd) {
            fail(&format!("enter {}", job.cwd.display()), &err);
        }
        let file_bytes = job.file_size_mb.saturating_mul(1 << 20);
        let mut limits = vec![
            (libc::RLIMIT_CORE, 0, 0),
            (libc::RLIMIT_FSIZE, file_bytes, file_bytes),
            (libc::RLIMIT_NOFILE, 1024, 1024),
        ];
        if let Some(mb) = job.address_space_mb {
            let bytes = mb.saturating_mul(1 << 20);
            limits.push((libc::RLIMIT_AS, bytes, bytes));
        }
        for (resource, soft, hard) in limits {
            if let Err(err) = sys::set_rlimit(resource, soft, hard) {
                fail("set a limit", &err);
            }
        }
        if let Err(err) = sys::default_signals() {
            fail("reset the signals", &err);
        }
        if let Some(uid) = self.setup.uid {
            if let Err(err) = sys::drop_privileges(uid, self.setup.gid.unwrap_or(uid)) {
                fail(&format!("switch to user {uid}"), &err);
            }
        }
        {
            let _ = sys::die_with_parent(sys::parent_pid());
            if let Err(err) = sys::no_new_privs() {
                fail("set no_new_privs", &err);
            }
            if job.landlock {
                if let Err(err) = super::landlock::restrict(&job.view) {
                    fail("restrict file access", &err);
                }
            }
        }
        let err = sys::execve(&job.program, &job.args, &job.env);
        fail(&format!("run {}", job.program.display()), &err)
    }
}
