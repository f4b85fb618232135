//! The worker program's raw system calls: rlimits, namespaces, the uid
//! drop, the parent-death signal, the SIGSYS handler, writes to the
//! protocol fd and `_exit`; for box init, fork, wait, kill, mounts and
//! `pivot_root`. Most of the worker program's `unsafe` is here (the whole
//! list: ARCHITECTURE.md).

use std::io;

use crate::protocol::PROTOCOL_FD;

/// Turns a libc return value of -1 into the `errno` error.
fn check(ret: libc::c_int) -> io::Result<()> {
    if ret == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Whether the protocol fd is open (the grader passes it; a worker started
/// by hand has none).
pub(super) fn protocol_fd_open() -> bool {
    // SAFETY: F_GETFD on any integer is harmless; it only reads fd flags.
    unsafe { libc::fcntl(PROTOCOL_FD, libc::F_GETFD) != -1 }
}

/// Writes all of `bytes` to `fd` with raw `write` calls (no buffering, no
/// allocation), retrying on EINTR and short writes.
pub(super) fn write_all(fd: libc::c_int, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a valid readable slice of `bytes.len()` bytes.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        bytes = &bytes[n as usize..];
    }
    Ok(())
}

/// Ends the process at once with `code`: no atexit handlers, no destructors,
/// no flushing (the student's library may have registered handlers).
pub(super) fn exit_now(code: i32) -> ! {
    // SAFETY: `_exit` is always safe to call; it does not return.
    unsafe { libc::_exit(code) }
}

/// A resource limit (`RLIMIT_*`) as libc spells it on this platform.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(super) type Resource = libc::__rlimit_resource_t;
/// A resource limit (`RLIMIT_*`) as libc spells it on this platform.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub type Resource = libc::c_int;

/// Sets a resource limit; `soft` is capped at `hard`.
pub(super) fn set_rlimit(resource: Resource, soft: u64, hard: u64) -> io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: soft.min(hard) as libc::rlim_t,
        rlim_max: hard as libc::rlim_t,
    };
    // SAFETY: `limit` is a valid rlimit struct for the duration of the call.
    check(unsafe { libc::setrlimit(resource, &limit) })
}

/// Drops every group and sets the real, effective and saved user and group
/// ids to `uid`/`gid`; checks that root cannot be regained.
pub(super) fn drop_privileges(uid: u32, gid: u32) -> io::Result<()> {
    // SAFETY: setgroups with an empty list reads no memory.
    check(unsafe { libc::setgroups(0, std::ptr::null()) })?;
    #[cfg(any(target_os = "linux", target_os = "freebsd", target_os = "openbsd"))]
    {
        // SAFETY: plain id-changing calls with integer arguments.
        check(unsafe { libc::setresgid(gid, gid, gid) })?;
        // SAFETY: as above.
        check(unsafe { libc::setresuid(uid, uid, uid) })?;
    }
    #[cfg(not(any(target_os = "linux", target_os = "freebsd", target_os = "openbsd")))]
    {
        // SAFETY: plain id-changing calls with integer arguments; as root,
        // setgid/setuid set the real, effective and saved ids.
        check(unsafe { libc::setgid(gid) })?;
        // SAFETY: as above.
        check(unsafe { libc::setuid(uid) })?;
    }
    // SAFETY: as above; this one must fail now.
    if uid != 0 && unsafe { libc::setuid(0) } == 0 {
        return Err(io::Error::other("setuid(0) still succeeds after the drop"));
    }
    Ok(())
}

/// Asks for SIGKILL when the parent (the grader) dies, and checks it has not
/// died already. Changing credentials clears this setting, so it is called
/// again after the uid drop.
pub(super) fn die_with_parent(expected_parent: libc::pid_t) -> io::Result<()> {
    // SAFETY: PR_SET_PDEATHSIG takes a signal number; no memory is touched.
    check(unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        )
    })?;
    if parent_pid() != expected_parent {
        exit_now(111);
    }
    Ok(())
}

/// The parent's pid.
pub(super) fn parent_pid() -> libc::pid_t {
    // SAFETY: getppid cannot fail.
    unsafe { libc::getppid() }
}

/// This process's pid.
pub(super) fn pid() -> libc::pid_t {
    // SAFETY: getpid cannot fail.
    unsafe { libc::getpid() }
}

/// Sets `PR_SET_NO_NEW_PRIVS`, which seccomp needs (and which stops any
/// set-uid gain).
pub(super) fn no_new_privs() -> io::Result<()> {
    // SAFETY: a prctl with integer arguments only.
    check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })
}

/// Exit status of a test child whose SIGSYS handler ran (after it wrote the
/// `forbidden` message).
pub const FORBIDDEN_EXIT: i32 = 159;

/// Formats `{"type":"forbidden","syscall":N}\n` into `buf` without
/// allocating, returning the used length. Async-signal-safe.
fn format_forbidden(syscall: i64, buf: &mut [u8; 64]) -> usize {
    const HEAD: &[u8] = b"{\"type\":\"forbidden\",\"syscall\":";
    buf[..HEAD.len()].copy_from_slice(HEAD);
    let mut len = HEAD.len();
    let mut digits = [0u8; 20];
    let mut count = 0;
    let negative = syscall < 0;
    let mut value = syscall.unsigned_abs();
    loop {
        digits[count] = b'0' + (value % 10) as u8;
        count += 1;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    if negative {
        buf[len] = b'-';
        len += 1;
    }
    for i in (0..count).rev() {
        buf[len] = digits[i];
        len += 1;
    }
    buf[len] = b'}';
    buf[len + 1] = b'\n';
    len + 2
}

/// The SIGSYS handler: a seccomp filter trapped a forbidden call. Reports
/// its number on the protocol fd and ends the whole process. Uses only
/// async-signal-safe calls (`write`, `_exit`).
extern "C" fn on_sigsys(
    _signal: libc::c_int,
    info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    // The SIGSYS siginfo holds `void *si_call_addr; int si_syscall;` right
    // after the three ints and padding of the common header (offset 16 on
    // 64-bit Linux).
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers;
    // for SIGSYS from seccomp, the int at offset 24 is `si_syscall`.
    let syscall = unsafe { info.cast::<u8>().add(24).cast::<libc::c_int>().read() };
    let mut buf = [0u8; 64];
    let len = format_forbidden(i64::from(syscall), &mut buf);
    let _ = write_all(PROTOCOL_FD, &buf[..len]);
    exit_now(FORBIDDEN_EXIT);
}

/// Installs [`on_sigsys`] as the SIGSYS handler, with every signal blocked
/// while it runs.
pub(super) fn install_sigsys_handler() -> io::Result<()> {
    // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value.
    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
    action.sa_sigaction = on_sigsys as *const () as libc::sighandler_t;
    action.sa_flags = libc::SA_SIGINFO;
    // SAFETY: `sa_mask` is a valid sigset_t inside `action`.
    check(unsafe { libc::sigfillset(&mut action.sa_mask) })?;
    // SAFETY: `action` is fully initialised and outlives the call; the
    // handler only calls async-signal-safe functions.
    check(unsafe { libc::sigaction(libc::SIGSYS, &action, std::ptr::null_mut()) })
}

/// Makes sure SIGXCPU, SIGXFSZ and SIGPIPE have their default actions (the
/// grader's runtime ignores SIGPIPE; execve keeps "ignored"), so that the
/// kernel's limit signals end the process as the grader expects.
pub(super) fn default_signals() -> io::Result<()> {
    for signal in [libc::SIGXCPU, libc::SIGXFSZ] {
        // SAFETY: setting a default disposition installs no handler code.
        if unsafe { libc::signal(signal, libc::SIG_DFL) } == libc::SIG_ERR {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forbidden(n: i64) -> String {
        let mut buf = [0u8; 64];
        let len = format_forbidden(n, &mut buf);
        String::from_utf8(buf[..len].to_vec()).expect("ascii")
    }

    #[test]
    fn descendants_are_found_through_every_generation() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & echo $!; wait"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh runs");
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().expect("piped")),
            &mut line,
        )
        .expect("sh says its child's pid");
        let grandchild: libc::pid_t = line.trim().parse().expect("a pid");
        let shell = child.id() as libc::pid_t;
        let found = descendants(pid(), 0);
        assert!(
            found.contains(&shell) && found.contains(&grandchild),
            "{found:?}"
        );
        assert_eq!(parent_of(grandchild), Some(shell));
        // The spared one is left out, its descendants are not.
        let found = descendants(pid(), shell);
        assert!(
            !found.contains(&shell) && found.contains(&grandchild),
            "{found:?}"
        );
        kill(grandchild, libc::SIGKILL);
        let _ = child.wait();
    }

    #[test]
    fn forbidden_message_is_a_protocol_line() {
        for n in [0, 7, 41, 57, 435, -1, i64::MAX, i64::MIN] {
            let line = forbidden(n);
            assert!(line.ends_with('\n'));
            let message: crate::protocol::WorkerMessage =
                serde_json::from_str(line.trim_end()).expect("decodes");
            assert_eq!(
                message,
                crate::protocol::WorkerMessage::Forbidden { syscall: n }
            );
        }
    }
}

// ---------------------------------------------------------------------------
// The box's init (`worker::zygote`): processes, waiting, mounts.
// ---------------------------------------------------------------------------

/// `fork()`: `Ok(0)` in the child, `Ok(pid)` in the parent. Only for a
/// single-threaded process (the box's init is one).
pub(super) fn fork() -> io::Result<libc::pid_t> {
    // SAFETY: the box's init is single-threaded, so the child may go on
    // running ordinary Rust code (no lock can be held by another thread).
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(pid)
    }
}

/// SIGKILL to `pid` (a process, or with a negative value a group; -1 is
/// every process this one may signal). Errors are ignored: the target may
/// be gone.
pub(super) fn kill(pid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: kill(2) has no memory-safety preconditions.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// How a child ended, with its resource usage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Waited {
    /// The raw wait status.
    pub status: libc::c_int,
    /// User + system CPU time, in milliseconds.
    pub cpu_ms: u64,
}

/// `wait4(pid, 0)`: waits for `pid` (or any child with -1), retrying on
/// EINTR; `None` when there is no such child (ECHILD).
pub(super) fn wait_for(pid: libc::pid_t, nohang: bool) -> Option<(libc::pid_t, Waited)> {
    let flags = if nohang { libc::WNOHANG } else { 0 };
    loop {
        let mut status = 0;
        // SAFETY: a zeroed rusage is a valid out-value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `status` and `usage` are valid for writes during the call.
        let got = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
        if got < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        if got <= 0 {
            return None;
        }
        // Summed in microseconds, then cut to milliseconds once: cutting
        // user and system time each lost up to 2 ms, so a test killed at
        // a 300 ms reading could report 299.
        let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
        return Some((
            got,
            Waited {
                status,
                cpu_ms: (us(usage.ru_utime) + us(usage.ru_stime)) / 1000,
            },
        ));
    }
}

/// A pidfd for `pid` (Linux 5.3+), to `poll` for its end; `None` where the
/// kernel has none.
pub(super) fn pidfd_open(pid: libc::pid_t) -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a non-negative return value is a new fd that we own.
    (fd >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd as i32) })
}

/// `poll` on one fd for input, at most `timeout_ms`; true when it is ready.
pub(super) fn poll_in(fd: libc::c_int, timeout_ms: i32) -> bool {
    let mut pollfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd for the duration of the call.
    let n = unsafe { libc::poll(&mut pollfd, 1, timeout_ms) };
    n > 0 && pollfd.revents != 0
}

/// The CPU time of process `pid` (all threads), in milliseconds.
pub(super) fn process_cpu_ms(pid: libc::pid_t) -> Option<u64> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: `clock` is valid for writes.
    if unsafe { libc::clock_getcpuclockid(pid, &mut clock) } != 0 {
        return None;
    }
    // SAFETY: a zeroed timespec is a valid out-value.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: `ts` is valid for writes.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return None;
    }
    Some(ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000)
}

/// Replaces fd `target` with `/dev/null` (read and write).
pub(super) fn null_fd(target: libc::c_int) -> io::Result<()> {
    // SAFETY: a constant, NUL-terminated path.
    let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    if fd != target {
        // SAFETY: dup2 and close on fds this process owns.
        check(unsafe { libc::dup2(fd, target) })?;
        // SAFETY: as above.
        unsafe { libc::close(fd) };
    }
    Ok(())
}

/// A pipe, both ends close-on-exec: `(read, write)`.
pub(super) fn pipe() -> io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: `fds` is valid for two ints.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: pipe2 returned two new fds that this process owns.
    Ok(unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    })
}

/// The pids in this process's `/proc` (in the box: the box's processes).
pub(super) fn all_pids() -> Vec<libc::pid_t> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// The children of `pid` (of every thread of it), from
/// `/proc/PID/task/TID/children`; `None` when the kernel does not offer
/// those files (then [`parent_of`] over [`all_pids`] finds them).
pub(super) fn children_of(pid: libc::pid_t) -> Option<Vec<libc::pid_t>> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut children = Vec::new();
    let mut offered = false;
    for task in tasks.flatten() {
        let Ok(text) = std::fs::read_to_string(task.path().join("children")) else {
            continue;
        };
        offered = true;
        children.extend(
            text.split_whitespace()
                .filter_map(|p| p.parse::<libc::pid_t>().ok()),
        );
    }
    offered.then_some(children)
}

/// The parent of `pid`, from `/proc/PID/stat` (its fourth field, after
/// the command name in parentheses, which may hold anything).
pub(super) fn parent_of(pid: libc::pid_t) -> Option<libc::pid_t> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Every descendant of `root` (its children, theirs, and so on), each
/// once, but `spare` itself (its own descendants are listed).
pub(super) fn descendants(root: libc::pid_t, spare: libc::pid_t) -> Vec<libc::pid_t> {
    let mut found = Vec::new();
    let mut queue = vec![root];
    let mut scanned: Option<Vec<(libc::pid_t, libc::pid_t)>> = None;
    while let Some(parent) = queue.pop() {
        let children = children_of(parent).unwrap_or_else(|| {
            let pairs = scanned.get_or_insert_with(|| {
                all_pids()
                    .into_iter()
                    .filter_map(|p| Some((p, parent_of(p)?)))
                    .collect()
            });
            pairs
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p)
                .collect()
        });
        for child in children {
            if child != root && !found.contains(&child) {
                found.push(child);
                queue.push(child);
            }
        }
    }
    found.retain(|&p| p != spare);
    found
}

/// `dup2(fd, target)`: `target` becomes a copy of `fd` (without
/// close-on-exec).
pub(super) fn dup_onto(fd: libc::c_int, target: libc::c_int) -> io::Result<()> {
    // SAFETY: dup2 on fds this process owns.
    check(unsafe { libc::dup2(fd, target) }).map(|_| ())
}

/// Closes one fd.
pub(super) fn close(fd: libc::c_int) {
    // SAFETY: closing an fd this process owns (or a closed one: EBADF).
    unsafe { libc::close(fd) };
}

/// Puts this process in a new process group of its own.
pub(super) fn new_process_group() -> io::Result<()> {
    // SAFETY: setpgid(0, 0) only changes this process's group.
    check(unsafe { libc::setpgid(0, 0) })
}

/// Makes this process the reaper of its orphaned descendants, so that it
/// can wait for (and count) whatever a run left behind.
pub(super) fn become_subreaper() -> io::Result<()> {
    // SAFETY: a prctl with integer arguments only.
    check(unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

/// `mount(2)` with optional source, file system type and data.
pub(super) fn mount(
    source: Option<&std::path::Path>,
    target: &std::path::Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |bytes: &[u8]| CString::new(bytes).map_err(io::Error::other);
    let source = source.map(|s| c(s.as_os_str().as_bytes())).transpose()?;
    let target = c(target.as_os_str().as_bytes())?;
    let fstype = fstype.map(|s| c(s.as_bytes())).transpose()?;
    let data = data.map(|s| c(s.as_bytes())).transpose()?;
    let ptr = |s: &Option<CString>| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: every pointer is null or a NUL-terminated string that lives
    // until the call returns.
    check(unsafe {
        libc::mount(
            ptr(&source),
            target.as_ptr(),
            ptr(&fstype),
            flags,
            ptr(&data).cast(),
        )
    })
}

/// Makes the current folder the root of this mount namespace
/// (`pivot_root(".", ".")`) and detaches the old root beneath it, so
/// nothing of the old tree stays reachable.
pub(super) fn pivot_into_cwd() -> io::Result<()> {
    // SAFETY: pivot_root with two NUL-terminated literals; it changes only
    // this mount namespace's root.
    let ret = unsafe { libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) };
    if ret != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: umount2 of "." (the old root, now stacked on the new one)
    // with MNT_DETACH; a NUL-terminated literal.
    check(unsafe { libc::umount2(c".".as_ptr(), libc::MNT_DETACH) })
}

/// `execve(program, args, env)`; returns only on failure.
pub(super) fn execve(
    program: &std::path::Path,
    args: &[String],
    env: &[(String, String)],
) -> io::Error {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let Ok(path) = CString::new(program.as_os_str().as_bytes()) else {
        return io::Error::other("the program's path holds a NUL byte");
    };
    let mut argv_owned = vec![path.clone()];
    for arg in args {
        match CString::new(arg.as_bytes()) {
            Ok(arg) => argv_owned.push(arg),
            Err(_) => return io::Error::other("an argument holds a NUL byte"),
        }
    }
    let mut envp_owned = Vec::new();
    for (key, value) in env {
        match CString::new(format!("{key}={value}")) {
            Ok(pair) => envp_owned.push(pair),
            Err(_) => return io::Error::other("an environment value holds a NUL byte"),
        }
    }
    let mut argv: Vec<*const libc::c_char> = argv_owned.iter().map(|a| a.as_ptr()).collect();
    argv.push(std::ptr::null());
    let mut envp: Vec<*const libc::c_char> = envp_owned.iter().map(|a| a.as_ptr()).collect();
    envp.push(std::ptr::null());
    // SAFETY: NULL-terminated arrays of NUL-terminated strings, all alive
    // until the call (which does not return on success).
    unsafe { libc::execve(path.as_ptr(), argv.as_ptr(), envp.as_ptr()) };
    io::Error::last_os_error()
}
