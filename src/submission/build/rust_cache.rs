//! The Rust build cache of `grader check`: one per project, in the user's
//! cache folder, so that a warm check compiles only the student's crate
//! and keeps the lab crate (the one dependency) from the last check.
//!
//! cargo reuses a dependency's build only when the dependency's identity
//! and files are the same, and it names a path dependency by its path
//! relative to the workspace when it lies inside it (by its absolute path
//! otherwise). Every box has a fresh folder, so a cached check places the
//! lab crate inside the crate's copy (`crate/.grader-lab`, the workspace's
//! own), with every file's time set to [`LAB_TIME`], and keeps the
//! `target` folder: restored before the build, kept after it.
//!
//! The cache lives in the user's cache folder (`$XDG_CACHE_HOME/grader`,
//! or `~/.cache/grader`), opened as trusted state (`state::trusted_dir`),
//! one file per project, named by the project's folder. It is reused only
//! under its key: the grader's version, the toolchain (`rustc` and `cargo`
//! as files: path, size, time) and the lab crate's files; any change and
//! the build starts from nothing (cargo itself also refuses artefacts of
//! another `rustc`). `grader grade` never uses it: a grade must not depend
//! on a cache a student could fill.

use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime};

use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::state::results_dir::hex;
use crate::state::trusted_dir::TrustedDir;

/// The format tag of a cache file.
const FORMAT: &str = "grader-rust-build-1";

/// The largest cache file read or written (the lab's artefacts are about
/// a megabyte; a cache that grew past this is rebuilt, not kept).
const MAX_FILE_BYTES: u64 = 32 << 20;

/// The folder of the lab crate inside the crate's copy.
pub(super) const LAB_FOLDER: &str = ".grader-lab";

/// The time every file of the cached lab copy is given (older than any
/// build, the same in every box).
pub(super) const LAB_TIME: Duration = Duration::from_secs(946_684_800); // 2000-01-01

/// One project's build cache.
pub(super) struct RustCache {
    dir: TrustedDir,
    file: String,
    key: String,
}

/// A cache file: its format, its key, the target folder's files.
#[derive(Serialize, Deserialize)]
struct Stored {
    format: String,
    key: String,
    files: Vec<StoredFile>,
}

/// One file of the target folder: its path inside it, its time
/// (nanoseconds since 1970), its bytes (base64).
#[derive(Serialize, Deserialize)]
struct StoredFile {
    path: String,
    nanos: u64,
    bytes: String,
}

impl RustCache {
    /// The cache of the project at `project` (the student's crate) with
    /// the toolchain `rustc` and `cargo` and the lab crate's copy `lab`;
    /// `None` when there is no cache folder to use.
    pub(super) fn open(project: &Path, rustc: &Path, cargo: &Path, lab: &Path) -> Option<Self> {
        let folder = crate::state::trusted_dir::cache_folder()?;
        let dir = TrustedDir::open(&folder, true).ok()?;
        let project = project.canonicalize().ok()?;
        let mut name = Sha256::new();
        name.update(project.as_os_str().as_encoded_bytes());
        let file = format!("rust-build-{}.json", &hex(&name.finalize())[..16]);
        let mut key = Sha256::new();
        key.update(crate::state::results_dir::grader_version());
        for tool in [rustc, cargo] {
            key.update(file_identity(tool));
        }
        for (path, bytes) in files_under(lab) {
            key.update((path.len() as u64).to_le_bytes());
            key.update(path.as_bytes());
            key.update((bytes.len() as u64).to_le_bytes());
            key.update(&bytes);
        }
        Some(RustCache {
            dir,
            file,
            key: hex(&key.finalize()),
        })
    }

    /// Writes the kept target folder into `target`, when there is one
    /// under this key; returns how many files. A file that cannot be read
    /// or holds a path leaving the folder is a miss, never an error.
    pub(super) fn restore(&self, target: &Path) -> usize {
        let Some(stored) = self
            .dir
            .read(std::ffi::OsStr::new(&self.file), MAX_FILE_BYTES)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Stored>(&bytes).ok())
            .filter(|stored| stored.format == FORMAT && stored.key == self.key)
        else {
            return 0;
        };
        let engine = base64::engine::general_purpose::STANDARD;
        let mut written = 0;
        for file in &stored.files {
            let relative = Path::new(&file.path);
            if !relative
                .components()
                .all(|c| matches!(c, Component::Normal(_)))
            {
                continue;
            }
            let Ok(bytes) = engine.decode(&file.bytes) else {
                continue;
            };
            let path = target.join(relative);
            let made = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&path, bytes))
                .and_then(|()| set_time(&path, Duration::from_nanos(file.nanos)));
            if made.is_ok() {
                written += 1;
            }
        }
        written
    }

    /// Keeps the target folder `target` (its regular files, with their
    /// times); a failure to keep costs only a longer build next time.
    pub(super) fn keep(&self, target: &Path) {
        let engine = base64::engine::general_purpose::STANDARD;
        let mut total = 0u64;
        let mut files = Vec::new();
        for (path, bytes) in files_under(target) {
            total += bytes.len() as u64;
            if total > MAX_FILE_BYTES / 2 {
                return;
            }
            let nanos = std::fs::symlink_metadata(target.join(&path))
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as u64);
            files.push(StoredFile {
                path,
                nanos,
                bytes: engine.encode(bytes),
            });
        }
        let stored = Stored {
            format: FORMAT.to_string(),
            key: self.key.clone(),
            files,
        };
        if let Ok(bytes) = serde_json::to_vec(&stored) {
            let _ = self.dir.write_atomic(&self.file, &bytes);
        }
    }
}

/// A file as a key sees it: its path, size and time (a toolchain that is
/// updated is rewritten).
fn file_identity(path: &Path) -> String {
    let meta = std::fs::metadata(path).ok();
    let time = meta
        .as_ref()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let size = meta.map_or(0, |m| m.len());
    format!("{} {size} {time}\n", path.display())
}

/// Every regular file under `root` (no link followed), by its path
/// relative to `root`, sorted.
fn files_under(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let relative = folder.join(entry.file_name());
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                folders.push(relative);
            } else if kind.is_file() {
                if let (Some(name), Ok(bytes)) =
                    (relative.to_str(), std::fs::read(root.join(&relative)))
                {
                    found.push((name.to_string(), bytes));
                }
            }
        }
    }
    found.sort();
    found
}

/// Sets the modification time of `path` to `since_epoch`.
pub(super) fn set_time(path: &Path, since_epoch: Duration) -> std::io::Result<()> {
    std::fs::File::options()
        .write(true)
        .open(path)
        .or_else(|_| std::fs::File::open(path))?
        .set_modified(SystemTime::UNIX_EPOCH + since_epoch)
}

/// Copies the lab crate at `from` to `to` (inside the crate's copy), every
/// file's time set to [`LAB_TIME`], so that every box's copy is the same
/// to cargo.
pub(super) fn place_lab(from: &Path, to: &Path) -> std::io::Result<()> {
    if to.exists() {
        // A folder of the student's by that name: the grader's takes its place.
        std::fs::remove_dir_all(to)?;
    }
    for (path, bytes) in files_under(from) {
        let dest = to.join(&path);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&dest, bytes)?;
        set_time(&dest, LAB_TIME)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_target_comes_back_with_its_times_and_nothing_leaves_it() {
        let home = tempfile::tempdir().unwrap();
        let dir = TrustedDir::open(&home.path().join("cache"), true).unwrap();
        let cache = RustCache {
            dir,
            file: "rust-build-x.json".to_string(),
            key: "k".to_string(),
        };
        let built = home.path().join("built");
        std::fs::create_dir_all(built.join("release/deps")).unwrap();
        std::fs::write(built.join("release/deps/liblab.rlib"), b"lab").unwrap();
        set_time(
            &built.join("release/deps/liblab.rlib"),
            Duration::from_secs(1_000_000),
        )
        .unwrap();
        cache.keep(&built);
        let fresh = home.path().join("fresh");
        assert_eq!(cache.restore(&fresh), 1);
        let path = fresh.join("release/deps/liblab.rlib");
        assert_eq!(std::fs::read(&path).unwrap(), b"lab");
        let time = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert_eq!(
            time,
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000)
        );
        // Another key: a miss.
        let other = RustCache {
            key: "other".to_string(),
            ..cache
        };
        assert_eq!(other.restore(&home.path().join("other")), 0);
        // A path that leaves the folder is not written.
        let stored = Stored {
            format: FORMAT.to_string(),
            key: "k".to_string(),
            files: vec![StoredFile {
                path: "../escaped".to_string(),
                nanos: 0,
                bytes: "eA==".to_string(),
            }],
        };
        other
            .dir
            .write_atomic(&other.file, &serde_json::to_vec(&stored).unwrap())
            .unwrap();
        let cache = RustCache {
            key: "k".to_string(),
            ..other
        };
        assert_eq!(cache.restore(&home.path().join("t")), 0);
        assert!(!home.path().join("escaped").exists());
    }
}
