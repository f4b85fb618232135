//! The worker's raw system calls: rlimits, namespaces, the uid drop, the
//! parent-death signal, the SIGSYS handler, writes to the protocol fd and
//! `_exit`. Every `unsafe` of the worker outside library loading is here.

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
pub fn protocol_fd_open() -> bool {
    // SAFETY: F_GETFD on any integer is harmless; it only reads fd flags.
    unsafe { libc::fcntl(PROTOCOL_FD, libc::F_GETFD) != -1 }
}

/// Writes all of `bytes` to `fd` with raw `write` calls (no buffering, no
/// allocation), retrying on EINTR and short writes.
pub fn write_all(fd: libc::c_int, mut bytes: &[u8]) -> io::Result<()> {
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
pub fn exit_now(code: i32) -> ! {
    // SAFETY: `_exit` is always safe to call; it does not return.
    unsafe { libc::_exit(code) }
}

/// A resource limit (`RLIMIT_*`) as libc spells it on this platform.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub type Resource = libc::__rlimit_resource_t;
/// A resource limit (`RLIMIT_*`) as libc spells it on this platform.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub type Resource = libc::c_int;

/// Sets a resource limit; `soft` is capped at `hard`.
pub fn set_rlimit(resource: Resource, soft: u64, hard: u64) -> io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: soft.min(hard) as libc::rlim_t,
        rlim_max: hard as libc::rlim_t,
    };
    // SAFETY: `limit` is a valid rlimit struct for the duration of the call.
    check(unsafe { libc::setrlimit(resource, &limit) })
}

/// Moves this process into new IPC and UTS namespaces, and with `network`
/// a new network namespace (only a loopback, down).
#[cfg(target_os = "linux")]
pub fn unshare_namespaces(network: bool) -> io::Result<()> {
    let mut flags = libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
    if network {
        flags |= libc::CLONE_NEWNET;
    }
    // SAFETY: unshare with these flags only changes this process's own
    // namespaces; the process is single-threaded here.
    check(unsafe { libc::unshare(flags) })
}

/// Drops every group and sets the real, effective and saved user and group
/// ids to `uid`/`gid`; checks that root cannot be regained.
pub fn drop_privileges(uid: u32, gid: u32) -> io::Result<()> {
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
#[cfg(target_os = "linux")]
pub fn die_with_parent(expected_parent: libc::pid_t) -> io::Result<()> {
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
pub fn parent_pid() -> libc::pid_t {
    // SAFETY: getppid cannot fail.
    unsafe { libc::getppid() }
}

/// This process's pid.
pub fn pid() -> libc::pid_t {
    // SAFETY: getpid cannot fail.
    unsafe { libc::getpid() }
}

/// Sets `PR_SET_NO_NEW_PRIVS`, which seccomp needs (and which stops any
/// set-uid gain).
#[cfg(target_os = "linux")]
pub fn no_new_privs() -> io::Result<()> {
    // SAFETY: a prctl with integer arguments only.
    check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })
}

/// Exit status of a worker whose SIGSYS handler ran (after it wrote the
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
#[cfg(target_os = "linux")]
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
#[cfg(target_os = "linux")]
pub fn install_sigsys_handler() -> io::Result<()> {
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
pub fn default_signals() -> io::Result<()> {
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
