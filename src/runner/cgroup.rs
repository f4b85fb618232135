//! cgroup v1 `memory` and `pids` groups for workers: one pair per running
//! slot, created under the grader's own cgroup, reused from test to test,
//! removed when the grader is done. The memory group's `oom_kill` counter
//! tells a memory verdict apart from a timeout (both end in SIGKILL).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The processes and threads one worker may have (the main thread plus a
/// student's threads).
pub const PIDS_MAX: u32 = 32;

/// Where the v1 hierarchies are mounted.
const V1_ROOT: &str = "/sys/fs/cgroup";

/// Prefix of the groups this grader creates.
const PREFIX: &str = "grader-";

/// Distinguishes several sandbox environments in one process (tests).
static ENV_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// The parent groups slots are created in, per controller.
#[derive(Debug)]
pub struct CgroupParents {
    /// The memory controller's parent group, if usable.
    pub memory: Option<PathBuf>,
    /// The pids controller's parent group, if usable.
    pub pids: Option<PathBuf>,
    /// Unique among the environments of this process.
    env_id: usize,
}

impl CgroupParents {
    /// Finds the grader's own v1 `memory` and `pids` groups and checks that
    /// a child group can be made in each (creating and removing a probe);
    /// cleans up groups left by a grader that died. Returns what failed, as
    /// notes.
    pub fn detect() -> (CgroupParents, Vec<String>) {
        let env_id = ENV_COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut notes = Vec::new();
        let mut usable = |controller: &str, file: &str| -> Option<PathBuf> {
            let parent = own_group(controller)?;
            if !parent.join("cgroup.procs").exists() {
                return None;
            }
            remove_stale(&parent);
            // The root group lacks the limit files: look in a child.
            let probe = parent.join(format!("{PREFIX}{}-probe-{env_id}", std::process::id()));
            let made = fs::create_dir(&probe).and_then(|()| {
                let has_limit = probe.join(file).exists();
                fs::remove_dir(&probe)?;
                if has_limit {
                    Ok(())
                } else {
                    Err(io::Error::other(format!("a new group has no {file}")))
                }
            });
            match made {
                Ok(()) => Some(parent),
                Err(err) => {
                    notes.push(format!(
                        "cannot create a {controller} cgroup in {}: {err}",
                        parent.display()
                    ));
                    None
                }
            }
        };
        let memory = usable("memory", "memory.limit_in_bytes");
        let pids = usable("pids", "pids.max");
        (
            CgroupParents {
                memory,
                pids,
                env_id,
            },
            notes,
        )
    }

    /// Creates the groups of slot `slot`.
    pub fn slot(&self, slot: usize) -> io::Result<CgroupSlot> {
        let name = format!("{PREFIX}{}-{}-{slot}", std::process::id(), self.env_id);
        let make = |parent: &Option<PathBuf>| -> io::Result<Option<PathBuf>> {
            let Some(parent) = parent else {
                return Ok(None);
            };
            let dir = parent.join(&name);
            match fs::create_dir(&dir) {
                Ok(()) => {}
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
                Err(err) => return Err(err),
            }
            Ok(Some(dir))
        };
        let memory = make(&self.memory)?;
        let pids = make(&self.pids)?;
        if let Some(pids) = &pids {
            fs::write(pids.join("pids.max"), PIDS_MAX.to_string())?;
        }
        Ok(CgroupSlot {
            memory,
            pids,
            memory_limit: None,
        })
    }
}

/// The grader's own group in the v1 hierarchy of `controller`, from
/// `/proc/self/cgroup` (lines `ID:controllers:/path`).
fn own_group(controller: &str) -> Option<PathBuf> {
    let mount = Path::new(V1_ROOT).join(controller);
    let text = fs::read_to_string("/proc/self/cgroup").ok()?;
    let relative = text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == controller)
            .then(|| path.trim_start_matches('/').to_string())
    })?;
    let own = mount.join(relative);
    Some(if own.is_dir() { own } else { mount })
}

/// Removes groups named `grader-<pid>-…` whose grader process is gone,
/// killing anything left in them.
fn remove_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(PREFIX) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            remove_group(&entry.path());
        }
    }
}

/// Kills every process in a group, then removes it (retrying briefly while
/// the killed processes finish).
fn remove_group(dir: &Path) {
    for _ in 0..50 {
        kill_all(dir);
        if fs::remove_dir(dir).is_ok() || !dir.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
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

/// The groups of one running slot.
#[derive(Debug)]
pub struct CgroupSlot {
    memory: Option<PathBuf>,
    pids: Option<PathBuf>,
    /// The memory limit last written, in bytes.
    memory_limit: Option<u64>,
}

impl CgroupSlot {
    /// The `cgroup.procs` files a worker joins.
    pub fn procs_files(&self) -> Vec<PathBuf> {
        [&self.memory, &self.pids]
            .into_iter()
            .flatten()
            .map(|dir| dir.join("cgroup.procs"))
            .collect()
    }

    /// Whether this slot has a memory group.
    pub fn has_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// Sets the memory limit (memory and memory+swap) to `mb` MiB.
    pub fn set_memory_limit(&mut self, mb: u64) -> io::Result<()> {
        let Some(dir) = &self.memory else {
            return Ok(());
        };
        let bytes = mb.saturating_mul(1 << 20);
        if self.memory_limit == Some(bytes) {
            return Ok(());
        }
        let memory = dir.join("memory.limit_in_bytes");
        let memsw = dir.join("memory.memsw.limit_in_bytes");
        let value = bytes.to_string();
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

    /// Sets the pids group's `pids.max` (builds need more than tests).
    pub fn set_pids_max(&mut self, max: u32) -> io::Result<()> {
        match &self.pids {
            Some(dir) => fs::write(dir.join("pids.max"), max.to_string()),
            None => Ok(()),
        }
    }

    /// The memory group's `oom_kill` counter (0 without a memory group).
    pub fn oom_kills(&self) -> u64 {
        let Some(dir) = &self.memory else { return 0 };
        fs::read_to_string(dir.join("memory.oom_control"))
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
    pub fn kill_leftovers(&self) -> usize {
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
        for dir in [&self.memory, &self.pids].into_iter().flatten() {
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

    /// On a machine with writable v1 groups (root here): a slot's limits
    /// can be lowered and raised, and its groups are gone after drop.
    #[test]
    fn slot_limits_and_cleanup() {
        let (parents, _notes) = CgroupParents::detect();
        let Some(memory_parent) = parents.memory.clone() else {
            eprintln!("no writable memory cgroup here: nothing to test");
            return;
        };
        let mut slot = parents.slot(7).expect("slot");
        let dir = slot.memory.clone().expect("memory group");
        assert!(dir.starts_with(&memory_parent));
        for mb in [64, 256, 32, 128] {
            slot.set_memory_limit(mb).expect("limit");
            assert_eq!(read(&dir.join("memory.limit_in_bytes")), mb << 20);
            let memsw = dir.join("memory.memsw.limit_in_bytes");
            if memsw.exists() {
                assert_eq!(read(&memsw), mb << 20);
            }
        }
        assert_eq!(slot.oom_kills(), 0);
        assert_eq!(slot.kill_leftovers(), 0);
        if let Some(pids) = &slot.pids {
            assert_eq!(read(&pids.join("pids.max")), u64::from(PIDS_MAX));
        }
        let files = slot.procs_files();
        assert!(files.iter().all(|f| f.ends_with("cgroup.procs")));
        drop(slot);
        assert!(!dir.exists(), "{} left behind", dir.display());
    }
}
