//! The builds: a C file compiled under a fixed name, a Rust crate built
//! by the toolchain's own `cargo` with the lab crate installed beside it,
//! each run in the submission's box ([`run_in_box`]), whose failures to run
//! a tool are the grader's fault.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::protocol::{BuildJob, Deadlines, ViewKind};
use crate::sandbox::view;
use crate::sandbox::{BuildRun, SubmissionBox};
use crate::submission::discover::Submission;
use crate::verdict::FaultKind;

use super::copy::{
    CopyBudget, MAX_SOURCE_BYTES, copy_crate, copy_into, grader_io, read_limited, refuse_symlink,
};
use super::failure::{BuildFailure, seconds};
use super::rust_cache::{self, RustCache};
use super::slot::{short_hash, slot_name};
use super::toolchain::BuildContext;
use super::trim::trim_compiler_output;
use super::warnings::{self, CompilerWarning};

/// The fixed name a C submission is compiled under (never a name the
/// student chose: `@opts.c` or `-x.c` would become compiler options).
pub(super) const C_SOURCE: &str = "submission.c";

/// Compiles the C submission inside the box into `code/lib.so`; returns
/// it with the compiler's warnings about the student's file (`-Wall`, when
/// the context keeps warnings).
pub(super) fn build_c(
    sub: &Submission,
    ctx: &BuildContext,
    sandbox: &mut SubmissionBox<'_>,
) -> Result<(PathBuf, Vec<CompilerWarning>), BuildFailure> {
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
    crate::submission::scan::refuse_c_reads(&source, &shown_name)?;
    for dir in [&src, &tmp] {
        std::fs::create_dir_all(dir).map_err(|e| grader_io("create", dir, e))?;
    }
    std::fs::write(src.join(C_SOURCE), &source)
        .map_err(|e| grader_io("write the source copy into", &src, e))?;
    give_to_box(&work, sandbox)?;
    let lab_include = install_lab(ctx, sandbox)?.join("include");
    let view = build_view(ctx, sandbox, ViewKind::CBuild)?;
    // `-Wall` only where its warnings are shown (`grader check`): a grade's
    // build stays as it was.
    let wall: Option<String> = ctx.warnings.then(|| "-Wall".into());
    let job = BuildJob {
        program: cc,
        args: wall
            .into_iter()
            .chain([
                "-O2".into(),
                "-shared".into(),
                "-fPIC".into(),
                "-pthread".into(),
                "-I".into(),
                lab_include.to_string_lossy().into_owned(),
                "-o".into(),
                product.to_string_lossy().into_owned(),
                C_SOURCE.into(),
                // The maths library, after the source that needs it: learners
                // work out the box's side with `sqrt` (`<math.h>`), which
                // without it is an undefined symbol at load time.
                "-lm".into(),
            ])
            .collect(),
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
    let found = match ctx.warnings {
        true => {
            let text = strip_folders(&run.output, &strip)
                .replace(&format!("{C_SOURCE}:"), &format!("{shown_name}:"));
            warnings::student_warnings(&text, |f| f == shown_name, |_| None)
        }
        false => Vec::new(),
    };
    Ok((
        copy_into(&product, &sandbox.code_dir().join("lib.so"))?,
        found,
    ))
}

/// `output` with each of `folders` (absolute) removed from its paths.
fn strip_folders(output: &str, folders: &[&Path]) -> String {
    let mut prefixes: Vec<String> = folders
        .iter()
        .filter(|p| p.is_absolute() && p.as_os_str().len() > 1)
        .map(|p| format!("{}/", p.display()))
        .collect();
    prefixes.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let mut text = output.to_string();
    for prefix in &prefixes {
        text = text.replace(prefix.as_str(), "");
    }
    text
}

/// Builds a Rust crate from a copy inside the box, with a target folder of
/// its own, and copies the library into `code/lib.so`; returns it with
/// rustc's warnings about the student's files (when the context keeps
/// warnings).
pub(super) fn build_rust(
    sub: &Submission,
    ctx: &BuildContext,
    sandbox: &mut SubmissionBox<'_>,
) -> Result<(PathBuf, Vec<CompilerWarning>), BuildFailure> {
    let toolchain = ctx.rust_toolchain()?;
    let work = sandbox.work_dir();
    let copy = work.join("crate");
    let target = work.join("target");
    let tmp = work.join("tmp");
    let home = work.join("cargo-home");
    refuse_symlink(&sub.path)?;
    let manifest_bytes = read_limited(
        &sub.path.join("Cargo.toml"),
        crate::submission::manifest::MAX_MANIFEST_BYTES,
        "manifest",
    )?;
    let manifest_text = String::from_utf8(manifest_bytes).map_err(|_| {
        BuildFailure::Invalid("Cargo.toml is not UTF-8 text: save it as UTF-8".to_string())
    })?;
    let slot = slot_name(&sub.id);
    let lib_name = format!("{slot}_{}", short_hash(&sub.id));
    let box_lab = install_lab(ctx, sandbox)?;
    // `grader check` keeps the build between runs (`rust_cache.rs`): the
    // lab then sits inside the crate's copy, the same to cargo in every box.
    let cache = match ctx.rust_cache {
        true => RustCache::open(&sub.path, &toolchain.rustc, &toolchain.cargo, &box_lab),
        false => None,
    };
    let lab = match cache {
        Some(_) => copy.join(rust_cache::LAB_FOLDER),
        None => box_lab.clone(),
    };
    let manifest =
        crate::submission::manifest::rewrite_manifest(&manifest_text, &sub.path, &lab, &lib_name)?;
    let mut budget = CopyBudget::for_a_crate();
    copy_crate(&sub.path, &copy, Path::new(""), &mut budget)?;
    std::fs::write(copy.join("Cargo.toml"), manifest)
        .map_err(|e| grader_io("write the crate's manifest", &copy, e))?;
    for dir in [&tmp, &home] {
        std::fs::create_dir_all(dir).map_err(|e| grader_io("create", dir, e))?;
    }
    if let Some(cache) = &cache {
        rust_cache::place_lab(&box_lab, &lab)
            .map_err(|e| grader_io("copy the lab crate into", &lab, e))?;
        cache.restore(&target);
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
    if let Some(cache) = cache.as_ref().filter(|_| !run.timed_out) {
        cache.keep(&target);
    }
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
    let found = match ctx.warnings {
        true => {
            let text = strip_folders(&run.output, &strip);
            let source = |file: &str| {
                let bytes = read_limited(&copy.join(file), MAX_SOURCE_BYTES, "source file").ok()?;
                String::from_utf8(bytes).ok()
            };
            warnings::student_warnings(
                &text,
                |f| warnings::is_student_rust_file(f, rust_cache::LAB_FOLDER),
                source,
            )
        }
        false => Vec::new(),
    };
    Ok((
        copy_into(&produced, &sandbox.code_dir().join("lib.so"))?,
        found,
    ))
}

/// The box's view for a build of `kind`: a box without one (its tool
/// was not found when the box was made) is the grader's fault.
pub(super) fn build_view(
    ctx: &BuildContext,
    sandbox: &SubmissionBox<'_>,
    kind: ViewKind,
) -> Result<crate::protocol::View, BuildFailure> {
    match sandbox.view(kind) {
        Some(view) => Ok(view.clone()),
        None => Err(ctx.host_view(kind).err().unwrap_or_else(|| {
            BuildFailure::sandbox(format!(
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
pub(super) const TOOL_FAULTS: &[&str] = &[
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
pub(super) fn tool_fault(output: &str) -> Option<&str> {
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
pub(super) fn run_in_box(
    sandbox: &mut SubmissionBox<'_>,
    job: BuildJob,
    tool: &str,
) -> Result<BuildRun, BuildFailure> {
    let mut tries = 0;
    let run = loop {
        tries += 1;
        let run = sandbox
            .run_build(job.clone())
            .map_err(|e| BuildFailure::sandbox(format!("cannot run {tool} in the box: {e}")))?;
        if !run.undecided {
            break run;
        }
        if tries == BUILD_TRIES {
            return Err(BuildFailure::Grader {
                kind: FaultKind::HostBusy,
                message: format!(
                    "the host was too busy to time the build: {tool} was still under its CPU limit at the wall-clock backstop of {} ({tries} tries); grade again on a quieter machine or with fewer --jobs",
                    seconds(Duration::from_millis(job.deadlines.backstop_ms))
                ),
            });
        }
    };
    if run.exit_code == Some(crate::protocol::BOX_SETUP_FAILED_EXIT) {
        if let Some(line) = run
            .output
            .lines()
            .find(|l| l.starts_with(crate::protocol::BOX_SETUP_FAILED_PREFIX))
        {
            return Err(BuildFailure::sandbox(format!(
                "cannot run {tool}: {}",
                line.trim_start_matches(crate::protocol::BOX_SETUP_FAILED_PREFIX)
            )));
        }
    }
    if !run.success {
        if let Some(line) = tool_fault(&run.output) {
            return Err(BuildFailure::toolchain(format!(
                "{tool} could not set itself up in the box: {}",
                crate::visible::visible_line(line.trim())
            )));
        }
    }
    Ok(run)
}

/// How many times a build the host was too busy to time is run.
pub(super) const BUILD_TRIES: u32 = 3;

/// Copies the lab crate (its manifest, made standalone, `src/` and
/// `include/`) into the box's read-only `lab/` folder, once; returns it.
pub(super) fn install_lab(
    ctx: &BuildContext,
    sandbox: &SubmissionBox<'_>,
) -> Result<PathBuf, BuildFailure> {
    let lab = sandbox.lab_dir();
    if lab.join("Cargo.toml").is_file() {
        return Ok(lab);
    }
    let Some(lab_crate) = &ctx.lab_crate else {
        crate::submission::lab_kit::write_lab_crate(&lab)
            .map_err(|e| grader_io("write the lab crate into", &lab, e))?;
        return Ok(lab);
    };
    for sub in ["src", "include"] {
        let mut budget = CopyBudget::for_a_crate();
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
pub(super) fn standalone_manifest(text: &str) -> String {
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
pub(super) fn give_to_box(work: &Path, sandbox: &SubmissionBox<'_>) -> Result<(), BuildFailure> {
    let Some(uid) = sandbox.uid() else {
        return Ok(());
    };
    chown_tree(work, uid).map_err(|e| grader_io("hand over", work, e))
}

/// `chown -R uid:uid`, never following a link.
pub(super) fn chown_tree(path: &Path, uid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(uid))?;
    if std::fs::symlink_metadata(path)?.is_dir() {
        for entry in std::fs::read_dir(path)? {
            chown_tree(&entry?.path(), uid)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
