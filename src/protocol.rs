//! The messages between the grader and a submission's box: the box's own
//! traffic (setup, one command per run, how each run ended) and what the
//! worker program says from a test child on the protocol fd. The
//! processes and pipes are drawn in ARCHITECTURE.md ("Theory of
//! operation").
//!
//! # The box's pipes
//!
//! The grader starts the box process (`<worker> worker`, see
//! `worker/init.rs`) with:
//!
//! - **stdin** (the command pipe): one [`BoxSetup`] line, then one
//!   [`BoxCommand`] line per run (a [`BoxCommand::Test`] carries its
//!   [`WorkerInput`]: the [`WorkerRequest`] and the safeguards to apply),
//!   each at most [`MAX_INPUT_BYTES`]; closing it ends the box.
//! - **fd 4** ([`BOX_EVENTS_FD`], the event pipe): box init writes
//!   [`BoxEvent`]s, one JSON line each: `ready`, then one `finished`
//!   ([`RunEnd`]: wait status, CPU, idle and wall time, why init killed the
//!   run) per command, or `failed`. Every child of init closes this fd and
//!   the command pipe, so no student process can write an event.
//! - **fds 1 and 2**: the student's stdout and stderr, captured (capped) by
//!   the grader; **fd 3** ([`PROTOCOL_FD`], the protocol fd), below. The
//!   three are shared by every run of the box, one run at a time.
//! - a cleared environment (`PATH`, `LANG=C`), the box's folder as its
//!   working directory, and no other open file descriptor.
//!
//! # The protocol fd
//!
//! A test child (one fork per [`BoxCommand::Test`], by the submission's
//! test zygote or by init) writes [`WorkerMessage`]s on fd 3, one JSON object per
//! line (`\n`-terminated), each tagged by `"type"`. It never writes to
//! stdout/stderr, which belong to the student's code. A build child
//! closes fd 3.
//!
//! A test child's life, as messages: optional `sandbox_note`s; then
//! `worker_failed` (a safeguard the grader asked for could not be applied,
//! or the request was malformed: the grader's problem, no student code ran)
//! or `loading` (every safeguard is in place; student code runs from here
//! on, starting with the library's load-time constructors). After
//! `loading`: `load_error` (the code could not be loaded: a missing symbol,
//! not a library) or `loaded`. After `loaded`: one `done` (then exit status
//! 0), after a `trace` when one was asked for and a `legal_swap` when
//! `grader check` asked for its run with the grader's `legal`
//! ([`WorkerRequest::reference_legal`]; a `legal_swap` alone when that run
//! is not possible). At any point after `loading`, `forbidden` (the sandbox refused a
//! system call), or nothing more at all (the process died: init reports
//! the wait status; a library's crash handler first writes one
//! `crash_site` saying where). A test child that dies before `loading`
//! failed on the grader's side. For example:
//!
//! ```text
//! stdin:  {"namespaces":true,"uid":61000,"gid":61000,"dir":"/tmp/grader-run-x/box-y","views":[...],"hide":[...]}
//! fd 4:   {"type":"ready","notes":[]}
//! stdin:  {"type":"test","input":{"request":{"kind":"library","code":"/tmp/grader-run-x/box-y/code/lib.so",
//!          "probe":{"function":"solve","args":{"n":2,"board":[1,0,0,4,...]}},
//!          "limits":{"time_limit_ms":1000,"memory_limit_mb":256}},
//!          "sandbox":{"uid":61000,"gid":61000,...}},
//!          "deadlines":{"cpu_ms":1000,"idle_ms":1500,"backstop_ms":20000}}
//! fd 3:   {"type":"loading"}
//!         {"type":"loaded"}
//!         {"type":"done","response":{"function":"solve","args":{"solved":true,"board":[1,2,3,4,...]}},"time_ms":0.004}
//! fd 4:   {"type":"finished","wait_status":0,"cpu_ms":1,"wall_ms":2,...,"killed":null,"leftovers":0}
//! ```
//!
//! A Python test child speaks the same protocol from the harness, with
//! `json` and `os.write` (on a copy of fd 3 it makes before the student's
//! code runs), plus `trace` and `exception` messages.
//!
//! Nothing on fd 3 is trusted: student code can write to it too, so the
//! grader decodes defensively, takes the verdict from init's [`RunEnd`] and
//! its own records as well, and judges every answer itself.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

use crate::check::{Probe, Response};

/// The file descriptor a test child writes [`WorkerMessage`]s to.
pub const PROTOCOL_FD: i32 = 3;

/// The largest command line (a [`BoxCommand`] with its [`WorkerInput`])
/// box init reads from its command pipe, in bytes.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// The longest protocol line the grader keeps, in bytes (the worker
/// program's largest `done`, 20,000 `legal` answers, is about 120 kB).
/// Longer lines are cut while reading, before any decoding: student code
/// wrote them.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// A write trace at its cap (12 hex digits a record) fits one line, with
/// room for the JSON around it.
const _: () = assert!(crate::check::trace::TRACE_CAP * 12 + 1024 <= MAX_LINE_BYTES);

/// The most protocol bytes the grader keeps per test.
pub const MAX_PROTOCOL_BYTES: usize = 16 << 20;

/// What the grader keeps of a test child's fd 3 while reading it: whole lines
/// of at most [`MAX_LINE_BYTES`], at most [`MAX_PROTOCOL_BYTES`] in all.
/// Of a longer line nothing is kept (beyond what tells it apart), so no
/// decoder ever sees it and memory stays bounded however much is written.
#[derive(Debug, Default)]
pub struct ProtocolLines {
    kept: Vec<u8>,
    /// Bytes of the line being read (kept or not).
    line_len: u64,
    /// Where the line being read starts in `kept`.
    line_start: usize,
    /// The longest line that was cut, if any.
    overlong: Option<u64>,
    /// The total cap was reached.
    overflow: bool,
}

impl ProtocolLines {
    /// An empty buffer.
    pub fn new() -> ProtocolLines {
        ProtocolLines::default()
    }

    /// Adds a chunk as read from the pipe.
    pub fn push(&mut self, chunk: &[u8]) {
        for piece in chunk.split_inclusive(|&b| b == b'\n') {
            let ends_line = piece.last() == Some(&b'\n');
            self.line_len += piece.len() as u64;
            let over = self.line_len > MAX_LINE_BYTES as u64 + 1;
            if over {
                // Drop what was kept of this line; remember it was cut.
                self.kept.truncate(self.line_start);
                self.overlong = Some(self.overlong.unwrap_or(0).max(self.line_len));
            } else if self.kept.len() + piece.len() <= MAX_PROTOCOL_BYTES {
                self.kept.extend_from_slice(piece);
            } else {
                self.overflow = true;
            }
            if ends_line {
                self.line_len = 0;
                self.line_start = self.kept.len();
            }
        }
    }

    /// The kept bytes: whole lines, none longer than [`MAX_LINE_BYTES`].
    pub fn bytes(&self) -> &[u8] {
        &self.kept
    }

    /// The messages, and a note on the first line that was not one (a
    /// line that was cut, garbage, or the total cap reached).
    pub fn decode(&self) -> (Vec<WorkerMessage>, Option<String>) {
        let (messages, garbage) = decode_messages(&self.kept);
        let cut = self.overlong.map(overlong_line).or_else(|| {
            self.overflow
                .then(|| format!("more than {MAX_PROTOCOL_BYTES} bytes of protocol output"))
        });
        (messages, cut.or(garbage))
    }
}

/// One test as a [`BoxCommand::Test`] carries it to box init: the test,
/// and the safeguards the grader found available on this machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkerInput {
    /// The test.
    pub request: WorkerRequest,
    /// The safeguards to apply before loading the code.
    #[serde(default)]
    pub sandbox: SandboxPlan,
}

/// The safeguards a test child applies to itself, in this order, before
/// it loads the student's code. Each is decided by the grader, which probed the
/// machine once; a planned safeguard that fails is a `worker_failed`
/// message, never skipped silently. The default plan applies only what
/// needs no privilege (rlimits, Landlock and seccomp when the kernel has
/// them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SandboxPlan {
    /// The address-space limit (`RLIMIT_AS`) in MiB; `None` leaves it.
    pub address_space_mb: Option<u64>,
    /// The process/thread limit (`RLIMIT_NPROC`), applied after the uid
    /// drop; `None` leaves it (a pids cgroup does the job then).
    pub nproc: Option<u64>,
    /// Restrict file access with Landlock to the view of the test's kind
    /// (the system libraries and the box's `code/`, read-only).
    pub landlock: bool,
    /// Drop to this user and group id (needs root).
    pub uid: Option<u32>,
    /// The group id to drop to, with `uid`.
    pub gid: Option<u32>,
    /// Install the seccomp filters.
    pub seccomp: bool,
}

impl Default for SandboxPlan {
    fn default() -> SandboxPlan {
        SandboxPlan {
            address_space_mb: None,
            nproc: None,
            landlock: cfg!(target_os = "linux"),
            uid: None,
            gid: None,
            seccomp: cfg!(target_os = "linux"),
        }
    }
}

/// What kind of student code a test child loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeKind {
    /// A shared library with the lab's C ABI (built from Rust or C, or given).
    Library,
    /// A Python module defining the seed's three functions.
    Python,
}

/// Resource limits for one test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// CPU time for the test, in milliseconds.
    pub time_limit_ms: u64,
    /// Memory, in MiB.
    pub memory_limit_mb: u64,
}

/// One test for a test child: what to load and what to ask of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkerRequest {
    /// What `code` is.
    pub kind: CodeKind,
    /// The library or module to load.
    pub code: PathBuf,
    /// The questions to ask.
    pub probe: Probe,
    /// The limits to apply to itself before loading `code`.
    pub limits: Limits,
    /// For [`CodeKind::Python`]: the interpreter to run, found once by the
    /// grader ([`crate::worker::python::find_interpreter`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<PythonInterpreter>,
    /// Record `solve`'s writes and send them as a [`WorkerMessage::Trace`]
    /// before `done`: for a library, through the Rust lab crate's recording
    /// board or the write watch (slow: only asked for on small boards);
    /// Python traces every `solve` whatever this says.
    #[serde(default)]
    pub trace: bool,
    /// `grader check`'s experiment on a failing `solve`: run the
    /// student's `solve` with the grader's own `legal` in place of the
    /// student's (a Python module's global, a C library's PLT/GOT slot; see
    /// `worker/interpose.rs`), everything else the student's, and send a
    /// [`WorkerMessage::LegalSwap`] before `done`. Never asked by `grader
    /// grade`; its answer never decides a verdict.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reference_legal: bool,
    /// `grader check`'s run of a Python `solve` whose test crashed with a
    /// RecursionError: the harness stops `solve` once it nests deeper than
    /// any search that fills a cell a call, and sends the trace so far
    /// (marked `stopped_deep`) with the board as it is. Never asked by
    /// `grader grade`; it only words a failure. (A C library's watched
    /// run always stops so; see `grader_watch::DeepStop`.)
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deep_stop: bool,
}

/// The machine's `python3`, as found by the grader before any student code
/// ran: what to execute and what it needs to read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonInterpreter {
    /// The interpreter binary, symlinks resolved.
    pub executable: PathBuf,
    /// Its ELF program interpreter (the dynamic loader), which the kernel
    /// opens for execution too; `None` for a static binary.
    pub loader: Option<PathBuf>,
    /// The folders it reads at start-up and import: its prefixes and the
    /// standard library (symlinks resolved).
    pub read_dirs: Vec<PathBuf>,
    /// `sys.version`'s first word, for messages.
    pub version: String,
    /// Whether every user can run it (the sandbox user can reach it).
    pub world_reachable: bool,
    /// The modules beyond the standard library that the cases allow
    /// (`grader.toml`'s `python_modules`): each name with the file it is
    /// imported from (a package's `__init__.py`), which the harness finds
    /// for an `import`; their folders are in `read_dirs`. Empty when none
    /// is allowed.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub modules: std::collections::BTreeMap<String, PathBuf>,
}

/// What the dynamic loader refused a student's library for, as the test
/// child read it from the loader's reason: a finding the report words
/// (`report::load_hints`), never a verdict (the verdict is `error`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LoaderRefusal {
    /// The library calls a function nothing it was linked with defines.
    UndefinedSymbol {
        /// The function's name (checked: an identifier, at most 60 bytes).
        name: String,
    },
    /// The file is no shared library for this machine.
    NotALibrary,
}

/// One line a test child writes to the protocol fd.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WorkerMessage {
    /// The sandbox is in place and the code is about to be loaded: from
    /// here on, student code runs (its load-time constructors first), and a
    /// failure is the student's.
    Loading,
    /// The code is loaded and its functions found.
    Loaded,
    /// The code could not be loaded (no such file, a missing symbol, an
    /// import error): the `error` verdict.
    LoadError {
        /// What went wrong and what to do.
        message: String,
        /// What the dynamic loader refused, told apart by the test child
        /// from the loader's own reason (`dlerror`), for the report's
        /// hint; absent for any other load error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        refusal: Option<LoaderRefusal>,
        /// For a Python module whose import raised: the line of the
        /// module's top level (its outermost `<module>` frame) that was
        /// running, for the hint that names a notebook's cell; absent
        /// otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        module_line: Option<usize>,
        /// For a Python module whose import raised `ModuleNotFoundError`:
        /// the module it could not find (the error's `name`), for the
        /// report's hint; absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        missing_module: Option<String>,
    },
    /// The answers, and the time spent in student code.
    Done {
        /// The answers.
        response: Response,
        /// Milliseconds spent in the student's function calls.
        time_ms: f64,
    },
    /// The sandbox refused a system call (written by the SIGSYS handler).
    Forbidden {
        /// The system call's number on this architecture.
        syscall: i64,
    },
    /// A safeguard applied only in part (e.g. Landlock on an older
    /// kernel); the rest still are.
    SandboxNote {
        /// Which one, and why.
        message: String,
    },
    /// What a traced `solve` wrote to the board (Python submissions, and
    /// libraries when [`WorkerRequest::trace`] asks), sent just before
    /// `done`.
    Trace {
        /// The writes and the calls and returns of `solve`.
        trace: crate::check::WriteTrace,
    },
    /// How the experiment of [`WorkerRequest::reference_legal`] went: sent
    /// alone when the grader's `legal` could not stand in for the student's
    /// (no student `solve` ran then), else just before `done`. Student code
    /// can write this line too: it only decides whether `grader check`
    /// words a failure with the experiment, never a verdict.
    LegalSwap(LegalSwap),
    /// Student code raised an exception (Python): the `crash` verdict, or
    /// `memory` for a `MemoryError`.
    Exception {
        /// The exception's class name, e.g. `IndexError`.
        name: String,
        /// What happened, with the traceback cut to the student's frames.
        message: String,
    },
    /// Where a library's code crashed (SIGSEGV, SIGBUS, SIGFPE, SIGILL),
    /// written by the test child's crash handler (`worker/crash.rs`) just
    /// before the signal ends the process: `site` is `SIGNAL PLACE` in the
    /// exact format [`crate::runner::crash_site::CrashSite::parse`]
    /// accepts. It words the crash verdict (the wait status decides it),
    /// and only when its signal is the one that ended the process.
    CrashSite {
        /// The signal's number and the faulting instruction's place.
        site: String,
    },
    /// The test child could not do its job for a reason that is the
    /// grader's, not the student's: a safeguard the grader asked for could
    /// not be applied (the child stops before loading any code), or the
    /// request was malformed.
    WorkerFailed {
        /// What went wrong.
        message: String,
    },
}

/// What a test child of [`WorkerRequest::reference_legal`] tells of its
/// experiment ([`WorkerMessage::LegalSwap`]): the judge's type, which the
/// browser engine reads from the same harness line.
pub use crate::words::legal_swap::LegalSwap;

// ---------------------------------------------------------------------------
// The box: one per submission (see `sandbox` and `worker::zygote`).
// ---------------------------------------------------------------------------

/// The box's file descriptor for its events to the grader ([`BoxEvent`]s,
/// one JSON line each). Its stdin carries the grader's [`BoxSetup`] line,
/// then one [`BoxCommand`] line per run; fds 1 and 2 are the student's
/// stdout and stderr and fd 3 the protocol fd, shared by every run.
pub const BOX_EVENTS_FD: i32 = 4;

/// The exit status of a box's build child that could not confine itself
/// or start its tool (no compiler exits with it), with a stderr line that
/// starts with [`BOX_SETUP_FAILED_PREFIX`]: the grader's fault.
pub const BOX_SETUP_FAILED_EXIT: i32 = 125;

/// How the build child's own failure message starts.
pub const BOX_SETUP_FAILED_PREFIX: &str = "grader box: ";

/// How a box sets itself up: the first line the grader writes to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoxSetup {
    /// The box was started in new PID, mount, network, IPC and UTS
    /// namespaces: it forks its init (pid 1 of the new PID namespace),
    /// which kills every other process of the box after each run.
    pub namespaces: bool,
    /// The user and group the box's runs drop to (one per concurrent box).
    pub uid: Option<u32>,
    /// The group id, with `uid`.
    pub gid: Option<u32>,
    /// The box's own folder.
    pub dir: PathBuf,
    /// What each kind of process of this box may see (see
    /// `sandbox::view`): with namespaces, the box's private root holds
    /// their union and nothing else of the host; every run is held to its
    /// own kind's view by Landlock as well. A test child uses the view of
    /// its request's kind.
    pub views: Vec<View>,
    /// Folders covered with an empty, read-only file system inside the box
    /// where they lie inside a view (the cases, the submissions folder, the
    /// reports): with namespaces, nothing in the box can see them,
    /// whatever Landlock allows.
    pub hide: Vec<PathBuf>,
    /// Run library tests as children of one test zygote per submission
    /// (confined once; see `worker/test_zygote.rs`) rather than each in a
    /// child that confines itself. Only with `namespaces`. Off only to
    /// measure the difference (`benches/sandbox.rs`).
    #[serde(default = "yes")]
    pub test_zygote: bool,
}

/// `true`, for serde defaults.
fn yes() -> bool {
    true
}

/// How a process may use one path of its view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Read the file, or list the folder and read everything beneath it.
    Read,
    /// Read and execute.
    Exec,
    /// Read, write, create and remove beneath it (the box's work folder).
    Write,
    /// A device node, read and written (`/dev/null`).
    Device,
}

/// One path of a view and how it may be used. The path is named as the
/// tools name it (it may pass through symbolic links, which the box
/// recreates).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ViewEntry {
    /// An absolute path.
    pub path: PathBuf,
    /// How it may be used.
    pub access: Access,
}

/// The kinds of process a box runs, each with a view of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewKind {
    /// The C compiler building a C submission.
    CBuild,
    /// cargo and rustc building a Rust crate.
    RustBuild,
    /// A test of a shared library (C, Rust or prebuilt).
    LibraryTest,
    /// A test of a Python submission.
    PythonTest,
}

/// Everything one kind of process may see, as `sandbox::view` defines it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// The kind of process.
    pub kind: ViewKind,
    /// The paths, each once.
    pub entries: Vec<ViewEntry>,
}

/// One run in a box.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BoxCommand {
    /// Run one test: a child confines itself per `input.sandbox` and
    /// answers on the protocol fd, as [`WorkerInput`] describes.
    Test {
        /// The test and its safeguards.
        input: WorkerInput,
        /// When init stops it.
        deadlines: Deadlines,
    },
    /// Run a build tool (the C compiler, cargo) confined to the box.
    Build(BuildJob),
}

/// When a box's init stops a run, each measured by init itself (the
/// kernel's counts, never anything the run reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deadlines {
    /// CPU time, in milliseconds: the judged limit ([`RunKill::Cpu`]).
    pub cpu_ms: u64,
    /// Time the run did not want a CPU (sleeping, blocked, stopped), in
    /// milliseconds ([`RunKill::Idle`]). Time spent runnable, waiting for
    /// a CPU on a busy host, does not count.
    pub idle_ms: u64,
    /// Wall-clock time, in milliseconds, after which a run that is still
    /// runnable and under its CPU limit is stopped undecided
    /// ([`RunKill::Backstop`]): the host was too busy to time it.
    pub backstop_ms: u64,
}

impl Deadlines {
    /// The deadlines of a run with CPU limit `cpu_ms`: it may be idle for
    /// its limit plus `allowance`, and the backstop is ten times the limit
    /// plus ten seconds (a share of a tenth of a CPU still finishes).
    pub fn for_cpu_limit(cpu_ms: u64, allowance: std::time::Duration) -> Deadlines {
        Deadlines {
            cpu_ms,
            idle_ms: cpu_ms.saturating_add(allowance.as_millis() as u64),
            backstop_ms: cpu_ms.saturating_mul(10).saturating_add(10_000),
        }
    }

    /// The deadlines of a build with CPU limit `limit` (the whole tree's):
    /// it may also be idle that long; the backstop is, as for a test, ten
    /// times it plus ten seconds.
    pub fn for_build(limit: std::time::Duration) -> Deadlines {
        let ms = limit.as_millis() as u64;
        Deadlines {
            cpu_ms: ms,
            idle_ms: ms,
            backstop_ms: ms.saturating_mul(10).saturating_add(10_000),
        }
    }
}

/// A build tool to run in the box.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildJob {
    /// The program, an absolute path found by the grader.
    pub program: PathBuf,
    /// Its arguments (never a name chosen by a student).
    pub args: Vec<String>,
    /// Its working folder, inside the box.
    pub cwd: PathBuf,
    /// Its whole environment.
    pub env: Vec<(String, String)>,
    /// When init stops it (the CPU time is the whole build tree's).
    pub deadlines: Deadlines,
    /// The largest file it may write, in MiB.
    pub file_size_mb: u64,
    /// The address-space limit in MiB, when no memory cgroup limits it.
    pub address_space_mb: Option<u64>,
    /// Restrict file access with Landlock to `view`.
    pub landlock: bool,
    /// What the tool may see (its kind's view of the box).
    pub view: View,
}

/// What a box tells the grader.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BoxEvent {
    /// The box is set up and waits for commands; `notes` say what it
    /// could not do (e.g. a folder it could not make reachable).
    Ready {
        /// What is missing, one sentence each.
        notes: Vec<String>,
    },
    /// A run ended; everything it started is dead.
    Finished(RunEnd),
    /// The box cannot go on (a grader fault).
    Failed {
        /// What went wrong.
        message: String,
    },
}

/// How one run in a box ended, as the box measured it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunEnd {
    /// The raw wait status of the run's first process.
    pub wait_status: i32,
    /// Its CPU time (user + system, all threads), in milliseconds.
    pub cpu_ms: u64,
    /// Wall-clock time from fork to its end, in milliseconds.
    pub wall_ms: u64,
    /// Of that, the time it did not want a CPU (sleeping, blocked).
    #[serde(default)]
    pub idle_ms: u64,
    /// The time its threads waited for a CPU (a busy host), summed.
    #[serde(default)]
    pub waited_ms: u64,
    /// Why the box killed it, if it did.
    pub killed: Option<RunKill>,
    /// Other processes of the run still alive at its end (all killed).
    pub leftovers: u32,
}

/// Why a box killed a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKill {
    /// Its CPU time reached the limit.
    Cpu,
    /// It did not want a CPU (slept, blocked) for longer than allowed.
    Idle,
    /// The wall-clock backstop passed while it was still runnable and
    /// under its CPU limit: undecided, the host was too busy.
    Backstop,
}

/// Splits protocol bytes into messages and the first garbage line (cut to
/// 200 bytes). A line longer than [`MAX_LINE_BYTES`] is never handed to the
/// JSON decoder: it is garbage (student code wrote it; the worker
/// program's own lines are far shorter), and so is a line that is not a message.
pub fn decode_messages(bytes: &[u8]) -> (Vec<WorkerMessage>, Option<String>) {
    let mut messages = Vec::new();
    let mut garbage = None;
    for line in bytes.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if line.len() > MAX_LINE_BYTES {
            garbage.get_or_insert_with(|| overlong_line(line.len() as u64));
            continue;
        }
        match serde_json::from_slice::<WorkerMessage>(line) {
            Ok(message) => messages.push(message),
            Err(_) if garbage.is_none() => {
                let text = String::from_utf8_lossy(line);
                garbage = Some(truncate_at_char(&text, 200).to_string());
            }
            Err(_) => {}
        }
    }
    (messages, garbage)
}

/// The garbage note for a protocol line of `len` bytes, over the cap.
pub fn overlong_line(len: u64) -> String {
    format!(
        "a line of {len} bytes or more, over the protocol's cap of {} MiB per line",
        MAX_LINE_BYTES >> 20
    )
}

/// At most `max` bytes of `s`, cut at a character boundary.
pub(crate) fn truncate_at_char(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
