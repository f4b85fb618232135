//! The worker program: every process inside a submission's box. The
//! grader starts it once per submission as `<worker> worker` (the
//! `grader-worker` executable, or `grader` itself); it becomes the box
//! process and the box's init (`init.rs`), which forks one child per
//! build and starts the submission's test zygote (`test_zygote.rs`), which
//! forks one child per test. This module is the test child's side:
//! confine the process, load the student's code, ask it the test's
//! questions, and report on the protocol fd (see [`crate::protocol`]).
//! ARCHITECTURE.md ("Theory of operation") draws every process of a box.
//!
//! The order matters. The box's namespaces and cgroup are in place before
//! the child is forked; everything that confines comes *before* the
//! library is loaded, because loading runs the library's own constructors:
//! the parent-death signal, rlimits, the SIGSYS handler, Landlock on the
//! test's view, the uid drop, the seccomp kill list, and the crash handler
//! (`crash.rs`, which only words a crash). The test zygote
//! applies what does not depend on the test once, and each of its children
//! adds the rest (its CPU limit, its own kill rules); a child of init
//! without a zygote (`run_library`) applies it all itself. Only then
//! `dlopen`, then the allow list, then the test. A test child runs one test
//! and ends with `_exit`, so a crash, a timeout or leftover globals never
//! reach the next test: the next one is a fresh fork of the zygote or of
//! init, neither of which student code touches.

mod clock;
mod crash;
mod identity;
mod init;
mod interpose;
mod landlock;
/// The student's shared library as a [`sudoku_lab::Sudoku`]; public so the
/// `sandbox` bench can call the same code in-process, unconfined.
pub mod library;
mod mounts;
pub mod python;
pub(crate) mod seccomp;
mod sys;
mod test_zygote;
mod wipe;

pub use identity::{BUILD_IDENTITY, Invocation, identity_line, parse_args};
pub use sys::FORBIDDEN_EXIT;

use std::path::{Path, PathBuf};

use crate::protocol::{CodeKind, PROTOCOL_FD, SandboxPlan, View, WorkerInput, WorkerMessage};

/// Exit status of a test child (or a box) that reported `worker_failed`,
/// `load_error` or a box failure.
pub const FAILED_EXIT: u8 = 2;

/// The `grader worker` entry point: the box of one submission (see
/// `worker/init.rs`), which runs its builds and tests until the grader is
/// done.
///
/// # Errors
/// When started by hand, without the grader's pipes.
pub fn main() -> anyhow::Result<u8> {
    wipe::enable();
    init::main()
}

/// Runs one test in a child of the box: confines it per `input.sandbox`
/// and `view` (its kind's view of the box, for Landlock), loads the code,
/// answers on the protocol fd, and ends the process.
fn run_test_in_child(input: &WorkerInput, view: Option<&View>) -> ! {
    match input.request.kind {
        CodeKind::Library => run_library(input, view),
        CodeKind::Python => run_python(input, view),
    }
    sys::exit_now(i32::from(FAILED_EXIT))
}

/// Writes one message as a JSON line to the protocol fd. A failed write
/// means the grader is gone: nothing left to do but exit.
fn send(message: &WorkerMessage) {
    let mut line = match serde_json::to_vec(message) {
        Ok(line) => line,
        Err(_) => sys::exit_now(i32::from(FAILED_EXIT)),
    };
    line.push(b'\n');
    if sys::write_all(PROTOCOL_FD, &line).is_err() {
        sys::exit_now(i32::from(FAILED_EXIT));
    }
}

/// Sends `message` and returns the failure exit status.
fn fail(message: WorkerMessage) -> u8 {
    send(&message);
    FAILED_EXIT
}

/// Sends a `worker_failed` for a safeguard that could not be applied and
/// ends the process: no student code runs unconfined.
fn safeguard_failed(what: &str, err: impl std::fmt::Display) -> ! {
    send(&WorkerMessage::WorkerFailed {
        message: format!("the sandbox could not {what}: {err}"),
    });
    sys::exit_now(i32::from(FAILED_EXIT))
}

/// Confines this process per the plan, loads the library, runs the test
/// and exits. Returns only if the library could not be loaded.
fn run_library(input: &WorkerInput, view: Option<&View>) {
    let request = &input.request;
    let plan = &input.sandbox;
    let parent = sys::parent_pid();
    if let Err(err) = sys::die_with_parent(parent) {
        safeguard_failed("ask to die with the grader", err);
    }
    set_limits(Some(request.limits.time_limit_ms), plan);
    if let Err(err) = sys::default_signals() {
        safeguard_failed("reset the limit signals", err);
    }
    if plan.seccomp {
        if let Err(err) = sys::install_sigsys_handler() {
            safeguard_failed("install the SIGSYS handler", err);
        }
    }

    // Opened while still privileged: a library in a folder the sandbox
    // user cannot enter is still loadable through /proc/self/fd.
    let code = match std::fs::File::open(&request.code) {
        Ok(file) => file,
        Err(err) => {
            fail(WorkerMessage::LoadError {
                message: format!("cannot open `{}`: {err}", request.code.display()),
                refusal: None,
                module_line: None,
            });
            return;
        }
    };

    if plan.landlock {
        enforce_landlock(view);
    }
    drop_to_box_user(plan, parent);
    let load_path = loadable_path(&request.code, &code);
    // The fd is needed only when loading goes through /proc/self/fd.
    let code = (load_path != request.code).then_some(code);

    let allow = if plan.seccomp {
        Some(install_kill_filters())
    } else {
        None
    };

    // Read confined, before any student code runs (the file is student
    // input); the handler goes on before loading, armed after it.
    let functions = crash::Functions::read_path_for_good(&load_path);
    crash::install();
    send(&WorkerMessage::Loading);
    let library = match library::CLibrary::load(&load_path, &request.code) {
        Ok(library) => library,
        Err(failed) => {
            fail(failed.into_message());
            return;
        }
    };
    crash::arm(&load_path, functions);
    send(&WorkerMessage::Loaded);
    stand_in_legal(&library, request, &load_path);
    drop(code);

    if let Some(allow) = allow {
        // On every thread: the constructor may have started some.
        if let Err(err) = seccomp::apply_all_threads(&allow) {
            safeguard_failed("install the allow-list filter", err);
        }
    }

    answer(&library, request)
}

/// For `grader check`'s experiment ([`crate::protocol::WorkerRequest::reference_legal`]),
/// puts the grader's `legal` in place of the library's (at `load_path`,
/// still readable: before the allow list, and before the fd it may go
/// through is closed); when that is not possible, says why and ends the
/// test without running `solve`.
fn stand_in_legal(
    library: &library::CLibrary,
    request: &crate::protocol::WorkerRequest,
    load_path: &Path,
) {
    if !request.reference_legal {
        return;
    }
    let crate::check::Probe::Solve { n, .. } = &request.probe else {
        return;
    };
    if let Err(reason) = library.stand_in_legal(load_path, *n) {
        send(&WorkerMessage::LegalSwap(crate::protocol::LegalSwap {
            not_possible: Some(reason),
            calls: 0,
            strange: 0,
        }));
        sys::exit_now(0);
    }
}

/// Asks the loaded library the test's question, reports the answer (and
/// the write trace) on the protocol fd, and ends the process.
fn answer(library: &library::CLibrary, request: &crate::protocol::WorkerRequest) -> ! {
    let start = std::time::Instant::now();
    let result = match &request.probe {
        crate::check::Probe::Solve { n, board } if request.trace => {
            library::solve_traced(library, *n, board).map(|(response, trace)| {
                if let Some(trace) = trace {
                    send(&WorkerMessage::Trace { trace });
                }
                response
            })
        }
        probe => crate::check::execute(library, probe),
    };
    let time_ms = start.elapsed().as_secs_f64() * 1000.0;
    if request.reference_legal {
        let (calls, strange) = interpose::calls();
        send(&WorkerMessage::LegalSwap(crate::protocol::LegalSwap {
            not_possible: None,
            calls,
            strange,
        }));
    }
    match result {
        Ok(response) => send(&WorkerMessage::Done { response, time_ms }),
        Err(err) => send(&WorkerMessage::WorkerFailed {
            message: format!("the grader sent a malformed test: {err}"),
        }),
    }
    sys::exit_now(0)
}

/// The Python hook: confines this process per the plan like
/// [`run_library`], but instead of `dlopen` hands the test to
/// [`python::PreparedPython::exec`], which `execve`s the interpreter under
/// the Python seccomp filters and Landlock rules. The source is read while
/// still privileged; the harness sends `loading` once Python has started.
/// Returns only if the source could not be used.
fn run_python(input: &WorkerInput, view: Option<&View>) {
    let plan = &input.sandbox;
    let parent = sys::parent_pid();
    if let Err(err) = sys::die_with_parent(parent) {
        safeguard_failed("ask to die with the grader", err);
    }
    // Before the limits: the memfd write counts against the file-size limit.
    let prepared = match python::prepare(input) {
        Ok(prepared) => prepared,
        Err(python::PrepareError::Student(message)) => {
            send(&WorkerMessage::Loading);
            fail(WorkerMessage::LoadError {
                message,
                refusal: None,
                module_line: None,
            });
            return;
        }
        Err(python::PrepareError::Grader(message)) => safeguard_failed("start Python", message),
    };
    set_limits(Some(input.request.limits.time_limit_ms), plan);
    if let Err(err) = sys::default_signals() {
        safeguard_failed("reset the limit signals", err);
    }
    if plan.landlock {
        enforce_landlock(view);
    }
    drop_to_box_user(plan, parent);
    {
        let failed = prepared.exec(sys::pid(), plan.seccomp);
        safeguard_failed("run Python", failed);
    }
}

/// Holds this test to `view` with Landlock, reporting a ruleset only
/// partly enforced; a missing view or a ruleset that could not be
/// enforced is a safeguard failure (no student code has run).
fn enforce_landlock(view: Option<&View>) {
    if let Some(message) = landlock_note(view) {
        send(&WorkerMessage::SandboxNote { message });
    }
}

/// [`enforce_landlock`], returning the note on a ruleset only partly
/// enforced instead of sending it (the test zygote's children send it).
fn landlock_note(view: Option<&View>) -> Option<String> {
    let Some(view) = view else {
        safeguard_failed("restrict file access", "the box has no view for this test");
    };
    match landlock::restrict(view) {
        Ok(landlock::Enforcement::Full) => None,
        Ok(landlock::Enforcement::Partial(message)) => Some(message),
        Err(err) => safeguard_failed("restrict file access", err),
    }
}

/// Drops to the box's user and group (per the plan), then asks again to
/// die with `parent` (changing credentials clears that setting).
fn drop_to_box_user(plan: &SandboxPlan, parent: libc::pid_t) {
    let Some(uid) = plan.uid else {
        return;
    };
    let gid = plan.gid.unwrap_or(uid);
    if let Err(err) = sys::drop_privileges(uid, gid) {
        safeguard_failed(&format!("switch to user {uid}"), err);
    }
    if let Err(err) = sys::die_with_parent(parent) {
        safeguard_failed("ask to die with the grader", err);
    }
}

/// Sets the rlimits: CPU (see [`set_cpu_limit`]; `None` leaves it, for the
/// test zygote, whose children set their own), no file writes, few files,
/// no core dumps, and the planned address-space and process limits.
fn set_limits(time_limit_ms: Option<u64>, plan: &SandboxPlan) {
    if let Some(ms) = time_limit_ms {
        set_cpu_limit(ms);
    }
    let mut limits = vec![
        (libc::RLIMIT_FSIZE, "file size", 0, 0),
        (libc::RLIMIT_NOFILE, "open files", 32, 32),
        (libc::RLIMIT_CORE, "core dumps", 0, 0),
    ];
    if let Some(mb) = plan.address_space_mb {
        let bytes = mb.saturating_mul(1 << 20);
        limits.push((libc::RLIMIT_AS, "address space", bytes, bytes));
    }
    if let Some(nproc) = plan.nproc {
        limits.push((libc::RLIMIT_NPROC, "processes", nproc, nproc));
    }
    for (resource, what, soft, hard) in limits {
        if let Err(err) = sys::set_rlimit(resource, soft, hard) {
            safeguard_failed(&format!("limit {what}"), err);
        }
    }
}

/// Sets the CPU rlimit for a test of `time_limit_ms`: soft = the limit
/// rounded up to a second, hard one second more (SIGXCPU, then SIGKILL).
/// The box's init stops the test at its limit first; this is the second
/// line.
fn set_cpu_limit(time_limit_ms: u64) {
    let cpu = time_limit_ms.div_ceil(1000).max(1);
    if let Err(err) = sys::set_rlimit(libc::RLIMIT_CPU, cpu, cpu + 1) {
        safeguard_failed("limit CPU time", err);
    }
}

/// The path to `dlopen`: the request's path if this (possibly unprivileged)
/// process can read it, else the file opened earlier, through
/// `/proc/self/fd`.
fn loadable_path(path: &Path, opened: &std::fs::File) -> PathBuf {
    use std::os::fd::AsRawFd;
    if std::fs::File::open(path).is_ok() {
        return path.to_path_buf();
    }
    let by_fd = PathBuf::from(format!("/proc/self/fd/{}", opened.as_raw_fd()));
    if by_fd.exists() {
        by_fd
    } else {
        path.to_path_buf()
    }
}

/// Builds all three filters, installs K and E, and returns A to install
/// after loading (built now: building allocates and may need calls A
/// refuses).
fn install_kill_filters() -> seccompiler::BpfProgram {
    let built = seccomp::kill_filter(sys::pid())
        .and_then(|k| Ok((k, seccomp::clone3_filter()?, seccomp::allow_filter()?)));
    let (kill, clone3, allow) = match built {
        Ok(filters) => filters,
        Err(err) => safeguard_failed("build the seccomp filters", err),
    };
    if let Err(err) = sys::no_new_privs() {
        safeguard_failed("set no_new_privs", err);
    }
    for filter in [&kill, &clone3] {
        if let Err(err) = seccomp::apply(filter) {
            safeguard_failed("install the kill-list filter", err);
        }
    }
    allow
}
