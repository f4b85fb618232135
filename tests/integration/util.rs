//! Helpers shared by the integration tests: the repository's folders, the
//! real `grader` binary, output as text, and two small builders (after
//! ripgrep's `Dir`/`TestCommand` and just's `Test`): [`Dir`], a temporary
//! folder laid out as a course has it (cases, submissions, files), and
//! [`Grader`], one run of the binary in it, with the checks every test
//! makes of a run (it ended by itself, with the expected exit code, and
//! what it printed is shown when it did not) and, for `grade`, the JSON
//! report it wrote ([`Graded`]). Every module runs the binary through
//! [`Grader`].

use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The `grader` binary cargo built for these tests.
pub(crate) fn grader_exe() -> &'static str {
    env!("CARGO_BIN_EXE_grader")
}

/// A command running the `grader` binary, to be given arguments.
pub(crate) fn grader() -> Command {
    Command::new(grader_exe())
}

/// The repository root (where `cases/`, `submissions/` and `data/` are).
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The puzzle set `name` of the repository's `data/` folder.
pub(crate) fn data(name: &str) -> PathBuf {
    root().join("data").join(name)
}

/// The fixture submission `name` of the repository's `submissions/`.
pub(crate) fn fixture(name: &str) -> PathBuf {
    root().join("submissions").join(name)
}

/// Output bytes as text, invalid UTF-8 replaced.
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What a run printed, stdout then stderr, as text.
pub(crate) fn printed(output: &Output) -> String {
    format!("{}{}", text(&output.stdout), text(&output.stderr))
}

/// A run's exit code, or -1 when a signal ended it.
pub(crate) fn code(output: &Output) -> i32 {
    output.status.code().unwrap_or(-1)
}

/// The JSON document in `path`.
pub(crate) fn json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// A JSON report without what differs from run to run: times, wall
/// times and the `run` section.
pub(crate) fn timeless(mut report: Value) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.retain(|k, _| !k.contains("time") && k != "wall_ms" && k != "run");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut report);
    report
}

/// Copies `from` (a file or a folder) to `to`, without `target/` and
/// `Cargo.lock` (what a build leaves in a fixture crate).
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    if from.is_file() {
        fs::copy(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
        return;
    }
    fs::create_dir_all(to).unwrap_or_else(|e| panic!("mkdir {}: {e}", to.display()));
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display())) {
        let entry = entry.expect("a folder entry");
        let name = entry.file_name();
        if name == "target" || name == "Cargo.lock" {
            continue;
        }
        copy_tree(&entry.path(), &to.join(&name));
    }
}

/// Runs `grader ARGS` in `dir` and waits for it.
pub(crate) fn run_in(dir: &Path, args: &[&str]) -> Output {
    Grader::new().args(args).current_dir(dir).output()
}

/// Runs `grader ARGS` in `dir` with `stdin` piped in, and waits for it.
pub(crate) fn run_with_stdin(dir: &Path, args: &[&str], stdin: &str) -> Output {
    Grader::new()
        .args(args)
        .current_dir(dir)
        .stdin(stdin)
        .output()
}

/// A temporary folder, removed when dropped, laid out by its builder
/// methods as a course lays out a term: `cases/` with bundled case files,
/// `submissions/` with fixtures under the students' names, any other file.
pub(crate) struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    /// An empty folder.
    pub(crate) fn new() -> Dir {
        Dir {
            dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `rel` inside the folder.
    pub(crate) fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `contents` to `rel`, making its folders.
    pub(crate) fn create(self, rel: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Dir {
        let path = self.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("make the file's folder");
        }
        fs::write(&path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        self
    }

    /// Copies the bundled case files `files` (from the repository's
    /// `cases/`) into `cases/`.
    pub(crate) fn cases(self, files: &[&str]) -> Dir {
        let cases = self.join("cases");
        fs::create_dir_all(&cases).expect("make cases/");
        for file in files {
            copy_tree(&root().join("cases").join(file), &cases.join(file));
        }
        self
    }

    /// Copies the fixture submission `fixture` into `submissions/` as the
    /// student `id`: a file keeps its extension (`ada` + `c-listing.c` is
    /// `submissions/ada.c`), a folder is copied whole as `submissions/id/`.
    pub(crate) fn submission(self, id: &str, fixture_name: &str) -> Dir {
        let from = fixture(fixture_name);
        let subs = self.join("submissions");
        fs::create_dir_all(&subs).expect("make submissions/");
        let to = match from.extension().and_then(OsStr::to_str) {
            Some(ext) if from.is_file() => subs.join(format!("{id}.{ext}")),
            _ => subs.join(id),
        };
        copy_tree(&from, &to);
        self
    }

    /// A run of `grader` in this folder.
    pub(crate) fn grader(&self) -> Grader {
        Grader::new().current_dir(self.path())
    }
}

/// One run of the real `grader` binary, built up argument by argument;
/// [`Grader::output`] runs it, [`Grader::expect`] also checks its exit
/// code.
pub(crate) struct Grader {
    command: Command,
    args: Vec<String>,
    stdin: Option<Vec<u8>>,
}

impl Grader {
    /// `grader` with no arguments yet, in the current folder.
    pub(crate) fn new() -> Grader {
        Grader {
            command: grader(),
            args: Vec::new(),
            stdin: None,
        }
    }

    /// Another build of `grader` (`exe`), with no arguments yet.
    pub(crate) fn of(exe: impl AsRef<OsStr>) -> Grader {
        Grader {
            command: Command::new(exe),
            args: Vec::new(),
            stdin: None,
        }
    }

    /// Adds one argument.
    pub(crate) fn arg(mut self, arg: impl AsRef<OsStr>) -> Grader {
        self.args.push(arg.as_ref().to_string_lossy().into_owned());
        self.command.arg(arg);
        self
    }

    /// Adds arguments.
    pub(crate) fn args<I, A>(mut self, args: I) -> Grader
    where
        I: IntoIterator<Item = A>,
        A: AsRef<OsStr>,
    {
        for arg in args {
            self = self.arg(arg);
        }
        self
    }

    /// Runs in `dir`.
    pub(crate) fn current_dir(mut self, dir: impl AsRef<Path>) -> Grader {
        self.command.current_dir(dir);
        self
    }

    /// Sets the environment variable `key` for the run.
    pub(crate) fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Grader {
        self.command.env(key, value);
        self
    }

    /// The command as built, for a test that watches the process while it
    /// runs (spawn it, poll it); the checks of [`Grader::output`] are then
    /// the test's own.
    pub(crate) fn into_command(self) -> Command {
        self.command
    }

    /// Pipes `input` into stdin (else stdin is empty).
    pub(crate) fn stdin(mut self, input: impl AsRef<[u8]>) -> Grader {
        self.stdin = Some(input.as_ref().to_vec());
        self
    }

    /// Runs it and waits; a run that a signal ended fails the test, with
    /// what it printed.
    pub(crate) fn output(mut self) -> Output {
        let output = match self.stdin.take() {
            None => self.command.output().expect("start grader"),
            Some(input) => {
                let mut child = self
                    .command
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("start grader");
                let mut pipe = child.stdin.take().expect("stdin");
                pipe.write_all(&input).expect("write stdin");
                drop(pipe);
                child.wait_with_output().expect("run grader")
            }
        };
        assert!(
            output.status.code().is_some(),
            "grader {:?} was killed ({})\n{}",
            self.args,
            output.status,
            printed(&output)
        );
        output
    }

    /// Adds `--json PATH`, runs it and reads the report it wrote; a run
    /// that wrote none (or no JSON) fails the test, with what it printed.
    pub(crate) fn graded(self, path: impl AsRef<Path>) -> Graded {
        let path = path.as_ref();
        let output = self.arg("--json").arg(path).output();
        let report = fs::read(path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_else(|| {
                panic!(
                    "grader wrote no JSON report to {} (exit {})\n{}",
                    path.display(),
                    output.status,
                    printed(&output)
                )
            });
        Graded { output, report }
    }

    /// Runs it and checks that it exits with `expected`, showing what it
    /// printed when it does not.
    pub(crate) fn expect(self, expected: i32) -> Output {
        let args = self.args.clone();
        let output = self.output();
        assert_eq!(
            code(&output),
            expected,
            "grader {args:?} exited {} (expected {expected})\n{}",
            output.status,
            printed(&output)
        );
        output
    }
}

/// A `grader grade` run and the JSON report it wrote ([`Grader::graded`]).
pub(crate) struct Graded {
    /// What it printed, and how it ended.
    pub(crate) output: Output,
    /// The JSON report (SPEC 6).
    pub(crate) report: Value,
}

impl Graded {
    /// The exit code, or -1 when a signal ended it.
    pub(crate) fn code(&self) -> i32 {
        code(&self.output)
    }

    /// What it printed, stdout then stderr.
    pub(crate) fn printed(&self) -> String {
        printed(&self.output)
    }

    /// The report's submissions by id.
    pub(crate) fn by_id(&self) -> std::collections::BTreeMap<String, Value> {
        self.report["submissions"]
            .as_array()
            .unwrap_or_else(|| panic!("no submissions in the report\n{}", self.printed()))
            .iter()
            .map(|s| (s["id"].as_str().expect("an id").to_string(), s.clone()))
            .collect()
    }
}

pub(crate) use grader::testing::needs;

/// Whether the tests run as root (the effective uid, from `/proc`).
pub(crate) fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .map(|u| u.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// The `.rs` files below `dir`, sorted by path.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for entry in entries {
            let path = entry.path();
            if path.is_dir() {
                collect(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut files = Vec::new();
    collect(dir, &mut files);
    files
}
