//! One user id per box: when the grader runs as root, each running box
//! gets a uid of its own from [`FIRST_BOX_UID`] on, so that two boxes can
//! never signal, trace or read each other's processes and files, even
//! without a PID namespace. A uid is claimed with an exclusive `flock` on a
//! file in a lock folder shared by every grader on the host, so that two
//! graders running side by side (two CI jobs, a course's shards) never hand
//! out the same uid; uids that name an account in `/etc/passwd` are
//! skipped. The lock is released when the claim is dropped (or the grader
//! dies).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// The first uid handed to a box.
pub const FIRST_BOX_UID: u32 = 61_000;

/// How many uids the grader may use, from [`FIRST_BOX_UID`] on.
pub const BOX_UIDS: u32 = 1_000;

/// A uid (and the gid of the same number) held for one box.
#[derive(Debug)]
pub struct UidClaim {
    uid: u32,
    _lock: File,
}

impl UidClaim {
    /// The claimed uid (also used as the gid).
    pub fn uid(&self) -> u32 {
        self.uid
    }
}

/// The folder of the uid locks: `/run/lock/grader-uids` where `/run/lock`
/// exists (shared by every process of the host that sees the same `/run`),
/// else `grader-uids` in the temp folder.
pub fn lock_dir() -> PathBuf {
    let run_lock = Path::new("/run/lock");
    if run_lock.is_dir() {
        run_lock.join("grader-uids")
    } else {
        std::env::temp_dir().join("grader-uids")
    }
}

/// Claims the first free uid in `dir` (made if missing, root only).
///
/// # Errors
/// When the folder cannot be made or every uid is taken.
pub fn claim(dir: &Path) -> io::Result<UidClaim> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let taken = accounts();
    for uid in FIRST_BOX_UID..FIRST_BOX_UID + BOX_UIDS {
        if taken.contains(&uid) {
            continue;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(dir.join(format!("{uid}.lock")))?;
        // SAFETY: flock on an fd we own, integer arguments only.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        if locked {
            return Ok(UidClaim { uid, _lock: file });
        }
    }
    Err(io::Error::other(format!(
        "all {BOX_UIDS} box user ids from {FIRST_BOX_UID} on are in use (see {})",
        dir.display()
    )))
}

/// The uids and gids of the accounts in `/etc/passwd` and `/etc/group`.
fn accounts() -> Vec<u32> {
    let mut ids = Vec::new();
    for file in ["/etc/passwd", "/etc/group"] {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        ids.extend(
            text.lines()
                .filter_map(|line| line.split(':').nth(2)?.parse::<u32>().ok()),
        );
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests of this module one at a time: a process spawned by one
    /// holds copies of every fd between fork and exec, locks included.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn claims_are_exclusive_until_dropped() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::tempdir().expect("tempdir");
        let first = claim(dir.path()).expect("first");
        let second = claim(dir.path()).expect("second");
        assert_ne!(first.uid(), second.uid(), "one uid per box");
        let freed = first.uid();
        drop(first);
        let third = claim(dir.path()).expect("third");
        assert_eq!(third.uid(), freed, "a dropped claim is free again");
    }

    #[test]
    fn another_grader_holding_a_uid_is_respected() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        // A second process: flock conflicts across processes as across
        // open files of one.
        let dir = tempfile::tempdir().expect("tempdir");
        let mine = claim(dir.path()).expect("mine");
        let flock = |uid: u32| {
            std::process::Command::new("flock")
                .arg("-n")
                .arg(dir.path().join(format!("{uid}.lock")))
                .arg("true")
                .status()
                .expect("flock(1) from util-linux runs")
                .success()
        };
        assert!(!flock(mine.uid()), "another process cannot take it");
        // The control: a uid nobody holds can be locked by that process.
        assert!(flock(mine.uid() + 1), "a free uid can be locked");
    }
}
