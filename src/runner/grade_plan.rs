//! The checked plan: everything a grading run needs besides the
//! submissions, checked before any student code runs, in one struct
//! ([`GradePlan`], as ripgrep's `HiArgs` is the checked form of its
//! flags): the cases, every one with its reference answer ([`load_cases`]),
//! where submissions are built, the sandbox, the parallelism
//! ([`GradePlan::prepare`]), and the time limits, timed on the host
//! (`super::calibrate`). `grade`, `check`, the benches and the
//! tests all grade from one.

use anyhow::{Context, bail};
use std::path::Path;

use crate::case::{self, CaseSet};
use crate::sandbox::SandboxEnv;
use crate::submission::build::BuildContext;
use crate::submission::discover::SubmissionKind;

/// The cases in `dir`, or the built-in ones; with `include_hidden` false,
/// hidden cases are left out (what `grader check` shows a student).
///
/// # Errors
/// A case file that does not load, or a case without its reference answer.
pub fn load_cases(dir: Option<&Path>, include_hidden: bool) -> anyhow::Result<CaseSet> {
    let mut cases = match dir {
        Some(dir) => case::load(&[dir.to_path_buf()])?,
        None => {
            if include_hidden {
                crate::note!(
                    "note: no --cases given: grading the built-in public cases only (hidden cases are never built into the binary)"
                );
            }
            case::builtin()
        }
    };
    if let Some(case) = cases.cases.iter().find(|c| c.solutions.is_none()) {
        bail!(
            "{}:{}: case `{}` has no reference answer yet: run `grader reference {}` first",
            case.file.display(),
            case.line,
            case.name,
            dir.map(|d| d.display().to_string()).unwrap_or_default()
        );
    }
    if !include_hidden {
        cases.cases.retain(|c| !c.hidden);
    }
    Ok(cases)
}

/// Everything a grading run needs besides the submissions, checked before
/// any student code runs.
pub struct GradePlan {
    /// The cases, every one with its reference answer.
    pub cases: CaseSet,
    /// Where and how submissions are built.
    pub build: BuildContext,
    /// Which safeguards the boxes apply.
    pub sandbox: SandboxEnv,
    /// Submissions graded at once.
    pub jobs: usize,
    /// The time limit of each test (see `crate::runner::limits`).
    pub limits: crate::runner::limits::TimeLimits,
}

/// The kinds of submission at `path`: its own, when it is one; else those
/// of the entries of the folder (a quick look, for
/// [`BuildContext::warm_up`]).
fn kinds_in(path: &Path) -> Vec<SubmissionKind> {
    use crate::submission::discover::classify;
    if let Ok(kind) = classify(path).kind {
        return vec![kind];
    }
    let mut kinds = Vec::new();
    for entry in std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .take(10_000)
    {
        if let Ok(kind) = classify(&entry.path()).kind {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
    }
    kinds
}

impl GradePlan {
    /// The grading plan for `cases`: build context, sandbox (its notices
    /// printed once, to stderr, when `show_notices`: `grader check` shows
    /// them with `-v` only, a student cannot act on them), and
    /// parallelism. `submissions` (the folder or file graded) and the
    /// folders of the case files are hidden inside every box. The time
    /// limits are set next, by `crate::runner::calibrate::calibrate`.
    ///
    /// # Errors
    /// When the lab crate cannot be found.
    pub fn prepare(
        cases: CaseSet,
        jobs: Option<usize>,
        submissions: &Path,
        show_notices: bool,
    ) -> anyhow::Result<GradePlan> {
        crate::sandbox::cleanup::install();
        // Before anything asks for python3: the modules grader.toml allows
        // are part of what it is found with.
        crate::worker::python::allow_modules(&cases.config.python_modules)
            .map_err(anyhow::Error::msg)?;
        let build =
            BuildContext::new().context("cannot find the lab crate to build submissions with")?;
        build.warm_up(kinds_in(submissions));
        let mut sandbox = SandboxEnv::detect();
        if show_notices {
            for notice in sandbox.notices() {
                eprintln!("note: {notice}");
            }
        }
        let mut hide: Vec<std::path::PathBuf> = cases
            .cases
            .iter()
            .filter_map(|c| c.file.parent().map(Path::to_path_buf))
            .chain(std::iter::once(submissions.to_path_buf()))
            .filter(|p| !p.as_os_str().is_empty())
            .filter_map(|p| p.canonicalize().ok())
            .filter(|p| p.is_dir() && p.parent().is_some())
            .collect();
        hide.sort();
        hide.dedup();
        sandbox.hide = hide;
        let jobs = jobs
            .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
            .unwrap_or(1)
            .max(1);
        Ok(GradePlan {
            cases,
            build,
            sandbox,
            jobs,
            limits: Default::default(),
        })
    }
}
