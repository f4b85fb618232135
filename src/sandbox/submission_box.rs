//! [`SubmissionBox`]: the box of one submission, from the grader's side —
//! the one child-process layer for builds and tests.
//!
//! A box is made once per submission and killed whole when it is dropped.
//! Its process (`<worker> worker`, see [`crate::worker`]) is started with a
//! cleared environment in new PID, mount, network, IPC and UTS namespaces
//! (when the host allows them), in a cgroup slot of its own (memory and
//! pids), with a uid of its own when the grader is root (see
//! [`super::uids`]) and a folder of its own. Every build and every test of
//! the submission is one *run* in it: the grader writes a
//! [`BoxCommand`] line, drains the run's stdout, stderr and protocol pipes
//! (capped) while it runs, and reads how it ended ([`RunEnd`]) on the
//! event pipe, which no student process holds. The box's init measures the
//! CPU and wall time itself and kills everything a run left before it
//! answers, so when the grader reads the answer the pipes hold all that
//! the run wrote.
//!
//! The box folder: `lab/` (the lab crate and header, read-only), `code/`
//! (what the tests load, read-only), `work/` (the box user's: copies of the
//! submission, build products, temporaries), and `root/`, the mount point
//! of the box's private root (empty outside the box). It is removed with
//! the box. What each kind of process of the box sees is its view
//! ([`super::view`]): the box's root holds the union of its views, and
//! each run is held to its own by Landlock.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::cgroup::CgroupSlot;
use super::host::SandboxEnv;
use super::run::{Capped, Kill, Status, TestRun, join_output};
use super::uids::UidClaim;
use super::unix;
use super::view::HostView;
use crate::protocol::{
    BoxCommand, BoxEvent, BoxSetup, BuildJob, Deadlines, ProtocolLines, RunEnd, RunKill,
    SandboxPlan, View, ViewKind, WorkerRequest,
};

/// How long the grader waits beyond a run's own wall limit for the box to
/// answer before it gives the box up (a grader fault).
const BOX_GRACE: Duration = Duration::from_secs(10);

/// How long a box may take to set itself up.
const SETUP_LIMIT: Duration = Duration::from_secs(10);

/// Memory a build may use (the C compiler on a huge include, rustc).
pub const BUILD_MEMORY_MB: u64 = 2048;

/// Processes and threads a build may have (cargo, rustc's threads, cc1).
pub const BUILD_PIDS: u32 = 256;

/// The box of one submission; see the module documentation.
pub struct SubmissionBox<'env> {
    env: &'env SandboxEnv,
    process: std::process::Child,
    commands: Option<File>,
    events: File,
    events_buf: Vec<u8>,
    stdout: File,
    stderr: File,
    protocol: File,
    dir: PathBuf,
    slot: Option<CgroupSlot>,
    uid: Option<UidClaim>,
    notes: Vec<String>,
    /// What each kind of process of the box sees.
    views: Vec<View>,
    /// A run failed on the grader's side: the box is not used again.
    broken: bool,
}

/// What a build run printed and how it ended.
#[derive(Debug)]
pub struct BuildRun {
    /// Exit status 0 within the limit.
    pub success: bool,
    /// Killed at its CPU limit, or idle for longer than allowed.
    pub timed_out: bool,
    /// Stopped at the wall-clock backstop while still runnable and under
    /// its CPU limit: the host was too busy to time it (never the
    /// student's timeout).
    pub undecided: bool,
    /// The exit code, when it exited.
    pub exit_code: Option<i32>,
    /// stderr then stdout, lossily decoded, capped.
    pub output: String,
}

impl<'env> SubmissionBox<'env> {
    /// Makes a box: its folder, its uid, its cgroup slot, its process, and
    /// its private root holding the views of `views` (the host's part of
    /// each kind of process it will run, see [`super::view`]) and nothing
    /// else.
    ///
    /// # Errors
    /// When any of them cannot be made: a grader fault.
    pub fn open(env: &'env SandboxEnv, views: &[HostView]) -> io::Result<SubmissionBox<'env>> {
        let slot = env.take_slot()?;
        let uid = env.claim_uid()?;
        let dir = env.new_box_dir(uid.as_ref().map(UidClaim::uid))?;
        let views: Vec<View> = views.iter().map(|v| v.for_box(&dir)).collect();
        let opened = Self::start(env, &dir, slot.as_ref());
        let (process, commands, events, stdout, stderr, protocol) = match opened {
            Ok(parts) => parts,
            Err(err) => {
                if let Some(slot) = slot {
                    env.give_back(slot);
                }
                let _ = std::fs::remove_dir_all(&dir);
                return Err(err);
            }
        };
        let mut sandbox = SubmissionBox {
            env,
            process,
            commands: Some(commands),
            events,
            events_buf: Vec::new(),
            stdout,
            stderr,
            protocol,
            dir,
            slot,
            uid,
            notes: Vec::new(),
            views,
            broken: false,
        };
        sandbox.set_up()?;
        Ok(sandbox)
    }

    /// Spawns the box process with its pipes and puts it in the slot.
    #[allow(clippy::type_complexity)]
    fn start(
        env: &SandboxEnv,
        dir: &Path,
        slot: Option<&CgroupSlot>,
    ) -> io::Result<(std::process::Child, File, File, File, File, File)> {
        let (commands_read, commands_write) = unix::pipe()?;
        let (events_read, events_write) = unix::pipe()?;
        let (stdout_read, stdout_write) = unix::pipe()?;
        let (stderr_read, stderr_write) = unix::pipe()?;
        let (protocol_read, protocol_write) = unix::pipe()?;
        let events_write = unix::above_box_fds(events_write)?;
        let protocol_write = unix::above_box_fds(protocol_write)?;
        let (events_fd, protocol_fd) = (events_write.as_raw_fd(), protocol_write.as_raw_fd());
        let namespaces = env.namespaces();
        let mut command = Command::new(&env.worker);
        command
            .arg("worker")
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LANG", "C")
            .current_dir(dir)
            .stdin(Stdio::from(commands_read))
            .stdout(Stdio::from(stdout_write))
            .stderr(Stdio::from(stderr_write));
        // SAFETY: `box_setup` makes only async-signal-safe calls (dup2,
        // close_range, setpgid, prctl, setrlimit, unshare) and allocates
        // nothing; both fds stay open in the parent until spawn returns.
        unsafe {
            command.pre_exec(move || unix::box_setup(protocol_fd, events_fd, namespaces));
        }
        let process = command.spawn()?;
        super::cleanup::track_pid(process.id());
        drop((events_write, protocol_write));
        if let Some(slot) = slot {
            let pid = process.id().to_string();
            for procs in slot.procs_files() {
                if let Err(err) = std::fs::write(&procs, &pid) {
                    unix::kill_group(process.id() as libc::pid_t);
                    return Err(io::Error::other(format!(
                        "cannot put the box in the cgroup {}: {err}",
                        procs.display()
                    )));
                }
            }
        }
        let nonblocking = |fd: OwnedFd| -> io::Result<File> {
            unix::set_nonblocking(fd.as_raw_fd())?;
            Ok(File::from(fd))
        };
        Ok((
            process,
            File::from(commands_write),
            nonblocking(events_read)?,
            nonblocking(stdout_read)?,
            nonblocking(stderr_read)?,
            nonblocking(protocol_read)?,
        ))
    }

    /// Sends the setup line and waits for the box to be ready.
    fn set_up(&mut self) -> io::Result<()> {
        let namespaces = self.env.namespaces();
        let setup = BoxSetup {
            namespaces,
            uid: self.uid.as_ref().map(UidClaim::uid),
            gid: self.uid.as_ref().map(UidClaim::uid),
            dir: self.dir.clone(),
            views: self.views.clone(),
            hide: self.env.hide.clone(),
            test_zygote: self.env.test_zygote,
        };
        self.send_line(&setup)?;
        let deadline = Instant::now() + SETUP_LIMIT;
        let mut sink = Sink::discard();
        match self.next_event(deadline, &mut sink)? {
            BoxEvent::Ready { notes } => {
                self.notes = notes;
                if !namespaces {
                    self.notes.extend(self.unhidden());
                }
                Ok(())
            }
            BoxEvent::Failed { message } => Err(io::Error::other(message)),
            BoxEvent::Finished(_) => Err(io::Error::other("the box answered out of turn")),
        }
    }

    /// The hidden folders that lie inside one of the box's views: without
    /// a mount namespace, nothing can hide them from that view's
    /// processes (one sentence each).
    fn unhidden(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for dir in &self.env.hide {
            for view in &self.views {
                if super::view::covers(view, dir) {
                    notes.push(format!(
                        "sandbox: {} lies inside what a {} may read, and without a mount namespace it cannot be hidden from it: keep the cases and submissions outside the toolchains' folders",
                        dir.display(),
                        view.kind.name()
                    ));
                }
            }
        }
        notes
    }

    /// The view of `kind` in this box, if the box runs that kind of
    /// process.
    pub fn view(&self, kind: ViewKind) -> Option<&View> {
        self.views.iter().find(|v| v.kind == kind)
    }

    /// Every view of the box.
    pub fn views(&self) -> &[View] {
        &self.views
    }

    /// The box's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The box user's writable folder.
    pub fn work_dir(&self) -> PathBuf {
        self.dir.join("work")
    }

    /// The read-only folder holding the lab crate and header.
    pub fn lab_dir(&self) -> PathBuf {
        self.dir.join("lab")
    }

    /// The read-only folder the tests load the code from.
    pub fn code_dir(&self) -> PathBuf {
        self.dir.join("code")
    }

    /// The box user's uid, when the grader is root.
    pub fn uid(&self) -> Option<u32> {
        self.uid.as_ref().map(UidClaim::uid)
    }

    /// What the box could not do (said once by the caller).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Whether a Landlock ruleset may be asked for.
    pub fn landlock(&self) -> bool {
        self.env.landlock()
    }

    /// The address-space limit for builds when no memory cgroup limits
    /// them.
    pub fn build_address_space_mb(&self) -> Option<u64> {
        (!self.slot.as_ref().is_some_and(CgroupSlot::has_memory)).then_some(BUILD_MEMORY_MB * 2)
    }

    /// Runs a build tool in the box.
    ///
    /// # Errors
    /// When the box fails (a grader fault).
    pub fn run_build(&mut self, job: BuildJob) -> io::Result<BuildRun> {
        if let Some(slot) = self.slot.as_mut() {
            slot.set_memory_limit(BUILD_MEMORY_MB)?;
            slot.set_pids_max(BUILD_PIDS)?;
        }
        let backstop = Duration::from_millis(job.deadlines.backstop_ms);
        let mut sink = Sink::new(1 << 20, 1 << 20);
        let end = self.run(&BoxCommand::Build(job), backstop, &mut sink)?;
        let mut output = sink.stderr.render();
        let out = sink.stdout.render();
        if !out.trim().is_empty() {
            output.push('\n');
            output.push_str(&out);
        }
        let exit_code = unix::exit_code(end.wait_status);
        let undecided = end.killed == Some(RunKill::Backstop);
        let timed_out = end.killed.is_some() && !undecided;
        Ok(BuildRun {
            success: exit_code == Some(0) && end.killed.is_none(),
            timed_out,
            undecided,
            exit_code,
            output,
        })
    }

    /// Runs one test in the box and records how it went.
    ///
    /// # Errors
    /// When the box fails (a grader fault).
    pub fn run_test(&mut self, request: &WorkerRequest) -> io::Result<TestRun> {
        let limits = request.limits;
        if let Some(slot) = self.slot.as_mut() {
            slot.set_memory_limit(limits.memory_limit_mb)?;
            slot.set_pids_max(super::cgroup::PIDS_MAX)?;
        }
        let oom_before = self.slot.as_ref().map_or(0, CgroupSlot::oom_kills);
        let deadlines = super::run::test_deadlines(
            Duration::from_millis(limits.time_limit_ms),
            self.env.load_allowance,
        );
        let command = TestCommand {
            input: InputRef {
                request,
                sandbox: self.env.plan(
                    limits.memory_limit_mb,
                    self.slot.as_ref(),
                    self.uid.as_ref().map(UidClaim::uid),
                ),
            },
            deadlines,
        };
        let cap = self.env.output_cap / 2;
        let mut sink = Sink::new(cap, cap);
        let backstop = Duration::from_millis(deadlines.backstop_ms);
        let end = self.run(&command, backstop, &mut sink)?;
        let oom_killed = self
            .slot
            .as_ref()
            .is_some_and(|s| s.oom_kills() > oom_before);
        // Lines over the cap were cut while reading: nothing decodes them.
        let (messages, garbage) = sink.protocol.decode();
        let status = match (
            unix::exit_code(end.wait_status),
            unix::term_signal(end.wait_status),
        ) {
            (Some(code), _) => Status::Exited(code),
            (None, Some(signal)) => Status::Signaled(signal),
            (None, None) => Status::Exited(-1),
        };
        let killed = end.killed.map(|k| match k {
            RunKill::Cpu => Kill::Cpu,
            RunKill::Idle => Kill::Idle,
            RunKill::Backstop => Kill::Backstop,
        });
        Ok(TestRun {
            messages,
            garbage,
            status,
            killed,
            oom_killed,
            cpu_ms: end.cpu_ms,
            wall_ms: end.wall_ms,
            idle_ms: end.idle_ms,
            waited_ms: end.waited_ms,
            output: join_output(&sink.stdout, &sink.stderr),
            output_dropped: sink.stdout.dropped() + sink.stderr.dropped(),
            pid: self.process.id(),
        })
    }

    /// Sends a command and collects the run's output until its end.
    fn run(
        &mut self,
        command: &impl serde::Serialize,
        wall: Duration,
        sink: &mut Sink,
    ) -> io::Result<RunEnd> {
        if self.broken {
            return Err(io::Error::other("the box failed earlier"));
        }
        let result = self.send_line(command).and_then(|()| {
            let deadline = Instant::now() + wall + BOX_GRACE;
            match self.next_event(deadline, sink)? {
                BoxEvent::Finished(end) => Ok(end),
                BoxEvent::Failed { message } => Err(io::Error::other(message)),
                BoxEvent::Ready { .. } => Err(io::Error::other("the box answered out of turn")),
            }
        });
        self.drain(sink);
        if result.is_err() {
            self.broken = true;
        }
        result
    }

    /// Writes one JSON line to the box's command pipe.
    fn send_line(&mut self, value: &impl serde::Serialize) -> io::Result<()> {
        let mut line = serde_json::to_vec(value).map_err(io::Error::other)?;
        line.push(b'\n');
        let commands = self
            .commands
            .as_mut()
            .ok_or_else(|| io::Error::other("the box is closed"))?;
        commands
            .write_all(&line)
            .map_err(|err| io::Error::other(format!("the box is gone ({err})")))
    }

    /// Reads the pipes until the box's next event, at most until
    /// `deadline`.
    fn next_event(&mut self, deadline: Instant, sink: &mut Sink) -> io::Result<BoxEvent> {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            if let Some(end) = self.events_buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.events_buf.drain(..=end).collect();
                return serde_json::from_slice(&line[..end]).map_err(|err| {
                    io::Error::other(format!("the box sent a malformed event: {err}"))
                });
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(io::Error::other(
                    "the box did not answer in time (the grader's box is stuck)",
                ));
            }
            let timeout = deadline
                .saturating_duration_since(now)
                .as_millis()
                .min(1000) as i32
                + 1;
            let pollfd = |file: &File| libc::pollfd {
                fd: file.as_fd().as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let mut fds = [
                pollfd(&self.events),
                pollfd(&self.stdout),
                pollfd(&self.stderr),
                pollfd(&self.protocol),
            ];
            unix::poll(&mut fds, timeout)?;
            if fds[1].revents != 0 {
                read_into(&mut self.stdout, &mut buf, |b| sink.stdout.push(b));
            }
            if fds[2].revents != 0 {
                read_into(&mut self.stderr, &mut buf, |b| sink.stderr.push(b));
            }
            if fds[3].revents != 0 {
                read_into(&mut self.protocol, &mut buf, |b| sink.protocol(b));
            }
            if fds[0].revents != 0 {
                let mut got = 0;
                let open = read_into(&mut self.events, &mut buf, |b| {
                    got += b.len();
                    self.events_buf.extend_from_slice(b);
                });
                if !open && got == 0 && !self.events_buf.contains(&b'\n') {
                    return Err(io::Error::other(format!(
                        "the box ended unexpectedly{}",
                        self.exit_note()
                    )));
                }
            }
        }
    }

    /// Reads what the output pipes still hold (everything the run wrote:
    /// its processes are dead).
    fn drain(&mut self, sink: &mut Sink) {
        let mut buf = vec![0u8; 64 * 1024];
        read_into(&mut self.stdout, &mut buf, |b| sink.stdout.push(b));
        read_into(&mut self.stderr, &mut buf, |b| sink.stderr.push(b));
        read_into(&mut self.protocol, &mut buf, |b| sink.protocol(b));
    }

    /// ", exit status N" when the box process has ended.
    fn exit_note(&mut self) -> String {
        match self.process.try_wait() {
            Ok(Some(status)) => format!(" ({status})"),
            _ => String::new(),
        }
    }
}

impl Drop for SubmissionBox<'_> {
    fn drop(&mut self) {
        // Closing the command pipe ends the box: its init kills every
        // process in it and exits, and the PID namespace goes with it.
        self.commands = None;
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match self.process.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() >= deadline => {
                    unix::kill_group(self.process.id() as libc::pid_t);
                    let _ = self.process.kill();
                    let _ = self.process.wait();
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        super::cleanup::untrack_pid(self.process.id());
        if let Some(slot) = self.slot.take() {
            slot.kill_leftovers();
            self.env.give_back(slot);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// [`BoxCommand::Test`] by reference: the same JSON, without copying the
/// request (a `legal` probe is ~56 kB) for every test.
#[derive(serde::Serialize)]
#[serde(tag = "type", rename = "test")]
struct TestCommand<'a> {
    input: InputRef<'a>,
    deadlines: Deadlines,
}

/// [`crate::protocol::WorkerInput`] by reference.
#[derive(serde::Serialize)]
struct InputRef<'a> {
    request: &'a WorkerRequest,
    sandbox: SandboxPlan,
}

/// Reads what `file` has now into `push`, until it would block; false at
/// end of file.
fn read_into(file: &mut File, buf: &mut [u8], mut push: impl FnMut(&[u8])) -> bool {
    loop {
        match file.read(buf) {
            Ok(0) => return false,
            Ok(n) => push(&buf[..n]),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return true,
        }
    }
}

/// What a run wrote, capped.
struct Sink {
    stdout: Capped,
    stderr: Capped,
    protocol: ProtocolLines,
}

impl Sink {
    fn new(stdout_cap: usize, stderr_cap: usize) -> Sink {
        Sink {
            stdout: Capped::new(stdout_cap),
            stderr: Capped::new(stderr_cap),
            protocol: ProtocolLines::new(),
        }
    }

    fn discard() -> Sink {
        Sink::new(4096, 4096)
    }

    fn protocol(&mut self, bytes: &[u8]) {
        self.protocol.push(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{CodeKind, Limits, WorkerInput};

    /// The command sent by reference decodes as the box reads it: a
    /// [`BoxCommand::Test`] with the same request and plan.
    #[test]
    fn a_test_command_by_reference_is_a_box_command() {
        let request = WorkerRequest {
            kind: CodeKind::Library,
            code: "/box/code/lib.so".into(),
            probe: crate::check::Probe::Solve {
                n: 2,
                board: vec![1, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            },
            limits: Limits {
                time_limit_ms: 1000,
                memory_limit_mb: 64,
            },
            python: None,
            trace: false,
            reference_legal: false,
            deep_stop: false,
        };
        let sandbox = SandboxPlan {
            uid: Some(61_000),
            gid: Some(61_000),
            ..SandboxPlan::default()
        };
        let by_ref = TestCommand {
            input: InputRef {
                request: &request,
                sandbox: sandbox.clone(),
            },
            deadlines: Deadlines::for_cpu_limit(1000, Duration::from_millis(500)),
        };
        let json = serde_json::to_vec(&by_ref).expect("encodes");
        let decoded: BoxCommand = serde_json::from_slice(&json).expect("decodes");
        assert_eq!(
            decoded,
            BoxCommand::Test {
                input: WorkerInput { request, sandbox },
                deadlines: Deadlines::for_cpu_limit(1000, Duration::from_millis(500)),
            }
        );
    }
}
