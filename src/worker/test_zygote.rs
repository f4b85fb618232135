//! The test zygote: one confined process per submission from which every
//! library test of that submission is forked, so the confinement that is
//! slow to set up is set up once.
//!
//! The box's init (`init.rs`) starts it at the submission's first
//! library test. The zygote applies, once, everything a test is held to
//! that does not depend on the test: the rlimits but CPU, Landlock on the
//! library test view, the uid drop, `no_new_privs`, and the long seccomp
//! filters (K_z, E and A_z, see `seccomp.rs`); then it reads the
//! library's function symbols for the children's crash handlers
//! (`crash.rs`). It never loads the
//! student's library and never runs student code: it reads a test from
//! init, forks a child, tells init the child's pid, reaps it, and tells
//! init how it ended.
//!
//! Each child, before anything of the student's runs, sets its own CPU
//! limit, installs its own short filter (K's rules that name its pid) and
//! the crash handler; then it loads the library (`dlopen` after the fork, so constructors run
//! confined and every test starts from a fresh copy), installs the
//! tightening filter T on every thread, and answers. Stacked, the filters
//! answer exactly as the per-test K, E and A did. A child cannot reach
//! the zygote: signals, `ptrace`, `process_vm_*` and `prlimit64` on
//! another pid are on the kill list, the zygote is not dumpable (it
//! dropped its uid), and it holds no memory shared with its children.
//!
//! Init measures and kills each child from outside, as it does a child of
//! its own (of the pid it is told, init checks only that it is neither 1
//! nor the zygote's own; no child can write to the report pipe), and
//! starts a new zygote when one is gone. Lines to init, on the report
//! pipe: `started PID` and `ended PID STATUS CPU_MS`.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::FromRawFd;
use std::path::PathBuf;

use super::{crash, library, seccomp, sys};
use crate::protocol::{
    CodeKind, MAX_INPUT_BYTES, PythonInterpreter, SandboxPlan, View, WorkerInput, WorkerMessage,
};

/// What every test of one zygote shares: its kind, its code, its
/// interpreter and its sandbox plan.
#[derive(Clone, Debug)]
pub(super) struct ZygoteKey {
    /// A library or Python zygote.
    pub kind: CodeKind,
    /// The library's or the source's path.
    pub code: PathBuf,
    /// The sandbox plan.
    pub plan: SandboxPlan,
    /// The interpreter, for Python.
    pub python: Option<PythonInterpreter>,
}

impl ZygoteKey {
    /// The key of `input`'s test.
    pub(super) fn of(input: &WorkerInput) -> ZygoteKey {
        ZygoteKey {
            kind: input.request.kind,
            code: input.request.code.clone(),
            plan: input.sandbox.clone(),
            python: input.request.python.clone(),
        }
    }

    /// Whether `input`'s test can run in this key's zygote (compared in
    /// place, without a copy: this is asked once per test).
    pub(super) fn fits(&self, input: &WorkerInput) -> bool {
        self.kind == input.request.kind
            && self.code == input.request.code
            && self.plan == input.sandbox
            && self.python == input.request.python
    }
}

/// The confined state the zygote's children start from.
struct Confined {
    /// The path to `dlopen` (the library's own, or `/proc/self/fd/N`).
    load_path: PathBuf,
    /// The library's path, for messages.
    code: PathBuf,
    /// A Landlock note every test sends (a ruleset only partly enforced).
    landlock_note: Option<String>,
    /// The tightening filter, built once (building allocates).
    tighten: Option<seccompiler::BpfProgram>,
    /// Whether the seccomp filters are on.
    seccomp: bool,
    /// The library's function symbols, read once here, confined, for
    /// each child's crash handler.
    functions: Option<&'static crash::Functions>,
    /// The library, opened while privileged, when `load_path` goes through
    /// it; each child closes it once loaded.
    file: Option<std::fs::File>,
}

/// The Python test zygote: confines itself like the library zygote (but
/// for seccomp, which [`super::python::exec_zygote`] installs just before
/// the `execve`), with init's command pipe on fd 0 and the report pipe on
/// fd 4, then becomes the interpreter running the harness as a zygote
/// (`python_harness.py`, `zygote()`): it reads the filters each child adds,
/// says `ready`, and forks a child per test that compiles and runs the
/// student's source itself.
pub(super) fn serve_python(first: &WorkerInput, view: Option<&View>) -> ! {
    let plan = &first.sandbox;
    let parent = confine_start(plan);
    if plan.landlock {
        super::confine::enforce_landlock(view);
    }
    super::confine::drop_to_box_user(plan, parent);
    let Some(interpreter) = &first.request.python else {
        super::channel::safeguard_failed("start Python", "the request names no Python interpreter");
    };
    let failed = super::python::exec_zygote(interpreter, plan.seccomp);
    super::channel::safeguard_failed("run Python", failed)
}

/// The zygote's life: confine once per `first` (the first test's input)
/// and `view`, then fork a child per test read from `commands`, reporting
/// on `reports`. Ends when init closes `commands`.
///
/// Nothing of one test outlives it here: after each child is reaped, the
/// request's line, its parsed form and the reader's buffer are freed (and
/// so wiped, `wipe.rs`), so the next child inherits none of it.
pub(super) fn serve(key: ZygoteKey, view: Option<&View>, commands: i32, reports: i32) -> ! {
    let confined = confine(&key, view);
    // SAFETY: the fd was made for this process by init and is owned here
    // alone.
    let mut commands = BufReader::new(unsafe { std::fs::File::from_raw_fd(commands) });
    // SAFETY: as above.
    let mut reports = unsafe { std::fs::File::from_raw_fd(reports) };
    use std::os::fd::AsRawFd;
    let (command_fd, report_fd) = (commands.get_ref().as_raw_fd(), reports.as_raw_fd());
    loop {
        if commands.buffer().is_empty() {
            commands = BufReader::new(commands.into_inner());
        } else {
            // Init sends a test only once the last one ended: bytes past
            // a line are not a test of this protocol.
            sys::exit_now(i32::from(super::channel::FAILED_EXIT));
        }
        let mut line = Vec::new();
        match commands
            .by_ref()
            .take(MAX_INPUT_BYTES + 1)
            .read_until(b'\n', &mut line)
        {
            Ok(0) => sys::exit_now(0),
            Ok(_) => {}
            Err(_) => sys::exit_now(i32::from(super::channel::FAILED_EXIT)),
        }
        let input: WorkerInput = match serde_json::from_slice(&line) {
            Ok(input) => input,
            Err(_) => sys::exit_now(i32::from(super::channel::FAILED_EXIT)),
        };
        let pid = match sys::fork() {
            Ok(0) => {
                sys::close(command_fd);
                sys::close(report_fd);
                test_child(&input, &confined)
            }
            Ok(pid) => pid,
            Err(_) => sys::exit_now(i32::from(super::channel::FAILED_EXIT)),
        };
        if writeln!(reports, "started {pid}").is_err() {
            sys::exit_now(i32::from(super::channel::FAILED_EXIT));
        }
        let ended = match sys::wait_for(pid, false) {
            Some((_, w)) => format!("ended {pid} {} {}", w.status, w.cpu_ms),
            None => format!("ended {pid} {} 0", libc::SIGKILL),
        };
        if writeln!(reports, "{ended}").is_err() {
            sys::exit_now(i32::from(super::channel::FAILED_EXIT));
        }
        drop((line, input));
    }
}

/// Applies the confinement shared by every test; a safeguard that cannot
/// be applied ends the zygote with a `worker_failed` on the protocol fd
/// (which the first test then reports), before any student code ran.
fn confine(key: &ZygoteKey, view: Option<&View>) -> Confined {
    let plan = &key.plan;
    let parent = confine_start(plan);
    if plan.seccomp {
        if let Err(err) = sys::install_sigsys_handler() {
            super::channel::safeguard_failed("install the SIGSYS handler", err);
        }
    }
    let code = key.code.clone();
    // Opened while still privileged (see `run_library`).
    let file = match std::fs::File::open(&code) {
        Ok(file) => file,
        Err(err) => {
            super::channel::send(&WorkerMessage::Loading);
            super::channel::fail(WorkerMessage::LoadError {
                message: format!("cannot open `{}`: {err}", code.display()),
                refusal: None,
                module_line: None,
                missing_module: None,
            });
            sys::exit_now(i32::from(super::channel::FAILED_EXIT));
        }
    };
    let landlock_note = if plan.landlock {
        super::confine::landlock_note(view)
    } else {
        None
    };
    super::confine::drop_to_box_user(plan, parent);
    let load_path = super::test_child::loadable_path(&code, &file);
    let file = (load_path != code).then_some(file);
    let tighten = if plan.seccomp {
        Some(install_zygote_filters())
    } else {
        None
    };
    let functions = crash::Functions::read_path_for_good(&load_path);
    Confined {
        load_path,
        code,
        landlock_note,
        tighten,
        seccomp: plan.seccomp,
        functions,
        file,
    }
}

/// What both zygotes do first: die with init, the rlimits but CPU, the
/// limit signals at their defaults. Returns init's pid.
fn confine_start(plan: &crate::protocol::SandboxPlan) -> libc::pid_t {
    let parent = sys::parent_pid();
    if let Err(err) = sys::die_with_parent(parent) {
        super::channel::safeguard_failed("ask to die with the grader", err);
    }
    super::confine::set_limits(None, plan);
    if let Err(err) = sys::default_signals() {
        super::channel::safeguard_failed("reset the limit signals", err);
    }
    parent
}

/// Builds and installs K_z, E and A_z; returns T, built for the children.
fn install_zygote_filters() -> seccompiler::BpfProgram {
    let built = seccomp::zygote_kill_filter().and_then(|k| {
        Ok((
            k,
            seccomp::clone3_filter()?,
            seccomp::zygote_allow_filter()?,
            seccomp::tighten_filter()?,
        ))
    });
    let (kill, clone3, allow, tighten) = match built {
        Ok(filters) => filters,
        Err(err) => super::channel::safeguard_failed("build the seccomp filters", err),
    };
    if let Err(err) = sys::no_new_privs() {
        super::channel::safeguard_failed("set no_new_privs", err);
    }
    for filter in [&kill, &clone3, &allow] {
        if let Err(err) = seccomp::apply(filter) {
            super::channel::safeguard_failed("install the zygote's filters", err);
        }
    }
    tighten
}

/// One test in a fresh child of the zygote: its own CPU limit and filter,
/// then the library, then T, then the answer.
fn test_child(input: &WorkerInput, confined: &Confined) -> ! {
    let request = &input.request;
    super::confine::set_cpu_limit(request.limits.time_limit_ms);
    if confined.seccomp {
        let own = seccomp::test_child_filter(sys::pid());
        match own
            .map_err(|e| e.to_string())
            .and_then(|f| seccomp::apply(&f).map_err(|e| e.to_string()))
        {
            Ok(()) => {}
            Err(err) => super::channel::safeguard_failed("install the test's own filter", err),
        }
    }
    if let Some(message) = &confined.landlock_note {
        super::channel::send(&WorkerMessage::SandboxNote {
            message: message.clone(),
        });
    }
    if request.code != confined.code {
        super::channel::safeguard_failed(
            "load the test's library",
            "the test zygote holds another library",
        );
    }
    crash::install();
    super::channel::send(&WorkerMessage::Loading);
    let library = match library::CLibrary::load(&confined.load_path, &request.code) {
        Ok(library) => library,
        Err(failed) => {
            super::channel::fail(failed.into_message());
            sys::exit_now(i32::from(super::channel::FAILED_EXIT));
        }
    };
    crash::arm(&confined.load_path, confined.functions);
    super::channel::send(&WorkerMessage::Loaded);
    super::test_child::stand_in_legal(&library, request, &confined.load_path);
    if let Some(file) = &confined.file {
        use std::os::fd::AsRawFd;
        sys::close(file.as_raw_fd());
    }
    if let Some(tighten) = &confined.tighten {
        // On every thread: the constructor may have started some.
        if let Err(err) = seccomp::apply_all_threads(tighten) {
            super::channel::safeguard_failed("install the tightening filter", err);
        }
    }
    super::test_child::answer(&library, request)
}

/// A line the zygote sent to init.
#[derive(Debug, PartialEq)]
pub(super) enum Report {
    /// A test child was forked.
    Started(libc::pid_t),
    /// It ended: wait status and CPU time.
    Ended(libc::pid_t, sys::Waited),
}

/// Reads one report line; `None` at the end of the pipe or on a line that
/// is not one (the zygote is gone or broken: init starts another).
pub(super) fn read_report<R: BufRead>(reports: &mut R) -> Option<Report> {
    let mut line = String::new();
    Read::by_ref(reports).take(256).read_line(&mut line).ok()?;
    parse_report(line.trim_end())
}

/// Parses a report line.
fn parse_report(line: &str) -> Option<Report> {
    let mut words = line.split(' ');
    let kind = words.next()?;
    let pid: libc::pid_t = words.next()?.parse().ok()?;
    let report = match kind {
        "started" => Report::Started(pid),
        "ended" => Report::Ended(
            pid,
            sys::Waited {
                status: words.next()?.parse().ok()?,
                cpu_ms: words.next()?.parse().ok()?,
            },
        ),
        _ => return None,
    };
    words.next().is_none().then_some(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lines_round_trip_and_junk_is_refused() {
        assert_eq!(parse_report("started 42"), Some(Report::Started(42)));
        match parse_report("ended 42 9 1500") {
            Some(Report::Ended(42, w)) => assert_eq!((w.status, w.cpu_ms), (9, 1500)),
            other => panic!("{other:?}"),
        }
        for junk in [
            "",
            "started",
            "started x",
            "ended 1 2",
            "ended 1 2 3 4",
            "hello 1",
        ] {
            assert_eq!(parse_report(junk), None, "{junk:?}");
        }
    }
}
