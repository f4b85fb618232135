//! Copying what a build reads into the box, within size budgets checked
//! on disk before reading (a sparse 1 GiB file costs nothing to refuse),
//! and refusing every symbolic link (it could name the hidden cases or
//! another student's files).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::failure::BuildFailure;

/// The largest source file (or any one file of a crate), in bytes.
pub(super) const MAX_SOURCE_BYTES: u64 = 1 << 20;

/// The largest submission (all files of a crate), in bytes.
pub(super) const MAX_SUBMISSION_BYTES: u64 = 16 << 20;

/// The largest prebuilt library, in bytes.
pub(super) const MAX_LIBRARY_BYTES: u64 = 64 << 20;

/// The most files of a crate the grader copies.
pub(super) const MAX_CRATE_FILES: usize = 10_000;

/// What is left of the size budget for copying a crate.
pub(super) struct CopyBudget {
    bytes: u64,
    files: usize,
}

impl CopyBudget {
    /// The budget of one crate: [`MAX_SUBMISSION_BYTES`] in at most
    /// [`MAX_CRATE_FILES`] files.
    pub(super) fn for_a_crate() -> CopyBudget {
        CopyBudget {
            bytes: MAX_SUBMISSION_BYTES,
            files: MAX_CRATE_FILES,
        }
    }
}

/// Copies a crate folder, leaving out `target/`, hidden entries (`.git`,
/// `.cargo`) and toolchain pins; refuses symbolic links and files over
/// the size limits (by their size on disk, before reading them). `rel` is
/// where `from` lies inside the crate, for messages. Each `.rs` file is
/// checked by [`crate::submission::scan::refuse_rust_reads`] as it is copied.
pub(super) fn copy_crate(
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
                crate::submission::scan::refuse_rust_reads(&bytes, &shown)?;
            }
            std::fs::write(&dest, &bytes).map_err(|e| grader_io("copy", &entry.path(), e))?;
        }
    }
    Ok(())
}

/// Reads the file at `path`, refusing a symbolic link (never followed) and
/// a file over `limit` bytes by its size on disk, before reading it.
/// `what` names the file in the message ("source file", "manifest").
pub(super) fn read_limited(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, BuildFailure> {
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

/// Writes the Python module of the notebook `from` to `to`, with the
/// checks of [`read_limited`] (the module itself at most
/// [`MAX_SOURCE_BYTES`]); returns the conversion (its note, its cells).
pub(super) fn notebook_as_python(
    from: &Path,
    to: &Path,
) -> Result<(PathBuf, crate::submission::notebook::Converted), BuildFailure> {
    use crate::submission::notebook;
    let shown = from.file_name().unwrap_or_default().to_string_lossy();
    let bytes = read_limited(from, notebook::MAX_NOTEBOOK_BYTES, "notebook")?;
    let python = notebook::to_python(&bytes, &shown).map_err(BuildFailure::Invalid)?;
    if python.source.len() as u64 > MAX_SOURCE_BYTES {
        return Err(too_big(
            Path::new(shown.as_ref()),
            python.source.len() as u64,
            MAX_SOURCE_BYTES,
            "source file (the notebook's code cells)",
        ));
    }
    std::fs::write(to, &python.source).map_err(|e| grader_io("write", to, e))?;
    Ok((to.to_path_buf(), python))
}

/// Copies a single-file submission after the checks of [`read_limited`].
pub(super) fn copy_limited(
    from: &Path,
    to: &Path,
    limit: u64,
    what: &str,
) -> Result<PathBuf, BuildFailure> {
    let bytes = read_limited(from, limit, what)?;
    std::fs::write(to, bytes).map_err(|e| grader_io("write", to, e))?;
    Ok(to.to_path_buf())
}

/// Refuses `path` if it is itself a symbolic link.
pub(super) fn refuse_symlink(path: &Path) -> Result<(), BuildFailure> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(symlink_refused(Path::new(
            path.file_name().unwrap_or(path.as_os_str()),
        ))),
        _ => Ok(()),
    }
}

pub(super) fn symlink_refused(shown: &Path) -> BuildFailure {
    BuildFailure::Invalid(format!(
        "{} is a symbolic link: links are refused, never followed (one could name files outside the submission); hand in the file itself",
        shown.display()
    ))
}

pub(super) fn too_big(shown: &Path, len: u64, limit: u64, what: &str) -> BuildFailure {
    BuildFailure::Invalid(format!(
        "{} is {} bytes, over the limit of {} for a {what}: hand in the sources only",
        shown.display(),
        len,
        size_text(limit)
    ))
}

/// `64 KiB`, `16 MiB`.
pub(super) fn size_text(bytes: u64) -> String {
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
pub(super) fn copy_into(from: &Path, to: &Path) -> Result<PathBuf, BuildFailure> {
    std::fs::copy(from, to)
        .map_err(|e| BuildFailure::Invalid(format!("cannot copy {}: {e}", from.display())))?;
    Ok(to.to_path_buf())
}

pub(super) fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

pub(super) fn grader_io(what: &str, path: &Path, e: std::io::Error) -> BuildFailure {
    BuildFailure::sandbox(format!("cannot {what} {}: {e}", path.display()))
}
