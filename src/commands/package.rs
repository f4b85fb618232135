//! `grader package gradescope --cases DIR --out FILE.zip`: the autograder
//! zip of a Gradescope programming assignment, ready to upload.
//!
//! What the zip holds (Gradescope unzips it in `/autograder/source`):
//!
//! - `setup.sh`: installs what Gradescope's Ubuntu image lacks (a C
//!   compiler, python3, and with `--rust` a Rust toolchain);
//! - `run_autograder`: grades `/autograder/submission` as one student
//!   (`grader grade --single`) and always writes
//!   `/autograder/results/results.json`, also when the grader fails;
//! - `bin/grader` and `bin/grader-worker`: the running executables;
//! - `cases/`: the course's case files and `grader.toml`, checked first.
//!
//! The executables are dynamic (the worker `dlopen`s student libraries,
//! which a static musl build cannot; `scripts/build-portable` links them
//! against glibc 2.27): the glibc they need is read from
//! them ([`crate::commands::glibc`]) and the command says which of
//! Gradescope's base images can run the package, refusing one that none
//! can run or that `--image` names and cannot run it.

use anyhow::{Context, bail};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;

use crate::cli::GradescopePackageArgs;
use crate::exit;
use crate::runner::grade_plan::load_cases;

/// The one command that packages binaries every Gradescope image runs
/// (glibc 2.27), from grader's source folder (`scripts/build-portable`).
const PORTABLE: &str = "scripts/build-portable && target/x86_64-unknown-linux-gnu/release/grader package gradescope --cases DIR --out autograder.zip";

/// Gradescope's setup script; `@NEEDS_RUST@` becomes 0 or 1.
const SETUP_SH: &str = include_str!("gradescope/setup.sh");

/// Gradescope's per-submission script.
const RUN_AUTOGRADER: &str = include_str!("gradescope/run_autograder");

/// Runs `grader package gradescope`.
pub fn run_gradescope(args: &GradescopePackageArgs) -> anyhow::Result<u8> {
    // The cases must load, each with its reference answer, before they are
    // shipped: an autograder that fails on every upload helps nobody.
    let cases = load_cases(Some(&args.cases), true)?;
    if cases.cases.is_empty() {
        bail!("{} holds no cases", args.cases.display());
    }
    let case_files = toml_files(&args.cases)?;
    let exe = std::env::current_exe().context("cannot find the running grader executable")?;
    let bin_dir = exe
        .parent()
        .context("the running grader executable has no folder")?;
    let worker = bin_dir.join("grader-worker");
    let mut entries: Vec<(String, Vec<u8>, u32)> = vec![
        (
            "setup.sh".to_string(),
            SETUP_SH
                .replace("@NEEDS_RUST@", if args.rust { "1" } else { "0" })
                .into_bytes(),
            0o755,
        ),
        (
            "run_autograder".to_string(),
            RUN_AUTOGRADER.as_bytes().to_vec(),
            0o755,
        ),
        ("bin/grader".to_string(), read(&exe)?, 0o755),
    ];
    let mut binaries = vec![("bin/grader", exe.clone())];
    if worker.is_file() {
        entries.push(("bin/grader-worker".to_string(), read(&worker)?, 0o755));
        binaries.push(("bin/grader-worker", worker.clone()));
    } else {
        crate::note!(
            "note: no grader-worker beside {}: the package's grader runs tests as `grader worker` (slower)",
            exe.display()
        );
    }
    let runs_on = check_images(&binaries, args.image.as_deref())?;
    for file in &case_files {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        entries.push((format!("cases/{name}"), read(file)?, 0o644));
    }
    write_zip(&args.out, &entries)?;
    let hidden = cases.cases.iter().filter(|c| c.hidden).count();
    println!(
        "wrote {}: {} cases ({hidden} hidden) from {} files, grader {}{}",
        args.out.display(),
        cases.cases.len(),
        case_files.len(),
        env!("CARGO_PKG_VERSION"),
        if args.rust { ", Rust toolchain" } else { "" }
    );
    println!("{runs_on}");
    if !crate::quiet::is_quiet() {
        println!(
            "upload it as the autograder of a Gradescope programming assignment (Ubuntu image); students upload a crate or one .c/.py/.so file"
        );
    }
    Ok(exit::SUCCESS)
}

/// Which Gradescope base images can run `binaries` (name in the zip,
/// path): the line to print; a warning on stderr names the images they
/// cannot run on and why.
///
/// # Errors
/// When a binary cannot be read as an x86-64 ELF executable, when no
/// image has the glibc they need, or when `image` (`--image`) is not one
/// of those that can run them.
fn check_images(binaries: &[(&str, PathBuf)], image: Option<&str>) -> anyhow::Result<String> {
    use crate::commands::glibc::{GRADESCOPE_IMAGES, images_for, needs};
    // The binary that needs the newest glibc, and the version node that
    // says so.
    let mut needed: Option<(crate::commands::glibc::GlibcVersion, String, &str)> = None;
    for (name, path) in binaries {
        if let Some((version, node)) = needs(path)?.glibc {
            if needed.as_ref().is_none_or(|(v, _, _)| version > *v) {
                needed = Some((version, node, name));
            }
        }
    }
    let images = images_for(needed.as_ref().map(|n| n.0));
    let why = match &needed {
        Some((version, node, name)) => {
            format!("the binaries need glibc {version} ({name} names {node})")
        }
        None => "the binaries name no glibc version".to_string(),
    };
    let newest = GRADESCOPE_IMAGES[GRADESCOPE_IMAGES.len() - 1];
    if images.is_empty() {
        bail!(
            "{why}, newer than every Gradescope base image (the newest, {}, has glibc {}): build grader on a system whose glibc is at most {} and package again",
            newest.0,
            newest.1,
            newest.1
        );
    }
    if let Some(image) = image {
        if !images.contains(&image) {
            let has = GRADESCOPE_IMAGES
                .iter()
                .find(|(name, _)| *name == image)
                .map(|(_, v)| *v);
            match has {
                Some(has) => bail!(
                    "--image {image}: {why}, and {image} has glibc {has}: choose {} in the assignment's settings, or build grader for it in its source folder and package with that build: {PORTABLE}",
                    images.join(" or ")
                ),
                None => bail!(
                    "--image {image} is not a Gradescope base image grader knows: give one of {}",
                    GRADESCOPE_IMAGES
                        .iter()
                        .map(|(name, _)| *name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
    }
    let excluded: Vec<String> = GRADESCOPE_IMAGES
        .iter()
        .filter(|(name, _)| !images.contains(name))
        .map(|(name, has)| format!("{name} (glibc {has})"))
        .collect();
    if !excluded.is_empty() {
        eprintln!(
            "warning: the package does not run on Gradescope's {}: {why}; choose {} in the assignment's settings, or, for every image, build grader against glibc {} in its source folder and package with that build: {PORTABLE}",
            excluded.join(" or "),
            images.join(" or "),
            GRADESCOPE_IMAGES[0].1
        );
    }
    Ok(format!(
        "runs on Gradescope's base images {} ({why})",
        images.join(", ")
    ))
}

fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// The `.toml` files at the top of `dir` (case files and `grader.toml`),
/// sorted.
pub(crate) fn toml_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list the cases in {}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Writes `entries` (name, bytes, unix mode) as a zip at `out`, through a
/// temporary file renamed into place.
fn write_zip(out: &Path, entries: &[(String, Vec<u8>, u32)]) -> anyhow::Result<()> {
    let folder = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let temp = tempfile::Builder::new()
        .prefix(".package-")
        .tempfile_in(&folder)
        .with_context(|| {
            format!(
                "cannot write in {}: check that the folder of --out exists and is writable",
                folder.display()
            )
        })?;
    let mut zip = zip::ZipWriter::new(temp);
    for (name, bytes, mode) in entries {
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(*mode);
        zip.start_file(name.as_str(), options)
            .with_context(|| format!("cannot add {name} to the zip"))?;
        zip.write_all(bytes)
            .with_context(|| format!("cannot add {name} to the zip"))?;
    }
    let temp = zip.finish().context("cannot finish the zip")?;
    // A temporary file is private (0600); the package is an ordinary file.
    std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o644))
        .with_context(|| format!("cannot set the permissions of {}", temp.path().display()))?;
    temp.persist(out)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write {}", out.display()))?;
    Ok(())
}
