//! A box's folder on the host: made once per box, under the run's root,
//! with the owners and modes that let only the box user and root in
//! ([`make_box_dir`]). A module of its own so that the host's safeguards
//! (`host.rs`) and the box (`submission_box.rs`) both use it without
//! reaching each other.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Makes a box folder under `run_root`: the folder itself `0750`, group
/// the box's (so only the box user and root enter), `lab/` and `code/`
/// root's and read-only to the box, `work/` the box user's.
pub(crate) fn make_box_dir(run_root: &Path, uid: Option<u32>) -> io::Result<PathBuf> {
    let dir = tempfile::Builder::new()
        .prefix("box-")
        .tempdir_in(run_root)?
        .keep();
    let set =
        |path: &Path, mode: u32| std::fs::set_permissions(path, PermissionsExt::from_mode(mode));
    for sub in ["lab", "code", "work"] {
        std::fs::create_dir(dir.join(sub))?;
        set(&dir.join(sub), 0o755)?;
    }
    match uid {
        Some(uid) => {
            set(&dir, 0o750)?;
            std::os::unix::fs::chown(&dir, Some(0), Some(uid))?;
            std::os::unix::fs::chown(dir.join("work"), Some(uid), Some(uid))?;
            set(&dir.join("work"), 0o700)?;
        }
        None => set(&dir, 0o700)?,
    }
    Ok(dir)
}
