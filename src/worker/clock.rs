//! The box's clock for one run: how much of the wall time since the fork
//! the run spent *not wanting a CPU* (sleeping, blocked, stopped), read
//! from the kernel's per-task scheduler statistics, so that a run waiting
//! for a CPU on a busy host is never mistaken for one that sleeps.
//!
//! `/proc/<pid>/task/<tid>/schedstat` gives, per thread, the nanoseconds
//! spent on a CPU and the nanoseconds spent runnable on a run queue. The
//! run was *busy* for the sum of those counts over its threads (a thread
//! that has ended keeps its last reading), and *idle* for the rest of the
//! wall time since the fork. The kernel adds a wait to the run-queue count
//! only when the wait ends (the thread gets a CPU), so a thread waiting
//! right now looks idle for a moment: the caller stops a run for idleness
//! only when none of its threads is in state `R` (running or runnable) at
//! that moment ([`RunClock::runnable_now`]), and the wait is counted when
//! it ends. Where `schedstat` is missing (a kernel without
//! `CONFIG_SCHED_INFO`), a thread in state `R` at a reading counts as busy
//! for the interval before it.
//!
//! For a build, the run is the whole tree below the build's first process
//! (`/proc/<pid>/task/<tid>/children`): a compiler waiting for its `cc1`
//! is not idle. Its CPU time is the tree's, summed from the same counts.
//!
//! Nothing here is written by student code: the kernel keeps the counts,
//! and init reads them from its own `/proc`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A run's clock: busy and idle time since the fork, from the readings.
pub(super) struct RunClock {
    /// The run's first process.
    pid: libc::pid_t,
    /// Count the whole process tree (builds), or the process alone (tests).
    tree: bool,
    /// When the run was forked.
    start: Instant,
    /// The last reading of each thread ever seen: on-CPU and run-queue
    /// nanoseconds (an ended thread keeps its last one).
    seen: HashMap<libc::pid_t, (u64, u64)>,
    /// When the last reading was made.
    last_reading: Instant,
    /// Intervals counted busy by a thread's state, where `schedstat` could
    /// not be read.
    sampled_busy: Duration,
}

impl RunClock {
    /// A clock for the run whose first process is `pid`, forked at `start`.
    pub(super) fn new(pid: libc::pid_t, tree: bool, start: Instant) -> RunClock {
        RunClock {
            pid,
            tree,
            start,
            seen: HashMap::new(),
            last_reading: start,
            sampled_busy: Duration::ZERO,
        }
    }

    /// Reads the counts of every thread of the run now.
    pub(super) fn read(&mut self) {
        let now = Instant::now();
        let interval = now.saturating_duration_since(self.last_reading);
        self.last_reading = now;
        let mut runnable = false;
        for (pid, tid) in self.tasks() {
            match schedstat(pid, tid) {
                Some(counts) => {
                    self.seen.insert(tid, counts);
                }
                None => runnable |= state_is_runnable(pid, tid),
            }
        }
        if runnable {
            self.sampled_busy += interval;
        }
    }

    /// Whether a thread of the run is running or waiting for a CPU now
    /// (its wait is not in the counts until it ends).
    pub(super) fn runnable_now(&self) -> bool {
        self.tasks()
            .into_iter()
            .any(|(pid, tid)| state_is_runnable(pid, tid))
    }

    /// Time the run did not want a CPU, up to the last reading: the wall
    /// time since the fork less the time its threads ran or waited to.
    pub(super) fn idle(&self) -> Duration {
        let wall = self.last_reading.saturating_duration_since(self.start);
        let counted: u64 = self.seen.values().map(|(cpu, wait)| cpu + wait).sum();
        wall.saturating_sub(Duration::from_nanos(counted) + self.sampled_busy)
    }

    /// Time its threads waited for a CPU, so far (summed over threads).
    pub(super) fn waited(&self) -> Duration {
        Duration::from_nanos(self.seen.values().map(|(_, wait)| wait).sum())
    }

    /// CPU time of every thread of the tree seen so far (for builds).
    pub(super) fn tree_cpu(&self) -> Duration {
        Duration::from_nanos(self.seen.values().map(|(cpu, _)| cpu).sum())
    }

    /// The `(pid, tid)` of every thread of the run.
    fn tasks(&self) -> Vec<(libc::pid_t, libc::pid_t)> {
        let mut tasks = Vec::new();
        let mut processes = vec![self.pid];
        while let Some(pid) = processes.pop() {
            for tid in threads(pid) {
                tasks.push((pid, tid));
                if self.tree && tasks.len() < MAX_TASKS {
                    processes.extend(children(pid, tid));
                }
            }
        }
        tasks
    }
}

/// The most threads a reading visits (a fork bomb in a build must not make
/// init spend its time reading `/proc`; the pids cgroup caps a box lower).
const MAX_TASKS: usize = 4096;

/// The thread ids of process `pid` (none once it is gone).
fn threads(pid: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// The children of thread `tid` of process `pid`.
fn children(pid: libc::pid_t, tid: libc::pid_t) -> Vec<libc::pid_t> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/children"))
        .map(|text| {
            text.split_ascii_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// A thread's nanoseconds on a CPU and waiting on a run queue.
fn schedstat(pid: libc::pid_t, tid: libc::pid_t) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/schedstat")).ok()?;
    let mut fields = text.split_ascii_whitespace();
    let on_cpu = fields.next()?.parse().ok()?;
    let queued = fields.next()?.parse().ok()?;
    Some((on_cpu, queued))
}

/// Whether a thread is running or runnable (state `R` in its `stat`).
fn state_is_runnable(pid: libc::pid_t, tid: libc::pid_t) -> bool {
    let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat")) else {
        return false;
    };
    // The state follows the command name, which is in parentheses and may
    // hold anything (a student names the thread): read after the last `)`.
    text.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_ascii_whitespace().next())
        == Some("R")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shell loop counting to `n`: a few tenths of a second of CPU.
    fn spin(n: u32) -> String {
        format!("i=0; while [ $i -lt {n} ]; do i=$((i+1)); done")
    }

    /// Runs `sh -c script` and reads its clock every 5 ms until it ends,
    /// calling `each` after every reading; the clock and the wall time.
    fn watched(script: &str, tree: bool, mut each: impl FnMut(&RunClock)) -> (RunClock, Duration) {
        let start = Instant::now();
        let mut child = std::process::Command::new("sh")
            .args(["-c", script])
            .spawn()
            .expect("sh");
        let mut clock = RunClock::new(child.id() as libc::pid_t, tree, start);
        while child.try_wait().expect("wait").is_none() {
            std::thread::sleep(Duration::from_millis(5));
            clock.read();
            each(&clock);
        }
        (clock, start.elapsed())
    }

    #[test]
    fn a_sleeping_child_is_idle_and_a_spinning_one_is_not() {
        let (clock, _) = watched("sleep 0.3", false, |_| {});
        assert!(
            clock.idle() >= Duration::from_millis(200),
            "a sleep of 300 ms was idle for {:?}",
            clock.idle()
        );
        let (clock, wall) = watched(&spin(200_000), false, |_| {});
        assert!(
            clock.idle() < wall / 3,
            "a busy loop of {wall:?} was idle for {:?}",
            clock.idle()
        );
    }

    #[test]
    fn waiting_for_a_cpu_on_a_busy_host_is_not_idle() {
        // Three spinners per core beside the measured one: it spends most
        // of its wall time waiting on a run queue, which is not idle.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut hogs: Vec<_> = (0..cores * 3)
            .map(|_| {
                std::process::Command::new("sh")
                    .args(["-c", &spin(400_000)])
                    .spawn()
                    .expect("sh")
            })
            .collect();
        let mut worst = Duration::ZERO;
        let (_, wall) = watched(&spin(100_000), false, |clock| {
            if !clock.runnable_now() {
                worst = worst.max(clock.idle());
            }
        });
        for hog in &mut hogs {
            let _ = hog.kill();
            let _ = hog.wait();
        }
        assert!(
            worst < Duration::from_millis(100),
            "a spinning process on a busy host looked idle for {worst:?} of {wall:?}"
        );
    }

    #[test]
    fn a_build_tree_counts_its_children() {
        let script = format!("sh -c '{}'; true", spin(200_000));
        let (tree, wall) = watched(&script, true, |_| {});
        assert!(
            tree.idle() < wall / 3,
            "a parent waiting for a busy child was idle for {:?} of {wall:?}",
            tree.idle()
        );
        assert!(
            tree.tree_cpu() > Duration::from_millis(10),
            "{:?}",
            tree.tree_cpu()
        );
    }

    #[test]
    fn a_thread_name_with_a_parenthesis_does_not_hide_its_state() {
        // This thread is running while it reads its own stat.
        let pid = std::process::id() as libc::pid_t;
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        assert!(state_is_runnable(pid, tid));
    }
}
