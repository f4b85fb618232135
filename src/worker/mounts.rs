//! The box's mount namespace: a private root. Before it reports ready, the
//! box's init (`init.rs`) builds an empty file system holding only the
//! union of the box's views ([`crate::sandbox::view`]) and moves into it,
//! so nothing else of the host exists for any process of the box: no
//! `/etc` beyond the loader's cache, no `/opt`, `/home`, `/root`, no other
//! student's files, no cases, and no parent folder of a build that anyone
//! else could write to.
//!
//! The root, a small tmpfs made read-only at the end, holds:
//!
//! - each view entry at its host path, bound in read-only (the work folder
//!   read-write), not recursively (no mount below it comes along), with
//!   every symbolic link on the way to it recreated with the same target
//!   (`/usr/bin/cc -> /etc/alternatives/cc -> ...`, `/lib -> usr/lib`);
//! - the frame ([`crate::sandbox::view::FRAME`]): the box's own `/proc`
//!   (mounted in the box's PID namespace, so it shows the box's processes
//!   only) and the device nodes `/dev/null`, `/dev/zero`, `/dev/urandom`;
//! - an empty `/tmp` (nothing of the host's);
//! - an empty read-only tmpfs over any hidden folder (the cases, the
//!   submissions) that lies inside a bound entry.
//!
//! Then `pivot_root` into it and the old root is detached. Any failure is
//! the box's (the grader's) fault: a box is never run half-made.

use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use super::sys;
use crate::protocol::{Access, BoxSetup};
use crate::sandbox::view;

/// The mount options of the root.
const ROOT_OPTIONS: &str = "size=1m,mode=0755";

/// Builds the private root and moves into it; returns notes for the
/// grader (none today).
///
/// # Errors
/// When any part of the root cannot be made (then nothing runs in the
/// box).
pub(super) fn prepare(setup: &BoxSetup) -> Result<Vec<String>, String> {
    let err = |what: &str, e: std::io::Error| format!("the box could not {what}: {e}");
    sys::mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    )
    .map_err(|e| err("make its mounts private", e))?;
    let root = setup.dir.join("root");
    if !root.is_dir() {
        std::fs::create_dir(&root).map_err(|e| err("make its root", e))?;
    }
    let nodev = libc::MS_NOSUID | libc::MS_NODEV;
    sys::mount(
        Some(Path::new("none")),
        &root,
        Some("tmpfs"),
        nodev,
        Some(ROOT_OPTIONS),
    )
    .map_err(|e| err("mount its root", e))?;
    let entries = view::union(&setup.views);
    make_dirs(&root, Path::new("/tmp"))?;
    let proc = make_dirs(&root, Path::new("/proc"))?;
    sys::mount(
        Some(Path::new("proc")),
        &proc,
        Some("proc"),
        nodev | libc::MS_NOEXEC,
        None,
    )
    .map_err(|e| err("mount its own /proc", e))?;
    for device in &view::FRAME[1..4] {
        let device = Path::new(device);
        if device.exists() {
            bind(&root, device, device, BindMode::Device)?;
        }
    }

    // Every other entry: its links, then its real path, parents first; a
    // path visible through a bound parent with the same rights is not
    // bound again.
    let mut chains = Vec::new();
    for entry in &entries {
        if entry.access == Access::Device {
            continue;
        }
        // A path the host does not have (a toolchain removed since it was
        // found) is left out: the tool then fails, as the grader's fault.
        let Ok(chain) = view::chain(&entry.path) else {
            continue;
        };
        for (link, target) in &chain.links {
            let parent = link.parent().unwrap_or(Path::new("/"));
            let at = make_dirs(&root, parent)?.join(link.file_name().unwrap_or_default());
            if std::fs::symlink_metadata(&at).is_err() {
                std::os::unix::fs::symlink(target, &at)
                    .map_err(|e| err(&format!("recreate the link {}", link.display()), e))?;
            }
        }
        chains.push((chain.real, entry.access == Access::Write));
    }
    chains.sort_by_key(|(real, _)| real.components().count());
    let mut bound: Vec<(PathBuf, bool)> = Vec::new();
    for (real, writable) in chains {
        if real.starts_with("/proc") || real.starts_with("/dev") {
            continue;
        }
        if bound
            .iter()
            .any(|(b, w)| real.starts_with(b) && (*w || !writable))
        {
            continue;
        }
        let mode = if writable {
            BindMode::Write
        } else {
            BindMode::Read
        };
        bind(&root, &real, &real, mode)?;
        bound.push((real, writable));
    }

    for dir in &setup.hide {
        let Ok(real) = dir.canonicalize() else {
            continue;
        };
        if setup.dir.starts_with(&real) || !bound.iter().any(|(b, _)| real.starts_with(b)) {
            continue;
        }
        sys::mount(
            Some(Path::new("none")),
            &inside(&root, &real),
            Some("tmpfs"),
            libc::MS_RDONLY | nodev | libc::MS_NOEXEC,
            Some("size=4k,mode=0555"),
        )
        .map_err(|e| err(&format!("hide {}", real.display()), e))?;
    }

    std::env::set_current_dir(&root).map_err(|e| err("enter its root", e))?;
    sys::pivot_into_cwd().map_err(|e| err("move into its root", e))?;
    std::env::set_current_dir("/").map_err(|e| err("enter its root", e))?;
    sys::mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REMOUNT | libc::MS_RDONLY | nodev,
        Some(ROOT_OPTIONS),
    )
    .map_err(|e| err("make its root read-only", e))?;
    Ok(Vec::new())
}

/// How a path is bound into the root.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BindMode {
    /// Read-only, no set-uid, no devices.
    Read,
    /// Read-write, no set-uid, no devices.
    Write,
    /// A device node: read-write, no set-uid, no execution.
    Device,
}

/// Binds the host's `from` at `path` inside `root` (a folder or a file
/// mount point made first), then remounts it with `mode`'s flags.
fn bind(root: &Path, from: &Path, path: &Path, mode: BindMode) -> Result<(), String> {
    let err =
        |what: &str, e: std::io::Error| format!("the box could not {what} {}: {e}", path.display());
    let parent = path.parent().unwrap_or(Path::new("/"));
    let at = make_dirs(root, parent)?.join(path.file_name().unwrap_or_default());
    let meta = std::fs::metadata(from).map_err(|e| err("find", e))?;
    if std::fs::symlink_metadata(&at).is_err() {
        if meta.is_dir() {
            std::fs::create_dir(&at).map_err(|e| err("make a mount point for", e))?;
            let _ = std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o755));
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&at)
                .map_err(|e| err("make a mount point for", e))?;
        }
    }
    sys::mount(Some(from), &at, None, libc::MS_BIND, None).map_err(|e| err("bind", e))?;
    let flags = libc::MS_REMOUNT
        | libc::MS_BIND
        | libc::MS_NOSUID
        | match mode {
            BindMode::Read => libc::MS_RDONLY | libc::MS_NODEV,
            BindMode::Write => libc::MS_NODEV,
            BindMode::Device => libc::MS_NOEXEC,
        };
    sys::mount(None, &at, None, flags, None).map_err(|e| err("restrict", e))
}

/// `path` (absolute) inside `root`.
fn inside(root: &Path, path: &Path) -> PathBuf {
    let mut at = root.to_path_buf();
    for part in path.components() {
        if let Component::Normal(name) = part {
            at.push(name);
        }
    }
    at
}

/// Makes the folders of `path` inside `root` (mode 0755), one by one,
/// refusing to pass through anything but a folder (a link made for another
/// entry is never followed: its target would be the host's); returns the
/// folder.
fn make_dirs(root: &Path, path: &Path) -> Result<PathBuf, String> {
    let mut at = root.to_path_buf();
    for part in path.components() {
        let Component::Normal(name) = part else {
            continue;
        };
        at.push(name);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(format!(
                    "the box could not make {}: something else is in the way",
                    path.display()
                ));
            }
            Err(_) => {
                std::fs::create_dir(&at)
                    .and_then(|()| {
                        std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o755))
                    })
                    .map_err(|e| format!("the box could not make {}: {e}", path.display()))?;
            }
        }
    }
    Ok(at)
}
