//! Python submissions: finding the machine's `python3` (grader side, once,
//! before any student code runs) and, in the box, handing the tests to the
//! embedded harness (`python_harness.py`) and `execve`-ing the interpreter
//! in place of loading a library: once per submission for the Python test
//! zygote (`exec_zygote`, after `test_zygote.rs` confined the process;
//! init reads each test's source and sends it as a `zygote_line`, and the
//! harness forks a child per test), or once per test in a test child of its
//! own where the interpreter cannot be a zygote.
//!
//! A test child's order: [`prepare`] while still privileged (read the
//! student's source, put the harness's request in a memfd); then the
//! caller's safeguards (rlimits, Landlock on the box's Python test view:
//! read the system libraries and the interpreter's `sys.path` folders,
//! execute only the interpreter and its loader; the uid drop); then
//! [`PreparedPython::exec`], which
//! installs the Python seccomp filters (`seccomp::python_filters`:
//! `execve` allowed once, for this very call) and replaces the process with
//! `python3 -I -S -B -c <harness>`. The harness speaks the same protocol on
//! fd 3 as a library's test child, plus `trace` and `exception` messages.

use std::ffi::CString;
use std::fs::File;
use std::io::{Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::check::Probe;
use crate::check::trace::TRACE_CAP;
use crate::protocol::{PythonInterpreter, WorkerInput};

/// The harness the interpreter runs: reads the request on stdin, compiles
/// the student's source, asks the probe's questions, traces `solve`.
pub const HARNESS: &str = include_str!("python_harness.py");

/// The largest student source the test child hands to Python.
pub const MAX_SOURCE_BYTES: u64 = 1 << 20;

/// Where the grader looks for `python3`, in order: the `PATH`, then the
/// usual system places (an interpreter every user can reach is preferred,
/// since the sandbox runs tests as an unprivileged user).
const CANDIDATES: &[&str] = &["python3", "/usr/bin/python3", "/usr/local/bin/python3"];

/// Run by each candidate (`-I -S`, no student input): where it lives and
/// what it reads (the folders on its `sys.path`: the standard library and
/// `lib-dynload`, never its whole prefix), as JSON. The ELF loader is read from the binary's
/// `PT_INTERP` header, because the kernel opens it for execution too.
const PROBE_SCRIPT: &str = r#"
import json, os, struct, sys
exe = os.path.realpath(sys.executable)
dirs = []
for d in sys.path:
    if d and os.path.isdir(d):
        d = os.path.realpath(d)
        if d not in dirs:
            dirs.append(d)
loader = None
with open(exe, "rb") as f:
    data = f.read(1 << 16)
if data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1:
    phoff = struct.unpack_from("<Q", data, 32)[0]
    size, count = struct.unpack_from("<HH", data, 54)
    for i in range(count):
        at = phoff + i * size
        if at + 40 <= len(data) and struct.unpack_from("<I", data, at)[0] == 3:
            offset, _, _, length = struct.unpack_from("<QQQQ", data, at + 8)
            loader = os.path.realpath(data[offset:offset + length].rstrip(b"\0").decode())
print(json.dumps({"executable": exe, "loader": loader, "read_dirs": dirs,
                  "version": sys.version.split()[0], "world_reachable": False}))
"#;

/// The machine's `python3`, found once per grader process (see
/// [`find_interpreter`]).
///
/// # Errors
/// When no `python3` runs: a fault of the grading machine, never the
/// student's.
pub fn interpreter() -> Result<&'static PythonInterpreter, &'static str> {
    static FOUND: OnceLock<Result<PythonInterpreter, String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let mut found = find_interpreter()?;
            MODULES_ASKED.store(ALLOWED.get().is_some(), std::sync::atomic::Ordering::SeqCst);
            let allowed = ALLOWED.get().map_or(&[][..], Vec::as_slice);
            add_modules(&mut found, allowed)?;
            Ok(found)
        })
        .as_ref()
        .map_err(String::as_str)
}

/// The modules beyond the standard library the cases allow, set once by
/// [`allow_modules`] before the interpreter is first asked for.
static ALLOWED: OnceLock<Vec<String>> = OnceLock::new();

/// Allows Python submissions to import `names` (`grader.toml`'s
/// `python_modules`), each as the grading host's `python3` finds it;
/// called once, before anything asks for [`interpreter`], which then
/// carries them.
///
/// # Errors
/// When a module is not installed for that interpreter (what to install
/// is said), or the interpreter was found before the modules were set (a
/// grader bug).
pub fn allow_modules(names: &[String]) -> Result<(), String> {
    if names.is_empty() {
        return Ok(());
    }
    if ALLOWED.get_or_init(|| names.to_vec()) != names {
        return Err("python_modules differ between two case sets of one run".to_string());
    }
    interpreter().map_err(str::to_string)?;
    if !MODULES_ASKED.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(
            "python3 was found before grader.toml's python_modules were read (a grader bug): \
             the modules would be missing from the box"
                .to_string(),
        );
    }
    Ok(())
}

/// Whether [`interpreter`] was found with [`ALLOWED`] already set.
static MODULES_ASKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Run by the interpreter (`-I`: with its site folders, without the
/// environment's), with the module names as arguments: where each is
/// imported from, never importing it. A module of the standard library
/// is `"stdlib"`; one that is not there, `null`.
const FIND_MODULES_SCRIPT: &str = r#"
import importlib.util, json, sys
found = {}
for name in sys.argv[1:]:
    if name in sys.stdlib_module_names or name in sys.builtin_module_names:
        found[name] = "stdlib"
        continue
    spec = importlib.util.find_spec(name)
    found[name] = spec.origin if spec is not None and spec.origin else None
print(json.dumps(found))
"#;

/// Adds `names` to `interpreter`'s modules: where each is imported from,
/// and its folder (a package's) or file to what the box reads.
fn add_modules(interpreter: &mut PythonInterpreter, names: &[String]) -> Result<(), String> {
    if names.is_empty() {
        return Ok(());
    }
    let exe = interpreter.executable.display().to_string();
    let output = Command::new(&interpreter.executable)
        .args(["-I", "-c", FIND_MODULES_SCRIPT])
        .args(names)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|err| format!("cannot run {exe} to find the modules grader.toml allows: {err}"))?;
    let found: std::collections::BTreeMap<String, Option<String>> =
        serde_json::from_slice(&output.stdout).map_err(|err| {
            format!(
                "{exe} did not say where the modules grader.toml allows are ({err}): {}",
                String::from_utf8_lossy(&output.stderr).trim()
            )
        })?;
    for name in names {
        let origin = match found.get(name) {
            Some(Some(origin)) if origin == "stdlib" => continue,
            Some(Some(origin)) => PathBuf::from(origin),
            _ => {
                return Err(format!(
                    "grader.toml allows the Python module `{name}` (python_modules), but {exe} \
                     has no module `{name}`: install it for that interpreter (Debian and Ubuntu: \
                     apt-get install python3-{name}; else {exe} -m pip install {name}), or take it \
                     out of python_modules"
                ));
            }
        };
        let origin = origin.canonicalize().unwrap_or(origin);
        let read = if origin.file_name().is_some_and(|f| f == "__init__.py") {
            origin.parent().map(Path::to_path_buf)
        } else {
            Some(origin.clone())
        };
        interpreter.read_dirs.extend(read);
        interpreter.modules.insert(name.clone(), origin);
    }
    Ok(())
}

/// Finds the machine's `python3` by running each candidate (`python3` on
/// the `PATH`, `/usr/bin/python3`, `/usr/local/bin/python3`) with `-I -S`
/// and a fixed script: the first one every user can reach (the sandbox
/// user must), else the first that runs at all (enough when the grader
/// does not drop privileges).
///
/// # Errors
/// When none runs: the message says what to install.
pub fn find_interpreter() -> Result<PythonInterpreter, String> {
    let mut found: Vec<PythonInterpreter> = Vec::new();
    let mut problems = Vec::new();
    for candidate in CANDIDATES {
        match probe(candidate) {
            Ok(mut interpreter) => {
                interpreter.world_reachable = reachable_by_all(&interpreter.executable)
                    && interpreter.read_dirs.iter().all(|d| reachable_by_all(d));
                if interpreter.world_reachable {
                    return Ok(interpreter);
                }
                found.push(interpreter);
            }
            Err(problem) => problems.push(format!("`{candidate}`: {problem}")),
        }
    }
    found.into_iter().next().ok_or_else(|| {
        format!(
            "no python3 runs on this machine ({}): install Python 3 to grade Python submissions",
            problems.join("; ")
        )
    })
}

/// Runs one candidate interpreter with [`PROBE_SCRIPT`].
fn probe(candidate: &str) -> Result<PythonInterpreter, String> {
    let output = Command::new(candidate)
        .args(["-I", "-S", "-c", PROBE_SCRIPT])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|err| err.to_string())?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "{}: {}",
            output.status,
            stderr.lines().last().unwrap_or("").trim()
        ));
    }
    serde_json::from_slice(&output.stdout).map_err(|err| format!("unexpected answer: {err}"))
}

/// Whether every user can reach `path`: each folder on the way searchable
/// by others, and `path` itself readable (and searchable, for a folder) or
/// executable (for a file).
fn reachable_by_all(path: &Path) -> bool {
    let mode = |p: &Path| std::fs::metadata(p).map(|m| (m.is_dir(), m.permissions().mode()));
    let Ok((is_dir, own)) = mode(path) else {
        return false;
    };
    let own_ok = if is_dir {
        own & 0o005 == 0o005
    } else {
        own & 0o001 != 0
    };
    own_ok
        && path
            .ancestors()
            .skip(1)
            .all(|dir| mode(dir).is_ok_and(|(_, m)| m & 0o001 != 0))
}

/// What the harness reads on stdin.
#[derive(serde::Serialize)]
struct HarnessRequest<'a> {
    /// The submission's file name, shown in Python's messages.
    name: &'a str,
    /// The student's source.
    source: &'a str,
    /// The questions.
    probe: &'a Probe,
    /// Whether to trace `solve`'s writes.
    trace: bool,
    /// The most writes to record.
    trace_cap: usize,
    /// Run `solve` with the grader's `legal` as the module's global
    /// `legal` (`WorkerRequest::reference_legal`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    reference_legal: bool,
    /// Stop `solve` when it nests too deep (`WorkerRequest::deep_stop`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    deep_stop: bool,
    /// The test's CPU rlimit in seconds (soft; hard is one more), for a
    /// child of the test zygote, which sets its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_limit_s: Option<u64>,
}

/// The harness's stdin for a test: the student's `source` (shown as
/// `name`), the probe, and whether to trace. Public for the bench, which
/// runs the harness directly.
///
/// # Errors
/// Never in practice (the request is plain data).
pub fn harness_input(
    name: &str,
    source: &str,
    probe: &Probe,
    trace: bool,
) -> serde_json::Result<Vec<u8>> {
    serde_json::to_vec(&HarnessRequest {
        name,
        source,
        probe,
        trace,
        trace_cap: TRACE_CAP,
        reference_legal: false,
        deep_stop: false,
        cpu_limit_s: None,
    })
}

/// The student's source of `input` as UTF-8 text, and its file name.
fn student_source(input: &WorkerInput) -> Result<(String, String), PrepareError> {
    let request = &input.request;
    let name = request
        .code
        .file_name()
        .map_or_else(|| "submission.py".into(), |n| n.to_string_lossy())
        .into_owned();
    let bytes = read_source(&request.code).map_err(PrepareError::Student)?;
    let source = String::from_utf8(bytes).map_err(|err| {
        PrepareError::Student(format!(
            "{name} is not UTF-8 text (byte {} is not): save it as UTF-8",
            err.utf8_error().valid_up_to()
        ))
    })?;
    Ok((name, source))
}

/// One test's line to the Python test zygote (read while privileged, by
/// the box's init): the harness's request with the test's CPU limit.
///
/// # Errors
/// As [`prepare`].
pub(super) fn zygote_line(input: &WorkerInput) -> Result<Vec<u8>, PrepareError> {
    let (name, source) = student_source(input)?;
    let request = &input.request;
    let mut line = serde_json::to_vec(&HarnessRequest {
        name: &name,
        source: &source,
        probe: &request.probe,
        trace: true,
        trace_cap: TRACE_CAP,
        reference_legal: request.reference_legal,
        deep_stop: request.deep_stop,
        cpu_limit_s: Some(request.limits.time_limit_ms.div_ceil(1000).max(1)),
    })
    .map_err(|err| PrepareError::Grader(format!("cannot encode the harness request: {err}")))?;
    line.push(b'\n');
    Ok(line)
}

/// The Python test zygote's first line: the two filters each child adds
/// (its own kill rules, with [`super::seccomp::SENTINEL_PID`] where its pid
/// goes, and the tightening filter), as hex; empty without seccomp.
///
/// # Errors
/// When seccompiler refuses the rules.
pub(super) fn zygote_hello(seccomp: bool) -> Result<Vec<u8>, String> {
    let (kill, tighten) = if seccomp {
        let kill = super::seccomp::test_child_filter(super::seccomp::SENTINEL_PID)
            .map_err(|e| e.to_string())?;
        let tighten = super::seccomp::python_tighten_filter().map_err(|e| e.to_string())?;
        (
            super::seccomp::program_bytes(&kill),
            super::seccomp::program_bytes(&tighten),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let mut line = serde_json::to_vec(&serde_json::json!({
        "kill": hex(&kill),
        "tighten": hex(&tighten),
        "sentinel": super::seccomp::SENTINEL_PID,
    }))
    .map_err(|e| e.to_string())?;
    line.push(b'\n');
    Ok(line)
}

/// Replaces this process (the Python test zygote, confined by its caller
/// but for seccomp) with `interpreter` running the harness as a zygote,
/// under the zygote's Python filters when `seccomp`. Returns only on
/// failure, with what failed.
pub(super) fn exec_zygote(interpreter: &PythonInterpreter, seccomp: bool) -> String {
    let argv = match interpreter_argv(interpreter, &["zygote"]) {
        Ok(argv) => argv,
        Err(PrepareError::Grader(message) | PrepareError::Student(message)) => return message,
    };
    exec_interpreter(&argv, interpreter, seccomp, |path| {
        super::seccomp::python_zygote_filters(path)
    })
}

/// `python3 -I -S -B -c <harness> [extra…]`.
fn interpreter_argv(
    interpreter: &PythonInterpreter,
    extra: &[&str],
) -> Result<Vec<CString>, PrepareError> {
    let executable = CString::new(interpreter.executable.as_os_str().as_bytes())
        .map_err(|_| PrepareError::Grader("the interpreter's path holds a NUL byte".into()))?;
    let harness = CString::new(HARNESS)
        .map_err(|_| PrepareError::Grader("the harness holds a NUL byte".into()))?;
    let mut argv = vec![executable];
    argv.extend(["-I", "-S", "-B", "-c"].map(|a| CString::new(a).expect("no NUL")));
    argv.push(harness);
    for arg in extra {
        argv.push(CString::new(*arg).expect("no NUL"));
    }
    if !interpreter.modules.is_empty() {
        // The allowed modules, for the harness's finder: `--modules=` and
        // their names and files as JSON (the grader's own data).
        let modules = serde_json::to_string(&interpreter.modules).map_err(|err| {
            PrepareError::Grader(format!("cannot encode the allowed modules: {err}"))
        })?;
        argv.push(
            CString::new(format!("--modules={modules}"))
                .map_err(|_| PrepareError::Grader("a module's path holds a NUL byte".into()))?,
        );
    }
    Ok(argv)
}

/// Installs the filters `filters` builds (given the address of the
/// interpreter's path, the one `execve` they allow) when `seccomp`, then
/// `execve`s `argv` with an empty environment. Returns only on failure.
fn exec_interpreter(
    argv: &[CString],
    interpreter: &PythonInterpreter,
    seccomp: bool,
    filters: impl FnOnce(u64) -> Result<Vec<seccompiler::BpfProgram>, super::seccomp::FilterError>,
) -> String {
    let executable = &argv[0];
    let mut pointers: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    pointers.push(std::ptr::null());
    let envp: [*const libc::c_char; 1] = [std::ptr::null()];
    if seccomp {
        let filters = match filters(executable.as_ptr() as u64) {
            Ok(filters) => filters,
            Err(err) => return format!("build the Python seccomp filters: {err}"),
        };
        if let Err(err) = super::sys::no_new_privs() {
            return format!("set no_new_privs: {err}");
        }
        for filter in &filters {
            if let Err(err) = super::seccomp::apply(filter) {
                return format!("install the Python seccomp filters: {err}");
            }
        }
    }
    // SAFETY: `executable` and every `argv` entry are NUL-terminated
    // strings owned by the caller, alive across the call; both arrays end
    // with a null pointer. On success the call does not return.
    unsafe { libc::execve(executable.as_ptr(), pointers.as_ptr(), envp.as_ptr()) };
    format!(
        "start {}: {}",
        interpreter.executable.display(),
        std::io::Error::last_os_error()
    )
}

/// Why a Python test could not be prepared.
#[derive(Debug)]
pub enum PrepareError {
    /// The student's file cannot be used: the `error` verdict.
    Student(String),
    /// The grader's side failed (no interpreter in the request, no memfd).
    Grader(String),
}

/// A Python test ready to run: the request in a memfd and the interpreter's
/// command line, built while the test child was still privileged.
pub struct PreparedPython {
    request: File,
    argv: Vec<CString>,
    interpreter: PythonInterpreter,
}

/// Reads the student's source (while the test child may still read anything)
/// and puts the harness's request into a memfd.
///
/// # Errors
/// [`PrepareError::Student`] for an unreadable, too large or non-UTF-8
/// source; [`PrepareError::Grader`] otherwise.
pub fn prepare(input: &WorkerInput) -> Result<PreparedPython, PrepareError> {
    let request = &input.request;
    let interpreter = request.python.clone().ok_or_else(|| {
        PrepareError::Grader("the request names no Python interpreter".to_string())
    })?;
    let (name, source) = student_source(input)?;
    let json = serde_json::to_vec(&HarnessRequest {
        name: &name,
        source: &source,
        probe: &request.probe,
        trace: true,
        trace_cap: TRACE_CAP,
        reference_legal: request.reference_legal,
        deep_stop: request.deep_stop,
        cpu_limit_s: None,
    })
    .map_err(|err| PrepareError::Grader(format!("cannot encode the harness request: {err}")))?;
    let memfd = memfd(&json)
        .map_err(|err| PrepareError::Grader(format!("cannot hand the request to Python: {err}")))?;
    let argv = interpreter_argv(&interpreter, &[])?;
    Ok(PreparedPython {
        request: memfd,
        argv,
        interpreter,
    })
}

/// The student's source, at most [`MAX_SOURCE_BYTES`].
fn read_source(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let shown = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let file = File::open(path).map_err(|err| format!("cannot open {shown}: {err}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read {shown}: {err}"))?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(format!(
            "{shown} is larger than {} KiB: a solver is a few dozen lines",
            MAX_SOURCE_BYTES >> 10
        ));
    }
    Ok(bytes)
}

/// A memfd holding `bytes`, positioned at the start.
fn memfd(bytes: &[u8]) -> std::io::Result<File> {
    // SAFETY: the name is a NUL-terminated literal; the flags are valid.
    let fd = unsafe { libc::memfd_create(c"grader-request".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just created and is owned by nothing else.
    let mut file = unsafe { File::from_raw_fd(fd) };
    file.write_all(bytes)?;
    file.rewind()?;
    Ok(file)
}

impl PreparedPython {
    /// The interpreter this test runs.
    pub fn interpreter(&self) -> &PythonInterpreter {
        &self.interpreter
    }

    /// Installs the Python seccomp filters when `seccomp` (they allow this
    /// one `execve` and nothing like it after), puts the request on stdin
    /// and replaces this process with the interpreter running the harness.
    /// Returns only on failure, with what failed: the caller reports it as
    /// the grader's fault (no student code has run).
    pub fn exec(self, own_pid: i32, seccomp: bool) -> String {
        // SAFETY: both fds are open; dup2 onto 0 replaces stdin (`/dev/null`,
        // from init) and clears close-on-exec on it.
        // Done before the filters, which refuse dup2 for Python.
        if unsafe { libc::dup2(self.request.as_raw_fd(), 0) } < 0 {
            return format!(
                "put the request on stdin: {}",
                std::io::Error::last_os_error()
            );
        }
        exec_interpreter(&self.argv, &self.interpreter, seccomp, |path| {
            super::seccomp::python_filters(own_pid, path)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_python3_with_its_folders() {
        let found = find_interpreter().expect("CI has a python3");
        assert!(found.executable.is_absolute(), "{found:?}");
        assert!(found.version.starts_with("3."), "{found:?}");
        assert!(
            found.read_dirs.iter().any(|d| d.join("os.py").exists()),
            "the standard library is among the folders: {found:?}"
        );
    }

    #[test]
    fn reachability_follows_the_folders_on_the_way() {
        let dir = tempfile::tempdir().expect("temp dir");
        let inner = dir.path().join("inner");
        std::fs::create_dir(&inner).expect("mkdir");
        let file = inner.join("python3");
        std::fs::write(&file, "").expect("write");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let open = dir
            .path()
            .ancestors()
            .all(|d| std::fs::metadata(d).is_ok_and(|m| m.permissions().mode() & 0o001 != 0));
        assert_eq!(reachable_by_all(&file), open);
        std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        assert!(!reachable_by_all(&file));
        assert!(!reachable_by_all(&dir.path().join("missing")));
    }
}
