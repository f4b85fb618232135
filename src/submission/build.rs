//! Building a submission into something a worker can load (SPEC 5): a
//! shared library with the lab's C ABI, or a Python file — inside the
//! submission's box ([`crate::sandbox`]). The grader copies what
//! the build needs into the box's `work/` folder (the box user's), the
//! compiler runs there as a confined run of the box, and the product is
//! copied into the box's read-only `code/` folder (`0644`), which the tests
//! load.
//!
//! - **Rust**: the crate is copied into `work/crate` (the student's folder
//!   is never written to: no `Cargo.lock`, no `target/`), its manifest is
//!   checked and adjusted by [`super::manifest`] — a `cdylib` with a
//!   library name unique to the student, the `sudoku-lab` dependency
//!   pointed at the box's read-only copy of the lab crate, the grader's own
//!   empty `[workspace]` — and built by the toolchain's own `cargo` with
//!   `cargo build --release --offline --lib`, in a cleared environment, a
//!   target folder and `CARGO_HOME` of its own (nothing shared with another
//!   student: no lock, no artefact).
//! - **C**: a private copy of the file, `submission.c`, compiled in
//!   `work/src` by `cc -O2 -shared -fPIC -pthread -I <lab>/include -o
//!   <work>/lib.so submission.c`: fixed arguments only, so no
//!   student-chosen name ever reaches the compiler's command line (`@opts.c`
//!   would read options from a file, `-wrapper.c` would be one), and the
//!   compiler's default dialect (GNU C, so POSIX names such as `pid_t` and
//!   `usleep` compile as they do everywhere else). Messages name the
//!   student's file again.
//! - **Library** (`.so`) and **Python** (`.py`): copied as they are; a
//!   notebook (`.ipynb`) is written as the Python its code cells make
//!   ([`super::notebook`]), under its own name.
//!
//! The box kills a build at its time limit, with everything it started.
//! Its output becomes the failure message, trimmed to the errors (see
//! [`trim_compiler_output`]).
//!
//! What is read is checked first, by its size on disk and never by reading
//! it: a source file at most [`MAX_SOURCE_BYTES`], a crate at most
//! [`MAX_SUBMISSION_BYTES`] in all, a `.so` at most [`MAX_LIBRARY_BYTES`]
//! (so a sparse 1 GiB file costs nothing to refuse). A symbolic link
//! anywhere in a submission is refused, never followed: it could name the
//! hidden cases or another student's files.
//!
//! These checks, the manifest rules of [`super::manifest`] and the source
//! rules of [`super::scan`] are defence in depth: the box the build runs in
//! is the real line. What they refuse is refused with a message saying
//! why, as a build error (the student's to fix); a missing compiler or a
//! folder the grader cannot make is the grader's fault ([`Blame::Grader`]).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::protocol::{BuildJob, Deadlines, ViewKind};
use crate::sandbox::view::{self, CTools, HostView, RustTools};
use crate::sandbox::{BuildRun, SubmissionBox};
use crate::submission::discover::{Submission, SubmissionKind};
use crate::verdict::Blame;

/// Default limit of CPU time (the whole tree of cargo and rustc) for
/// building a Rust crate: a student's crate with the lab crate takes about
/// 2 s of it, so 60 s stops a const-eval loop without ever meeting an
/// honest build.
pub const RUST_TIME_LIMIT: Duration = Duration::from_secs(60);

/// Default limit of CPU time for compiling a C file (about 45 ms of it is
/// usual).
pub const C_TIME_LIMIT: Duration = Duration::from_secs(30);

/// At most this many lines of compiler output reach the student.
pub const MAX_MESSAGE_LINES: usize = 40;

/// Environment variable naming the lab crate (the folder holding its
/// `Cargo.toml` and `include/`), when the grader runs away from its source
/// tree.
pub const LAB_DIR_ENV: &str = "GRADER_LAB_DIR";

/// The largest source file (or any one file of a crate), in bytes.
pub const MAX_SOURCE_BYTES: u64 = 1 << 20;

/// The largest submission (all files of a crate), in bytes.
pub const MAX_SUBMISSION_BYTES: u64 = 16 << 20;

/// The largest prebuilt library, in bytes.
pub const MAX_LIBRARY_BYTES: u64 = 64 << 20;

/// The most files of a crate the grader copies.
const MAX_CRATE_FILES: usize = 10_000;

/// Where and how submissions are built: the lab crate, the tools, the
/// limits. The tools are found once, by the grader, outside any box.
#[derive(Clone, Debug)]
pub struct BuildContext {
    /// The lab crate, `sudoku-lab` (the folder with its `Cargo.toml` and
    /// `include/sudoku_lab.h`), copied into every box that builds; `None`:
    /// the copy built into the binary ([`super::lab_kit`]).
    pub lab_crate: Option<PathBuf>,
    /// The C compiler: a name looked up on `PATH`, or a path.
    pub cc: PathBuf,
    /// The Rust compiler whose toolchain builds crates: a name looked up
    /// on `PATH`, or a path (its sysroot holds `cargo`).
    pub rustc: PathBuf,
    /// Time limit for a Rust build.
    pub rust_time_limit: Duration,
    /// Time limit for a C build.
    pub c_time_limit: Duration,
    rust: Arc<OnceLock<Result<RustToolchain, String>>>,
    c_tools: Arc<OnceLock<Result<CTools, String>>>,
    /// The host's part of each kind's view, by [`view_index`].
    views: Arc<[OnceLock<Result<HostView, String>>; 4]>,
}

/// Where `kind`'s host view is kept in [`BuildContext`].
fn view_index(kind: ViewKind) -> usize {
    match kind {
        ViewKind::CBuild => 0,
        ViewKind::RustBuild => 1,
        ViewKind::LibraryTest => 2,
        ViewKind::PythonTest => 3,
    }
}

/// A Rust toolchain's real binaries (not rustup's proxies, which need the
/// grader's home folder): `<sysroot>/bin/cargo` and `rustc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustToolchain {
    /// `rustc --print sysroot`.
    pub sysroot: PathBuf,
    /// `<sysroot>/bin`.
    pub bin: PathBuf,
    /// `<sysroot>/bin/cargo`.
    pub cargo: PathBuf,
    /// `<sysroot>/bin/rustc`.
    pub rustc: PathBuf,
}

/// Why a build context could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BuildSetupError {
    /// The lab crate is not where it should be.
    #[error(
        "the lab crate is not at {}: set {LAB_DIR_ENV} to the folder holding sudoku-lab's Cargo.toml and include/",
        .0.display()
    )]
    NoLab(PathBuf),
}

impl BuildContext {
    /// A context with the lab crate built into the binary (or the one in
    /// `$GRADER_LAB_DIR`), `cc` and `rustc` from `PATH`, and the default
    /// time limits: a copied `grader` builds with no source checkout.
    ///
    /// # Errors
    /// When `$GRADER_LAB_DIR` names no lab crate.
    pub fn new() -> Result<BuildContext, BuildSetupError> {
        match std::env::var_os(LAB_DIR_ENV) {
            Some(dir) if !dir.is_empty() => BuildContext::with_lab(Path::new(&dir)),
            _ => Ok(BuildContext {
                lab_crate: None,
                ..BuildContext::with_lab_unchecked(None)
            }),
        }
    }

    /// A context with the lab crate at `lab_crate`.
    ///
    /// # Errors
    /// When `lab_crate` holds no `Cargo.toml` or no `include/sudoku_lab.h`.
    pub fn with_lab(lab_crate: &Path) -> Result<BuildContext, BuildSetupError> {
        if !lab_crate.join("Cargo.toml").is_file()
            || !lab_crate.join("include/sudoku_lab.h").is_file()
        {
            return Err(BuildSetupError::NoLab(lab_crate.to_path_buf()));
        }
        Ok(BuildContext::with_lab_unchecked(Some(
            lab_crate.to_path_buf(),
        )))
    }

    fn with_lab_unchecked(lab_crate: Option<PathBuf>) -> BuildContext {
        BuildContext {
            lab_crate,
            cc: PathBuf::from("cc"),
            rustc: PathBuf::from("rustc"),
            rust_time_limit: RUST_TIME_LIMIT,
            c_time_limit: C_TIME_LIMIT,
            rust: Arc::new(OnceLock::new()),
            c_tools: Arc::new(OnceLock::new()),
            views: Arc::new(Default::default()),
        }
    }

    /// The C compiler's full path.
    ///
    /// # Errors
    /// A grader fault when there is none: a missing compiler is never the
    /// student's fault.
    pub fn c_compiler(&self) -> Result<PathBuf, BuildFailure> {
        find_program(&self.cc).ok_or_else(|| {
            BuildFailure::Grader(format!(
                "there is no C compiler `{}` on this machine (PATH): install gcc or clang",
                self.cc.display()
            ))
        })
    }

    /// The Rust toolchain, found once (`rustc --print sysroot`).
    ///
    /// # Errors
    /// A grader fault when there is none.
    pub fn rust_toolchain(&self) -> Result<&RustToolchain, BuildFailure> {
        self.rust
            .get_or_init(|| find_rust(&self.rustc))
            .as_ref()
            .map_err(|e| BuildFailure::Grader(e.clone()))
    }

    /// The C compiler's folders, found once (`cc -print-prog-name`, ...;
    /// see [`crate::sandbox::view::probe_c`]).
    ///
    /// # Errors
    /// A grader fault when there is no compiler or it does not answer.
    pub fn c_tools(&self) -> Result<&CTools, BuildFailure> {
        let cc = self.c_compiler()?;
        self.c_tools
            .get_or_init(|| view::probe_c(&cc))
            .as_ref()
            .map_err(|e| BuildFailure::Grader(e.clone()))
    }

    /// The host's part of each view the box of a `kind` submission needs
    /// (see [`crate::sandbox::view`]): its build's (C or Rust) and its
    /// tests'. Each is found once per kind; a view whose tool is missing
    /// is left out (the build that needs it then reports the grader's
    /// fault). Only the tools of that kind are looked for.
    pub fn views_for(&self, kind: SubmissionKind) -> Vec<HostView> {
        let kinds: &[ViewKind] = match kind {
            SubmissionKind::C => &[ViewKind::CBuild, ViewKind::LibraryTest],
            SubmissionKind::Rust => &[ViewKind::RustBuild, ViewKind::LibraryTest],
            SubmissionKind::Library => &[ViewKind::LibraryTest],
            SubmissionKind::Python => &[ViewKind::PythonTest],
        };
        kinds
            .iter()
            .filter_map(|&view_kind| self.host_view(view_kind).ok())
            .collect()
    }

    /// Finds the views of `kinds` in a thread of their own, while the
    /// grader does other work (a box then finds them ready): asking the
    /// tools where they live takes a few milliseconds.
    pub fn warm_up(&self, kinds: Vec<SubmissionKind>) {
        let ctx = self.clone();
        std::thread::spawn(move || {
            for kind in kinds {
                ctx.views_for(kind);
            }
        });
    }

    /// The host's part of `kind`'s view, found once.
    ///
    /// # Errors
    /// A grader fault when a tool it needs is missing.
    pub fn host_view(&self, kind: ViewKind) -> Result<HostView, BuildFailure> {
        self.views[view_index(kind)]
            .get_or_init(|| self.find_host_view(kind))
            .clone()
            .map_err(BuildFailure::Grader)
    }

    /// Asks the tools for `kind`'s view.
    fn find_host_view(&self, kind: ViewKind) -> Result<HostView, String> {
        let needs_c = matches!(kind, ViewKind::CBuild | ViewKind::RustBuild);
        let c = if needs_c {
            self.c_tools().map_err(BuildFailure::into_message)
        } else {
            Err("not needed".to_string())
        };
        let rust = if kind == ViewKind::RustBuild {
            self.rust_toolchain()
                .map(|t| RustTools {
                    sysroot: t.sysroot.clone(),
                    programs: vec![t.cargo.clone(), t.rustc.clone()],
                })
                .map_err(BuildFailure::into_message)
        } else {
            Err("not needed".to_string())
        };
        let python = if kind == ViewKind::PythonTest {
            crate::worker::python::interpreter()
        } else {
            Err("not needed")
        };
        let tools = view::Tools {
            c: c.as_ref().map(|c| *c).map_err(String::as_str),
            rust: rust.as_ref().map_err(String::as_str),
            python,
        };
        HostView::resolve(kind, tools)
    }
}

/// `program` as a full path: itself when it has a `/`, else the first
/// executable of that name on `PATH`.
fn find_program(program: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.components().count() > 1 {
        return executable(program).then(|| program.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}

/// Finds the toolchain of `rustc` (run by the grader, outside any box:
/// no student input reaches it).
fn find_rust(rustc: &Path) -> Result<RustToolchain, String> {
    let missing = || {
        format!(
            "there is no Rust toolchain (`{}` on PATH) on this machine: install one (rustup) to grade Rust submissions",
            rustc.display()
        )
    };
    let rustc = find_program(rustc).ok_or_else(missing)?;
    let output = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", rustc.display()))?;
    if !output.status.success() {
        return Err(missing());
    }
    let sysroot = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    let bin = sysroot.join("bin");
    let toolchain = RustToolchain {
        cargo: bin.join("cargo"),
        rustc: bin.join("rustc"),
        bin,
        sysroot,
    };
    if !toolchain.cargo.is_file() {
        return Err(format!(
            "the Rust toolchain at {} has no cargo: install it (rustup component add cargo)",
            toolchain.sysroot.display()
        ));
    }
    Ok(toolchain)
}

/// A built submission, ready for a worker to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltCode {
    path: PathBuf,
    notes: Vec<String>,
}

impl BuiltCode {
    /// The shared library (or Python file) to load; alone in its folder,
    /// world-readable.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the student should know about how the code was taken (a
    /// notebook's cells), for their own output.
    pub fn notes(&self) -> &[String] {
        &self.notes
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
    /// The build used more than its limit of CPU time (or spent that long
    /// not wanting a CPU) and was stopped.
    #[error("the build used more than {} of CPU time, or waited that long without using any, and was stopped{}", seconds(*.limit), tail(.output))]
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
    /// What went wrong, without the "not your fault" preamble of a grader
    /// fault.
    pub fn into_message(self) -> String {
        match self {
            BuildFailure::Grader(message) => message,
            other => other.to_string(),
        }
    }

    /// Whose failure this is: the grader's for [`BuildFailure::Grader`]
    /// (no compiler, a folder that cannot be made), else the student's.
    pub fn blame(&self) -> Blame {
        match self {
            BuildFailure::Grader(_) => Blame::Grader,
            _ => Blame::Student,
        }
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

/// Builds `sub` as `kind` inside its box: the submission is copied into
/// the box, the compiler runs there (confined as the box's user, see
/// [`crate::sandbox`]), and the product is copied into the box's
/// read-only `code/` folder, from which the tests load it.
///
/// # Errors
/// A [`BuildFailure`] saying why, with the compiler's trimmed output.
pub fn build(
    sub: &Submission,
    kind: SubmissionKind,
    ctx: &BuildContext,
    sandbox: &mut SubmissionBox<'_>,
) -> Result<BuiltCode, BuildFailure> {
    // The student's own folder around a single file must not be a link
    // either (it could hold another student's file).
    if let Some(folder) = sub
        .path
        .parent()
        .filter(|f| kind != SubmissionKind::Rust && f.file_name().is_some_and(|n| *n == *sub.id))
    {
        refuse_symlink(folder)?;
    }
    let code = sandbox.code_dir();
    let mut notes = Vec::new();
    let built = match kind {
        SubmissionKind::C => build_c(sub, ctx, sandbox)?,
        SubmissionKind::Rust => build_rust(sub, ctx, sandbox)?,
        SubmissionKind::Library => copy_limited(
            &sub.path,
            &code.join("lib.so"),
            MAX_LIBRARY_BYTES,
            "library",
        )?,
        SubmissionKind::Python => {
            let name = sub.path.file_name().ok_or_else(|| {
                BuildFailure::Invalid(format!("{} is not a file", sub.path.display()))
            })?;
            if super::notebook::is_notebook(&sub.path) {
                let (built, note) = notebook_as_python(&sub.path, &code.join(name))?;
                notes.push(note);
                built
            } else {
                copy_limited(&sub.path, &code.join(name), MAX_SOURCE_BYTES, "source file")?
            }
        }
    };
    set_mode(&built, 0o644).map_err(|e| grader_io("make the build readable", &built, e))?;
    Ok(BuiltCode { path: built, notes })
}

/// Writes the Python module of the notebook `from` to `to`, with the
/// checks of [`read_limited`] (the module itself at most
/// [`MAX_SOURCE_BYTES`]); returns the note of the cells taken.
fn notebook_as_python(from: &Path, to: &Path) -> Result<(PathBuf, String), BuildFailure> {
    let shown = from.file_name().unwrap_or_default().to_string_lossy();
    let bytes = read_limited(from, super::notebook::MAX_NOTEBOOK_BYTES, "notebook")?;
    let python = super::notebook::to_python(&bytes, &shown).map_err(BuildFailure::Invalid)?;
    if python.source.len() as u64 > MAX_SOURCE_BYTES {
        return Err(too_big(
            Path::new(shown.as_ref()),
            python.source.len() as u64,
            MAX_SOURCE_BYTES,
            "source file (the notebook's code cells)",
        ));
    }
    std::fs::write(to, python.source).map_err(|e| grader_io("write", to, e))?;
    Ok((to.to_path_buf(), python.note))
}

/// The fixed name a C submission is compiled under (never a name the
/// student chose: `@opts.c` or `-x.c` would become compiler options).
const C_SOURCE: &str = "submission.c";

/// Compiles the C submission inside the box into `code/lib.so`.
fn build_c(
    sub: &Submission,
    ctx: &BuildContext,
    sandbox: &mut SubmissionBox<'_>,
) -> Result<PathBuf, BuildFailure> {
    let cc = ctx.c_compiler()?;
    let work = sandbox.work_dir();
    let src = work.join("src");
    let tmp = work.join("tmp");
    let product = work.join("lib.so");
    let shown_name = sub
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| BuildFailure::Invalid(format!("{} is not a file", sub.path.display())))?;
    let source = read_limited(&sub.path, MAX_SOURCE_BYTES, "source file")?;
    super::scan::refuse_c_reads(&source, &shown_name)?;
    for dir in [&src, &tmp] {
        std::fs::create_dir_all(dir).map_err(|e| grader_io("create", dir, e))?;
    }
    std::fs::write(src.join(C_SOURCE), &source)
        .map_err(|e| grader_io("write the source copy into", &src, e))?;
    give_to_box(&work, sandbox)?;
    let lab_include = install_lab(ctx, sandbox)?.join("include");
    let view = build_view(ctx, sandbox, ViewKind::CBuild)?;
    let job = BuildJob {
        program: cc,
        args: vec![
            "-O2".into(),
            "-shared".into(),
            "-fPIC".into(),
            "-pthread".into(),
            "-I".into(),
            lab_include.to_string_lossy().into_owned(),
            "-o".into(),
            product.to_string_lossy().into_owned(),
            C_SOURCE.into(),
        ],
        cwd: src.clone(),
        env: vec![
            ("PATH".into(), view::BUILD_PATH.into()),
            ("LC_ALL".into(), "C".into()),
            ("TMPDIR".into(), tmp.to_string_lossy().into_owned()),
        ],
        deadlines: Deadlines::for_build(ctx.c_time_limit),
        file_size_mb: 256,
        address_space_mb: sandbox.build_address_space_mb(),
        landlock: sandbox.landlock(),
        view,
    };
    let run = run_in_box(sandbox, job, "cc")?;
    let strip = [work.as_path(), src.as_path(), lab_include.as_path()];
    let output = trim_compiler_output(&run.output, &strip)
        .replace(&format!("{C_SOURCE}:"), &format!("{shown_name}:"));
    if run.timed_out {
        return Err(BuildFailure::Timeout {
            limit: ctx.c_time_limit,
            output,
        });
    }
    if !run.success || !product.is_file() {
        return Err(BuildFailure::Compile { tool: "cc", output });
    }
    copy_into(&product, &sandbox.code_dir().join("lib.so"))
}

/// Builds a Rust crate from a copy inside the box, with a target folder of
/// its own, and copies the library into `code/lib.so`.
fn build_rust(
    sub: &Submission,
    ctx: &BuildContext,
    sandbox: &mut SubmissionBox<'_>,
) -> Result<PathBuf, BuildFailure> {
    let toolchain = ctx.rust_toolchain()?;
    let work = sandbox.work_dir();
    let copy = work.join("crate");
    let target = work.join("target");
    let tmp = work.join("tmp");
    let home = work.join("cargo-home");
    refuse_symlink(&sub.path)?;
    let manifest_bytes = read_limited(
        &sub.path.join("Cargo.toml"),
        super::manifest::MAX_MANIFEST_BYTES,
        "manifest",
    )?;
    let manifest_text = String::from_utf8(manifest_bytes).map_err(|_| {
        BuildFailure::Invalid("Cargo.toml is not UTF-8 text: save it as UTF-8".to_string())
    })?;
    let slot = slot_name(&sub.id);
    let lib_name = format!("{slot}_{}", short_hash(&sub.id));
    let lab = install_lab(ctx, sandbox)?;
    let manifest = super::manifest::rewrite_manifest(&manifest_text, &sub.path, &lab, &lib_name)?;
    let mut budget = CopyBudget {
        bytes: MAX_SUBMISSION_BYTES,
        files: MAX_CRATE_FILES,
    };
    copy_crate(&sub.path, &copy, Path::new(""), &mut budget)?;
    std::fs::write(copy.join("Cargo.toml"), manifest)
        .map_err(|e| grader_io("write the crate's manifest", &copy, e))?;
    for dir in [&tmp, &home] {
        std::fs::create_dir_all(dir).map_err(|e| grader_io("create", dir, e))?;
    }
    give_to_box(&work, sandbox)?;
    let view = build_view(ctx, sandbox, ViewKind::RustBuild)?;
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let mut args: Vec<String> = [
        "build",
        "--release",
        "--offline",
        "--lib",
        "--message-format",
        "short",
        "--color",
        "never",
        "--manifest-path",
    ]
    .map(String::from)
    .to_vec();
    args.push(path(&copy.join("Cargo.toml")));
    let job = BuildJob {
        program: toolchain.cargo.clone(),
        args,
        // cargo reads `.cargo/config.toml` in every parent of its working
        // folder: it works from `/`, whose only such file is root's (and
        // in the box's private root, none), so no folder anyone else can
        // write configures it. Its own configuration is CARGO_HOME's, in
        // the box's work folder.
        cwd: PathBuf::from("/"),
        env: vec![
            (
                "PATH".into(),
                format!("{}:{}", path(&toolchain.bin), view::BUILD_PATH),
            ),
            ("RUSTC".into(), path(&toolchain.rustc)),
            ("CARGO_HOME".into(), path(&home)),
            ("HOME".into(), path(&work)),
            ("CARGO_TARGET_DIR".into(), path(&target)),
            ("TMPDIR".into(), path(&tmp)),
            ("LC_ALL".into(), "C".into()),
        ],
        deadlines: Deadlines::for_build(ctx.rust_time_limit),
        file_size_mb: 512,
        address_space_mb: sandbox.build_address_space_mb(),
        landlock: sandbox.landlock(),
        view,
    };
    let run = run_in_box(sandbox, job, "cargo")?;
    let strip = [
        copy.as_path(),
        work.as_path(),
        target.as_path(),
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
    let produced = target.join("release").join(format!("lib{lib_name}.so"));
    if !produced.is_file() {
        return Err(BuildFailure::Invalid(format!(
            "cargo built no library lib{lib_name}.so: the crate needs a src/lib.rs"
        )));
    }
    copy_into(&produced, &sandbox.code_dir().join("lib.so"))
}

/// The box's view for a build of `kind`: a box without one (its tool
/// was not found when the box was made) is the grader's fault.
fn build_view(
    ctx: &BuildContext,
    sandbox: &SubmissionBox<'_>,
    kind: ViewKind,
) -> Result<crate::protocol::View, BuildFailure> {
    match sandbox.view(kind) {
        Some(view) => Ok(view.clone()),
        None => Err(ctx.host_view(kind).err().unwrap_or_else(|| {
            BuildFailure::Grader(format!(
                "the box was made without the view of a {}",
                kind.name()
            ))
        })),
    }
}

/// Output of a build tool that could not set itself up: it found no
/// configuration, program or library of its own, which in the box is the
/// grader's fault (the box lacks a part of the toolchain, or something
/// outside the box configured the tool), never the student's.
const TOOL_FAULTS: &[&str] = &[
    "could not load Cargo configuration",
    "failed to load TOML configuration",
    "could not execute process `",
    "failed to run `rustc` to learn about target-specific information",
    "linker `cc` not found",
    "error trying to exec '",
    "fatal error: cannot execute '",
    "installation problem, cannot exec",
    "cannot find crt1.o",
    "cannot find crti.o",
    "error while loading shared libraries",
];

/// The line of `output` that shows the tool could not set itself up.
fn tool_fault(output: &str) -> Option<&str> {
    output
        .lines()
        .find(|line| TOOL_FAULTS.iter().any(|fault| line.contains(fault)))
}

/// Runs a build job in the box. The box failing, failing to start the
/// tool (its own exit status and message, before any student input is
/// read), or a tool that cannot set itself up ([`TOOL_FAULTS`]) is the
/// grader's fault.
///
/// A build stopped at the wall-clock backstop while still runnable and
/// under its CPU limit was not timed (the host was too busy): it runs
/// again, at most [`BUILD_TRIES`] times in all, and is then the grader's
/// fault, never the student's timeout.
fn run_in_box(
    sandbox: &mut SubmissionBox<'_>,
    job: BuildJob,
    tool: &str,
) -> Result<BuildRun, BuildFailure> {
    let mut tries = 0;
    let run = loop {
        tries += 1;
        let run = sandbox
            .run_build(job.clone())
            .map_err(|e| BuildFailure::Grader(format!("cannot run {tool} in the box: {e}")))?;
        if !run.undecided {
            break run;
        }
        if tries == BUILD_TRIES {
            return Err(BuildFailure::Grader(format!(
                "the host was too busy to time the build: {tool} was still under its CPU limit at the wall-clock backstop of {} ({tries} tries); grade again on a quieter machine or with fewer --jobs",
                seconds(Duration::from_millis(job.deadlines.backstop_ms))
            )));
        }
    };
    if run.exit_code == Some(crate::protocol::BOX_SETUP_FAILED_EXIT) {
        if let Some(line) = run
            .output
            .lines()
            .find(|l| l.starts_with(crate::protocol::BOX_SETUP_FAILED_PREFIX))
        {
            return Err(BuildFailure::Grader(format!(
                "cannot run {tool}: {}",
                line.trim_start_matches(crate::protocol::BOX_SETUP_FAILED_PREFIX)
            )));
        }
    }
    if !run.success {
        if let Some(line) = tool_fault(&run.output) {
            return Err(BuildFailure::Grader(format!(
                "{tool} could not set itself up in the box: {}",
                crate::report::text::visible_line(line.trim())
            )));
        }
    }
    Ok(run)
}

/// How many times a build the host was too busy to time is run.
const BUILD_TRIES: u32 = 3;

/// Copies the lab crate (its manifest, made standalone, `src/` and
/// `include/`) into the box's read-only `lab/` folder, once; returns it.
fn install_lab(ctx: &BuildContext, sandbox: &SubmissionBox<'_>) -> Result<PathBuf, BuildFailure> {
    let lab = sandbox.lab_dir();
    if lab.join("Cargo.toml").is_file() {
        return Ok(lab);
    }
    let Some(lab_crate) = &ctx.lab_crate else {
        super::lab_kit::write_lab_crate(&lab)
            .map_err(|e| grader_io("write the lab crate into", &lab, e))?;
        return Ok(lab);
    };
    for sub in ["src", "include"] {
        let mut budget = CopyBudget {
            bytes: MAX_SUBMISSION_BYTES,
            files: MAX_CRATE_FILES,
        };
        copy_crate(
            &lab_crate.join(sub),
            &lab.join(sub),
            Path::new(sub),
            &mut budget,
        )?;
    }
    let manifest = std::fs::read_to_string(lab_crate.join("Cargo.toml"))
        .map_err(|e| grader_io("read the lab crate's manifest in", lab_crate, e))?;
    std::fs::write(lab.join("Cargo.toml"), standalone_manifest(&manifest))
        .map_err(|e| grader_io("write the lab crate's manifest in", &lab, e))?;
    Ok(lab)
}

/// A member crate's manifest made buildable on its own: the settings it
/// inherits from its workspace (`[lints] workspace = true`) left out.
fn standalone_manifest(text: &str) -> String {
    let Ok(mut doc) = text.parse::<toml_edit::DocumentMut>() else {
        return text.to_string();
    };
    let inherits = doc
        .get("lints")
        .and_then(|l| l.get("workspace"))
        .and_then(toml_edit::Item::as_bool)
        == Some(true);
    if inherits {
        doc.remove("lints");
    }
    doc.to_string()
}

/// Hands the box's work folder (and what the grader copied into it) to the
/// box's user.
fn give_to_box(work: &Path, sandbox: &SubmissionBox<'_>) -> Result<(), BuildFailure> {
    let Some(uid) = sandbox.uid() else {
        return Ok(());
    };
    chown_tree(work, uid).map_err(|e| grader_io("hand over", work, e))
}

/// `chown -R uid:uid`, never following a link.
fn chown_tree(path: &Path, uid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(uid))?;
    if std::fs::symlink_metadata(path)?.is_dir() {
        for entry in std::fs::read_dir(path)? {
            chown_tree(&entry?.path(), uid)?;
        }
    }
    Ok(())
}

/// What is left of the size budget for copying a crate.
struct CopyBudget {
    bytes: u64,
    files: usize,
}

/// Copies a crate folder, leaving out `target/`, hidden entries (`.git`,
/// `.cargo`) and toolchain pins; refuses symbolic links and files over
/// the size limits (by their size on disk, before reading them). `rel` is
/// where `from` lies inside the crate, for messages. Each `.rs` file is
/// checked by [`super::scan::refuse_rust_reads`] as it is copied.
fn copy_crate(
    from: &Path,
    to: &Path,
    rel: &Path,
    budget: &mut CopyBudget,
) -> Result<(), BuildFailure> {
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
        let shown = rel.join(&name);
        if kind.is_symlink() {
            return Err(symlink_refused(&shown));
        } else if kind.is_dir() {
            copy_crate(&entry.path(), &dest, &shown, budget)?;
        } else if kind.is_file() {
            let len = entry.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
            if name_str != "Cargo.lock" && len > MAX_SOURCE_BYTES {
                return Err(too_big(&shown, len, MAX_SOURCE_BYTES, "file of a crate"));
            }
            if budget.files == 0 || len > budget.bytes {
                return Err(BuildFailure::Invalid(format!(
                    "the crate is too big (over {} or {MAX_CRATE_FILES} files): hand in the sources only, without target/",
                    size_text(MAX_SUBMISSION_BYTES)
                )));
            }
            budget.files -= 1;
            budget.bytes -= len;
            let bytes = read_limited(&entry.path(), len.max(1), "file of a crate")?;
            if name_str.ends_with(".rs") {
                super::scan::refuse_rust_reads(&bytes, &shown)?;
            }
            std::fs::write(&dest, &bytes).map_err(|e| grader_io("copy", &entry.path(), e))?;
        }
    }
    Ok(())
}

/// Reads the file at `path`, refusing a symbolic link (never followed) and
/// a file over `limit` bytes by its size on disk, before reading it.
/// `what` names the file in the message ("source file", "manifest").
pub(crate) fn read_limited(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, BuildFailure> {
    use std::os::unix::fs::OpenOptionsExt;
    let shown = Path::new(path.file_name().unwrap_or(path.as_os_str()));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => symlink_refused(shown),
            _ => BuildFailure::Invalid(format!("cannot read {}: {e}", shown.display())),
        })?;
    let meta = file
        .metadata()
        .map_err(|e| BuildFailure::Invalid(format!("cannot read {}: {e}", shown.display())))?;
    if !meta.is_file() {
        return Err(BuildFailure::Invalid(format!(
            "{} is not a regular file: hand in plain files",
            shown.display()
        )));
    }
    if meta.len() > limit {
        return Err(too_big(shown, meta.len(), limit, what));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(file, limit + 1), &mut bytes)
        .map_err(|e| BuildFailure::Invalid(format!("cannot read {}: {e}", shown.display())))?;
    if bytes.len() as u64 > limit {
        return Err(too_big(shown, bytes.len() as u64, limit, what));
    }
    Ok(bytes)
}

/// Copies a single-file submission after the checks of [`read_limited`].
fn copy_limited(from: &Path, to: &Path, limit: u64, what: &str) -> Result<PathBuf, BuildFailure> {
    let bytes = read_limited(from, limit, what)?;
    std::fs::write(to, bytes).map_err(|e| grader_io("write", to, e))?;
    Ok(to.to_path_buf())
}

/// Refuses `path` if it is itself a symbolic link.
fn refuse_symlink(path: &Path) -> Result<(), BuildFailure> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(symlink_refused(Path::new(
            path.file_name().unwrap_or(path.as_os_str()),
        ))),
        _ => Ok(()),
    }
}

fn symlink_refused(shown: &Path) -> BuildFailure {
    BuildFailure::Invalid(format!(
        "{} is a symbolic link: links are refused, never followed (one could name files outside the submission); hand in the file itself",
        shown.display()
    ))
}

fn too_big(shown: &Path, len: u64, limit: u64, what: &str) -> BuildFailure {
    BuildFailure::Invalid(format!(
        "{} is {} bytes, over the limit of {} for a {what}: hand in the sources only",
        shown.display(),
        len,
        size_text(limit)
    ))
}

/// `64 KiB`, `16 MiB`.
fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes % (1 << 10) == 0 {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

/// Copies `from` to `to` (for prebuilt libraries, Python files, and cargo's
/// product).
fn copy_into(from: &Path, to: &Path) -> Result<PathBuf, BuildFailure> {
    std::fs::copy(from, to)
        .map_err(|e| BuildFailure::Invalid(format!("cannot copy {}: {e}", from.display())))?;
    Ok(to.to_path_buf())
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

    fn context() -> BuildContext {
        BuildContext::with_lab(&lab()).expect("the lab crate is in the source tree")
    }

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).expect("metadata").permissions().mode() & 0o777
    }

    /// Builds `file` as `kind` in a fresh box.
    fn build_in_box(
        file: &Path,
        kind: SubmissionKind,
        ctx: &BuildContext,
    ) -> (Result<BuiltCode, BuildFailure>, Vec<u8>) {
        let env = crate::sandbox::SandboxEnv::for_tests();
        let mut sandbox = SubmissionBox::open(&env, &ctx.views_for(kind)).expect("a box");
        let built = build(&classify(file), kind, ctx, &mut sandbox);
        let bytes = built
            .as_ref()
            .map(|b| fs::read(b.path()).expect("read the product"))
            .unwrap_or_default();
        if let Ok(code) = &built {
            assert_eq!(code.path().parent(), Some(sandbox.code_dir().as_path()));
            assert_eq!(mode(code.path()), 0o644);
        }
        (built, bytes)
    }

    #[test]
    fn a_good_c_file_builds_into_the_boxs_code_folder() {
        let src = tempfile::tempdir().expect("tempdir");
        let file = src.path().join("alice.c");
        fs::write(&file, GOOD_C).expect("write");
        let (built, bytes) = build_in_box(&file, SubmissionKind::C, &context());
        let built = built.expect("builds");
        assert_eq!(
            built.path().file_name().and_then(|n| n.to_str()),
            Some("lib.so")
        );
        assert_eq!(&bytes[..4], b"\x7fELF");
        // The student's folder is unchanged, and the box is gone.
        assert_eq!(fs::read_dir(src.path()).expect("read").count(), 1);
        assert!(!built.path().exists(), "the box folder goes with the box");
    }

    #[test]
    fn a_bad_c_file_fails_with_the_error_line_and_no_temp_paths() {
        let src = tempfile::tempdir().expect("tempdir");
        let file = src.path().join("bob.c");
        fs::write(
            &file,
            GOOD_C.replace("return false; }\nuint32_t", "return false }\nuint32_t"),
        )
        .expect("write");
        let (built, _) = build_in_box(&file, SubmissionKind::C, &context());
        let err = built.expect_err("does not build");
        let message = err.to_string();
        assert_eq!(err.blame(), Blame::Student);
        assert!(message.starts_with("cc failed:\n"), "{message}");
        assert!(message.contains("bob.c:4:"), "{message}");
        assert!(message.contains("error: expected ';'"), "{message}");
        assert!(!message.contains("submission.c"), "{message}");
        assert!(
            !message.contains(&src.path().display().to_string()),
            "{message}"
        );
        assert!(!message.contains("/box-"), "{message}");
    }

    #[test]
    fn a_c_file_is_compiled_as_a_private_copy_under_a_fixed_name() {
        let src = tempfile::tempdir().expect("tempdir");
        // A name cc would read as an option file, next to such a file.
        fs::write(src.path().join("x.c"), "-wrapper /bin/sh,-c,touch\n").expect("write");
        let file = src.path().join("@x.c");
        // POSIX names compile in the compiler's default dialect.
        let posix = GOOD_C.replace(
            "uint32_t sudoku_abi_version",
            "#include <sys/types.h>\n#include <unistd.h>\nstatic pid_t unused(void) { usleep(0); return getpid(); }\nuint32_t sudoku_abi_version",
        );
        fs::write(&file, posix).expect("write");
        let (built, bytes) = build_in_box(&file, SubmissionKind::C, &context());
        built.expect("builds as an ordinary source");
        assert_eq!(&bytes[..4], b"\x7fELF");
        // A compile error names the student's file, not the copy.
        fs::write(&file, "int broken(void) { return }\n").expect("write");
        let err = build_in_box(&file, SubmissionKind::C, &context())
            .0
            .expect_err("does not build");
        assert!(err.to_string().contains("@x.c:1:"), "{err}");
        assert!(!err.to_string().contains("submission.c"), "{err}");
    }

    #[test]
    fn links_and_oversized_files_are_refused_before_reading() {
        let src = tempfile::tempdir().expect("tempdir");
        let ctx = context();
        let link = src.path().join("eve.c");
        std::os::unix::fs::symlink("/etc/passwd", &link).expect("symlink");
        let err = build_in_box(&link, SubmissionKind::C, &ctx)
            .0
            .expect_err("a link");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(err.blame(), Blame::Student);
        // A student's folder that is a link to another student's folder.
        let other = src.path().join("other");
        fs::create_dir_all(&other).expect("mkdir");
        fs::write(other.join("sol.c"), GOOD_C).expect("write");
        std::os::unix::fs::symlink(&other, src.path().join("frank")).expect("symlink");
        let err = build_in_box(&src.path().join("frank"), SubmissionKind::C, &ctx)
            .0
            .expect_err("a linked folder");
        assert!(
            err.to_string().contains("frank is a symbolic link"),
            "{err}"
        );
        // A sparse 1 GiB library costs nothing to refuse.
        let huge = src.path().join("huge.so");
        fs::File::create(&huge)
            .and_then(|f| f.set_len(1 << 30))
            .expect("sparse file");
        let err = build_in_box(&huge, SubmissionKind::Library, &ctx)
            .0
            .expect_err("too big");
        assert!(
            err.to_string().contains("over the limit of 64 MiB"),
            "{err}"
        );
        let big_c = src.path().join("big.c");
        fs::File::create(&big_c)
            .and_then(|f| f.set_len(MAX_SOURCE_BYTES + 1))
            .expect("sparse file");
        let err = build_in_box(&big_c, SubmissionKind::C, &ctx)
            .0
            .expect_err("too big");
        assert!(err.to_string().contains("over the limit of 1 MiB"), "{err}");
        // A crate: a huge manifest, then a source that is a link.
        let krate = src.path().join("mallory");
        fs::create_dir_all(krate.join("src")).expect("mkdir");
        fs::File::create(krate.join("Cargo.toml"))
            .and_then(|f| f.set_len(1 << 30))
            .expect("sparse file");
        let err = build_in_box(&krate, SubmissionKind::Rust, &ctx)
            .0
            .expect_err("too big");
        assert!(
            err.to_string().contains("over the limit of 64 KiB"),
            "{err}"
        );
        fs::write(
            krate.join("Cargo.toml"),
            "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
        )
        .expect("write");
        std::os::unix::fs::symlink("/etc/passwd", krate.join("src/lib.rs")).expect("symlink");
        let err = build_in_box(&krate, SubmissionKind::Rust, &ctx)
            .0
            .expect_err("a link");
        assert!(
            err.to_string().contains("src/lib.rs is a symbolic link"),
            "{err}"
        );
    }

    #[test]
    fn a_build_past_its_time_limit_is_killed() {
        // A preprocessor bomb: 2^40 tokens, far past any time limit.
        let src = tempfile::tempdir().expect("tempdir");
        let file = src.path().join("carol.c");
        let mut bomb = String::from("#define A0 1, 1,\n");
        for i in 1..40 {
            bomb.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
        }
        bomb.push_str("int x[] = { A39 };\n");
        fs::write(&file, bomb).expect("write");
        let mut ctx = context();
        ctx.c_time_limit = Duration::from_millis(500);
        let start = std::time::Instant::now();
        let (built, _) = build_in_box(&file, SubmissionKind::C, &ctx);
        let err = built.expect_err("times out");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
        assert!(matches!(err, BuildFailure::Timeout { .. }), "{err:?}");
        assert!(
            err.to_string().contains("more than 0.5 s of CPU time"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_compiler_is_the_graders_fault() {
        let src = tempfile::tempdir().expect("tempdir");
        let file = src.path().join("dave.c");
        fs::write(&file, GOOD_C).expect("write");
        let mut ctx = context();
        ctx.cc = src.path().join("no-such-cc");
        let (built, _) = build_in_box(&file, SubmissionKind::C, &ctx);
        let err = built.expect_err("no cc");
        assert_eq!(err.blame(), Blame::Grader);
        assert!(err.to_string().contains("not your fault"), "{err}");
        assert!(err.to_string().contains("no C compiler"), "{err}");
    }

    #[test]
    fn libraries_and_python_files_are_copied() {
        let src = tempfile::tempdir().expect("tempdir");
        let so = src.path().join("erin.so");
        fs::write(&so, b"\x7fELF fake").expect("write");
        let py = src.path().join("frank.py");
        fs::write(&py, "def solve(board, n=2):\n    return False\n").expect("write");
        let ctx = context();
        let (built, bytes) = build_in_box(&so, SubmissionKind::Library, &ctx);
        built.expect("copied");
        assert_eq!(bytes, b"\x7fELF fake");
        let (built, _) = build_in_box(&py, SubmissionKind::Python, &ctx);
        assert_eq!(
            built
                .expect("copied")
                .path()
                .file_name()
                .and_then(|n| n.to_str()),
            Some("frank.py")
        );
    }

    #[test]
    fn a_rust_crate_builds_without_touching_the_students_folder() {
        let src = tempfile::tempdir().expect("tempdir");
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
        let ctx = context();
        let (built, bytes) = build_in_box(&dir, SubmissionKind::Rust, &ctx);
        built.expect("builds");
        assert_eq!(&bytes[..4], b"\x7fELF");
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
        let (built, _) = build_in_box(&dir, SubmissionKind::Rust, &ctx);
        let err = built.expect_err("type error");
        let message = err.to_string();
        assert!(message.starts_with("cargo build failed:\n"), "{message}");
        assert!(message.contains("src/lib.rs:1:"), "{message}");
        assert!(message.contains("mismatched types"), "{message}");
        assert!(!message.contains("Compiling"), "{message}");
        assert!(!message.contains("/box-"), "{message}");
    }

    #[test]
    fn trimming_keeps_errors_and_drops_warnings_and_progress() {
        let output = "\
   Compiling sudoku-lab v0.1.0 (/src/lab)
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
    fn a_tool_that_cannot_set_itself_up_is_the_graders_fault() {
        let cargo = "error: could not load Cargo configuration\n\nCaused by:\n  could not parse TOML configuration in `/tmp/.cargo/config.toml`\n";
        assert_eq!(
            tool_fault(cargo),
            Some("error: could not load Cargo configuration")
        );
        assert!(
            tool_fault("cc: fatal error: cannot execute 'cc1': execvp: No such file or directory")
                .is_some()
        );
        assert!(tool_fault("error: linker `cc` not found").is_some());
        // A student's own errors are theirs.
        assert_eq!(
            tool_fault("src/lib.rs:1:22: error[E0308]: mismatched types"),
            None
        );
        assert_eq!(
            tool_fault("s.c:3:1: error: expected ';' before '}' token"),
            None
        );
        assert_eq!(tool_fault("/usr/bin/ld: cannot find -lfoo"), None);
    }

    #[test]
    fn slot_names_are_safe_identifiers() {
        assert_eq!(slot_name("Alice Smith"), "alice_smith");
        assert_eq!(slot_name("42"), "sub_42");
        assert_eq!(slot_name("rust-trait"), "rust_trait");
        assert_ne!(short_hash("a-b"), short_hash("a_b"));
    }
}
