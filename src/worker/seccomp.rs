//! The test child's seccomp filters, built with `seccompiler`, and the names of
//! the system calls they mention (so the grader can name a forbidden call).
//!
//! Three filters are stacked; the kernel applies the strictest answer of
//! all of them (kill > trap > errno > allow):
//!
//! 1. **K, the kill list** (installed before the library is loaded, so it
//!    confines load-time constructors too): the calls no test ever needs,
//!    each answered with SIGSYS, whose handler reports the call on the
//!    protocol fd. `clone` is trapped only without `CLONE_THREAD` (threads
//!    are allowed, processes are not); `tgkill` only aimed at another
//!    process; `prctl` only for the parent-death signal, the tracer and
//!    dumpability; `setpgid`/`setsid` always (leaving the process group
//!    would dodge the grader's group kill). Metadata writes (`chmod`,
//!    `chown`, `utimensat`, xattrs and their relatives) always: they would
//!    leave state for the next test. Calls aimed at other processes:
//!    `prlimit64` and `sched_set*` unless their pid is 0 (this process),
//!    `setpriority` unless it is `PRIO_PROCESS` with who 0, `fcntl` with
//!    `F_SETOWN`/`F_SETOWN_EX` (SIGIO at another process), and
//!    `process_vm_*`, `kcmp`, `pidfd_*` always.
//! 2. **E**: `clone3` fails with ENOSYS (its flags live in memory that a
//!    filter cannot read), so glibc falls back to `clone`, which K checks.
//! 3. **A, the allow list** (installed after loading, before the first
//!    test call): only what computing, printing, threads and a Rust panic
//!    need; anything else fails with EPERM, so a library that opens a file
//!    gets an error, and a panic or `abort` still ends with SIGABRT (a
//!    backtrace attempt that opens files just fails).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Names `(number, name)` of system calls, for the calls of the filters.
macro_rules! syscalls {
    ($($name:ident),* $(,)?) => {
        &[$((libc::$name, strip_sys(stringify!($name)))),*]
    };
}

/// `SYS_socket` -> `socket`, at compile time.
const fn strip_sys(name: &'static str) -> &'static str {
    let bytes = name.as_bytes();
    let (_, rest) = bytes.split_at(4);
    match std::str::from_utf8(rest) {
        Ok(s) => s,
        Err(_) => name,
    }
}

/// The kill list on every architecture: what an unprivileged process could
/// do that no solver needs. Calls that need a capability (mount, reboot,
/// modules, setting the clock, chroot, …) are left out: the worker never
/// holds one (it drops root, and `unshare`/`clone` cannot make a user
/// namespace), they fail with EPERM anyway, and every entry here makes the
/// kernel's per-filter setup slower (it emulates the filter for every
/// system call number when the filter is installed).
const KILL_COMMON: &[(i64, &str)] = syscalls![
    SYS_socket,
    SYS_socketpair,
    SYS_connect,
    SYS_bind,
    SYS_listen,
    SYS_accept,
    SYS_accept4,
    SYS_execve,
    SYS_execveat,
    SYS_kill,
    SYS_tkill,
    SYS_rt_sigqueueinfo,
    SYS_rt_tgsigqueueinfo,
    SYS_pidfd_open,
    SYS_pidfd_send_signal,
    SYS_pidfd_getfd,
    SYS_ptrace,
    SYS_process_vm_readv,
    SYS_process_vm_writev,
    SYS_process_madvise,
    SYS_kcmp,
    SYS_unshare,
    SYS_setns,
    SYS_bpf,
    SYS_perf_event_open,
    SYS_userfaultfd,
    SYS_io_uring_setup,
    SYS_io_uring_enter,
    SYS_io_uring_register,
    SYS_keyctl,
    SYS_add_key,
    SYS_request_key,
    SYS_setpgid,
    SYS_setsid,
    SYS_shmget,
    SYS_shmat,
    SYS_msgget,
    SYS_semget,
    SYS_mq_open,
    // Metadata writes: state that would outlive a test (a library made
    // world-writable, times or attributes as a message to the next test).
    SYS_fchmod,
    SYS_fchmodat,
    SYS_fchmodat2,
    SYS_fchown,
    SYS_fchownat,
    SYS_utimensat,
    SYS_setxattr,
    SYS_lsetxattr,
    SYS_fsetxattr,
    SYS_removexattr,
    SYS_lremovexattr,
    SYS_fremovexattr,
];

/// The kill list entries that exist only on x86_64.
#[cfg(target_arch = "x86_64")]
const KILL_ARCH: &[(i64, &str)] = syscalls![
    SYS_fork,
    SYS_vfork,
    SYS_chmod,
    SYS_chown,
    SYS_lchown,
    SYS_utime,
    SYS_utimes,
    SYS_futimesat,
];
/// The kill list entries that exist only on this architecture.
#[cfg(not(target_arch = "x86_64"))]
const KILL_ARCH: &[(i64, &str)] = &[];

/// Trapped only for some arguments (see the module doc), named here for
/// messages.
const KILL_CONDITIONAL: &[(i64, &str)] = syscalls![
    SYS_clone,
    SYS_tgkill,
    SYS_clone3,
    SYS_prctl,
    SYS_prlimit64,
    SYS_setpriority,
    SYS_sched_setaffinity,
    SYS_sched_setscheduler,
    SYS_sched_setparam,
    SYS_sched_setattr,
    SYS_fcntl,
];

/// `fcntl`'s `F_SETOWN_EX` (15 on every Linux architecture; the `libc`
/// crate does not name it).
const F_SETOWN_EX: i32 = 15;

/// Calls aimed at a process by their first argument, trapped unless it is
/// 0 (this process): `prlimit64` on a neighbour turned its tests into load
/// errors, and the scheduler calls could starve it.
const KILL_UNLESS_SELF: &[i64] = &[
    libc::SYS_prlimit64,
    libc::SYS_sched_setaffinity,
    libc::SYS_sched_setscheduler,
    libc::SYS_sched_setparam,
    libc::SYS_sched_setattr,
];

/// The allow list on every architecture (besides `prlimit64` and `fcntl`,
/// which carry conditions).
const ALLOW_COMMON: &[(i64, &str)] = syscalls![
    SYS_read,
    SYS_write,
    SYS_readv,
    SYS_writev,
    SYS_pread64,
    SYS_close,
    SYS_fstat,
    SYS_newfstatat,
    SYS_lseek,
    SYS_brk,
    SYS_mmap,
    SYS_munmap,
    SYS_mremap,
    SYS_madvise,
    SYS_mprotect,
    SYS_rt_sigreturn,
    SYS_rt_sigprocmask,
    SYS_rt_sigaction,
    SYS_sigaltstack,
    SYS_futex,
    SYS_getpid,
    SYS_getppid,
    SYS_gettid,
    SYS_getuid,
    SYS_geteuid,
    SYS_getgid,
    SYS_getegid,
    SYS_tgkill,
    SYS_clock_gettime,
    SYS_clock_getres,
    SYS_gettimeofday,
    SYS_clock_nanosleep,
    SYS_nanosleep,
    SYS_getrandom,
    SYS_sched_yield,
    SYS_sched_getaffinity,
    SYS_getrusage,
    SYS_set_robust_list,
    SYS_rseq,
    SYS_membarrier,
    SYS_restart_syscall,
    SYS_exit,
    SYS_exit_group,
    SYS_clone,
    SYS_clone3,
];

/// The allow list entries that exist only on x86_64.
#[cfg(target_arch = "x86_64")]
const ALLOW_ARCH: &[(i64, &str)] = syscalls![SYS_time, SYS_arch_prctl];
/// The allow list entries that exist only on this architecture.
#[cfg(not(target_arch = "x86_64"))]
const ALLOW_ARCH: &[(i64, &str)] = &[];

/// Other calls the grader can name when a student's code is refused one.
const OTHER_NAMES: &[(i64, &str)] = syscalls![SYS_openat, SYS_ioctl];

/// The name of system call `number` on this architecture, if it is one the
/// filters mention.
pub(crate) fn syscall_name(number: i64) -> Option<&'static str> {
    [
        KILL_COMMON,
        KILL_ARCH,
        KILL_CONDITIONAL,
        ALLOW_COMMON,
        ALLOW_ARCH,
        OTHER_NAMES,
        PYTHON_KILL,
        PYTHON_ALLOW_COMMON,
        PYTHON_ALLOW_ARCH,
    ]
    .iter()
    .flat_map(|list| list.iter())
    .find(|(n, _)| *n == number)
    .map(|(_, name)| *name)
}

/// Why a filter could not be built.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FilterError {
    /// seccompiler refused the rules (a bug in this file).
    #[error("cannot build the seccomp filter: {0}")]
    Build(#[from] seccompiler::BackendError),
    /// This architecture has no filter.
    #[error("no seccomp filter for the architecture `{0}`")]
    Arch(&'static str),
}

/// The architecture seccompiler builds for.
fn target() -> Result<TargetArch, FilterError> {
    TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| FilterError::Arch(std::env::consts::ARCH))
}

/// Rules that match when argument `index` equals one of `values`.
fn one_of(index: u8, values: &[i32]) -> Result<Vec<SeccompRule>, FilterError> {
    values
        .iter()
        .map(|&value| {
            Ok(SeccompRule::new(vec![condition(
                index,
                SeccompCmpOp::Eq,
                value as u64,
            )?])?)
        })
        .collect()
}

/// One condition on argument `index` (64-bit compare).
fn condition(index: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, FilterError> {
    Ok(SeccompCondition::new(
        index,
        SeccompCmpArgLen::Qword,
        op,
        value,
    )?)
}

/// Filter K: trap the kill list, `clone` without `CLONE_THREAD`, `tgkill`
/// aimed at a process other than `own_pid`, `prctl` changing the
/// parent-death signal, the tracer or dumpability, `prlimit64` and the
/// `sched_set*` calls on a pid other than 0, `setpriority` on anything but
/// this process, and `fcntl` aiming `SIGIO` at a process (`F_SETOWN`,
/// `F_SETOWN_EX`).
pub(crate) fn kill_filter(own_pid: i32) -> Result<BpfProgram, FilterError> {
    let rules = kill_rules(own_pid)?;
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Trap, target()?)?;
    Ok(filter.try_into()?)
}

/// The rules of filter K (see [`kill_filter`]): the shared rules and this
/// process's own.
fn kill_rules(own_pid: i32) -> Result<BTreeMap<i64, Vec<SeccompRule>>, FilterError> {
    let mut rules = shared_kill_rules()?;
    rules.extend(own_process_rules(own_pid)?);
    Ok(rules)
}

/// The rules of K that name no process: everything but `clone` and
/// `tgkill`.
fn shared_kill_rules() -> Result<BTreeMap<i64, Vec<SeccompRule>>, FilterError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = KILL_COMMON
        .iter()
        .chain(KILL_ARCH)
        .map(|&(number, _)| (number, Vec::new()))
        .collect();
    // prctl: not the settings that would outlive the grader or open this
    // process to tracing.
    rules.insert(
        libc::SYS_prctl,
        one_of(
            0,
            &[
                libc::PR_SET_PDEATHSIG,
                libc::PR_SET_PTRACER,
                libc::PR_SET_DUMPABLE,
            ],
        )?,
    );
    for &call in KILL_UNLESS_SELF {
        rules.insert(
            call,
            vec![SeccompRule::new(vec![condition(0, SeccompCmpOp::Ne, 0)?])?],
        );
    }
    // setpriority(which, who, prio): PRIO_USER with who = 0 is every
    // process of this uid, the neighbours' boxes included.
    rules.insert(
        libc::SYS_setpriority,
        vec![
            SeccompRule::new(vec![condition(
                0,
                SeccompCmpOp::Ne,
                libc::PRIO_PROCESS as u64,
            )?])?,
            SeccompRule::new(vec![condition(1, SeccompCmpOp::Ne, 0)?])?,
        ],
    );
    rules.insert(libc::SYS_fcntl, one_of(1, &[libc::F_SETOWN, F_SETOWN_EX])?);
    Ok(rules)
}

/// The rules of K that belong to one process: `clone` without
/// `CLONE_THREAD` (a new process) and `tgkill` aimed at a process other
/// than `own_pid`.
fn own_process_rules(own_pid: i32) -> Result<BTreeMap<i64, Vec<SeccompRule>>, FilterError> {
    let thread = libc::CLONE_THREAD as u64;
    Ok(BTreeMap::from([
        (
            libc::SYS_clone,
            vec![SeccompRule::new(vec![condition(
                0,
                SeccompCmpOp::MaskedEq(thread),
                0,
            )?])?],
        ),
        (
            libc::SYS_tgkill,
            vec![SeccompRule::new(vec![condition(
                0,
                SeccompCmpOp::Ne,
                u64::from(own_pid as u32),
            )?])?],
        ),
    ]))
}

/// Filter E: `clone3` fails with ENOSYS.
pub(crate) fn clone3_filter() -> Result<BpfProgram, FilterError> {
    let rules = BTreeMap::from([(libc::SYS_clone3, Vec::new())]);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        target()?,
    )?;
    Ok(filter.try_into()?)
}

/// Filter A: allow the allow list (and `prlimit64` only to read a limit);
/// anything else fails with EPERM.
pub(crate) fn allow_filter() -> Result<BpfProgram, FilterError> {
    allow_filter_with(allow_rules()?)
}

/// The rules of filter A.
fn allow_rules() -> Result<BTreeMap<i64, Vec<SeccompRule>>, FilterError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = ALLOW_COMMON
        .iter()
        .chain(ALLOW_ARCH)
        .map(|&(number, _)| (number, Vec::new()))
        .collect();
    rules.insert(
        libc::SYS_prlimit64,
        vec![SeccompRule::new(vec![condition(2, SeccompCmpOp::Eq, 0)?])?],
    );
    // fcntl only to read an fd's flags (F_SETOWN could aim SIGIO at
    // another process).
    rules.insert(libc::SYS_fcntl, one_of(1, &[libc::F_GETFD, libc::F_GETFL])?);
    Ok(rules)
}

/// An allow-list filter: `rules` allowed, anything else EPERM.
fn allow_filter_with(rules: BTreeMap<i64, Vec<SeccompRule>>) -> Result<BpfProgram, FilterError> {
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Errno(libc::EPERM as u32),
        SeccompAction::Allow,
        target()?,
    )?;
    Ok(filter.try_into()?)
}

// The test zygote's filters (see `worker/test_zygote.rs`). The kernel's
// cost of installing a filter grows with its length (it emulates the
// filter for every system call number), so the long filters go on once,
// in the zygote, and each test child adds two short ones. Stacked, they
// answer exactly as K, E and A do for a test: the zygote's K_z is K
// without its per-process rules, the child's own filter adds them back
// before the library is loaded, and the tightening filter takes back,
// after loading, what A_z allows beyond A.

/// K_z, the zygote's kill list: K without the rules that name a process
/// (`clone` of a new process, `tgkill` at another): the zygote forks, and
/// each test child installs those rules with its own pid
/// ([`test_child_filter`]).
pub(crate) fn zygote_kill_filter() -> Result<BpfProgram, FilterError> {
    let filter = SeccompFilter::new(
        shared_kill_rules()?,
        SeccompAction::Allow,
        SeccompAction::Trap,
        target()?,
    )?;
    Ok(filter.try_into()?)
}

/// A_z, the zygote's allow list: A, and what the zygote and the start of
/// a test need beyond it: `openat` (the loader opens the library and its
/// dependencies; Landlock decides which), `wait4` (the zygote reaps each
/// test child), `prlimit64` setting this process's CPU limit (each test
/// child sets its own), and installing a seccomp filter (each child
/// installs its own and T). [`tighten_filter`] takes them back. (A
/// constructor could always install filters of its own before A; it
/// still can before T.)
pub(crate) fn zygote_allow_filter() -> Result<BpfProgram, FilterError> {
    let mut rules = allow_rules()?;
    rules.insert(libc::SYS_openat, Vec::new());
    add_zygote_calls(&mut rules)?;
    allow_filter_with(rules)
}

/// What a zygote needs beyond a test's allow list, added to `rules`:
/// `wait4`, installing a filter, and `prlimit64` setting this process's
/// CPU limit.
fn add_zygote_calls(rules: &mut BTreeMap<i64, Vec<SeccompRule>>) -> Result<(), FilterError> {
    rules.insert(libc::SYS_wait4, Vec::new());
    rules.insert(libc::SYS_seccomp, Vec::new());
    // seccompiler sets no_new_privs (already set) before each filter.
    rules.insert(
        libc::SYS_prctl,
        one_of(0, &[libc::PR_SET_SECCOMP, libc::PR_SET_NO_NEW_PRIVS])?,
    );
    rules
        .entry(libc::SYS_prlimit64)
        .or_default()
        .push(SeccompRule::new(vec![
            condition(0, SeccompCmpOp::Eq, 0)?,
            condition(1, SeccompCmpOp::Eq, libc::RLIMIT_CPU as u64)?,
        ])?);
    Ok(())
}

/// A test child's own rules of K, with its pid: trap `clone` of a new
/// process and `tgkill` aimed at another process. Installed before the
/// library is loaded.
pub(crate) fn test_child_filter(own_pid: i32) -> Result<BpfProgram, FilterError> {
    let filter = SeccompFilter::new(
        own_process_rules(own_pid)?,
        SeccompAction::Allow,
        SeccompAction::Trap,
        target()?,
    )?;
    Ok(filter.try_into()?)
}

/// T, installed after loading: EPERM for what A_z allows beyond A
/// (`openat`, `wait4`, `seccomp`, `prctl`, `prlimit64` setting a limit),
/// so the test runs under exactly A.
pub(crate) fn tighten_filter() -> Result<BpfProgram, FilterError> {
    tighten_with(true)
}

/// T, with or without `openat`.
fn tighten_with(openat: bool) -> Result<BpfProgram, FilterError> {
    let mut rules = BTreeMap::from([
        (libc::SYS_wait4, Vec::new()),
        (libc::SYS_seccomp, Vec::new()),
        (libc::SYS_prctl, Vec::new()),
        (
            libc::SYS_prlimit64,
            vec![SeccompRule::new(vec![condition(2, SeccompCmpOp::Ne, 0)?])?],
        ),
    ]);
    if openat {
        rules.insert(libc::SYS_openat, Vec::new());
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        target()?,
    )?;
    Ok(filter.try_into()?)
}

/// What CPython needs beyond [`ALLOW_COMMON`] to start, import the
/// standard library and run a solver (measured with `strace -f` on
/// `python3 -I -S -B` running the harness): opening and reading files
/// (Landlock decides which), file status, directory listings, links.
const PYTHON_ALLOW_COMMON: &[(i64, &str)] = syscalls![
    SYS_openat,
    SYS_statx,
    SYS_getdents64,
    SYS_readlinkat,
    SYS_faccessat,
    SYS_faccessat2,
    SYS_sysinfo,
    SYS_set_tid_address,
    SYS_execve,
    SYS_dup,
    SYS_dup3,
    SYS_uname,
    SYS_getcwd,
];

/// [`PYTHON_ALLOW_COMMON`] entries that exist only on x86_64.
#[cfg(target_arch = "x86_64")]
const PYTHON_ALLOW_ARCH: &[(i64, &str)] = syscalls![
    SYS_open,
    SYS_stat,
    SYS_lstat,
    SYS_access,
    SYS_readlink,
    SYS_dup2,
];
/// [`PYTHON_ALLOW_COMMON`] entries that exist only on this architecture.
#[cfg(not(target_arch = "x86_64"))]
const PYTHON_ALLOW_ARCH: &[(i64, &str)] = &[];

/// Pipes, trapped for Python: `subprocess` makes one before it forks, and
/// no solver needs one (so `subprocess` is refused as such, not with a
/// `PermissionError`).
#[cfg(target_arch = "x86_64")]
const PYTHON_KILL: &[(i64, &str)] = syscalls![SYS_pipe, SYS_pipe2];
/// Pipes, trapped for Python.
#[cfg(not(target_arch = "x86_64"))]
const PYTHON_KILL: &[(i64, &str)] = syscalls![SYS_pipe2];

/// The three filters of a Python test, to install in this order just
/// before `execve`-ing the interpreter (a seccomp filter survives
/// `execve`; the test child's SIGSYS handler does not, so a refused call ends
/// the interpreter with SIGSYS, which the grader reports as `forbidden`):
///
/// 1. K with `execve` allowed only with `path` as its first argument (the
///    address of the interpreter's path in the test child, about to be
///    replaced; any later `execve` is trapped, and Landlock lets only the
///    interpreter be executed anyway), and pipes trapped;
/// 2. E (`clone3` fails with ENOSYS, so threads use `clone`, which K checks);
/// 3. the Python allow list: A's calls and what CPython needs
///    (`PYTHON_ALLOW_COMMON`), `ioctl` only `TCGETS` (`isatty`), `fcntl`
///    only to read flags, set close-on-exec or duplicate; anything else
///    fails with EPERM.
///
/// # Errors
/// When seccompiler refuses the rules.
pub(crate) fn python_filters(own_pid: i32, path: u64) -> Result<Vec<BpfProgram>, FilterError> {
    let mut kill = python_kill_rules(path)?;
    kill.extend(own_process_rules(own_pid)?);
    let kill = SeccompFilter::new(kill, SeccompAction::Allow, SeccompAction::Trap, target()?)?;
    let allow = allow_filter_with(python_allow_rules()?)?;
    Ok(vec![kill.try_into()?, clone3_filter()?, allow])
}

/// The Python test zygote's filters, to install just before `execve`-ing
/// the interpreter as a zygote: [`python_filters`] without the rules that
/// name a process (each child adds them, [`test_child_filter`]), and with
/// what the zygote needs beyond the Python allow list: `wait4`, and what
/// each child needs before it runs student code (setting its CPU limit,
/// installing its own filters), which [`python_tighten_filter`] takes back.
///
/// # Errors
/// When seccompiler refuses the rules.
pub(crate) fn python_zygote_filters(path: u64) -> Result<Vec<BpfProgram>, FilterError> {
    let kill = SeccompFilter::new(
        python_kill_rules(path)?,
        SeccompAction::Allow,
        SeccompAction::Trap,
        target()?,
    )?;
    let mut allow = python_allow_rules()?;
    add_zygote_calls(&mut allow)?;
    Ok(vec![
        kill.try_into()?,
        clone3_filter()?,
        allow_filter_with(allow)?,
    ])
}

/// T for a Python test child: EPERM for what the Python zygote's allow
/// list allows beyond the Python allow list (`wait4`, `seccomp`, `prctl`,
/// `prlimit64` setting a limit); `openat` stays (imports need it).
pub(crate) fn python_tighten_filter() -> Result<BpfProgram, FilterError> {
    tighten_with(false)
}

/// The pid a Python test child's own filter is built with, replaced by
/// the child's pid before it installs it (no pid is this large: the
/// kernel's `pid_max` is at most 2^22).
pub(crate) const SENTINEL_PID: i32 = 0x7fff_fff0;

/// A built filter as the kernel reads it: 8 bytes an instruction (code,
/// jt, jf, k), in this machine's byte order.
pub(crate) fn program_bytes(program: &BpfProgram) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for insn in program {
        bytes.extend_from_slice(&insn.code.to_ne_bytes());
        bytes.push(insn.jt);
        bytes.push(insn.jf);
        bytes.extend_from_slice(&insn.k.to_ne_bytes());
    }
    bytes
}

/// The kill rules of a Python test, without the rules that name a
/// process: K's shared rules, `execve` only of `path`, pipes.
fn python_kill_rules(path: u64) -> Result<BTreeMap<i64, Vec<SeccompRule>>, FilterError> {
    let mut kill = shared_kill_rules()?;
    kill.insert(
        libc::SYS_execve,
        vec![SeccompRule::new(vec![condition(
            0,
            SeccompCmpOp::Ne,
            path,
        )?])?],
    );
    for &(number, _) in PYTHON_KILL {
        kill.insert(number, Vec::new());
    }
    Ok(kill)
}

/// The Python allow list's rules.
fn python_allow_rules() -> Result<BTreeMap<i64, Vec<SeccompRule>>, FilterError> {
    let mut allow: BTreeMap<i64, Vec<SeccompRule>> = ALLOW_COMMON
        .iter()
        .chain(ALLOW_ARCH)
        .chain(PYTHON_ALLOW_COMMON)
        .chain(PYTHON_ALLOW_ARCH)
        .map(|&(number, _)| (number, Vec::new()))
        .collect();
    allow.insert(
        libc::SYS_prlimit64,
        vec![SeccompRule::new(vec![condition(2, SeccompCmpOp::Eq, 0)?])?],
    );
    allow.insert(
        libc::SYS_ioctl,
        vec![SeccompRule::new(vec![condition(
            1,
            SeccompCmpOp::Eq,
            libc::TCGETS,
        )?])?],
    );
    allow.insert(
        libc::SYS_fcntl,
        one_of(
            1,
            &[
                libc::F_GETFD,
                libc::F_GETFL,
                libc::F_SETFD,
                libc::F_DUPFD_CLOEXEC,
            ],
        )?,
    );
    Ok(allow)
}

/// Installs a built filter on the calling thread (threads started later
/// inherit it).
pub(crate) fn apply(program: &BpfProgram) -> Result<(), seccompiler::Error> {
    seccompiler::apply_filter(program)
}

/// Installs a built filter on every thread of the process (TSYNC): a
/// thread that the library's constructor started gets it too.
pub(crate) fn apply_all_threads(program: &BpfProgram) -> Result<(), seccompiler::Error> {
    seccompiler::apply_filter_all_threads(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A classic-BPF interpreter for the instructions seccompiler emits,
    /// run on a `seccomp_data` (number, arch, ip, six arguments); returns
    /// the filter's answer.
    fn run_filter(program: &BpfProgram, number: i64, args: [u64; 6]) -> u32 {
        let mut data = Vec::with_capacity(64);
        data.extend_from_slice(&(number as u32).to_ne_bytes());
        data.extend_from_slice(&AUDIT_ARCH.to_ne_bytes());
        data.extend_from_slice(&0u64.to_ne_bytes());
        for arg in args {
            data.extend_from_slice(&arg.to_ne_bytes());
        }
        let (mut a, mut pc) = (0u32, 0usize);
        loop {
            let insn = &program[pc];
            let (code, k) = (insn.code, insn.k);
            pc += 1;
            match code {
                // BPF_LD | BPF_W | BPF_ABS
                0x20 => {
                    let at = k as usize;
                    a = u32::from_ne_bytes(data[at..at + 4].try_into().expect("4 bytes"));
                }
                // BPF_ALU | BPF_AND | BPF_K
                0x54 => a &= k,
                // BPF_JMP | BPF_JA
                0x05 => pc += k as usize,
                // BPF_JMP | BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET (| BPF_K)
                0x15 | 0x25 | 0x35 | 0x45 => {
                    let taken = match code {
                        0x15 => a == k,
                        0x25 => a > k,
                        0x35 => a >= k,
                        _ => a & k != 0,
                    };
                    pc += usize::from(if taken { insn.jt } else { insn.jf });
                }
                // BPF_RET | BPF_K
                0x06 => return k,
                other => panic!("instruction {other:#x} is not interpreted here"),
            }
        }
    }

    /// This machine's audit architecture (the filters check it first).
    #[cfg(target_arch = "x86_64")]
    const AUDIT_ARCH: u32 = 0xc000_003e;
    #[cfg(target_arch = "aarch64")]
    const AUDIT_ARCH: u32 = 0xc000_00b7;

    /// The kernel's answer for a stack of filters: the most restrictive
    /// action (kill > trap > errno > trace > log > allow), as the kernel
    /// ranks them.
    fn stacked(filters: &[&BpfProgram], number: i64, args: [u64; 6]) -> u32 {
        let rank = |ret: u32| match ret & 0xffff_0000 {
            0x8000_0000 => 0, // KILL_PROCESS
            0x0000_0000 => 1, // KILL_THREAD
            0x0003_0000 => 2, // TRAP
            0x0005_0000 => 3, // ERRNO
            0x7fc0_0000 => 4, // USER_NOTIF
            0x7ff0_0000 => 5, // TRACE
            0x7ffc_0000 => 6, // LOG
            _ => 7,           // ALLOW
        };
        filters
            .iter()
            .map(|f| run_filter(f, number, args))
            .min_by_key(|&ret| rank(ret))
            .expect("at least one filter")
    }

    /// Argument vectors that reach every condition of the filters: nothing,
    /// a thread clone, this process and another one, the prctl options,
    /// each fcntl command, a limit read and set, the CPU limit.
    fn argument_cases(own: u64) -> Vec<[u64; 6]> {
        let mut cases = vec![[0; 6], [own, own, 9, 0, 0, 0], [4242, 4242, 9, 0, 0, 0]];
        cases.push([
            libc::CLONE_THREAD as u64 | libc::CLONE_VM as u64,
            0,
            0,
            0,
            0,
            0,
        ]);
        cases.push([libc::SIGCHLD as u64, 0, 0, 0, 0, 0]);
        for option in [
            libc::PR_SET_PDEATHSIG,
            libc::PR_SET_PTRACER,
            libc::PR_SET_DUMPABLE,
            libc::PR_SET_SECCOMP,
            libc::PR_SET_NO_NEW_PRIVS,
            libc::PR_SET_NAME,
        ] {
            cases.push([option as u64, 2, 0, 0, 0, 0]);
        }
        for cmd in [
            libc::F_GETFD,
            libc::F_GETFL,
            libc::F_SETFD,
            libc::F_SETOWN,
            F_SETOWN_EX,
            libc::F_DUPFD_CLOEXEC,
        ] {
            cases.push([3, cmd as u64, 0, 0, 0, 0]);
        }
        for resource in [libc::RLIMIT_CPU, libc::RLIMIT_AS] {
            cases.push([0, resource as u64, 0, 0x1000, 0, 0]);
            cases.push([0, resource as u64, 0x1000, 0, 0, 0]);
            cases.push([4242, resource as u64, 0x1000, 0, 0, 0]);
        }
        cases.push([libc::PRIO_PROCESS as u64, 0, 5, 0, 0, 0]);
        cases.push([0, libc::TCGETS, 0, 0, 0, 0]);
        cases
    }

    #[test]
    fn the_zygotes_stacked_filters_answer_as_a_tests_own() {
        let own = 4100;
        let per_test = [
            kill_filter(own).expect("K"),
            clone3_filter().expect("E"),
            allow_filter().expect("A"),
        ];
        let zygote = [
            zygote_kill_filter().expect("K_z"),
            clone3_filter().expect("E"),
            zygote_allow_filter().expect("A_z"),
            test_child_filter(own).expect("K_c"),
            tighten_filter().expect("T"),
        ];
        let path = 0x7fff_0000;
        let python = python_filters(own, path).expect("Python K, E, A");
        let mut python_zygote = python_zygote_filters(path).expect("Python K_z, E, A_z");
        python_zygote.push(test_child_filter(own).expect("K_c"));
        python_zygote.push(python_tighten_filter().expect("T"));
        let mut args = argument_cases(own as u64);
        args.push([path, 0, 0, 0, 0, 0]);
        for number in 0..460 {
            for a in &args {
                let expected = stacked(&per_test.iter().collect::<Vec<_>>(), number, *a);
                let got = stacked(&zygote.iter().collect::<Vec<_>>(), number, *a);
                assert_eq!(got, expected, "library test: call {number} with {a:?}");
                let expected = stacked(&python.iter().collect::<Vec<_>>(), number, *a);
                let got = stacked(&python_zygote.iter().collect::<Vec<_>>(), number, *a);
                assert_eq!(got, expected, "Python test: call {number} with {a:?}");
            }
        }
    }

    #[test]
    fn the_zygote_may_fork_and_reap_where_a_test_may_not() {
        let zygote = [
            zygote_kill_filter().expect("K_z"),
            clone3_filter().expect("E"),
            zygote_allow_filter().expect("A_z"),
        ];
        let zygote: Vec<&BpfProgram> = zygote.iter().collect();
        let fork = [libc::SIGCHLD as u64, 0, 0, 0, 0, 0];
        assert_eq!(
            stacked(&zygote, libc::SYS_clone, fork),
            libc::SECCOMP_RET_ALLOW
        );
        assert_eq!(
            stacked(&zygote, libc::SYS_wait4, [0; 6]),
            libc::SECCOMP_RET_ALLOW
        );
        let test = [kill_filter(4100).expect("K"), allow_filter().expect("A")];
        let test: Vec<&BpfProgram> = test.iter().collect();
        assert_eq!(
            stacked(&test, libc::SYS_clone, fork),
            libc::SECCOMP_RET_TRAP
        );
    }

    #[test]
    fn the_sentinel_pid_is_the_only_place_a_childs_pid_goes() {
        // The Python zygote's children replace every 4-byte k equal to the
        // sentinel with their pid (python_harness.py, `own`): that must
        // give exactly the filter built with the pid.
        let sentinel = program_bytes(&test_child_filter(SENTINEL_PID).expect("K_c"));
        let real = program_bytes(&test_child_filter(4242).expect("K_c"));
        let mut patched = sentinel.clone();
        for insn in patched.chunks_mut(8) {
            if insn[4..8] == SENTINEL_PID.to_ne_bytes() {
                insn[4..8].copy_from_slice(&4242i32.to_ne_bytes());
            }
        }
        assert_ne!(sentinel, real);
        assert_eq!(patched, real);
    }

    #[test]
    fn filters_build() {
        let k = kill_filter(1234).expect("kill filter builds");
        let e = clone3_filter().expect("clone3 filter builds");
        let a = allow_filter().expect("allow filter builds");
        // A BPF program is at most 4096 instructions.
        for program in [&k, &e, &a] {
            assert!(
                !program.is_empty() && program.len() < 4096,
                "{}",
                program.len()
            );
        }
        assert!(
            k.len() > KILL_COMMON.len(),
            "every kill-list call has a check"
        );
    }

    #[test]
    fn python_filters_build_and_keep_processes_refused() {
        let filters = python_filters(1234, 0x7fff_0000).expect("python filters build");
        assert_eq!(filters.len(), 3);
        for program in &filters {
            assert!(!program.is_empty() && program.len() < 4096);
        }
        for (number, name) in KILL_COMMON.iter().chain(KILL_ARCH).chain(PYTHON_KILL) {
            assert!(
                *number == libc::SYS_execve
                    || !PYTHON_ALLOW_COMMON
                        .iter()
                        .chain(PYTHON_ALLOW_ARCH)
                        .any(|(n, _)| n == number),
                "{name} is both killed and allowed for Python"
            );
        }
    }

    #[test]
    fn names_of_forbidden_calls() {
        assert_eq!(syscall_name(libc::SYS_socket), Some("socket"));
        assert_eq!(syscall_name(libc::SYS_clone), Some("clone"));
        assert_eq!(syscall_name(libc::SYS_execve), Some("execve"));
        assert_eq!(syscall_name(libc::SYS_openat), Some("openat"));
        assert_eq!(syscall_name(-5), None);
        assert_eq!(syscall_name(100_000), None);
    }

    #[test]
    fn metadata_and_neighbour_calls_are_named() {
        for (call, name) in [
            (libc::SYS_fchmodat, "fchmodat"),
            (libc::SYS_utimensat, "utimensat"),
            (libc::SYS_fsetxattr, "fsetxattr"),
            (libc::SYS_prlimit64, "prlimit64"),
            (libc::SYS_setpriority, "setpriority"),
            (libc::SYS_sched_setaffinity, "sched_setaffinity"),
            (libc::SYS_kcmp, "kcmp"),
            (libc::SYS_pidfd_open, "pidfd_open"),
        ] {
            assert_eq!(syscall_name(call), Some(name));
        }
    }

    #[test]
    fn lists_do_not_overlap() {
        for (number, name) in KILL_COMMON.iter().chain(KILL_ARCH) {
            assert!(
                !ALLOW_COMMON
                    .iter()
                    .chain(ALLOW_ARCH)
                    .any(|(n, _)| n == number),
                "{name} is both killed and allowed"
            );
        }
    }
}
