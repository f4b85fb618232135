//! Building a submission into something a worker can load (SPEC 5): a
//! shared library with the lab's C ABI, or a Python file.
//!
//! Each submission gets its own output folder under the build root, holding
//! nothing but the built file; folders are `0755` and the file `0644`, since
//! the worker drops to an unprivileged user before loading it.
//!
//! - **Rust**: the crate is copied into a work folder (the student's folder
//!   is never written to: no `Cargo.lock`, no `target/`), its manifest is
//!   adjusted — a `cdylib` with a library name unique to the student, the
//!   `sudoku-lab` dependency pointed at the grader's own copy, other
//!   relative path dependencies made absolute, an empty `[workspace]` —
//!   and built with `cargo build --release --offline --lib` in a cleared
//!   environment and a target folder shared by all submissions, so the lab
//!   crate compiles once (cargo's lock serialises builds that share it).
//! - **C**: `cc -O2 -shared -fPIC -std=c11 -pthread -I <lab/include>`.
//! - **Library** (`.so`) and **Python** (`.py`): copied as they are.
//!
//! Compilers run in their own process group and are killed as a group when
//! they pass the time limit. Their output becomes the failure message,
//! trimmed to the errors (see [`trim_compiler_output`]).
//!
//! Building is not sandboxed, so a Rust submission may not bring code that
//! runs at build time: a crate with a build script (`build.rs` or
//! `package.build`), a `proc-macro` library, or a `path`/`git` dependency
//! (which could carry either) other than `sudoku-lab` is refused with a
//! message saying why. Registry dependencies resolve only from the local
//! cache (`--offline`): published code, not the student's.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::submission::discover::{Submission, SubmissionKind};

/// Default time limit for building a Rust crate.
pub const RUST_TIME_LIMIT: Duration = Duration::from_secs(120);

/// Default time limit for compiling a C file.
pub const C_TIME_LIMIT: Duration = Duration::from_secs(30);

/// At most this many lines of compiler output reach the student.
pub const MAX_MESSAGE_LINES: usize = 40;

/// Environment variable naming the lab crate (the folder holding its
/// `Cargo.toml` and `include/`), when the grader runs away from its source
/// tree.
pub const LAB_DIR_ENV: &str = "GRADER_LAB_DIR";

/// Largest crate the grader copies, in bytes, and in files.
const MAX_CRATE_BYTES: u64 = 64 << 20;
const MAX_CRATE_FILES: usize = 10_000;

/// How much of a compiler's output is kept (the rest is counted, not kept).
const MAX_CAPTURE: usize = 1 << 20;

/// Where and how submissions are built.
#[derive(Clone, Debug)]
pub struct BuildContext {
    /// Root of all build products: `out/<slot>/` per submission (what the
    /// worker loads) and `work/<slot>/` (copies, temporaries).
    pub out_root: PathBuf,
    /// The cargo target folder shared by every Rust submission.
    pub cargo_target_dir: PathBuf,
    /// The lab crate, `sudoku-lab` (the folder with its `Cargo.toml`).
    pub lab_crate: PathBuf,
    /// The folder holding `sudoku_lab.h`, passed to `cc -I`.
    pub lab_include: PathBuf,
    /// The C compiler to run.
    pub cc: PathBuf,
    /// The cargo to run.
    pub cargo: PathBuf,
    /// Time limit for a Rust build.
    pub rust_time_limit: Duration,
    /// Time limit for a C build.
    pub c_time_limit: Duration,
    /// Keeps the temporary build root alive (and removes it when the last
    /// clone of the context is dropped).
    _root: Option<Arc<tempfile::TempDir>>,
}

/// Why a build context could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BuildSetupError {
    /// The temporary build folder could not be made.
    #[error("cannot create a temporary build folder: {0}")]
    TempDir(#[source] std::io::Error),
    /// The lab crate is not where it should be.
    #[error(
        "the lab crate is not at {}: set {LAB_DIR_ENV} to the folder holding sudoku-lab's Cargo.toml and include/",
        .0.display()
    )]
    NoLab(PathBuf),
}

impl BuildContext {
    /// A context building into a fresh temporary folder (removed when the
    /// context is dropped), with the lab crate from [`default_lab_dir`] and
    /// the default time limits.
    ///
    /// # Errors
    /// When the temporary folder cannot be made or the lab crate is missing.
    pub fn new() -> Result<BuildContext, BuildSetupError> {
        let root = tempfile::Builder::new()
            .prefix("grader-build-")
            .tempdir()
            .map_err(BuildSetupError::TempDir)?;
        // The worker runs as another user: it must be able to walk down to
        // the output folders.
        set_mode(root.path(), 0o755).map_err(BuildSetupError::TempDir)?;
        let lab = lab_crate_for_build(root.path()).map_err(BuildSetupError::TempDir)?;
        let mut ctx = BuildContext::in_dir(root.path(), &lab)?;
        ctx._root = Some(Arc::new(root));
        Ok(ctx)
    }

    /// A context building into `out_root` (which it does not remove), with
    /// the lab crate at `lab_crate`.
    ///
    /// # Errors
    /// When `lab_crate` holds no `Cargo.toml` or no `include/sudoku_lab.h`.
    pub fn in_dir(out_root: &Path, lab_crate: &Path) -> Result<BuildContext, BuildSetupError> {
        let lab_include = lab_crate.join("include");
        if !lab_crate.join("Cargo.toml").is_file() || !lab_include.join("sudoku_lab.h").is_file() {
            return Err(BuildSetupError::NoLab(lab_crate.to_path_buf()));
        }
        Ok(BuildContext {
            out_root: out_root.to_path_buf(),
            cargo_target_dir: out_root.join("cargo-target"),
            lab_crate: lab_crate.to_path_buf(),
            lab_include,
            cc: PathBuf::from("cc"),
            cargo: PathBuf::from("cargo"),
            rust_time_limit: RUST_TIME_LIMIT,
            c_time_limit: C_TIME_LIMIT,
            _root: None,
        })
    }
}

/// The lab crate: `$GRADER_LAB_DIR` if set, else `lab/` of the source tree
/// the grader was built from.
pub fn default_lab_dir() -> PathBuf {
    match std::env::var_os(LAB_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("lab"),
    }
}

/// The lab crate a build uses: `$GRADER_LAB_DIR` if set, else the copy
/// built into the binary ([`lab_kit`](super::lab_kit)), written into
/// `build_root/lab`, so a copied `grader` builds with no source checkout.
fn lab_crate_for_build(build_root: &Path) -> std::io::Result<PathBuf> {
    match std::env::var_os(LAB_DIR_ENV) {
        Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
        _ => {
            let lab = build_root.join("lab");
            super::lab_kit::write_lab_crate(&lab)?;
            Ok(lab)
        }
    }
}

/// A built submission, ready for a worker to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltCode {
    path: PathBuf,
}

impl BuiltCode {
    /// The shared library (or Python file) to load; alone in its folder,
    /// world-readable.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Why a submission did not build. Every variant but [`BuildFailure::Grader`]
/// is the student's to fix; the message says how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildFailure {
    /// The compiler refused the code; its trimmed output.
    #[error("{tool} failed:\n{output}")]
    Compile {
        /// `cc` or `cargo build`.
        tool: &'static str,
        /// The compiler's errors, trimmed.
        output: String,
    },
    /// The build ran past its time limit and was stopped.
    #[error("the build took longer than {} and was stopped{}", seconds(*.limit), tail(.output))]
    Timeout {
        /// The limit.
        limit: Duration,
        /// What the compiler had printed, trimmed.
        output: String,
    },
    /// The submission is not something that can be built (a bad
    /// `Cargo.toml`, no library produced).
    #[error("{0}")]
    Invalid(String),
    /// The grader could not run the build (not the student's fault).
    #[error("the grader could not build this submission (not your fault): {0}")]
    Grader(String),
}

impl BuildFailure {
    /// True unless the grader itself failed.
    pub fn is_student_fault(&self) -> bool {
        !matches!(self, BuildFailure::Grader(_))
    }
}

/// A duration for people: `120 s`, `0.3 s`.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

fn tail(output: &str) -> String {
    if output.is_empty() {
        String::new()
    } else {
        format!(":\n{output}")
    }
}

/// Builds `sub` as `kind` into its own output folder under `ctx.out_root`.
///
/// # Errors
/// A [`BuildFailure`] saying why, with the compiler's trimmed output.
pub fn build(
    sub: &Submission,
    kind: SubmissionKind,
    ctx: &BuildContext,
) -> Result<BuiltCode, BuildFailure> {
    let slot = slot_name(&sub.id);
    let out = make_unique_dir(&ctx.out_root.join("out"), &slot)?;
    let built = match kind {
        SubmissionKind::C => build_c(sub, ctx, &out, &slot)?,
        SubmissionKind::Rust => build_rust(sub, ctx, &out, &slot)?,
        SubmissionKind::Library => copy_into(&sub.path, &out.join("lib.so"))?,
        SubmissionKind::Python => {
            let name = sub.path.file_name().ok_or_else(|| {
                BuildFailure::Invalid(format!("{} is not a file", sub.path.display()))
            })?;
            copy_into(&sub.path, &out.join(name))?
        }
    };
    set_mode(&built, 0o644).map_err(|e| grader_io("make the build readable", &built, e))?;
    Ok(BuiltCode { path: built })
}

/// Compiles one C file into `out/lib.so`.
fn build_c(
    sub: &Submission,
    ctx: &BuildContext,
    out: &Path,
    slot: &str,
) -> Result<PathBuf, BuildFailure> {
    let work = make_unique_dir(&ctx.out_root.join("work"), slot)?;
    let lib = out.join("lib.so");
    let source_dir = sub.path.parent().unwrap_or(Path::new("."));
    let file = sub
        .path
        .file_name()
        .ok_or_else(|| BuildFailure::Invalid(format!("{} is not a file", sub.path.display())))?;
    let mut cmd = Command::new(&ctx.cc);
    cmd.args(["-O2", "-shared", "-fPIC", "-std=c11", "-pthread", "-I"])
        .arg(&ctx.lab_include)
        .arg("-o")
        .arg(&lib)
        .arg(file)
        // Run beside the source, so messages name it without a path and
        // `#include "local.h"` works.
        .current_dir(source_dir)
        .env_clear()
        .env("LC_ALL", "C")
        .env("TMPDIR", &work);
    if let Some(path) = std::env::var_os("PATH") {
        cmd.env("PATH", path);
    }
    let run = run_limited(cmd, ctx.c_time_limit, "cc")?;
    let strip = [out, work.as_path(), source_dir, ctx.lab_include.as_path()];
    if run.timed_out {
        return Err(BuildFailure::Timeout {
            limit: ctx.c_time_limit,
            output: trim_compiler_output(&run.output, &strip),
        });
    }
    if !run.success || !lib.is_file() {
        return Err(BuildFailure::Compile {
            tool: "cc",
            output: trim_compiler_output(&run.output, &strip),
        });
    }
    Ok(lib)
}

/// Builds a Rust crate from a copy, in the shared target folder, and copies
/// the library into `out`.
fn build_rust(
    sub: &Submission,
    ctx: &BuildContext,
    out: &Path,
    slot: &str,
) -> Result<PathBuf, BuildFailure> {
    let work = make_unique_dir(&ctx.out_root.join("work"), slot)?;
    let copy = work.join("crate");
    let manifest_text = std::fs::read_to_string(sub.path.join("Cargo.toml")).map_err(|e| {
        BuildFailure::Invalid(format!(
            "cannot read {}: {e}",
            sub.path.join("Cargo.toml").display()
        ))
    })?;
    let lib_name = format!("{slot}_{}", short_hash(&sub.id));
    let manifest = rewrite_manifest(&manifest_text, &sub.path, &ctx.lab_crate, &lib_name)?;
    let mut budget = CopyBudget {
        bytes: MAX_CRATE_BYTES,
        files: MAX_CRATE_FILES,
    };
    copy_crate(&sub.path, &copy, &mut budget)?;
    std::fs::write(copy.join("Cargo.toml"), manifest)
        .map_err(|e| grader_io("write the crate's manifest", &copy, e))?;

    let mut cmd = Command::new(&ctx.cargo);
    cmd.args([
        "build",
        "--release",
        "--offline",
        "--lib",
        "--message-format",
        "short",
        "--color",
        "never",
    ])
    .current_dir(&copy)
    .env_clear()
    .env("CARGO_TARGET_DIR", &ctx.cargo_target_dir)
    .env("TMPDIR", &work);
    for var in [
        "PATH",
        "HOME",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
    ] {
        if let Some(value) = std::env::var_os(var) {
            cmd.env(var, value);
        }
    }
    let run = run_limited(cmd, ctx.rust_time_limit, "cargo")?;
    let strip = [
        copy.as_path(),
        work.as_path(),
        ctx.cargo_target_dir.as_path(),
        sub.path.as_path(),
    ];
    let output = trim_compiler_output(&run.output, &strip);
    if run.timed_out {
        return Err(BuildFailure::Timeout {
            limit: ctx.rust_time_limit,
            output,
        });
    }
    if !run.success {
        return Err(BuildFailure::Compile {
            tool: "cargo build",
            output,
        });
    }
    let produced = ctx
        .cargo_target_dir
        .join("release")
        .join(format!("lib{lib_name}.so"));
    if !produced.is_file() {
        return Err(BuildFailure::Invalid(format!(
            "cargo built no library lib{lib_name}.so: the crate needs a src/lib.rs"
        )));
    }
    copy_into(&produced, &out.join("lib.so"))
}

/// The student's `Cargo.toml`, adjusted for building a copy of the crate
/// elsewhere: a `cdylib` named `lib_name`; `sudoku-lab` from `lab_crate`;
/// other relative path dependencies made absolute against `crate_dir`; an
/// empty `[workspace]` if there is none.
fn rewrite_manifest(
    text: &str,
    crate_dir: &Path,
    lab_crate: &Path,
    lib_name: &str,
) -> Result<String, BuildFailure> {
    use toml_edit::{Array, DocumentMut, Item, Table, value};
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        BuildFailure::Invalid(format!(
            "Cargo.toml is not valid TOML: {}",
            e.to_string().trim()
        ))
    })?;
    if !doc.contains_key("package") {
        return Err(BuildFailure::Invalid(
            "Cargo.toml has no [package]: the submission must be a library crate".to_string(),
        ));
    }
    refuse_build_time_code(&doc, crate_dir)?;
    let lib = doc
        .entry("lib")
        .or_insert(Item::Table(Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| BuildFailure::Invalid("[lib] in Cargo.toml is not a table".to_string()))?;
    lib.insert("name", value(lib_name));
    let mut types = Array::new();
    types.push("cdylib");
    lib.insert("crate-type", value(types));

    let mut tables: Vec<&mut dyn toml_edit::TableLike> = Vec::new();
    let mut targets = Vec::new();
    for (key, item) in doc.iter_mut() {
        match key.get() {
            "dependencies" | "dev-dependencies" | "build-dependencies" => {
                if let Some(t) = item.as_table_like_mut() {
                    tables.push(t);
                }
            }
            "target" => targets.push(item),
            _ => {}
        }
    }
    for target in targets {
        if let Some(t) = target.as_table_like_mut() {
            for (_, platform) in t.iter_mut() {
                if let Some(p) = platform.as_table_like_mut() {
                    for (key, deps) in p.iter_mut() {
                        let is_deps = matches!(
                            key.get(),
                            "dependencies" | "dev-dependencies" | "build-dependencies"
                        );
                        match deps.as_table_like_mut() {
                            Some(d) if is_deps => tables.push(d),
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    for deps in tables {
        for (name, dep) in deps.iter_mut() {
            let Some(dep) = dep.as_table_like_mut() else {
                continue;
            };
            let package = dep
                .get("package")
                .and_then(|p| p.as_str())
                .unwrap_or(name.get())
                .to_string();
            if package == "sudoku-lab" {
                dep.insert("path", value(lab_crate.to_string_lossy().as_ref()));
                dep.remove("version");
                dep.remove("git");
            } else if dep.contains_key("path") || dep.contains_key("git") {
                return Err(BuildFailure::Invalid(format!(
                    "the dependency `{}` comes from a path or git: the grader builds without a sandbox, so only `sudoku-lab` and crates.io crates are allowed; move that code into your crate",
                    name.get()
                )));
            }
        }
    }
    if !doc.contains_key("workspace") {
        doc.insert("workspace", Item::Table(Table::new()));
    }
    Ok(doc.to_string())
}

/// Refuses what would run the student's own code at build time, outside
/// the sandbox: a build script or a proc-macro library.
fn refuse_build_time_code(
    doc: &toml_edit::DocumentMut,
    crate_dir: &Path,
) -> Result<(), BuildFailure> {
    let build_key = doc
        .get("package")
        .and_then(|p| p.get("build"))
        .map(|b| b.as_bool() != Some(false));
    let has_build_script = match build_key {
        Some(declared) => declared,
        None => crate_dir.join("build.rs").is_file(),
    };
    if has_build_script {
        return Err(BuildFailure::Invalid(
            "the crate has a build script (build.rs): build scripts run outside the sandbox, so the grader refuses them; remove it".to_string(),
        ));
    }
    let proc_macro = doc
        .get("lib")
        .and_then(|l| l.get("proc-macro"))
        .and_then(|p| p.as_bool())
        == Some(true);
    if proc_macro {
        return Err(BuildFailure::Invalid(
            "the crate is a proc-macro library: submit a `cdylib` that exports the lab's functions instead".to_string(),
        ));
    }
    Ok(())
}

/// What is left of the size budget for copying a crate.
struct CopyBudget {
    bytes: u64,
    files: usize,
}

/// Copies a crate folder, leaving out `target/`, hidden entries (`.git`,
/// `.cargo`), toolchain pins and symlinks.
fn copy_crate(from: &Path, to: &Path, budget: &mut CopyBudget) -> Result<(), BuildFailure> {
    std::fs::create_dir_all(to).map_err(|e| grader_io("create", to, e))?;
    let entries = std::fs::read_dir(from).map_err(|e| {
        BuildFailure::Invalid(format!(
            "cannot read the crate folder {}: {e}",
            from.display()
        ))
    })?;
    for entry in entries {
        let entry = entry.map_err(|e| grader_io("list", from, e))?;
        let name = entry.file_name();
        let name_str = name.to_string_lossy();
        if name_str.starts_with('.')
            || name_str == "target"
            || name_str == "rust-toolchain"
            || name_str == "rust-toolchain.toml"
        {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(|e| grader_io("inspect", &entry.path(), e))?;
        let dest = to.join(&name);
        if kind.is_dir() {
            copy_crate(&entry.path(), &dest, budget)?;
        } else if kind.is_file() {
            let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
            if budget.files == 0 || len > budget.bytes {
                return Err(BuildFailure::Invalid(format!(
                    "the crate is too big (over {} MiB or {MAX_CRATE_FILES} files): hand in the sources only, without target/",
                    MAX_CRATE_BYTES >> 20
                )));
            }
            budget.files -= 1;
            budget.bytes -= len;
            std::fs::copy(entry.path(), &dest).map_err(|e| grader_io("copy", &entry.path(), e))?;
        }
    }
    Ok(())
}

/// Copies `from` to `to` (for prebuilt libraries, Python files, and cargo's
/// product).
fn copy_into(from: &Path, to: &Path) -> Result<PathBuf, BuildFailure> {
    std::fs::copy(from, to)
        .map_err(|e| BuildFailure::Invalid(format!("cannot copy {}: {e}", from.display())))?;
    Ok(to.to_path_buf())
}

/// A fresh folder `parent/<name>` (or `<name>-2`, ... if taken), mode 0755.
fn make_unique_dir(parent: &Path, name: &str) -> Result<PathBuf, BuildFailure> {
    std::fs::create_dir_all(parent).map_err(|e| grader_io("create", parent, e))?;
    set_mode(parent, 0o755).map_err(|e| grader_io("set permissions on", parent, e))?;
    for i in 1..10_000 {
        let dir = if i == 1 {
            parent.join(name)
        } else {
            parent.join(format!("{name}-{i}"))
        };
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                set_mode(&dir, 0o755).map_err(|e| grader_io("set permissions on", &dir, e))?;
                return Ok(dir);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(grader_io("create", &dir, e)),
        }
    }
    Err(BuildFailure::Grader(format!(
        "no free folder name for {name} in {}",
        parent.display()
    )))
}

fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

fn grader_io(what: &str, path: &Path, e: std::io::Error) -> BuildFailure {
    BuildFailure::Grader(format!("cannot {what} {}: {e}", path.display()))
}

/// A file-name- and identifier-safe form of a student id: lowercase ASCII
/// letters, digits and `_`, starting with a letter, at most 40 characters.
fn slot_name(id: &str) -> String {
    let mut s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_lowercase()) {
        s.insert_str(0, "sub_");
    }
    s
}

/// 8 hex digits of FNV-1a over the id: keeps library names apart when two
/// ids have the same [`slot_name`].
fn short_hash(id: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in id.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

/// How a compiler run ended.
struct Run {
    success: bool,
    timed_out: bool,
    /// stderr then stdout, lossily decoded, capped.
    output: String,
}

/// Runs `cmd` in its own process group with its output captured, killing
/// the group at `limit`.
fn run_limited(mut cmd: Command, limit: Duration, tool: &str) -> Result<Run, BuildFailure> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn().map_err(|e| {
        BuildFailure::Grader(format!(
            "cannot run {tool} (is it installed and on PATH?): {e}"
        ))
    })?;
    let stderr = capture(child.stderr.take());
    let stdout = capture(child.stdout.take());
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() >= limit => {
                timed_out = true;
                kill_group(child.id());
                break child
                    .wait()
                    .map_err(|e| BuildFailure::Grader(format!("cannot wait for {tool}: {e}")))?;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(BuildFailure::Grader(format!("cannot wait for {tool}: {e}"))),
        }
    };
    // Whatever the tool left running in its group must not outlive it.
    kill_group(child.id());
    let mut output = stderr.finish();
    let out = stdout.finish();
    if !out.trim().is_empty() {
        output.push('\n');
        output.push_str(&out);
    }
    Ok(Run {
        success: status.success() && !timed_out,
        timed_out,
        output,
    })
}

/// A pipe drained on a thread into a capped buffer.
struct Capture {
    buf: Arc<Mutex<Vec<u8>>>,
    done: std::sync::mpsc::Receiver<()>,
}

impl Capture {
    /// The text read so far, after waiting briefly for the end of the pipe
    /// (a process that escaped the group may hold it open forever).
    fn finish(self) -> String {
        let _ = self.done.recv_timeout(Duration::from_secs(2));
        let buf = self.buf.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&buf).into_owned()
    }
}

fn capture(pipe: Option<impl Read + Send + 'static>) -> Capture {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let (tx, done) = std::sync::mpsc::channel();
    if let Some(mut pipe) = pipe {
        let buf = Arc::clone(&buf);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let mut buf = buf.lock().unwrap_or_else(|e| e.into_inner());
                let room = MAX_CAPTURE.saturating_sub(buf.len());
                buf.extend_from_slice(&chunk[..n.min(room)]);
            }
            let _ = tx.send(());
        });
    } else {
        let _ = tx.send(());
    }
    Capture { buf, done }
}

/// SIGKILL to the process group `pgid` (the compiler and its children).
fn kill_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) has no memory-safety preconditions; a negative pid
    // names the process group the compiler was started in (process_group(0)),
    // which holds only processes the build started.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// Compiler output cut down to what a student needs: progress lines
/// (`Compiling ...`) dropped; if there are errors, only the error blocks
/// (each diagnostic with its context lines and notes), warnings dropped;
/// each of `strip` (absolute build folders) removed from paths; at most
/// [`MAX_MESSAGE_LINES`] lines.
pub fn trim_compiler_output(output: &str, strip: &[&Path]) -> String {
    let mut prefixes: Vec<String> = strip
        .iter()
        .filter(|p| p.is_absolute() && p.as_os_str().len() > 1)
        .map(|p| format!("{}/", p.display()))
        .collect();
    // Longest first, so a folder inside another is stripped whole.
    prefixes.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let lines: Vec<String> = output
        .lines()
        .filter(|line| !is_progress(line))
        .map(|line| {
            let mut line = line.trim_end().to_string();
            for prefix in &prefixes {
                line = line.replace(prefix.as_str(), "");
            }
            line
        })
        .collect();

    // Split into blocks: a diagnostic header and the lines after it.
    // Context lines before a header ("In function ...") belong to it.
    let mut blocks: Vec<(Severity, Vec<String>)> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for line in lines {
        match severity(&line) {
            Some(Severity::Note) if pending.is_empty() && !blocks.is_empty() => {
                if let Some(last) = blocks.last_mut() {
                    last.1.push(line);
                }
            }
            Some(sev) => {
                pending.push(line);
                blocks.push((sev, std::mem::take(&mut pending)));
            }
            None if is_lead_in(&line) => pending.push(line),
            None => match blocks.last_mut() {
                Some(last) if pending.is_empty() => last.1.push(line),
                _ => pending.push(line),
            },
        }
    }
    let has_errors = blocks.iter().any(|(sev, _)| *sev == Severity::Error);
    let mut kept: Vec<String> = if has_errors {
        blocks
            .into_iter()
            .filter(|(sev, _)| *sev == Severity::Error)
            .flat_map(|(_, lines)| lines)
            .collect()
    } else {
        blocks
            .into_iter()
            .flat_map(|(_, lines)| lines)
            .chain(pending)
            .collect()
    };
    kept.retain(|l| !l.trim().is_empty());
    if kept.len() > MAX_MESSAGE_LINES {
        let more = kept.len() - MAX_MESSAGE_LINES;
        kept.truncate(MAX_MESSAGE_LINES);
        kept.push(format!("... ({more} more lines)"));
    }
    kept.join("\n")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Severity {
    Error,
    Warning,
    Note,
}

/// The severity of a diagnostic header line, `error: ...` or
/// `file:line:col: error: ...` (gcc, rustc's short format, the linker).
fn severity(line: &str) -> Option<Severity> {
    let rest = line.trim_start();
    let starts = |word: &str| {
        rest.starts_with(word)
            || line.contains(&format!(": {word}:"))
            || line.contains(&format!(": {word}["))
    };
    if starts("error") || starts("fatal error") {
        Some(Severity::Error)
    } else if starts("warning") {
        Some(Severity::Warning)
    } else if starts("note") || starts("help") {
        Some(Severity::Note)
    } else {
        None
    }
}

/// gcc's "In function 'solve':" and "In file included from" lines, which
/// introduce the diagnostic that follows.
fn is_lead_in(line: &str) -> bool {
    line.contains(": In function")
        || line.contains(": In file included from")
        || line.starts_with("In file included from")
        || line.contains(": At top level:")
}

/// cargo's progress lines, which say nothing about the student's code.
fn is_progress(line: &str) -> bool {
    const WORDS: [&str; 12] = [
        "Compiling",
        "Checking",
        "Locking",
        "Blocking",
        "Updating",
        "Downloading",
        "Downloaded",
        "Finished",
        "Building",
        "Adding",
        "Running",
        "Fresh",
    ];
    let trimmed = line.trim_start();
    line.starts_with(' ') && WORDS.iter().any(|w| trimmed.starts_with(&format!("{w} ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::submission::discover::classify;
    use std::fs;

    const GOOD_C: &str = r#"#include "sudoku_lab.h"
bool legal(const uint8_t *b, size_t n, size_t r, size_t c, uint8_t v) { (void)b; (void)n; (void)r; (void)c; (void)v; return true; }
bool find_empty(const uint8_t *b, size_t n, size_t *r, size_t *c) { (void)b; (void)n; *r = 0; *c = 0; return false; }
bool solve(uint8_t *b, size_t n) { (void)b; (void)n; return false; }
uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
"#;

    fn lab() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("lab")
    }

    fn context(root: &Path) -> BuildContext {
        BuildContext::in_dir(root, &lab()).expect("the lab crate is in the source tree")
    }

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).expect("metadata").permissions().mode() & 0o777
    }

    #[test]
    fn a_good_c_file_builds_into_a_folder_of_its_own() {
        let src = tempfile::tempdir().expect("tempdir");
        let root = tempfile::tempdir().expect("tempdir");
        let file = src.path().join("alice.c");
        fs::write(&file, GOOD_C).expect("write");
        let sub = classify(&file);
        let built = build(&sub, SubmissionKind::C, &context(root.path())).expect("builds");
        assert_eq!(
            built.path().file_name().and_then(|n| n.to_str()),
            Some("lib.so")
        );
        let out = built.path().parent().expect("a folder");
        let entries: Vec<_> = fs::read_dir(out).expect("read").collect();
        assert_eq!(entries.len(), 1, "only the library in {}", out.display());
        assert_eq!(mode(built.path()), 0o644);
        assert_eq!(mode(out), 0o755);
        let bytes = fs::read(built.path()).expect("read lib");
        assert_eq!(&bytes[..4], b"\x7fELF");
        // The student's folder is unchanged.
        assert_eq!(fs::read_dir(src.path()).expect("read").count(), 1);
        // A second build of the same id gets a fresh folder.
        let again = build(&sub, SubmissionKind::C, &context(root.path())).expect("builds");
        assert_ne!(again.path(), built.path());
    }

    #[test]
    fn a_bad_c_file_fails_with_the_error_line_and_no_temp_paths() {
        let src = tempfile::tempdir().expect("tempdir");
        let root = tempfile::tempdir().expect("tempdir");
        let file = src.path().join("bob.c");
        fs::write(
            &file,
            GOOD_C.replace("return false; }\nuint32_t", "return false }\nuint32_t"),
        )
        .expect("write");
        let err = build(&classify(&file), SubmissionKind::C, &context(root.path()))
            .expect_err("does not build");
        let message = err.to_string();
        assert!(err.is_student_fault());
        assert!(message.starts_with("cc failed:\n"), "{message}");
        assert!(message.contains("bob.c:4:"), "{message}");
        assert!(message.contains("error: expected ';'"), "{message}");
        assert!(
            !message.contains(&src.path().display().to_string()),
            "{message}"
        );
        assert!(
            !message.contains(&root.path().display().to_string()),
            "{message}"
        );
    }

    #[test]
    fn a_build_past_its_time_limit_is_killed() {
        let root = tempfile::tempdir().expect("tempdir");
        let fake = root.path().join("slow-cc");
        fs::write(&fake, "#!/bin/sh\necho starting >&2\nsleep 30\n").expect("write");
        set_mode(&fake, 0o755).expect("chmod");
        let file = root.path().join("carol.c");
        fs::write(&file, GOOD_C).expect("write");
        let mut ctx = context(root.path());
        ctx.cc = fake;
        ctx.c_time_limit = Duration::from_millis(300);
        let start = Instant::now();
        let err = build(&classify(&file), SubmissionKind::C, &ctx).expect_err("times out");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
        assert!(matches!(err, BuildFailure::Timeout { .. }), "{err:?}");
        assert!(err.to_string().contains("longer than 0.3 s"), "{err}");
        assert!(err.to_string().contains("starting"), "{err}");
    }

    #[test]
    fn a_missing_compiler_is_the_graders_fault() {
        let root = tempfile::tempdir().expect("tempdir");
        let file = root.path().join("dave.c");
        fs::write(&file, GOOD_C).expect("write");
        let mut ctx = context(root.path());
        ctx.cc = root.path().join("no-such-cc");
        let err = build(&classify(&file), SubmissionKind::C, &ctx).expect_err("no cc");
        assert!(!err.is_student_fault());
        assert!(err.to_string().contains("not your fault"), "{err}");
    }

    #[test]
    fn libraries_and_python_files_are_copied() {
        let src = tempfile::tempdir().expect("tempdir");
        let root = tempfile::tempdir().expect("tempdir");
        let so = src.path().join("erin.so");
        fs::write(&so, b"\x7fELF fake").expect("write");
        let py = src.path().join("frank.py");
        fs::write(&py, "def solve(board, n=2):\n    return False\n").expect("write");
        let ctx = context(root.path());
        let built = build(&classify(&so), SubmissionKind::Library, &ctx).expect("copied");
        assert_eq!(fs::read(built.path()).expect("read"), b"\x7fELF fake");
        let built = build(&classify(&py), SubmissionKind::Python, &ctx).expect("copied");
        assert_eq!(
            built.path().file_name().and_then(|n| n.to_str()),
            Some("frank.py")
        );
        assert_eq!(mode(built.path()), 0o644);
    }

    #[test]
    fn the_manifest_is_rewritten_for_a_copy() {
        let text = r#"
[package]
name = "student"
version = "0.1.0"
edition = "2024"

[lib]
crate-type = ["rlib"]

[dependencies]
sudoku-lab = { path = "../../lab" }
"#;
        let out = rewrite_manifest(
            text,
            Path::new("/subs/alice"),
            Path::new("/grader/lab"),
            "alice_1",
        )
        .expect("rewrites");
        let doc: toml::Table = toml::from_str(&out).expect("valid TOML");
        assert_eq!(doc["lib"]["name"].as_str(), Some("alice_1"));
        assert_eq!(
            doc["lib"]["crate-type"].as_array().map(|a| a.len()),
            Some(1)
        );
        assert_eq!(doc["lib"]["crate-type"][0].as_str(), Some("cdylib"));
        assert_eq!(
            doc["dependencies"]["sudoku-lab"]["path"].as_str(),
            Some("/grader/lab")
        );
        assert!(doc["workspace"].as_table().is_some_and(|t| t.is_empty()));

        let err = rewrite_manifest("[package\nname=", Path::new("/x"), Path::new("/l"), "x")
            .expect_err("bad TOML");
        assert!(
            err.to_string().contains("Cargo.toml is not valid TOML"),
            "{err}"
        );
        let err = rewrite_manifest("[dependencies]\n", Path::new("/x"), Path::new("/l"), "x")
            .expect_err("no package");
        assert!(err.to_string().contains("no [package]"), "{err}");
    }

    #[test]
    fn a_manifest_that_once_panicked_toml_edit_is_an_error() {
        // toml_edit 0.23 panicked on this ("all items have spans"); a
        // student's Cargo.toml must never crash the grader.
        let err = rewrite_manifest("==\n.=", Path::new("/x"), Path::new("/l"), "x")
            .expect_err("bad TOML");
        assert!(
            err.to_string().contains("Cargo.toml is not valid TOML"),
            "{err}"
        );
    }

    #[test]
    fn code_that_runs_at_build_time_is_refused() {
        let package = "[package]\nname = \"s\"\nversion = \"0.1.0\"\n";
        let refuse = |text: &str, dir: &Path| {
            rewrite_manifest(text, dir, Path::new("/l"), "s")
                .expect_err("refused")
                .to_string()
        };
        let nowhere = Path::new("/nonexistent-crate");
        let err = refuse(&format!("{package}build = \"gen.rs\"\n"), nowhere);
        assert!(err.contains("build script"), "{err}");
        let err = refuse(&format!("{package}[lib]\nproc-macro = true\n"), nowhere);
        assert!(err.contains("proc-macro"), "{err}");
        let err = refuse(
            &format!("{package}[dependencies]\nhelper = {{ path = \"../h\" }}\n"),
            nowhere,
        );
        assert!(err.contains("`helper` comes from a path or git"), "{err}");
        let err = refuse(
            &format!(
                "{package}[build-dependencies]\nx = {{ git = \"https://example.invalid/x\" }}\n"
            ),
            nowhere,
        );
        assert!(err.contains("`x` comes from a path or git"), "{err}");

        let dir = tempfile::tempdir().expect("temp dir");
        fs::write(dir.path().join("build.rs"), "fn main() {}\n").expect("write");
        let err = refuse(package, dir.path());
        assert!(err.contains("build script"), "{err}");
        // `build = false` turns an existing build.rs off: accepted.
        assert!(
            rewrite_manifest(
                &format!("{package}build = false\n"),
                dir.path(),
                Path::new("/l"),
                "s"
            )
            .is_ok()
        );
    }

    #[test]
    fn a_rust_crate_builds_without_touching_the_students_folder() {
        let src = tempfile::tempdir().expect("tempdir");
        let root = tempfile::tempdir().expect("tempdir");
        let dir = src.path().join("grace");
        fs::create_dir_all(dir.join("src")).expect("mkdir");
        fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"grace\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nsudoku-lab = { path = \"../lab\" }\n",
        )
        .expect("write");
        fs::write(
            dir.join("src/lib.rs"),
            "pub struct S;\nimpl sudoku_lab::Sudoku for S {\n    fn legal(&self, b: &sudoku_lab::Board, r: usize, c: usize, v: u8) -> bool { !b.conflicts(r, c, v) }\n    fn find_empty(&self, b: &sudoku_lab::Board) -> Option<(usize, usize)> { b.empty_cells().next() }\n    fn solve(&self, _: &mut sudoku_lab::Board) -> bool { false }\n}\nsudoku_lab::export_c_abi!(S);\n",
        )
        .expect("write");
        let ctx = context(root.path());
        let built = build(&classify(&dir), SubmissionKind::Rust, &ctx).expect("builds");
        assert_eq!(&fs::read(built.path()).expect("read")[..4], b"\x7fELF");
        let mut names: Vec<String> = fs::read_dir(&dir)
            .expect("read")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["Cargo.toml", "src"],
            "no Cargo.lock or target/ left behind"
        );

        // A type error comes back as the compiler's error line, with the
        // path relative to the crate.
        fs::write(dir.join("src/lib.rs"), "pub fn f() -> bool { 1usize }\n").expect("write");
        let err = build(&classify(&dir), SubmissionKind::Rust, &ctx).expect_err("type error");
        let message = err.to_string();
        assert!(message.starts_with("cargo build failed:\n"), "{message}");
        assert!(message.contains("src/lib.rs:1:"), "{message}");
        assert!(message.contains("mismatched types"), "{message}");
        assert!(!message.contains("Compiling"), "{message}");
        assert!(
            !message.contains(&root.path().display().to_string()),
            "{message}"
        );
    }

    #[test]
    fn trimming_keeps_errors_and_drops_warnings_and_progress() {
        let output = "\
   Compiling sudoku-lab v0.1.0 (/work/lab)
/tmp/b/work/x/crate/src/lib.rs:3:9: warning: unused variable: `x`
/tmp/b/work/x/crate/src/lib.rs:22:28: error[E0308]: mismatched types: expected `bool`, found `usize`
warning: `x` (lib) generated 1 warning
error: could not compile `x` (lib) due to 1 previous error
";
        let trimmed = trim_compiler_output(output, &[Path::new("/tmp/b/work/x/crate")]);
        assert_eq!(
            trimmed,
            "src/lib.rs:22:28: error[E0308]: mismatched types: expected `bool`, found `usize`\n\
             error: could not compile `x` (lib) due to 1 previous error"
        );
    }

    #[test]
    fn trimming_keeps_gcc_context_and_notes_of_errors_only() {
        let output = "\
s.c: In function 'legal':
s.c:3:9: warning: unused variable 'k' [-Wunused-variable]
    3 |     int k;
      |         ^
s.c: In function 'solve':
s.c:9:5: error: 'x' undeclared (first use in this function)
    9 |     x = 1;
      |     ^
s.c:9:5: note: each undeclared identifier is reported only once
";
        let trimmed = trim_compiler_output(output, &[]);
        assert_eq!(
            trimmed,
            "s.c: In function 'solve':\n\
             s.c:9:5: error: 'x' undeclared (first use in this function)\n\
             \x20   9 |     x = 1;\n\
             \x20     |     ^\n\
             s.c:9:5: note: each undeclared identifier is reported only once"
        );
    }

    #[test]
    fn trimming_caps_the_length_and_keeps_output_without_errors() {
        let many: String = (0..100)
            .map(|i| format!("s.c:{i}:1: error: bad {i}\n"))
            .collect();
        let trimmed = trim_compiler_output(&many, &[]);
        assert_eq!(trimmed.lines().count(), MAX_MESSAGE_LINES + 1);
        assert!(trimmed.ends_with("... (60 more lines)"), "{trimmed}");
        let odd = "ld: cannot find -lfoo\nsomething else\n";
        assert_eq!(
            trim_compiler_output(odd, &[]),
            "ld: cannot find -lfoo\nsomething else"
        );
    }

    #[test]
    fn slot_names_are_safe_identifiers() {
        assert_eq!(slot_name("Alice Smith"), "alice_smith");
        assert_eq!(slot_name("42"), "sub_42");
        assert_eq!(slot_name("rust-trait"), "rust_trait");
        assert_ne!(short_hash("a-b"), short_hash("a_b"));
    }
}
