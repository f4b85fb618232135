//! Memory and pids cgroups for boxes, on cgroup v1 and v2: one slot per
//! running box, created under the grader's own group, reused from box to
//! box, removed when the grader is done. The memory group's `oom_kill`
//! counter tells a memory verdict apart from a timeout (both end in
//! SIGKILL).
//!
//! - **v1** (`/sys/fs/cgroup/memory`, `/sys/fs/cgroup/pids`): a slot is a
//!   group in each controller's hierarchy, under the grader's own group;
//!   `memory.limit_in_bytes` (and `memsw`), `memory.oom_control`,
//!   `pids.max`.
//! - **v2** (one unified tree, `cgroup.controllers` at its root, as on
//!   current Debian, Ubuntu, Fedora and GitHub's runners): the grader
//!   makes a group of its own under its group, enables `+memory +pids` for
//!   its children, and each slot is a child with `memory.max`,
//!   `memory.swap.max`, `memory.events` and `pids.max`. The "no internal
//!   processes" rule forbids enabling controllers below a group that holds
//!   processes, so when the grader's own group holds only the grader, it
//!   first moves itself into a leaf group; when it holds others too (a
//!   shell, a CI runner), the grader says so and goes on without cgroups.
//!
//! Every group's name holds the grader's pid and a random nonce, and the
//! grader removes only groups it made itself: another grader's pid may
//! look dead from here (a container or CI job in its own PID namespace),
//! so guessing from pids would delete a live grader's groups. A grader
//! killed with SIGKILL leaves its (empty) groups behind.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The processes and threads one test may have (the main thread plus a
/// student's threads).
pub(crate) const PIDS_MAX: u32 = 32;

/// Where cgroup file systems are mounted.
const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// Prefix of the groups this grader creates.
const PREFIX: &str = "grader-";

/// Distinguishes several sandbox environments in one process (tests).
static ENV_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Which cgroup interface the slots use, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Hierarchy {
    /// cgroup v1: the parent group of each usable controller.
    V1 {
        /// The memory controller's parent group, if usable.
        memory: Option<PathBuf>,
        /// The pids controller's parent group, if usable.
        pids: Option<PathBuf>,
    },
    /// cgroup v2: the grader's own group for its slots (controllers
    /// enabled for its children).
    V2 {
        /// `<own group>/grader-<pid>-<nonce>`.
        group: PathBuf,
    },
}

/// The parent groups slots are created in.
#[derive(Debug)]
pub(crate) struct CgroupParents {
    /// The interface and its parent groups.
    pub hierarchy: Hierarchy,
    /// `grader-<pid>-<nonce>-<env>`: unique across graders and PID
    /// namespaces.
    name: String,
}

impl CgroupParents {
    /// Finds a usable hierarchy on this host (v2 if the unified tree has
    /// the memory and pids controllers, else v1). Returns what failed, as
    /// notes.
    pub(crate) fn detect() -> (CgroupParents, Vec<String>) {
        let name = unique_name();
        let root = Path::new(CGROUP_ROOT);
        let self_cgroup = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let mut notes = Vec::new();
        if root.join("cgroup.controllers").is_file() {
            match set_up_v2(root, &self_cgroup, &name, std::process::id()) {
                Ok(group) => {
                    let hierarchy = Hierarchy::V2 { group };
                    return (CgroupParents { hierarchy, name }, notes);
                }
                Err(note) => notes.push(note),
            }
            let hierarchy = Hierarchy::V1 {
                memory: None,
                pids: None,
            };
            return (CgroupParents { hierarchy, name }, notes);
        }
        let memory = usable_v1(root, &self_cgroup, "memory", "memory.limit_in_bytes", &name);
        let pids = usable_v1(root, &self_cgroup, "pids", "pids.max", &name);
        let mut pick = |r: Result<PathBuf, String>| match r {
            Ok(p) => Some(p),
            Err(note) => {
                notes.push(note);
                None
            }
        };
        let hierarchy = Hierarchy::V1 {
            memory: pick(memory),
            pids: pick(pids),
        };
        (CgroupParents { hierarchy, name }, notes)
    }

    /// Whether slots get a memory group.
    pub(crate) fn has_memory(&self) -> bool {
        match &self.hierarchy {
            Hierarchy::V1 { memory, .. } => memory.is_some(),
            Hierarchy::V2 { .. } => true,
        }
    }

    /// Whether slots get a pids group.
    pub(crate) fn has_pids(&self) -> bool {
        match &self.hierarchy {
            Hierarchy::V1 { pids, .. } => pids.is_some(),
            Hierarchy::V2 { .. } => true,
        }
    }

    /// "v1" or "v2", for the list of safeguards.
    pub(crate) fn version(&self) -> &'static str {
        match self.hierarchy {
            Hierarchy::V1 { .. } => "v1",
            Hierarchy::V2 { .. } => "v2",
        }
    }

    /// Creates the groups of slot `slot`.
    ///
    /// # Errors
    /// When a group cannot be made or its pids limit set.
    pub(crate) fn slot(&self, slot: usize) -> io::Result<CgroupSlot> {
        let name = format!("{}-{slot}", self.name);
        let make = |parent: &Path| -> io::Result<PathBuf> {
            let dir = parent.join(&name);
            match fs::create_dir(&dir) {
                Ok(()) => {
                    super::cleanup::track_group(dir.clone());
                    Ok(dir)
                }
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(dir),
                Err(err) => Err(err),
            }
        };
        let mut made = CgroupSlot {
            version: self.version(),
            memory: None,
            pids: None,
            memory_limit: None,
            pids_max: None,
        };
        match &self.hierarchy {
            Hierarchy::V1 { memory, pids } => {
                made.memory = memory.as_deref().map(make).transpose()?;
                made.pids = pids.as_deref().map(make).transpose()?;
            }
            Hierarchy::V2 { group } => {
                let dir = make(group)?;
                made.memory = Some(dir.clone());
                made.pids = Some(dir);
            }
        }
        made.set_pids_max(PIDS_MAX)?;
        Ok(made)
    }
}

impl Drop for CgroupParents {
    fn drop(&mut self) {
        if let Hierarchy::V2 { group } = &self.hierarchy {
            remove_group(group);
        }
    }
}

/// `grader-<pid>-<nonce>-<env>`.
fn unique_name() -> String {
    let env_id = ENV_COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut nonce = [0u8; 4];
    let random = fs::File::open("/dev/urandom").and_then(|mut f| {
        use std::io::Read;
        f.read_exact(&mut nonce)
    });
    if random.is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        nonce = t.to_le_bytes();
    }
    format!(
        "{PREFIX}{}-{:08x}-{env_id}",
        std::process::id(),
        u32::from_le_bytes(nonce)
    )
}

/// The grader's own group in the hierarchy whose `/proc/self/cgroup` line
/// lists `controller` (v1: `ID:memory:/path`), or the v2 line (`0::/path`)
/// with `controller` empty.
fn own_relative(self_cgroup: &str, controller: &str) -> Option<String> {
    self_cgroup.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let matches = if controller.is_empty() {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == controller)
        };
        matches.then(|| path.trim_start_matches('/').to_string())
    })
}

/// A v1 controller's parent group, checked by making and removing a probe
/// group (the root group lacks the limit files: look in a child).
fn usable_v1(
    root: &Path,
    self_cgroup: &str,
    controller: &str,
    file: &str,
    name: &str,
) -> Result<PathBuf, String> {
    let mount = root.join(controller);
    let relative = own_relative(self_cgroup, controller)
        .ok_or_else(|| format!("no cgroup v1 {controller} controller is mounted"))?;
    let own = mount.join(relative);
    let parent = if own.is_dir() { own } else { mount };
    if !parent.join("cgroup.procs").exists() {
        return Err(format!("no cgroup v1 {controller} controller is mounted"));
    }
    let probe = parent.join(format!("{name}-probe"));
    let made = fs::create_dir(&probe).and_then(|()| {
        let has_limit = probe.join(file).exists();
        remove_group(&probe);
        if has_limit {
            Ok(())
        } else {
            Err(io::Error::other(format!("a new group has no {file}")))
        }
    });
    made.map(|()| parent.clone()).map_err(|err| {
        format!(
            "cannot create a {controller} cgroup in {}: {err}",
            parent.display()
        )
    })
}

/// Sets up the grader's v2 group under its own group (see the module
/// documentation); `root` is the unified tree's mount point, `pid` the
/// grader's pid (moved to a leaf group when its own group must hold no
/// processes).
///
/// # Errors
/// A note saying why v2 cannot be used and what to do.
pub(crate) fn set_up_v2(
    root: &Path,
    self_cgroup: &str,
    name: &str,
    pid: u32,
) -> Result<PathBuf, String> {
    let relative = own_relative(self_cgroup, "")
        .ok_or_else(|| "cgroup v2: this process is in no v2 group".to_string())?;
    let own = root.join(relative);
    let available = fs::read_to_string(own.join("cgroup.controllers")).unwrap_or_default();
    for needed in ["memory", "pids"] {
        if !available.split_whitespace().any(|c| c == needed) {
            return Err(format!(
                "cgroup v2: the {needed} controller is not available in {} (cgroup.controllers: {:?}), so there is no memory verdict or pids cap; delegate it to the grader's group",
                own.display(),
                available.trim()
            ));
        }
    }
    let enable = |group: &Path| fs::write(group.join("cgroup.subtree_control"), "+memory +pids");
    if enable(&own).is_err() {
        // The "no internal processes" rule: move the grader into a leaf
        // of its own group, then try again.
        let leaf = own.join(format!("{name}-grader"));
        fs::create_dir_all(&leaf)
            .and_then(|()| fs::write(leaf.join("cgroup.procs"), pid.to_string()))
            .map_err(|e| {
                format!(
                    "cgroup v2: cannot move the grader into a leaf group of {} ({e}); run it in a delegated group of its own (e.g. systemd-run --scope -p Delegate=yes)",
                    own.display()
                )
            })?;
        enable(&own).map_err(|e| {
            format!(
                "cgroup v2: cannot enable memory and pids for {} ({e}): other processes share the grader's group; run the grader in a group of its own (e.g. systemd-run --scope -p Delegate=yes, or a container with a private cgroup)",
                own.display()
            )
        })?;
    }
    let group = own.join(name);
    fs::create_dir_all(&group)
        .and_then(|()| enable(&group))
        .map_err(|e| format!("cgroup v2: cannot make {} ({e})", group.display()))?;
    super::cleanup::track_group(group.clone());
    Ok(group)
}

/// Kills every process in a group, then removes it (retrying briefly while
/// the killed processes finish). A folder that is not on a cgroup file
/// system (a test's prepared tree) is removed with its files.
fn remove_group(dir: &Path) {
    super::cleanup::untrack_group(dir);
    for _ in 0..50 {
        kill_all(dir);
        if fs::remove_dir(dir).is_ok() || !dir.exists() {
            return;
        }
        if !on_cgroup_fs(dir) {
            let _ = fs::remove_dir_all(dir);
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Whether `dir` is on a cgroup (v1 or v2) file system.
fn on_cgroup_fs(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    const CGROUP_SUPER_MAGIC: i64 = 0x0027_e0eb;
    const CGROUP2_SUPER_MAGIC: i64 = 0x6367_7270;
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a zeroed statfs is a valid out-value; `path` is a
    // NUL-terminated string alive during the call.
    let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::statfs(path.as_ptr(), &mut stat) } != 0 {
        return false;
    }
    let magic = stat.f_type as i64;
    magic == CGROUP_SUPER_MAGIC || magic == CGROUP2_SUPER_MAGIC
}

/// Sends SIGKILL to every process listed in a group's `cgroup.procs`.
fn kill_all(dir: &Path) -> usize {
    let Ok(text) = fs::read_to_string(dir.join("cgroup.procs")) else {
        return 0;
    };
    let pids: Vec<i32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    for &pid in &pids {
        super::unix::kill_process(pid);
    }
    pids.len()
}

/// The groups of one running slot (v2: one group holds both controllers).
#[derive(Debug)]
pub(crate) struct CgroupSlot {
    version: &'static str,
    memory: Option<PathBuf>,
    pids: Option<PathBuf>,
    /// The memory limit last written, in bytes.
    memory_limit: Option<u64>,
    /// The pids limit last written.
    pids_max: Option<u32>,
}

impl CgroupSlot {
    /// The `cgroup.procs` files a box joins.
    pub(crate) fn procs_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = [&self.memory, &self.pids]
            .into_iter()
            .flatten()
            .map(|dir| dir.join("cgroup.procs"))
            .collect();
        files.dedup();
        files
    }

    /// Whether this slot has a memory group.
    pub(crate) fn has_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// Sets the memory limit (v1: memory and memory+swap; v2: memory.max
    /// and no swap) to `mb` MiB.
    ///
    /// # Errors
    /// When a limit file cannot be written.
    pub(crate) fn set_memory_limit(&mut self, mb: u64) -> io::Result<()> {
        let Some(dir) = &self.memory else {
            return Ok(());
        };
        let bytes = mb.saturating_mul(1 << 20);
        if self.memory_limit == Some(bytes) {
            return Ok(());
        }
        let value = bytes.to_string();
        if self.version == "v2" {
            fs::write(dir.join("memory.max"), &value)?;
            let swap = dir.join("memory.swap.max");
            if swap.exists() {
                fs::write(swap, "0")?;
            }
            self.memory_limit = Some(bytes);
            return Ok(());
        }
        let memory = dir.join("memory.limit_in_bytes");
        let memsw = dir.join("memory.memsw.limit_in_bytes");
        // memory <= memory+swap must hold after each write: when lowering,
        // memory goes first; when raising, memory+swap does.
        let lowering = self.memory_limit.is_none_or(|old| bytes < old);
        let order = if lowering {
            [&memory, &memsw]
        } else {
            [&memsw, &memory]
        };
        for file in order {
            if file == &memory || memsw.exists() {
                fs::write(file, &value)?;
            }
        }
        self.memory_limit = Some(bytes);
        Ok(())
    }

    /// Sets the pids limit (builds need more than tests).
    ///
    /// # Errors
    /// When `pids.max` cannot be written.
    pub(crate) fn set_pids_max(&mut self, max: u32) -> io::Result<()> {
        let Some(dir) = &self.pids else {
            return Ok(());
        };
        if self.pids_max != Some(max) {
            fs::write(dir.join("pids.max"), max.to_string())?;
            self.pids_max = Some(max);
        }
        Ok(())
    }

    /// The memory group's `oom_kill` counter (0 without a memory group):
    /// v1 `memory.oom_control`, v2 `memory.events`.
    pub(crate) fn oom_kills(&self) -> u64 {
        let Some(dir) = &self.memory else { return 0 };
        let file = if self.version == "v2" {
            "memory.events"
        } else {
            "memory.oom_control"
        };
        fs::read_to_string(dir.join(file))
            .ok()
            .and_then(|text| {
                text.lines().find_map(|l| {
                    l.strip_prefix("oom_kill ")
                        .and_then(|n| n.trim().parse().ok())
                })
            })
            .unwrap_or(0)
    }

    /// Kills every process still in the slot's groups (none should be),
    /// until they are empty. Returns how many were found.
    pub(crate) fn kill_leftovers(&self) -> usize {
        let mut found = 0;
        for dir in [&self.pids, &self.memory].into_iter().flatten() {
            for _ in 0..100 {
                let n = kill_all(dir);
                if n == 0 {
                    break;
                }
                found = found.max(n);
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
        found
    }
}

impl Drop for CgroupSlot {
    fn drop(&mut self) {
        let mut dirs: Vec<&PathBuf> = [&self.memory, &self.pids].into_iter().flatten().collect();
        dirs.dedup();
        for dir in dirs {
            remove_group(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &Path) -> u64 {
        fs::read_to_string(path)
            .expect("readable")
            .trim()
            .parse()
            .expect("a number")
    }

    /// On a machine with writable cgroups (root here): a slot's limits can
    /// be lowered and raised, and its groups are gone after drop.
    #[test]
    fn slot_limits_and_cleanup() {
        let (parents, notes) = CgroupParents::detect();
        let what = format!("a writable memory cgroup ({notes:?})");
        if !crate::testing::needs(&what, parents.has_memory()) {
            return;
        }
        let mut slot = parents.slot(7).expect("slot");
        let dir = slot.memory.clone().expect("memory group");
        let limit_file = if slot.version == "v2" {
            "memory.max"
        } else {
            "memory.limit_in_bytes"
        };
        for mb in [64, 256, 32, 128] {
            slot.set_memory_limit(mb).expect("limit");
            assert_eq!(read(&dir.join(limit_file)), mb << 20);
        }
        assert_eq!(slot.oom_kills(), 0);
        assert_eq!(slot.kill_leftovers(), 0);
        if let Some(pids) = &slot.pids {
            assert_eq!(read(&pids.join("pids.max")), u64::from(PIDS_MAX));
        }
        assert!(
            slot.procs_files()
                .iter()
                .all(|f| f.ends_with("cgroup.procs"))
        );
        drop(slot);
        assert!(!dir.exists(), "{} left behind", dir.display());
    }

    /// Two environments (two graders) never share or remove each other's
    /// groups, whatever their pids look like from here.
    #[test]
    fn names_are_unique_and_only_our_groups_are_removed() {
        let a = unique_name();
        let b = unique_name();
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("{PREFIX}{}-", std::process::id())));
        let (first, _) = CgroupParents::detect();
        let Hierarchy::V1 {
            memory: Some(parent),
            ..
        } = &first.hierarchy
        else {
            // A v2 host: this v1 test cannot run there (the v2 tree test
            // covers the rest); on CI the host must be the one it tests.
            crate::testing::needs("a v1 memory cgroup", false);
            return;
        };
        // A group named like a dead grader's (pid 999999): a grader in
        // another PID namespace may own it. It must survive.
        let foreign = parent.join(format!("{PREFIX}999999-0000abcd-0-0"));
        fs::create_dir(&foreign).expect("make a foreign group");
        let slot = first.slot(0).expect("slot");
        let (second, _) = CgroupParents::detect();
        let other = second.slot(0).expect("slot");
        assert_ne!(slot.memory, other.memory, "a slot each");
        drop((slot, other, first, second));
        assert!(foreign.exists(), "another grader's group was removed");
        fs::remove_dir(&foreign).expect("clean up");
    }

    /// The v2 logic on a prepared tree (this machine mounts controllers
    /// only on v1): the grader's group gets `+memory +pids`, slots get
    /// `memory.max`, `memory.swap.max`, `pids.max`, `memory.events` is read
    /// for the OOM count, and only the grader's own groups are removed.
    #[test]
    fn cgroup_v2_on_a_prepared_tree() {
        let root = tempfile::tempdir().expect("tempdir");
        let own = root.path().join("system.slice/grader.scope");
        fs::create_dir_all(&own).expect("mkdir");
        fs::write(own.join("cgroup.controllers"), "cpu io memory pids\n").expect("write");
        let self_cgroup = "0::/system.slice/grader.scope\n";
        let other = own.join(format!("{PREFIX}4242-deadbeef-0"));
        fs::create_dir_all(&other).expect("another grader's group");

        let group = set_up_v2(root.path(), self_cgroup, "grader-1-cafe-0", 1).expect("v2");
        assert_eq!(group, own.join("grader-1-cafe-0"));
        assert_eq!(
            fs::read_to_string(own.join("cgroup.subtree_control")).expect("read"),
            "+memory +pids"
        );
        assert_eq!(
            fs::read_to_string(group.join("cgroup.subtree_control")).expect("read"),
            "+memory +pids"
        );
        let parents = CgroupParents {
            hierarchy: Hierarchy::V2 {
                group: group.clone(),
            },
            name: "grader-1-cafe-0".to_string(),
        };
        assert!(parents.has_memory() && parents.has_pids());
        assert_eq!(parents.version(), "v2");
        let mut slot = parents.slot(3).expect("slot");
        let dir = group.join("grader-1-cafe-0-3");
        assert_eq!(slot.procs_files(), vec![dir.join("cgroup.procs")]);
        assert_eq!(read(&dir.join("pids.max")), u64::from(PIDS_MAX));
        fs::write(dir.join("memory.swap.max"), "max").expect("swap file");
        slot.set_memory_limit(256).expect("limit");
        assert_eq!(read(&dir.join("memory.max")), 256 << 20);
        assert_eq!(read(&dir.join("memory.swap.max")), 0);
        fs::write(
            dir.join("memory.events"),
            "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n",
        )
        .expect("events");
        assert_eq!(slot.oom_kills(), 1);
        slot.set_pids_max(256).expect("pids");
        assert_eq!(read(&dir.join("pids.max")), 256);
        drop(slot);
        assert!(!dir.exists(), "the slot is removed");
        drop(parents);
        assert!(!group.exists(), "the grader's group is removed");
        assert!(other.exists(), "another grader's group is left alone");
    }

    #[test]
    fn cgroup_v2_without_the_controllers_says_what_to_do() {
        let root = tempfile::tempdir().expect("tempdir");
        fs::write(root.path().join("cgroup.controllers"), "cpu io\n").expect("write");
        let err = set_up_v2(root.path(), "0::/\n", "grader-1-x-0", 1).expect_err("no memory");
        assert!(err.contains("memory controller is not available"), "{err}");
        let err = set_up_v2(root.path(), "4:memory:/\n", "grader-1-x-0", 1).expect_err("no v2");
        assert!(err.contains("in no v2 group"), "{err}");
    }
}
