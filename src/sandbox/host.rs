//! [`SandboxEnv`]: which safeguards this machine offers, probed once, the
//! notices that say what is missing, and the pool of cgroup slots that
//! boxes run in.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use super::cgroup::{CgroupParents, CgroupSlot};
use crate::protocol::SandboxPlan;

/// The process limit (`RLIMIT_NPROC`) after the uid drop when there is no
/// pids cgroup. It counts every process of that user on the machine.
const NPROC_WITHOUT_CGROUP: u64 = 64;

/// Address space a test child needs on top of the student's memory (the
/// grader's own code and thread stacks), when no memory cgroup limits it.
const ADDRESS_SPACE_HEADROOM_MB: u64 = 128;

/// What the sandbox can use on this machine, and the running slots.
///
/// Made once per grading run by [`SandboxEnv::detect`]; shared by every
/// thread that runs tests (it is `Sync`).
#[derive(Debug)]
pub struct SandboxEnv {
    /// The executable run as `<worker> worker`: `grader-worker` beside the
    /// grader, or the grader itself; tests point it at a built binary.
    pub worker: PathBuf,
    /// Time a test may spend not wanting a CPU (process start, loading
    /// the library from disk) on top of its CPU limit.
    pub load_allowance: Duration,
    /// Bytes of the student's stdout and stderr kept per test (the rest is
    /// counted and dropped).
    pub output_cap: usize,
    /// Library tests run as children of one test zygote per submission
    /// (see [`crate::protocol::BoxSetup::test_zygote`]); benches turn it
    /// off to measure the difference.
    pub test_zygote: bool,
    root: bool,
    cgroups: Option<CgroupParents>,
    landlock_abi: Option<u32>,
    seccomp: bool,
    namespaces: bool,
    notices: Vec<String>,
    /// Folders hidden inside every box (the cases, the submissions, the
    /// reports); see [`crate::protocol::BoxSetup::hide`].
    pub hide: Vec<PathBuf>,
    /// The folder holding every box folder of this run (removed with it).
    run_root: Option<tempfile::TempDir>,
    /// Where box uids are claimed: found at the first claim.
    uid_locks: std::sync::OnceLock<Result<super::uids::LockDirs, String>>,
    free_slots: Mutex<Vec<CgroupSlot>>,
    said: Mutex<Vec<String>>,
    slot_count: Mutex<usize>,
}

impl SandboxEnv {
    /// Probes the machine once: root? cgroup v1 `memory`/`pids` writable?
    /// Landlock? seccomp? The worker is `grader-worker` when it sits beside
    /// this executable and comes from the same build (see
    /// [`SandboxEnv::worker_beside`]), else this executable itself.
    pub fn detect() -> SandboxEnv {
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("grader"));
        let worker = SandboxEnv::worker_beside(&exe).unwrap_or(exe);
        let mut notices = Vec::new();
        let root = super::unix::is_root();

        let (cgroups, landlock_abi, seccomp) = {
            let cgroups = if root {
                let (parents, notes) = CgroupParents::detect();
                notices.extend(notes.into_iter().map(|n| format!("sandbox: {n}")));
                Some(parents)
            } else {
                None
            };
            (
                cgroups,
                super::unix::landlock_abi(),
                super::unix::seccomp_available(),
            )
        };

        let namespaces = root && super::unix::namespaces_available(&worker);
        let env = SandboxEnv {
            worker,
            load_allowance: Duration::from_millis(500),
            output_cap: 64 * 1024,
            test_zygote: true,
            root,
            cgroups,
            landlock_abi,
            seccomp,
            namespaces,
            notices: Vec::new(),
            hide: Vec::new(),
            run_root: new_run_root(),
            uid_locks: std::sync::OnceLock::new(),
            free_slots: Mutex::new(Vec::new()),
            said: Mutex::new(Vec::new()),
            slot_count: Mutex::new(0),
        };
        notices.extend(env.missing());
        SandboxEnv { notices, ..env }
    }

    /// The `grader-worker` executable beside `exe`, if there is one and it
    /// comes from the same build as this code (`grader-worker --identity`
    /// prints [`crate::worker::identity_line`]). A worker left over from
    /// another build is not used: it could run older code.
    pub fn worker_beside(exe: &Path) -> Option<PathBuf> {
        let name = format!("grader-worker{}", std::env::consts::EXE_SUFFIX);
        let worker = exe.with_file_name(name);
        if worker == exe || !worker.is_file() {
            return None;
        }
        let output = Command::new(&worker)
            .arg("--identity")
            .env_clear()
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        let same = output.status.success()
            && output.stdout.trim_ascii() == crate::worker::identity_line().as_bytes();
        same.then_some(worker)
    }

    /// The environment for the library's own unit tests: the
    /// `grader-worker` cargo built beside the test binary (`target/<profile>/`).
    ///
    /// # Panics
    /// When it is not there (cargo builds it for `cargo test`).
    #[cfg(test)]
    pub(crate) fn for_tests() -> SandboxEnv {
        let exe = std::env::current_exe().expect("the test binary's path");
        let worker = exe
            .parent()
            .and_then(Path::parent)
            .map(|dir| dir.join("grader-worker"))
            .filter(|w| w.is_file())
            .expect("grader-worker beside the test binary: run the tests with `cargo test`, which builds it");
        SandboxEnv::detect().with_worker(worker)
    }

    /// The same environment with another worker executable: `grader-worker`
    /// or `grader` (both are run as `<worker> worker`).
    pub fn with_worker(self, worker: impl Into<PathBuf>) -> SandboxEnv {
        SandboxEnv {
            worker: worker.into(),
            ..self
        }
    }

    /// The same environment without namespaces: what a host that does not
    /// let the grader make them gives (a container without
    /// `CAP_SYS_ADMIN`): boxes are held to their views by Landlock alone.
    pub fn without_namespaces(self) -> SandboxEnv {
        let mut env = SandboxEnv {
            namespaces: false,
            notices: Vec::new(),
            ..self
        };
        env.notices = env.missing();
        env
    }

    /// What is unavailable on this machine and what that means, one
    /// sentence each; empty when every safeguard is in place. Print them
    /// once, before grading.
    pub fn notices(&self) -> Vec<String> {
        self.notices.clone()
    }

    /// The safeguards in force, for a report or `--verbose`.
    pub fn active(&self) -> Vec<&'static str> {
        let mut active = vec![
            "process group killed on timeout",
            "rlimits (cpu, file size, files, core)",
        ];
        let v2 = self.cgroups.as_ref().is_some_and(|c| c.version() == "v2");
        if self.memory_cgroup() {
            active.push(if v2 {
                "memory cgroup (v2)"
            } else {
                "memory cgroup (v1)"
            });
        } else {
            active.push("address-space rlimit");
        }
        if self.pids_cgroup() {
            active.push(if v2 {
                "pids cgroup (v2)"
            } else {
                "pids cgroup (v1)"
            });
        }
        if self.seccomp {
            active.push("seccomp (kill list + allow list)");
        }
        if self.landlock_abi.is_some() {
            active.push("landlock (each run held to its view)");
        }
        if self.root {
            active.push("a user id per box");
        }
        if self.namespaces {
            active
                .push("a box per submission: pid/mount/network/ipc/uts namespaces, a private root");
        }
        active
    }

    fn memory_cgroup(&self) -> bool {
        self.cgroups.as_ref().is_some_and(CgroupParents::has_memory)
    }

    fn pids_cgroup(&self) -> bool {
        self.cgroups.as_ref().is_some_and(CgroupParents::has_pids)
    }

    /// The notices for what is missing.
    fn missing(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if !cfg!(target_os = "linux") {
            notes.push(
                "sandbox: not on Linux, so student code runs with rlimits and a process group only (no seccomp, Landlock, cgroups or uid drop): grade untrusted code on Linux".to_string(),
            );
            return notes;
        }
        if !self.root {
            notes.push(
                "sandbox: not running as root, so there are no cgroups (memory is limited by address space: a C program sees malloc fail instead of a memory verdict), no uid drop and no namespaces; seccomp and Landlock still confine student code".to_string(),
            );
        } else {
            if !self.memory_cgroup() {
                notes.push("sandbox: no usable memory cgroup (see the note above), so memory is limited by address space (a C program sees malloc fail instead of a memory verdict)".to_string());
            }
            if !self.pids_cgroup() {
                notes.push(format!("sandbox: no usable pids cgroup, so threads are limited by RLIMIT_NPROC={NPROC_WITHOUT_CGROUP} for the box's user"));
            }
            if !self.namespaces {
                notes.push("sandbox: this host does not let the grader make namespaces (a container without CAP_SYS_ADMIN?), so boxes have no PID, mount or network namespace of their own: what a run leaves behind is killed by its box's uid, and the cases are kept from student code by Landlock and file permissions only".to_string());
            }
        }
        if !self.namespaces && self.landlock_abi.is_some() {
            notes.push(super::view::without_mount_namespace().to_string());
        }
        if !self.seccomp {
            notes.push("sandbox: this kernel has no seccomp, so student code is NOT stopped from creating processes, opening sockets or signalling: grade untrusted code elsewhere".to_string());
        }
        if self.landlock_abi.is_none() {
            notes.push("sandbox: this kernel has no Landlock, so student code can read any file its user can read".to_string());
        }
        notes
    }

    /// Prints `note` on stderr the first time it is said in this run.
    pub fn say_once(&self, note: &str) {
        let mut said = lock(&self.said);
        if !said.iter().any(|n| n == note) {
            eprintln!("note: {}", crate::visible::visible_line(note));
            said.push(note.to_string());
        }
    }

    /// Whether boxes get their own namespaces.
    pub fn namespaces(&self) -> bool {
        self.namespaces
    }

    /// What a student checking their own code should know of this box, or
    /// nothing: only what changes a verdict they will see (the notices
    /// are the instructor's, about the grader's own safety).
    pub fn student_note(&self) -> Option<&'static str> {
        (!self.memory_cgroup()).then_some(
            "this check has no memory cgroup (that needs root and a writable cgroup): code that runs out of memory fails an allocation (a crash or an exception) in this check, where a grader with a memory cgroup says `memory`",
        )
    }

    /// Whether Landlock is available.
    pub fn landlock(&self) -> bool {
        self.landlock_abi.is_some()
    }

    /// A uid of its own for a box, when the grader is root (waiting for
    /// one while every uid is held, see [`super::uids`]).
    pub(crate) fn claim_uid(&self) -> std::io::Result<Option<super::uids::UidClaim>> {
        if !self.root {
            return Ok(None);
        }
        let dirs = self.uid_locks.get_or_init(|| {
            let fallback = self
                .run_root
                .as_ref()
                .map_or_else(std::env::temp_dir, |r| r.path().to_path_buf());
            super::uids::host_lock_dirs(&fallback)
                .map_err(|e| format!("no folder for the box user ids' locks can be made: {e}"))
        });
        let dirs = dirs
            .as_ref()
            .map_err(|e| std::io::Error::other(e.clone()))?;
        for note in &dirs.notes {
            self.say_once(note);
        }
        super::uids::claim(dirs, super::uids::UID_WAIT, &|note| self.say_once(note)).map(Some)
    }

    /// A new box folder in this run's folder.
    pub(crate) fn new_box_dir(&self, uid: Option<u32>) -> std::io::Result<PathBuf> {
        let root = self.run_root.as_ref().ok_or_else(|| {
            std::io::Error::other(
                "no temporary folder for the boxes could be made: check TMPDIR and the free space",
            )
        })?;
        super::box_dir::make_box_dir(root.path(), uid)
    }

    /// Takes a free slot (or makes one) for a test; `None` without cgroups.
    pub(crate) fn take_slot(&self) -> std::io::Result<Option<CgroupSlot>> {
        if super::cleanup::stopping() {
            return Err(std::io::Error::other("the grader is stopping"));
        }
        let Some(parents) = &self.cgroups else {
            return Ok(None);
        };
        if !parents.has_memory() && !parents.has_pids() {
            return Ok(None);
        }
        if let Some(slot) = lock(&self.free_slots).pop() {
            return Ok(Some(slot));
        }
        let id = {
            let mut count = lock(&self.slot_count);
            *count += 1;
            *count - 1
        };
        parents.slot(id).map(Some)
    }

    /// Returns a slot to the pool.
    pub(crate) fn give_back(&self, slot: CgroupSlot) {
        lock(&self.free_slots).push(slot);
    }

    /// The safeguards for one test with `memory_limit_mb`, in the slot.
    pub(crate) fn plan(
        &self,
        memory_limit_mb: u64,
        slot: Option<&CgroupSlot>,
        uid: Option<u32>,
    ) -> SandboxPlan {
        let memory_cgroup = slot.is_some_and(CgroupSlot::has_memory);
        let pids_cgroup = self.pids_cgroup() && slot.is_some();
        SandboxPlan {
            address_space_mb: Some(if memory_cgroup {
                // A generous backstop: the cgroup is the real limit, and
                // threads reserve far more address space than they use.
                memory_limit_mb.saturating_mul(4).saturating_add(2048)
            } else {
                memory_limit_mb.saturating_add(ADDRESS_SPACE_HEADROOM_MB)
            }),
            nproc: (self.root && !pids_cgroup).then_some(NPROC_WITHOUT_CGROUP),
            landlock: self.landlock_abi.is_some(),
            uid,
            gid: uid,
            seccomp: self.seccomp,
        }
    }
}

/// The folder of this run's boxes: `0711`, so a box user can pass
/// through to its own box folder but list nothing. It goes in the first of
/// the temp folder, `/tmp` and `/var/tmp` that every user can pass through
/// (a private `TMPDIR` of mode 0700 would lock the box users out of their
/// own folders).
fn new_run_root() -> Option<tempfile::TempDir> {
    let candidates = [
        std::env::temp_dir(),
        PathBuf::from("/tmp"),
        PathBuf::from("/var/tmp"),
    ];
    let base = candidates
        .iter()
        .find(|dir| dir.is_dir() && passable_by_all(dir))
        .unwrap_or(&candidates[0]);
    let mut builder = tempfile::Builder::new();
    builder.prefix("grader-run-");
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o711));
    }
    let dir = builder.tempdir_in(base).ok()?;
    super::cleanup::track_dir(dir.path().to_path_buf());
    Some(dir)
}

/// Whether every folder from `/` down to `dir` lets any user pass (`o+x`).
fn passable_by_all(dir: &Path) -> bool {
    {
        use std::os::unix::fs::PermissionsExt;
        let Ok(dir) = dir.canonicalize() else {
            return false;
        };
        dir.ancestors()
            .all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
    }
}

/// Locks a mutex, ignoring poisoning (the data is a plain pool).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// Writes an executable shell script.
    fn script(path: &Path, body: &str) {
        std::fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("write script");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[test]
    fn a_worker_beside_is_used_only_from_the_same_build() {
        let dir = tempfile::tempdir().expect("tempdir");
        let grader = dir.path().join("grader");
        script(&grader, "exit 0");
        assert_eq!(SandboxEnv::worker_beside(&grader), None, "no worker there");

        let worker = dir.path().join("grader-worker");
        script(
            &worker,
            &format!("echo '{}'", crate::worker::identity_line()),
        );
        assert_eq!(SandboxEnv::worker_beside(&grader), Some(worker.clone()));

        script(&worker, "echo 'grader-worker 0000000000000000'");
        assert_eq!(SandboxEnv::worker_beside(&grader), None, "another build");
        script(&worker, "exit 3");
        assert_eq!(SandboxEnv::worker_beside(&grader), None, "fails");
        assert_eq!(SandboxEnv::worker_beside(&worker), None, "itself");
    }
}
