//! A folder whose contents the grader trusts (the results folder of
//! `grade --results DIR` and `report DIR`), opened as such:
//!
//! - the folder must belong to the grader's own user and be writable by
//!   nobody else (no group or other write bit); every folder on its path
//!   must belong to root or to that user and be writable by nobody else,
//!   unless it is sticky (`/tmp`: others cannot rename or remove what is
//!   ours in it); a link on the path is followed only when root or the
//!   grader's user made it, and the folder itself is never a link;
//! - it is opened folder by folder from `/` without following links
//!   (`O_DIRECTORY | O_NOFOLLOW`, `openat` from the folder above), and
//!   every file in it is opened relative to that open folder;
//! - a file is read only when it is a regular file of the grader's own
//!   user, opened without following a link and without blocking (a FIFO
//!   never hangs the grader), and no bigger than the caller's cap (a huge
//!   or endless file is never read);
//! - a file is written under a fresh name in the folder (`O_EXCL`, never
//!   following a link), synced, then renamed over its name (`renameat`),
//!   so a reader sees the old file or the new one.
//!
//! Another local user who made the folder first (a shared
//! `/tmp/lab3-results`), or who can write to it or to a folder on its
//! path, could plant what the grader reads or redirect what it writes:
//! such a folder is refused, saying why and what to do.

use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The grader's effective user id.
pub(crate) fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// An open folder the grader trusts (see the module doc).
pub(crate) struct TrustedDir {
    fd: OwnedFd,
    path: PathBuf,
}

/// Why a file of the folder was not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refusal {
    /// There is no such file.
    #[error("there is no such file")]
    Missing,
    /// A link, never followed.
    #[error("it is a symbolic link (never followed): remove it")]
    Link,
    /// Not a regular file (a FIFO, a device, a socket, a folder).
    #[error("it is not a regular file but {0}: remove it")]
    NotRegular(&'static str),
    /// Another user's file.
    #[error("it belongs to uid {0}, not to the grader's user ({1}): remove it")]
    OtherOwner(u32, u32),
    /// Bigger than the cap.
    #[error("it holds {0} bytes, more than a result can ({1}): remove it")]
    TooBig(u64, u64),
    /// Reading failed.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// `$XDG_CACHE_HOME/grader`, or `$HOME/.cache/grader` (absolute paths
/// only, as the XDG spec asks).
pub(crate) fn cache_folder() -> Option<PathBuf> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    absolute("XDG_CACHE_HOME")
        .or_else(|| absolute("HOME").map(|home| home.join(".cache")))
        .map(|cache| cache.join("grader"))
}

impl TrustedDir {
    /// Opens the folder `path` (making it, mode 0700, with `create`),
    /// after the checks of the module doc.
    ///
    /// # Errors
    /// Why the folder is refused or cannot be opened, in words that say
    /// what to do.
    pub(crate) fn open(path: &Path, create: bool) -> Result<TrustedDir, String> {
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir()
                .map_err(|e| format!("cannot find the current folder: {e}"))?
                .join(path)
        };
        let (Some(name), Some(parent)) = (absolute.file_name(), absolute.parent()) else {
            return Err(format!(
                "{} names no folder: give the results folder by its name",
                path.display()
            ));
        };
        if matches!(
            absolute.components().next_back(),
            Some(Component::ParentDir | Component::CurDir)
        ) {
            return Err(format!(
                "{} ends in `..` or `.`: give the results folder by its name",
                path.display()
            ));
        }
        let me = euid();
        // A link on the way is followed only when root or we made it.
        for prefix in parent.ancestors() {
            if let Ok(meta) = std::fs::symlink_metadata(prefix) {
                if meta.file_type().is_symlink() && meta.uid() != 0 && meta.uid() != me {
                    return Err(format!(
                        "{} is a symbolic link made by uid {}, another user: they choose where it leads; give a path without it",
                        prefix.display(),
                        meta.uid()
                    ));
                }
            }
        }
        // With `create`, folders missing on the way are made (mode 0700).
        let mut existing = parent;
        let mut missing: Vec<&OsStr> = Vec::new();
        while create && std::fs::symlink_metadata(existing).is_err() {
            match (existing.file_name(), existing.parent()) {
                (Some(part), Some(up)) => {
                    missing.push(part);
                    existing = up;
                }
                _ => break,
            }
        }
        let parent = std::fs::canonicalize(existing).map_err(|e| {
            format!(
                "cannot open {}: {e}: make the folder that holds the results folder first",
                existing.display()
            )
        })?;
        let mut fd =
            open_dir(libc::AT_FDCWD, OsStr::new("/")).map_err(|e| format!("cannot open /: {e}"))?;
        let mut at = PathBuf::from("/");
        check_ancestor(&fd, &at, me)?;
        for part in parent.components().filter_map(|c| match c {
            Component::Normal(n) => Some(n),
            _ => None,
        }) {
            at.push(part);
            fd = open_dir(fd.as_raw_fd(), part).map_err(|e| {
                format!(
                    "cannot open {} without following links: {e}: give a path without links",
                    at.display()
                )
            })?;
            check_ancestor(&fd, &at, me)?;
        }
        for part in missing.into_iter().rev() {
            at.push(part);
            fd = make_dir(&fd, part, &at)?;
            check_ancestor(&fd, &at, me)?;
        }
        at.push(name);
        let dir = match open_dir(fd.as_raw_fd(), name) {
            Ok(dir) => dir,
            Err(err) if err.raw_os_error() == Some(libc::ENOENT) && create => {
                make_dir(&fd, name, &at)?
            }
            Err(err) if matches!(err.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                let link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink());
                return Err(if link {
                    format!(
                        "{} is a symbolic link, never followed for a results folder: give the folder itself",
                        at.display()
                    )
                } else {
                    format!("{} is not a folder", at.display())
                });
            }
            Err(err) => return Err(format!("cannot open {}: {err}", at.display())),
        };
        let st = stat(&dir).map_err(|e| format!("{}: {e}", at.display()))?;
        if st.st_uid != me {
            return Err(format!(
                "{} belongs to uid {}, not to the grader's user ({me}): another user made it, and could have planted what the grader would read; use a folder of your own",
                at.display(),
                st.st_uid
            ));
        }
        if st.st_mode & 0o022 != 0 {
            return Err(format!(
                "{} has mode {:o}: other users can write to it, and plant what the grader would read; `chmod go-w {}`, or use a folder of your own",
                at.display(),
                st.st_mode & 0o7777,
                at.display()
            ));
        }
        Ok(TrustedDir { fd: dir, path: at })
    }

    /// The folder's path (for messages and listing).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The names in the folder (names only: every file is then opened
    /// relative to the open folder, with the checks of [`Self::read`]).
    ///
    /// # Errors
    /// When the folder cannot be listed.
    pub(crate) fn names(&self) -> io::Result<Vec<OsString>> {
        // Listed through the open folder itself, not its path.
        let listed = PathBuf::from(format!("/proc/self/fd/{}", self.fd.as_raw_fd()));
        let entries = match std::fs::read_dir(&listed) {
            Ok(entries) => entries,
            // Without /proc: by path (the folder and its path are checked
            // to be writable by this user and root alone).
            Err(_) => std::fs::read_dir(&self.path)?,
        };
        let mut names = Vec::new();
        for entry in entries {
            names.push(entry?.file_name());
        }
        Ok(names)
    }

    /// The bytes of the file `name`, when it is a regular file of the
    /// grader's user of at most `cap` bytes (see the module doc).
    ///
    /// # Errors
    /// [`Refusal`]: why it was not read.
    pub(crate) fn read(&self, name: &OsStr, cap: u64) -> Result<Vec<u8>, Refusal> {
        let c_name = c_name(name).map_err(io::Error::other)?;
        // SAFETY: openat with an open folder fd and a NUL-terminated name;
        // the flags never create anything, follow no link and never block
        // (a FIFO opens at once).
        let raw = unsafe {
            libc::openat(
                self.fd.as_raw_fd(),
                c_name.as_ptr(),
                libc::O_RDONLY
                    | libc::O_NOFOLLOW
                    | libc::O_NONBLOCK
                    | libc::O_NOCTTY
                    | libc::O_CLOEXEC,
            )
        };
        if raw < 0 {
            let err = io::Error::last_os_error();
            return Err(match err.raw_os_error() {
                Some(libc::ENOENT) => Refusal::Missing,
                Some(libc::ELOOP) => Refusal::Link,
                _ => Refusal::Io(err),
            });
        }
        // SAFETY: the kernel just returned this fd, owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let st = stat(&fd)?;
        let kind = st.st_mode & libc::S_IFMT;
        if kind != libc::S_IFREG {
            return Err(Refusal::NotRegular(match kind {
                libc::S_IFIFO => "a FIFO",
                libc::S_IFCHR => "a character device",
                libc::S_IFBLK => "a block device",
                libc::S_IFSOCK => "a socket",
                libc::S_IFDIR => "a folder",
                _ => "something else",
            }));
        }
        let me = euid();
        if st.st_uid != me {
            return Err(Refusal::OtherOwner(st.st_uid, me));
        }
        let size = u64::try_from(st.st_size).unwrap_or(u64::MAX);
        if size > cap {
            return Err(Refusal::TooBig(size, cap));
        }
        let mut bytes = Vec::new();
        File::from(fd).take(cap + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > cap {
            return Err(Refusal::TooBig(bytes.len() as u64, cap));
        }
        Ok(bytes)
    }

    /// Writes `bytes` as the file `name`: a fresh file, synced, then
    /// renamed over `name` (see the module doc).
    ///
    /// # Errors
    /// When a step fails (the fresh file is then removed).
    pub(crate) fn write_atomic(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let temp = format!(
            ".partial-{}-{}-{nanos}",
            std::process::id(),
            SERIAL.fetch_add(1, Ordering::Relaxed)
        );
        let c_temp = c_name(OsStr::new(&temp)).map_err(io::Error::other)?;
        let c_final = c_name(OsStr::new(name)).map_err(io::Error::other)?;
        // SAFETY: openat with an open folder fd and a NUL-terminated name;
        // O_EXCL makes a fresh file and follows no link.
        let raw = unsafe {
            libc::openat(
                self.fd.as_raw_fd(),
                c_temp.as_ptr(),
                libc::O_WRONLY
                    | libc::O_CREAT
                    | libc::O_EXCL
                    | libc::O_NOFOLLOW
                    | libc::O_NOCTTY
                    | libc::O_CLOEXEC,
                0o600 as libc::c_uint,
            )
        };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the kernel just returned this fd, owned by nobody else.
        let mut file = File::from(unsafe { OwnedFd::from_raw_fd(raw) });
        let written = file
            .write_all(bytes)
            .and_then(|()| file.sync_all())
            .and_then(|()| {
                // SAFETY: renameat within one open folder, both names
                // NUL-terminated.
                let renamed = unsafe {
                    libc::renameat(
                        self.fd.as_raw_fd(),
                        c_temp.as_ptr(),
                        self.fd.as_raw_fd(),
                        c_final.as_ptr(),
                    )
                };
                if renamed == 0 {
                    Ok(())
                } else {
                    Err(io::Error::last_os_error())
                }
            });
        if written.is_err() {
            // SAFETY: unlinkat of our own fresh file in the open folder.
            unsafe { libc::unlinkat(self.fd.as_raw_fd(), c_temp.as_ptr(), 0) };
        }
        written
    }
}

/// Makes the folder `name` (mode 0700) beneath the open folder `parent`
/// (`at` is its path, for messages) and opens it; one made meanwhile by
/// someone else is opened, and then checked like any other.
fn make_dir(parent: &OwnedFd, name: &OsStr, at: &Path) -> Result<OwnedFd, String> {
    let c_name = c_name(name)?;
    // SAFETY: mkdirat with an open folder fd and a NUL-terminated name.
    if unsafe { libc::mkdirat(parent.as_raw_fd(), c_name.as_ptr(), 0o700) } != 0 {
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EEXIST) {
            return Err(format!(
                "cannot create {}: {err}: check that the folder above it is writable",
                at.display()
            ));
        }
    }
    open_dir(parent.as_raw_fd(), name)
        .map_err(|e| format!("cannot open {} without following links: {e}", at.display()))
}

/// `name` as a C string (a NUL byte refused).
fn c_name(name: &OsStr) -> Result<CString, String> {
    CString::new(name.as_bytes()).map_err(|_| "a name holds a NUL byte".to_string())
}

/// Opens folder `name` beneath `dir` (`O_DIRECTORY | O_NOFOLLOW`).
fn open_dir(dir: libc::c_int, name: &OsStr) -> io::Result<OwnedFd> {
    let name = c_name(name).map_err(io::Error::other)?;
    // SAFETY: openat with a folder fd (or AT_FDCWD) and a NUL-terminated
    // name; the flags never create anything.
    let fd = unsafe {
        libc::openat(
            dir,
            name.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this fd, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `fstat` of an open fd.
fn stat(fd: &OwnedFd) -> io::Result<libc::stat> {
    // SAFETY: a zeroed stat is a valid buffer for fstat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` is valid for writes.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st)
}

/// Refuses a folder on the way that another user owns, or that others may
/// write to without the sticky bit.
fn check_ancestor(fd: &OwnedFd, at: &Path, me: u32) -> Result<(), String> {
    let st = stat(fd).map_err(|e| format!("{}: {e}", at.display()))?;
    if st.st_uid != 0 && st.st_uid != me {
        return Err(format!(
            "{} belongs to uid {}, another user, who could replace the results folder inside it: use a folder on a path of your own",
            at.display(),
            st.st_uid
        ));
    }
    if st.st_mode & 0o022 != 0 && st.st_mode & libc::S_ISVTX == 0 {
        return Err(format!(
            "{} has mode {:o}: other users can write to it (and it is not sticky), so they could replace the results folder inside it: use a folder on a path of your own",
            at.display(),
            st.st_mode & 0o7777
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn private_tempdir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        dir
    }

    #[test]
    fn a_folder_of_our_own_is_made_written_and_read() {
        let dir = private_tempdir();
        let results = dir.path().join("results");
        let trusted = TrustedDir::open(&results, true).unwrap();
        let mode = std::fs::metadata(&results).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        trusted.write_atomic("a.json", b"one").unwrap();
        trusted.write_atomic("a.json", b"two").unwrap();
        assert_eq!(trusted.read(OsStr::new("a.json"), 10).unwrap(), b"two");
        assert_eq!(trusted.names().unwrap(), vec![OsString::from("a.json")]);
        assert!(matches!(
            trusted.read(OsStr::new("a.json"), 2),
            Err(Refusal::TooBig(3, 2))
        ));
        assert!(matches!(
            trusted.read(OsStr::new("b.json"), 2),
            Err(Refusal::Missing)
        ));
    }

    #[test]
    fn links_fifos_and_open_folders_are_refused() {
        let dir = private_tempdir();
        let results = dir.path().join("results");
        let trusted = TrustedDir::open(&results, true).unwrap();
        std::os::unix::fs::symlink("/dev/zero", results.join("zero.json")).unwrap();
        assert!(matches!(
            trusted.read(OsStr::new("zero.json"), 1 << 20),
            Err(Refusal::Link)
        ));
        let fifo = CString::new(results.join("fifo.json").as_os_str().as_bytes()).unwrap();
        // SAFETY: mkfifo with a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let refusal = trusted.read(OsStr::new("fifo.json"), 1 << 20).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "it is not a regular file but a FIFO: remove it"
        );

        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&results, &link).unwrap();
        let err = TrustedDir::open(&link, true).err().unwrap();
        assert!(err.contains("is a symbolic link, never followed"), "{err}");

        std::fs::set_permissions(&results, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = TrustedDir::open(&results, false).err().unwrap();
        assert!(err.contains("has mode 777: other users can write"), "{err}");

        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = TrustedDir::open(&open.join("results"), true).err().unwrap();
        assert!(err.contains("(and it is not sticky)"), "{err}");
        assert!(!open.join("results").exists(), "nothing made under it");
    }
}
