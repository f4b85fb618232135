//! One user id per box: when the grader runs as root, each running box
//! gets a uid of its own from [`FIRST_BOX_UID`] on, so that two boxes can
//! never signal, trace or read each other's processes and files, even
//! without a PID namespace. A uid is claimed with an exclusive `flock` on a
//! file in a lock folder shared by every grader on the host, so that two
//! graders running side by side (two CI jobs, a course's shards) never hand
//! out the same uid; uids that name an account or a group of the system's
//! name service (`getpwuid`/`getgrgid`: `/etc/passwd`, LDAP, SSSD, ...) are
//! skipped. The lock is released when the claim is dropped (or the grader
//! dies).
//!
//! The lock folder is state root trusts, so only root can make or change
//! it: it lives in a root-only place ([`LOCK_DIRS`]: every folder on the
//! way root's and writable by root alone), is made there with `mkdir`
//! (mode 0700) and opened folder by folder without following links, and
//! is used only if it is a real folder of root's with no access for
//! anyone else. The old place, `/run/lock/grader-uids` (in a folder
//! anyone can write), is honoured as well, while graders that use it may
//! still run, but only when it passes the same checks: a local user who
//! makes it first or plants a link there changes nothing. A lock file
//! that is not a plain file of root's (or cannot be opened or locked)
//! counts as taken, never as an error. When every uid is held, the claim
//! waits ([`UID_WAIT`]), says so once naming who holds them (from
//! `/proc/locks`), and only then gives up.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

/// The first uid handed to a box.
pub(crate) const FIRST_BOX_UID: u32 = 61_000;

/// How many uids the grader may use, from [`FIRST_BOX_UID`] on.
pub(crate) const BOX_UIDS: u32 = 1_000;

/// Where the shared lock folder may be, in order: root-only places.
pub(crate) const LOCK_DIRS: [&str; 2] = ["/run/grader/uids", "/var/lib/grader/uids"];

/// The lock folder of graders before [`LOCK_DIRS`], honoured when it is
/// root's.
pub(crate) const LEGACY_LOCK_DIR: &str = "/run/lock/grader-uids";

/// How long a claim waits for a uid when every one is held.
pub(crate) const UID_WAIT: Duration = Duration::from_secs(60);

/// After this long waiting, the claim says so.
const SAY_AFTER: Duration = Duration::from_millis(500);

/// A uid (and the gid of the same number) held for one box.
#[derive(Debug)]
pub(crate) struct UidClaim {
    uid: u32,
    _locks: Vec<File>,
}

impl UidClaim {
    /// The claimed uid (also used as the gid).
    pub(crate) fn uid(&self) -> u32 {
        self.uid
    }
}

/// The lock folders a grader uses: the shared one (opened), the legacy
/// one when it can be trusted, and what was wrong with the others.
#[derive(Debug)]
pub(crate) struct LockDirs {
    /// The folder uids are claimed in, and its path.
    main: (OwnedFd, PathBuf),
    /// [`LEGACY_LOCK_DIR`], when it is root's 0700 folder.
    legacy: Option<OwnedFd>,
    /// Sentences for the grader to say once (a place refused, a folder of
    /// this grader's own).
    pub notes: Vec<String>,
}

impl LockDirs {
    /// The folder uids are claimed in.
    pub(crate) fn path(&self) -> &Path {
        &self.main.1
    }
}

/// Opens (making what is missing) the first usable folder of `candidates`;
/// if none is usable, a folder of this grader's own in `fallback` (uids
/// then not shared with other graders, and the notes say so). Root only.
///
/// # Errors
/// When not even the fallback can be made.
pub(crate) fn lock_dirs(
    candidates: &[&Path],
    legacy: &Path,
    fallback: &Path,
) -> io::Result<LockDirs> {
    let mut notes = Vec::new();
    let mut main = None;
    for candidate in candidates {
        match open_root_dir(candidate, true) {
            Ok(fd) => {
                main = Some((fd, candidate.to_path_buf()));
                break;
            }
            Err(problem) => notes.push(format!(
                "sandbox: the uid lock folder {} is not used: {problem}",
                candidate.display()
            )),
        }
    }
    let main = match main {
        Some(main) => main,
        None => {
            let dir = fallback.join("uids");
            {
                use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(&dir)?;
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
            }
            let fd = open_root_dir(&dir, false).map_err(io::Error::other)?;
            notes.push(format!(
                "sandbox: box user ids are claimed in {}, a folder of this grader's own: a grader beside it on this host may hand out the same ids (fix the folders above)",
                dir.display()
            ));
            (fd, dir)
        }
    };
    let legacy = open_root_dir(legacy, false).ok();
    Ok(LockDirs {
        main,
        legacy,
        notes,
    })
}

/// The lock folders of this host (see the module documentation).
///
/// # Errors
/// When not even a folder of this grader's own can be made in `fallback`.
pub(crate) fn host_lock_dirs(fallback: &Path) -> io::Result<LockDirs> {
    let candidates: Vec<&Path> = LOCK_DIRS.iter().map(Path::new).collect();
    lock_dirs(&candidates, Path::new(LEGACY_LOCK_DIR), fallback)
}

/// Opens `path` folder by folder from `/` without following links; each
/// folder on the way must be root's and writable by root alone (no group
/// or other write bit); the last one must be root's with no access for
/// anyone else (mode 0700). With `make`, missing folders are made (mode
/// 0700), one `mkdir` each.
fn open_root_dir(path: &Path, make: bool) -> Result<OwnedFd, String> {
    let mut fd = open_at(libc::AT_FDCWD, Path::new("/")).map_err(|e| format!("/: {e}"))?;
    let parts: Vec<&std::ffi::OsStr> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n),
            _ => None,
        })
        .collect();
    let mut at = PathBuf::from("/");
    check_owner(&fd, &at, 0o022)?;
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let name = CString::new(part.as_bytes()).map_err(|_| "a NUL byte".to_string())?;
        let next = match open_at(fd.as_raw_fd(), Path::new(part)) {
            Ok(next) => next,
            Err(err) if err.raw_os_error() == Some(libc::ENOENT) && make => {
                // SAFETY: mkdirat with an open folder fd and a
                // NUL-terminated name.
                if unsafe { libc::mkdirat(fd.as_raw_fd(), name.as_ptr(), 0o700) } != 0 {
                    let err = io::Error::last_os_error();
                    if err.raw_os_error() != Some(libc::EEXIST) {
                        return Err(format!("cannot make {}: {err}", at.display()));
                    }
                }
                open_at(fd.as_raw_fd(), Path::new(part))
                    .map_err(|e| format!("{}: {e}", at.display()))?
            }
            Err(err) if matches!(err.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                let link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink());
                return Err(format!(
                    "{} is {}",
                    at.display(),
                    if link {
                        "a symbolic link (never followed)"
                    } else {
                        "not a folder"
                    }
                ));
            }
            Err(err) => return Err(format!("{}: {err}", at.display())),
        };
        let last = i + 1 == parts.len();
        check_owner(&next, &at, if last { 0o077 } else { 0o022 })?;
        fd = next;
    }
    Ok(fd)
}

/// Opens folder `name` beneath `dir` (`O_DIRECTORY | O_NOFOLLOW`).
fn open_at(dir: libc::c_int, name: &Path) -> io::Result<OwnedFd> {
    let name = CString::new(name.as_os_str().as_bytes()).map_err(io::Error::other)?;
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
fn stat(fd: libc::c_int) -> io::Result<libc::stat> {
    // SAFETY: a zeroed stat is a valid buffer for fstat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` is valid for writes.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st)
}

/// Refuses a folder not owned by root, or with any of `forbidden` mode
/// bits.
fn check_owner(fd: &OwnedFd, at: &Path, forbidden: u32) -> Result<(), String> {
    let st = stat(fd.as_raw_fd()).map_err(|e| format!("{}: {e}", at.display()))?;
    if st.st_uid != 0 {
        return Err(format!(
            "{} belongs to uid {}, not root",
            at.display(),
            st.st_uid
        ));
    }
    if st.st_mode & forbidden != 0 {
        return Err(format!(
            "{} has mode {:o}: others may {} it",
            at.display(),
            st.st_mode & 0o7777,
            if forbidden & 0o055 != 0 {
                "use"
            } else {
                "write to"
            }
        ));
    }
    Ok(())
}

/// Whether `id` names an account or a group in the system's name service
/// (`getpwuid_r`, `getgrgid_r`: `/etc/passwd` and `/etc/group`, and LDAP,
/// SSSD or whatever else `nsswitch.conf` names).
pub(crate) fn account_exists(id: u32) -> bool {
    let mut buf = vec![0u8; 16 * 1024];
    // SAFETY: zeroed passwd/group structs are valid buffers for the
    // reentrant calls, which fill them (pointing into `buf`).
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut pwd_result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call; `buf` outlives it.
    let _ = unsafe {
        libc::getpwuid_r(
            id,
            &mut pwd,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut pwd_result,
        )
    };
    if !pwd_result.is_null() {
        return true;
    }
    // SAFETY: as above, for the group.
    let mut grp: libc::group = unsafe { std::mem::zeroed() };
    let mut grp_result: *mut libc::group = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call; `buf` outlives it.
    let _ = unsafe {
        libc::getgrgid_r(
            id,
            &mut grp,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut grp_result,
        )
    };
    !grp_result.is_null()
}

/// Locks `<uid>.lock` in `dir`: `Some` when this grader now holds it;
/// `None` when it is held, or is not a plain file of root's, or anything
/// else is wrong with it (taken, never an error).
fn lock_file(dir: &OwnedFd, uid: u32) -> Option<File> {
    let name = CString::new(format!("{uid}.lock")).ok()?;
    // SAFETY: openat with an open folder fd and a NUL-terminated name.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            name.as_ptr(),
            libc::O_RDWR | libc::O_CREAT | libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK,
            0o600 as libc::c_uint,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: the kernel just returned this fd, owned by nobody else.
    let file = unsafe { File::from_raw_fd(fd) };
    let st = stat(file.as_raw_fd()).ok()?;
    if st.st_mode & libc::S_IFMT != libc::S_IFREG || st.st_uid != 0 || st.st_nlink != 1 {
        return None;
    }
    // SAFETY: flock on an fd we own, integer arguments only.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    locked.then_some(file)
}

/// Tries every uid once; the first free one.
fn try_claim(dirs: &LockDirs, skip: &impl Fn(u32) -> bool) -> Option<UidClaim> {
    for uid in FIRST_BOX_UID..FIRST_BOX_UID + BOX_UIDS {
        if skip(uid) {
            continue;
        }
        let Some(main) = lock_file(&dirs.main.0, uid) else {
            continue;
        };
        let mut locks = vec![main];
        if let Some(legacy) = &dirs.legacy {
            match lock_file(legacy, uid) {
                Some(file) => locks.push(file),
                None => continue,
            }
        }
        return Some(UidClaim { uid, _locks: locks });
    }
    None
}

/// Claims the first free uid that names no account, waiting up to `wait`
/// when all are held; `say` is told once, after a short wait, who holds
/// them.
///
/// # Errors
/// When every uid is still held after `wait`: the message names the
/// holders.
pub(crate) fn claim(dirs: &LockDirs, wait: Duration, say: &dyn Fn(&str)) -> io::Result<UidClaim> {
    claim_skipping(dirs, wait, say, &account_exists)
}

/// [`claim`], with `skip` saying which uids are accounts.
fn claim_skipping(
    dirs: &LockDirs,
    wait: Duration,
    say: &dyn Fn(&str),
    skip: &impl Fn(u32) -> bool,
) -> io::Result<UidClaim> {
    let start = Instant::now();
    let mut said = false;
    let mut pause = Duration::from_millis(10);
    loop {
        if let Some(claim) = try_claim(dirs, skip) {
            return Ok(claim);
        }
        let waited = start.elapsed();
        // Said before giving up too: on a busy host one pass over the lock
        // files can take longer than the whole wait.
        if !said && waited >= SAY_AFTER.min(wait) {
            say(&format!(
                "sandbox: waiting (up to {} s) for a box user id: all {BOX_UIDS} from {FIRST_BOX_UID} on are held ({})",
                wait.as_secs(),
                holders(dirs)
            ));
            said = true;
        }
        if waited >= wait {
            return Err(io::Error::other(format!(
                "all {BOX_UIDS} box user ids from {FIRST_BOX_UID} on are held ({}), still after {} s: wait for those graders to finish, or stop them",
                holders(dirs),
                wait.as_secs()
            )));
        }
        std::thread::sleep(pause.min(wait.saturating_sub(waited)));
        pause = (pause * 2).min(Duration::from_millis(500));
    }
}

/// Who holds the lock files, from `/proc/locks`: "pid 4242 (grader) holds
/// 1000 in /run/grader/uids".
fn holders(dirs: &LockDirs) -> String {
    let mut inodes = std::collections::HashMap::new();
    for uid in FIRST_BOX_UID..FIRST_BOX_UID + BOX_UIDS {
        let name = match CString::new(format!("{uid}.lock")) {
            Ok(name) => name,
            Err(_) => continue,
        };
        // SAFETY: a zeroed stat is a valid buffer for fstatat.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fstatat with an open folder fd, a NUL-terminated name and
        // a valid buffer; it does not follow a link.
        let ok = unsafe {
            libc::fstatat(
                dirs.main.0.as_raw_fd(),
                name.as_ptr(),
                &mut st,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        } == 0;
        if ok {
            let dev = format!(
                "{:02x}:{:02x}:{}",
                libc::major(st.st_dev),
                libc::minor(st.st_dev),
                st.st_ino
            );
            inodes.insert(dev, uid);
        }
    }
    let mut by_pid: std::collections::BTreeMap<String, u32> = Default::default();
    let locks = std::fs::read_to_string("/proc/locks").unwrap_or_default();
    for line in locks.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // "1: FLOCK ADVISORY WRITE <pid> <maj:min:inode> 0 EOF"; a waiter
        // has "->" after the number.
        let fields: Vec<&str> = fields.into_iter().filter(|f| *f != "->").collect();
        if fields.len() < 6 || fields[1] != "FLOCK" {
            continue;
        }
        if !inodes.contains_key(fields[5]) {
            continue;
        }
        let pid = fields[4];
        let who = match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
            Ok(comm) if pid != "0" => format!("pid {pid} ({})", comm.trim()),
            _ => "processes in another PID namespace".to_string(),
        };
        *by_pid.entry(who).or_default() += 1;
    }
    if by_pid.is_empty() {
        return format!(
            "no holder is visible in /proc/locks; see {}",
            dirs.path().display()
        );
    }
    let list: Vec<String> = by_pid
        .into_iter()
        .map(|(who, n)| format!("{who} holds {n}"))
        .collect();
    format!("{} in {}", list.join(", "), dirs.path().display())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// The tests of this module one at a time: a process spawned by one
    /// holds copies of every fd between fork and exec, locks included.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn root() -> bool {
        // SAFETY: geteuid cannot fail.
        unsafe { libc::geteuid() == 0 }
    }

    /// Lock folders in a fresh root-only place under a temp folder of mode
    /// 0700 (so every folder on the way is root's and closed).
    fn dirs(base: &Path) -> LockDirs {
        let private = base.join("private");
        std::fs::create_dir(&private).expect("mkdir");
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let dirs = lock_dirs(
            &[&private.join("uids")],
            &base.join("legacy"),
            &base.join("fallback"),
        )
        .expect("lock dirs");
        assert!(dirs.notes.is_empty(), "{:?}", dirs.notes);
        dirs
    }

    /// `/tmp` itself is world-writable: a temp folder under it is refused
    /// by the owner checks unless its own chain is checked from the
    /// folder; so the tests check from a 0700 folder of root's.
    fn base() -> Option<tempfile::TempDir> {
        if !crate::testing::needs("root (the lock folders are root's)", root()) {
            return None;
        }
        let dir = tempfile::Builder::new()
            .prefix("grader-uids-test-")
            .tempdir_in("/run")
            .or_else(|_| tempfile::tempdir())
            .expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod");
        Some(dir)
    }

    #[test]
    fn claims_are_exclusive_until_dropped() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let Some(base) = base() else { return };
        let dirs = dirs(base.path());
        let none = |_| false;
        let first = claim_skipping(&dirs, Duration::ZERO, &|_| {}, &none).expect("first");
        let second = claim_skipping(&dirs, Duration::ZERO, &|_| {}, &none).expect("second");
        assert_ne!(first.uid(), second.uid(), "one uid per box");
        let freed = first.uid();
        drop(first);
        let third = claim_skipping(&dirs, Duration::ZERO, &|_| {}, &none).expect("third");
        assert_eq!(third.uid(), freed, "a dropped claim is free again");
        // Accounts are skipped.
        let skip = |uid| uid < FIRST_BOX_UID + 5;
        let claim = claim_skipping(&dirs, Duration::ZERO, &|_| {}, &skip).expect("claim");
        assert!(claim.uid() >= FIRST_BOX_UID + 5);
    }

    #[test]
    fn another_grader_holding_a_uid_is_respected() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let Some(base) = base() else { return };
        let dirs = dirs(base.path());
        let mine = claim(&dirs, Duration::ZERO, &|_| {}).expect("mine");
        let flock = |uid: u32| {
            std::process::Command::new("flock")
                .arg("-n")
                .arg(dirs.path().join(format!("{uid}.lock")))
                .arg("true")
                .status()
                .expect("flock(1) from util-linux runs")
                .success()
        };
        assert!(!flock(mine.uid()), "another process cannot take it");
        assert!(flock(mine.uid() + 1), "a free uid can be locked");
    }

    #[test]
    fn squatted_links_and_foreign_files_are_never_used() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let Some(base) = base() else { return };
        let b = base.path();
        // A folder someone else owns, a link, a folder others can write.
        let squatted = b.join("squatted");
        std::fs::create_dir(&squatted).expect("mkdir");
        std::os::unix::fs::chown(&squatted, Some(65534), Some(65534)).expect("chown");
        let target = b.join("target");
        std::fs::create_dir(&target).expect("mkdir");
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        std::os::unix::fs::symlink(&target, b.join("link")).expect("symlink");
        let open = b.join("open");
        std::fs::create_dir(&open).expect("mkdir");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
        let fallback = b.join("fallback");
        std::fs::create_dir(&fallback).expect("mkdir");
        let dirs = lock_dirs(
            &[&squatted, &b.join("link"), &open.join("uids")],
            &squatted,
            &fallback,
        )
        .expect("a fallback");
        assert_eq!(dirs.path(), fallback.join("uids"));
        assert!(dirs.legacy.is_none(), "a squatted legacy folder is ignored");
        let said = dirs.notes.join("\n");
        assert!(said.contains("belongs to uid 65534"), "{said}");
        assert!(said.contains("is a symbolic link"), "{said}");
        assert!(said.contains("others may write"), "{said}");
        assert!(said.contains("a folder of this grader's own"), "{said}");
        assert_eq!(std::fs::read_dir(&target).expect("list").count(), 0);
        // A lock file that is a link, or someone else's, is taken.
        let uids = fallback.join("uids");
        std::os::unix::fs::symlink("/etc/passwd", uids.join(format!("{FIRST_BOX_UID}.lock")))
            .expect("symlink");
        let other = uids.join(format!("{}.lock", FIRST_BOX_UID + 1));
        std::fs::write(&other, "").expect("write");
        std::os::unix::fs::chown(&other, Some(65534), Some(65534)).expect("chown");
        let claim = claim_skipping(&dirs, Duration::ZERO, &|_| {}, &|_| false).expect("claims");
        assert_eq!(claim.uid(), FIRST_BOX_UID + 2);
    }

    #[test]
    fn when_every_uid_is_held_the_claim_waits_then_names_the_holder() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let Some(base) = base() else { return };
        let dirs = dirs(base.path());
        let held: Vec<UidClaim> = (0..BOX_UIDS)
            .map(|_| claim_skipping(&dirs, Duration::ZERO, &|_| {}, &|_| false).expect("one"))
            .collect();
        let said = std::sync::Mutex::new(Vec::new());
        let start = Instant::now();
        let err = claim_skipping(
            &dirs,
            Duration::from_millis(700),
            &|s| said.lock().expect("lock").push(s.to_string()),
            &|_| false,
        )
        .expect_err("all held");
        assert!(start.elapsed() >= Duration::from_millis(700));
        let me = format!("pid {}", std::process::id());
        assert!(err.to_string().contains(&me), "{err}");
        // The holder is named with how many locks it holds: this test's
        // 1000, and any that tests running beside it hold elsewhere.
        let named: Option<u32> = err
            .to_string()
            .split(" holds ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok());
        assert!(named.is_some_and(|n| n >= BOX_UIDS), "{err}");
        let said = said.lock().expect("lock");
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains("waiting") && said[0].contains(&me),
            "{said:?}"
        );
        drop(held);
        assert!(claim(&dirs, Duration::ZERO, &|_| {}).is_ok());
    }

    #[test]
    fn accounts_come_from_the_name_service() {
        assert!(account_exists(0), "root");
        let group_only = std::fs::read_to_string("/etc/group")
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split(':').nth(2)?.parse::<u32>().ok())
            .find(|gid| {
                !std::fs::read_to_string("/etc/passwd")
                    .unwrap_or_default()
                    .lines()
                    .any(|l| l.split(':').nth(2) == Some(&gid.to_string()))
            });
        if let Some(gid) = group_only {
            assert!(account_exists(gid), "a group without a user: {gid}");
        }
        assert!(!account_exists(FIRST_BOX_UID + BOX_UIDS - 1));
    }
}
