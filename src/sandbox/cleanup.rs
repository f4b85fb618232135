//! Nothing left behind on Ctrl-C or `kill`: every box process, box folder,
//! run folder and cgroup the grader makes is registered here while it
//! exists, and a SIGINT, SIGTERM or SIGHUP handler ([`install`]) kills the
//! boxes, removes the folders and groups, and exits with 130. (The boxes would die with the grader anyway — each asks for
//! SIGKILL when its parent dies — but their folders and groups would not
//! go by themselves.)

use std::path::PathBuf;
use std::sync::{Mutex, Once};

/// What exists now and must go if the grader is stopped.
#[derive(Default)]
struct Registry {
    /// Box processes (each leads its own process group).
    pids: Vec<u32>,
    /// Folders to remove, in order of registration.
    dirs: Vec<PathBuf>,
    /// cgroups to remove (children before parents: removed newest first).
    groups: Vec<PathBuf>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);
static INSTALL: Once = Once::new();
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a stop signal arrived: the handler is cleaning up and will exit
/// with 130, so the command must not exit first with its own code.
pub fn stopping() -> bool {
    STOPPING.load(std::sync::atomic::Ordering::SeqCst)
}

fn with<T>(f: impl FnOnce(&mut Registry) -> T) -> T {
    let mut guard = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(Registry::default))
}

/// Installs the signal handler, once per process. A handler that cannot
/// be installed (another one is there) leaves cleanup to the usual drops.
pub fn install() {
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
            // Grading threads may still be making a box or a group as the
            // first sweep runs (nothing new is made once `stopping` is
            // seen): sweep until nothing is left.
            for _ in 0..10 {
                clean_up();
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            std::process::exit(130);
        });
    });
}

/// Kills the registered boxes and removes the registered folders and
/// groups. Called by the handler; also safe to call at any time.
pub fn clean_up() {
    let (pids, dirs, groups) = with(|r| {
        (
            std::mem::take(&mut r.pids),
            std::mem::take(&mut r.dirs),
            std::mem::take(&mut r.groups),
        )
    });
    for pid in pids {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            super::unix::kill_group(pid);
            super::unix::kill_process(pid);
        }
    }
    // The boxes die asynchronously and may still be writing: retry.
    for dir in dirs.iter().rev() {
        for _ in 0..100 {
            if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    for group in groups.iter().rev() {
        for _ in 0..50 {
            if std::fs::remove_dir(group).is_ok() || !group.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// Registers a box process.
pub fn track_pid(pid: u32) {
    with(|r| r.pids.push(pid));
}

/// Forgets a box process (it ended).
pub fn untrack_pid(pid: u32) {
    with(|r| r.pids.retain(|&p| p != pid));
}

/// Registers a folder to remove.
pub fn track_dir(dir: PathBuf) {
    with(|r| r.dirs.push(dir));
}

/// Registers a cgroup to remove.
pub fn track_group(dir: PathBuf) {
    with(|r| r.groups.push(dir));
}

/// Forgets a cgroup (removed).
pub fn untrack_group(dir: &std::path::Path) {
    with(|r| r.groups.retain(|d| d != dir));
}
