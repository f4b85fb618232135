//! Toolchain discovery: where and how submissions are built
//! ([`BuildContext`]): the lab crate, the C compiler, the Rust toolchain's
//! real binaries (not rustup's proxies), and the host's part of each
//! view a box needs, each found once, by the grader, outside any box.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::protocol::ViewKind;
use crate::sandbox::view::{self, CTools, HostView, RustTools};
use crate::submission::discover::SubmissionKind;

use super::failure::BuildFailure;

/// Default limit of CPU time (the whole tree of cargo and rustc) for
/// building a Rust crate: a student's crate with the lab crate takes about
/// 2 s of it, so 60 s stops a const-eval loop without ever meeting an
/// honest build.
pub const RUST_TIME_LIMIT: Duration = Duration::from_secs(60);

/// Default limit of CPU time for compiling a C file (about 45 ms of it is
/// usual).
pub const C_TIME_LIMIT: Duration = Duration::from_secs(30);

/// Environment variable naming the lab crate (the folder holding its
/// `Cargo.toml` and `include/`), when the grader runs away from its source
/// tree.
pub(super) const LAB_DIR_ENV: &str = "GRADER_LAB_DIR";

/// Where and how submissions are built: the lab crate, the tools, the
/// limits. The tools are found once, by the grader, outside any box.
#[derive(Clone, Debug)]
pub struct BuildContext {
    /// The lab crate, `sudoku-lab` (the folder with its `Cargo.toml` and
    /// `include/sudoku_lab.h`), copied into every box that builds; `None`:
    /// the copy built into the binary (`super::lab_kit`).
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
    /// Whether a Rust build is kept between runs in the user's cache
    /// folder (`grader check` only; see `rust_cache.rs`).
    pub rust_cache: bool,
    /// Whether the compiler's warnings about the student's files are kept
    /// (and C compiled with `-Wall`): `grader check` only.
    pub warnings: bool,
    rust: Arc<OnceLock<Result<RustToolchain, String>>>,
    c_tools: Arc<OnceLock<Result<CTools, String>>>,
    /// The host's part of each kind's view, by [`view_index`].
    views: Arc<[OnceLock<Result<HostView, String>>; 4]>,
}

/// Where `kind`'s host view is kept in [`BuildContext`].
pub(super) fn view_index(kind: ViewKind) -> usize {
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
            rust_cache: false,
            warnings: false,
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
            BuildFailure::toolchain(format!(
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
            .map_err(|e| BuildFailure::toolchain(e.clone()))
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
            .map_err(|e| BuildFailure::toolchain(e.clone()))
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
            .map_err(BuildFailure::toolchain)
    }

    /// Asks the tools for `kind`'s view.
    fn find_host_view(&self, kind: ViewKind) -> Result<HostView, String> {
        let needs_c = matches!(kind, ViewKind::CBuild | ViewKind::RustBuild);
        let c = if needs_c {
            self.c_tools().map_err(|e| e.to_string())
        } else {
            Err("not needed".to_string())
        };
        let rust = if kind == ViewKind::RustBuild {
            self.rust_toolchain()
                .map(|t| RustTools {
                    sysroot: t.sysroot.clone(),
                    programs: vec![t.cargo.clone(), t.rustc.clone()],
                })
                .map_err(|e| e.to_string())
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
pub(super) fn find_program(program: &Path) -> Option<PathBuf> {
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
pub(super) fn find_rust(rustc: &Path) -> Result<RustToolchain, String> {
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
