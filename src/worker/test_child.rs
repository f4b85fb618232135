//! One test in a child of the box: confine the process per the request's
//! plan (`confine.rs`), load the student's code (a library through
//! `library.rs`, Python through `python.rs`), ask it the test's questions,
//! and report on the protocol fd (`channel.rs`). A child runs one test and
//! ends with `_exit`, so a crash, a timeout or leftover globals never reach
//! the next test.
//!
//! The order matters: everything that confines comes *before* the library
//! is loaded, because loading runs the library's own constructors: the
//! parent-death signal, rlimits, the SIGSYS handler, Landlock on the
//! test's view, the uid drop, the seccomp kill list, and the crash handler
//! (`crash.rs`, which only words a crash). Only then `dlopen`, then the
//! allow list, then the test.

use std::path::{Path, PathBuf};

use crate::protocol::{CodeKind, View, WorkerInput, WorkerMessage};

use super::channel::{FAILED_EXIT, fail, safeguard_failed, send};
use super::confine::{drop_to_box_user, enforce_landlock, install_kill_filters, set_limits};
use super::{crash, interpose, library, python, seccomp, sys};

/// Runs one test in a child of the box: confines it per `input.sandbox`
/// and `view` (its kind's view of the box, for Landlock), loads the code,
/// answers on the protocol fd, and ends the process.
pub(super) fn run_test_in_child(input: &WorkerInput, view: Option<&View>) -> ! {
    match input.request.kind {
        CodeKind::Library => run_library(input, view),
        CodeKind::Python => run_python(input, view),
    }
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
                missing_module: None,
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
pub(super) fn stand_in_legal(
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
pub(super) fn answer(library: &library::CLibrary, request: &crate::protocol::WorkerRequest) -> ! {
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
                missing_module: None,
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

/// The path to `dlopen`: the request's path if this (possibly unprivileged)
/// process can read it, else the file opened earlier, through
/// `/proc/self/fd`.
pub(super) fn loadable_path(path: &Path, opened: &std::fs::File) -> PathBuf {
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
