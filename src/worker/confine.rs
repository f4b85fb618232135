//! The confinement a test child puts on itself before any student code
//! runs: rlimits, Landlock on its view, the uid drop, and the seccomp kill
//! list. The test zygote applies what does not depend on the test once;
//! a child of init without a zygote applies it all (see `test_child.rs`).
//! A safeguard that cannot be applied ends the process
//! ([`super::channel::safeguard_failed`]): no student code runs unconfined.

use crate::protocol::{SandboxPlan, View, WorkerMessage};

use super::channel::{safeguard_failed, send};
use super::{landlock, seccomp, sys};

/// Holds this test to `view` with Landlock, reporting a ruleset only
/// partly enforced; a missing view or a ruleset that could not be
/// enforced is a safeguard failure (no student code has run).
pub(super) fn enforce_landlock(view: Option<&View>) {
    if let Some(message) = landlock_note(view) {
        send(&WorkerMessage::SandboxNote { message });
    }
}

/// [`enforce_landlock`], returning the note on a ruleset only partly
/// enforced instead of sending it (the test zygote's children send it).
pub(super) fn landlock_note(view: Option<&View>) -> Option<String> {
    let Some(view) = view else {
        safeguard_failed("restrict file access", "the box has no view for this test");
    };
    match landlock::restrict(view) {
        Ok(landlock::Enforcement::Full) => None,
        Ok(landlock::Enforcement::Partial(message)) => Some(message),
        Err(err) => safeguard_failed("restrict file access", err),
    }
}

/// Drops to the box's user and group (per the plan), then asks again to
/// die with `parent` (changing credentials clears that setting).
pub(super) fn drop_to_box_user(plan: &SandboxPlan, parent: libc::pid_t) {
    let Some(uid) = plan.uid else {
        return;
    };
    let gid = plan.gid.unwrap_or(uid);
    if let Err(err) = sys::drop_privileges(uid, gid) {
        safeguard_failed(&format!("switch to user {uid}"), err);
    }
    if let Err(err) = sys::die_with_parent(parent) {
        safeguard_failed("ask to die with the grader", err);
    }
}

/// Sets the rlimits: CPU (see [`set_cpu_limit`]; `None` leaves it, for the
/// test zygote, whose children set their own), no file writes, few files,
/// no core dumps, and the planned address-space and process limits.
pub(super) fn set_limits(time_limit_ms: Option<u64>, plan: &SandboxPlan) {
    if let Some(ms) = time_limit_ms {
        set_cpu_limit(ms);
    }
    let mut limits = vec![
        (libc::RLIMIT_FSIZE, "file size", 0, 0),
        (libc::RLIMIT_NOFILE, "open files", 32, 32),
        (libc::RLIMIT_CORE, "core dumps", 0, 0),
    ];
    if let Some(mb) = plan.address_space_mb {
        let bytes = mb.saturating_mul(1 << 20);
        limits.push((libc::RLIMIT_AS, "address space", bytes, bytes));
    }
    if let Some(nproc) = plan.nproc {
        limits.push((libc::RLIMIT_NPROC, "processes", nproc, nproc));
    }
    for (resource, what, soft, hard) in limits {
        if let Err(err) = sys::set_rlimit(resource, soft, hard) {
            safeguard_failed(&format!("limit {what}"), err);
        }
    }
}

/// Sets the CPU rlimit for a test of `time_limit_ms`: soft = the limit
/// rounded up to a second, hard one second more (SIGXCPU, then SIGKILL).
/// The box's init stops the test at its limit first; this is the second
/// line.
pub(super) fn set_cpu_limit(time_limit_ms: u64) {
    let cpu = time_limit_ms.div_ceil(1000).max(1);
    if let Err(err) = sys::set_rlimit(libc::RLIMIT_CPU, cpu, cpu + 1) {
        safeguard_failed("limit CPU time", err);
    }
}

/// Builds all three filters, installs K and E, and returns A to install
/// after loading (built now: building allocates and may need calls A
/// refuses).
pub(super) fn install_kill_filters() -> seccompiler::BpfProgram {
    let built = seccomp::kill_filter(sys::pid())
        .and_then(|k| Ok((k, seccomp::clone3_filter()?, seccomp::allow_filter()?)));
    let (kill, clone3, allow) = match built {
        Ok(filters) => filters,
        Err(err) => safeguard_failed("build the seccomp filters", err),
    };
    if let Err(err) = sys::no_new_privs() {
        safeguard_failed("set no_new_privs", err);
    }
    for filter in [&kill, &clone3] {
        if let Err(err) = seccomp::apply(filter) {
            safeguard_failed("install the kill-list filter", err);
        }
    }
    allow
}
