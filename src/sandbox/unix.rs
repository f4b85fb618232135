//! The grader's raw system calls around a box: the `pre_exec` hook that
//! puts the box process in its namespaces, pipes, `poll`, killing a process
//! group, wait statuses, and the probes of what the kernel offers. The
//! parent side's `unsafe` is here, but for the `pre_exec` registration in
//! [`super::sandbox`] and a `statfs` in [`super::cgroup`].

use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

use crate::protocol::PROTOCOL_FD;

/// Turns a libc return value of -1 into the `errno` error.
fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// The `pre_exec` work for a box (see [`crate::sandbox`]): the
/// protocol pipe becomes fd 3 and the event pipe fd 4 (everything above is
/// closed at exec), a process group of its own, death with the grader, no
/// core dumps; with `namespaces`, new PID,
/// mount, network, IPC and UTS namespaces. Only async-signal-safe calls.
pub(crate) fn box_setup(
    protocol_write: RawFd,
    events_write: RawFd,
    namespaces: bool,
) -> io::Result<()> {
    use crate::protocol::BOX_EVENTS_FD;
    // Both sources are above fd 4 (the caller keeps them there), so the
    // dup2s cannot overwrite each other.
    // SAFETY: dup2 of open fds onto 3 and 4, integer arguments only.
    check(unsafe { libc::dup2(protocol_write, PROTOCOL_FD) })?;
    // SAFETY: as above.
    check(unsafe { libc::dup2(events_write, BOX_EVENTS_FD) })?;
    // SAFETY: close_range/fcntl with integer arguments.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            (BOX_EVENTS_FD + 1) as libc::c_uint,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if ret != 0 {
        for fd in BOX_EVENTS_FD + 1..4096 {
            // SAFETY: fcntl on a possibly closed fd just fails with EBADF.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        }
    }
    // SAFETY: setpgid(0, 0) makes this child a group leader; no memory.
    check(unsafe { libc::setpgid(0, 0) })?;
    // SAFETY: PR_SET_PDEATHSIG with a signal number; no memory.
    check(unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        )
    })?;
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `no_core` is a valid rlimit for the duration of the call.
    check(unsafe { libc::setrlimit(libc::RLIMIT_CORE, &no_core) })?;
    if namespaces {
        let flags = libc::CLONE_NEWPID
            | libc::CLONE_NEWNS
            | libc::CLONE_NEWNET
            | libc::CLONE_NEWIPC
            | libc::CLONE_NEWUTS;
        // SAFETY: unshare with integer flags changes only this process's
        // namespaces (the forked child is single-threaded).
        check(unsafe { libc::unshare(flags) })?;
    }
    Ok(())
}

/// Whether this host lets the grader make a box's namespaces: starts
/// `worker --identity` in them once.
pub(crate) fn namespaces_available(worker: &std::path::Path) -> bool {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(worker);
    command
        .arg("--identity")
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: unshare with integer flags only, in the forked child.
    unsafe {
        command.pre_exec(|| {
            let flags = libc::CLONE_NEWPID
                | libc::CLONE_NEWNS
                | libc::CLONE_NEWNET
                | libc::CLONE_NEWIPC
                | libc::CLONE_NEWUTS;
            check(libc::unshare(flags)).map(drop)
        });
    }
    command.status().is_ok()
}

/// Moves `fd` to a number above 4 (close-on-exec), so that the box's
/// `dup2`s onto 3 and 4 cannot clobber it.
pub(crate) fn above_box_fds(fd: OwnedFd) -> io::Result<OwnedFd> {
    use std::os::fd::AsRawFd;
    if fd.as_raw_fd() > crate::protocol::BOX_EVENTS_FD {
        return Ok(fd);
    }
    // SAFETY: F_DUPFD_CLOEXEC returns a new fd >= 5 that we own.
    let new = check(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 5) })?;
    // SAFETY: the kernel just returned this fd, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

/// A pipe `(read end, write end)`, both close-on-exec.
pub(crate) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    #[cfg(any(
        target_os = "linux",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd"
    ))]
    // SAFETY: `fds` has room for the two fds pipe2 writes.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    #[cfg(not(any(
        target_os = "linux",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd"
    )))]
    {
        // SAFETY: `fds` has room for the two fds pipe writes.
        check(unsafe { libc::pipe(fds.as_mut_ptr()) })?;
        for fd in fds {
            // SAFETY: fcntl on the fds pipe just made.
            check(unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) })?;
        }
    }
    // SAFETY: the kernel just returned these fds, owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `poll` on `fds` for at most `timeout_ms` (-1: no limit); EINTR counts
/// as a timeout.
pub(crate) fn poll(fds: &mut [libc::pollfd], timeout_ms: i32) -> io::Result<()> {
    // SAFETY: `fds` is a valid, writable array of `fds.len()` pollfds.
    let ret = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
    match check(ret) {
        Ok(_) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::Interrupted => Ok(()),
        Err(err) => Err(err),
    }
}

/// Sets `O_NONBLOCK` on `fd`.
pub(crate) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl flag calls on an fd the caller owns.
    let flags = check(unsafe { libc::fcntl(fd, libc::F_GETFL) })?;
    // SAFETY: as above.
    check(unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) })?;
    Ok(())
}

/// Sends SIGKILL to every process of group `pgid`; a group that is gone is
/// not an error.
pub(crate) fn kill_group(pgid: libc::pid_t) {
    if pgid > 1 {
        // SAFETY: kill with integer arguments; a negative pid names a group.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
    }
}

/// Sends SIGKILL to one process.
pub(crate) fn kill_process(pid: libc::pid_t) {
    if pid > 1 {
        // SAFETY: kill with integer arguments.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

/// The exit code, if the wait status is a normal exit.
pub(crate) fn exit_code(status: libc::c_int) -> Option<i32> {
    libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status))
}

/// The signal, if the wait status is a death by signal.
pub(crate) fn term_signal(status: libc::c_int) -> Option<i32> {
    libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status))
}

/// Whether the grader runs as root.
pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The kernel's Landlock ABI version, if it has Landlock.
pub(crate) fn landlock_abi() -> Option<u32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns a number.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    (ret > 0).then_some(ret as u32)
}

/// Whether the kernel has seccomp filters.
pub(crate) fn seccomp_available() -> bool {
    // SAFETY: PR_GET_SECCOMP reads this process's mode; it fails with
    // EINVAL on a kernel without seccomp.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 }
}
