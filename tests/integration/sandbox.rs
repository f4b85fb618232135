//! End-to-end tests of the sandbox: small hostile C libraries, built here
//! with `cc`, run through `grader::runner::test_run::run_test` with the real
//! `grader` binary as the worker; each asserts the verdict `outcome` gives.
//! Every hostile loop and count in these sources is bounded, so a sandbox
//! failure cannot harm the machine, and every limit is small.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use grader::check::{Probe, Response};
use grader::protocol::{CodeKind, Limits, WorkerRequest};
use grader::runner::{outcome::outcome, test_run::run_test};
use grader::sandbox::{Kill, SandboxEnv, TestRun};
use grader::verdict::{Outcome, Verdict};

/// A 4x4 puzzle with one solution, and the solution.
const PUZZLE: [u8; 16] = [1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0];
const SOLUTION: [u8; 16] = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];

/// A correct C solver with hooks: `CTOR` runs in a load-time constructor,
/// `PRE` at the start of `solve` (the first call only), `EXTRA` at file
/// scope.
const SOLVER: &str = r#"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <fcntl.h>
#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/wait.h>

EXTRA

__attribute__((constructor)) static void grader_test_ctor(void) { CTOR }

bool legal(const uint8_t *b, size_t n, size_t r, size_t c, uint8_t v) {
    size_t side = n * n;
    for (size_t i = 0; i < side; i++)
        if (b[r * side + i] == v || b[i * side + c] == v) return false;
    size_t br = r - r % n, bc = c - c % n;
    for (size_t i = br; i < br + n; i++)
        for (size_t j = bc; j < bc + n; j++)
            if (b[i * side + j] == v) return false;
    return true;
}

bool find_empty(const uint8_t *b, size_t n, size_t *r, size_t *c) {
    size_t side = n * n;
    for (size_t i = 0; i < side * side; i++)
        if (b[i] == 0) { *r = i / side; *c = i % side; return true; }
    return false;
}

static bool solve_inner(uint8_t *b, size_t n) {
    size_t r, c, side = n * n;
    if (!find_empty(b, n, &r, &c)) return true;
    for (uint8_t v = 1; v <= side; v++) {
        if (legal(b, n, r, c, v)) {
            b[r * side + c] = v;
            if (solve_inner(b, n)) return true;
            b[r * side + c] = 0;
        }
    }
    return false;
}

bool solve(uint8_t *b, size_t n) {
    { PRE }
    return solve_inner(b, n);
}

uint32_t sudoku_abi_version(void) { return 1; }
"#;

/// A sandbox environment whose worker is the built grader binary.
fn env() -> SandboxEnv {
    SandboxEnv::detect().with_worker(env!("CARGO_BIN_EXE_grader"))
}

/// Compiles `source` as a shared library in a fresh temp dir.
fn build(source: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let c = dir.path().join("student.c");
    std::fs::write(&c, source).expect("write source");
    let lib = dir.path().join("libstudent.so");
    let status = Command::new("cc")
        .args(["-O1", "-shared", "-fPIC", "-pthread", "-o"])
        .arg(&lib)
        .arg(&c)
        .status()
        .expect("cc runs");
    assert!(status.success(), "cc failed on:\n{source}");
    (dir, lib)
}

/// The solver with its hooks filled in.
fn solver(ctor: &str, pre: &str, extra: &str) -> String {
    SOLVER
        .replace("EXTRA", extra)
        .replace("CTOR", ctor)
        .replace("PRE", pre)
}

fn request(code: &Path, time_limit_ms: u64, memory_limit_mb: u64) -> WorkerRequest {
    WorkerRequest {
        kind: CodeKind::Library,
        code: code.to_path_buf(),
        probe: Probe::Solve {
            n: 2,
            board: PUZZLE.to_vec(),
        },
        limits: Limits {
            time_limit_ms,
            memory_limit_mb,
        },
        python: None,
        trace: false,
        reference_legal: false,
        deep_stop: false,
    }
}

/// Runs a solve test of `source` and returns the run and its outcome.
fn run_with(
    env: &SandboxEnv,
    source: &str,
    time_ms: u64,
    memory_mb: u64,
) -> (TestRun, Result<(Response, f64), Outcome>) {
    let (_dir, lib) = build(source);
    let req = request(&lib, time_ms, memory_mb);
    let run = run_test(&req, env).expect("the worker runs");
    assert_no_leftovers(&run);
    let outcome = outcome(&run, &req.limits);
    (run, outcome)
}

fn run(source: &str) -> (TestRun, Result<(Response, f64), Outcome>) {
    run_with(&env(), source, 1000, 128)
}

/// No process of the worker's group is alive after `run_test`.
fn assert_no_leftovers(run: &TestRun) {
    let pgid = run.pid as i32;
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let fields: Vec<&str> = rest.split(' ').collect();
        // state, ppid, pgrp
        if fields.get(2).and_then(|p| p.parse::<i32>().ok()) == Some(pgid) {
            panic!(
                "process {} of the worker's group is still alive: {stat}",
                entry.file_name().to_string_lossy()
            );
        }
    }
}

fn expect_fail(outcome: Result<(Response, f64), Outcome>, run: &TestRun) -> Outcome {
    match outcome {
        Ok(ok) => panic!("expected a failure, got {ok:?}\nrun: {run:#?}"),
        Err(outcome) => outcome,
    }
}

fn expect_verdict(source: &str, verdict: Verdict, needle: &str) -> TestRun {
    let (run, outcome) = run(source);
    let outcome = expect_fail(outcome, &run);
    assert_eq!(outcome.verdict, verdict, "{outcome:?}\nrun: {run:#?}");
    assert!(
        outcome.message.contains(needle),
        "message {:?} should contain {needle:?}\nrun: {run:#?}",
        outcome.message
    );
    run
}

fn expect_solved(run: &TestRun, outcome: Result<(Response, f64), Outcome>) {
    match outcome {
        Ok((Response::Solve { solved, board }, _)) => {
            assert!(solved);
            assert_eq!(board, SOLUTION.to_vec());
        }
        other => panic!("expected a solved board, got {other:?}\nrun: {run:#?}"),
    }
}

#[test]
fn correct_solver_passes() {
    let (run, outcome) = run(&solver("", "", ""));
    assert!(run.loaded(), "{run:#?}");
    expect_solved(&run, outcome);
}

#[test]
fn segfault_is_a_crash_naming_the_signal() {
    expect_verdict(
        &solver("", "*(volatile int *)0 = 1;", ""),
        Verdict::Crash,
        "SIGSEGV",
    );
}

#[test]
fn abort_is_a_crash() {
    expect_verdict(&solver("", "abort();", ""), Verdict::Crash, "SIGABRT");
}

#[test]
fn exit_inside_solve_is_a_crash() {
    expect_verdict(
        &solver("", "exit(0);", ""),
        Verdict::Crash,
        "exited with status 0 before returning",
    );
}

#[test]
fn infinite_loop_is_a_timeout_costing_little_more_than_the_limit() {
    let source = solver(
        "",
        "for (volatile unsigned long i = 0; i < 100000000000UL; i++) {}",
        "",
    );
    let (run, outcome) = run_with(&env(), &source, 300, 128);
    let outcome = expect_fail(outcome, &run);
    assert_eq!(outcome.verdict, Verdict::Timeout, "{outcome:?}");
    // However busy the machine (tests run in parallel), a loop is stopped
    // by its CPU time: waiting for a CPU is never idle time.
    assert_eq!(run.killed, Some(Kill::Cpu), "{run:?}");
    assert!(outcome.message.contains("300 ms"), "{outcome:?}");
    // /proc reports CPU in clock ticks, rusage in microseconds.
    assert!(run.cpu_ms >= 280 && run.cpu_ms < 300 + 100, "{run:?}");
}

#[test]
fn the_sandbox_is_in_place_in_the_constructor_and_in_solve() {
    let extra = r#"
static char report[512];
static void describe(char *out, size_t len, const char *when) {
    struct rlimit fsize, core, nofile;
    getrlimit(RLIMIT_FSIZE, &fsize); getrlimit(RLIMIT_CORE, &core); getrlimit(RLIMIT_NOFILE, &nofile);
    int open_fds = 0, highest = -1;
    for (int fd = 0; fd < 64; fd++) if (fcntl(fd, F_GETFD) != -1) { open_fds++; highest = fd; }
    snprintf(out, len, "%s uid=%d gid=%d fsize=%ld core=%ld nofile=%ld fds=%d highest=%d env=%s cwd_entries=%s\n",
        when, (int)getuid(), (int)getgid(), (long)fsize.rlim_cur, (long)core.rlim_cur, (long)nofile.rlim_cur,
        open_fds, highest, getenv("RUST_BACKTRACE") ? "leaked" : "clean",
        access("anything", F_OK) == 0 ? "some" : "none");
}
"#;
    let ctor = "describe(report, sizeof report, \"ctor\");";
    let pre = "char now[256]; describe(now, sizeof now, \"solve\"); fputs(report, stderr); fputs(now, stderr);";
    let source = solver(ctor, pre, &format!("#include <sys/resource.h>\n{extra}"));
    let (run, outcome) = run(&source);
    expect_solved(&run, outcome);
    let root = unsafe_free_is_root();
    for when in ["ctor", "solve"] {
        let line = run
            .output
            .lines()
            .find(|l| l.starts_with(when))
            .unwrap_or_else(|| panic!("no {when} line in {}", run.output));
        if root {
            // A uid of the box's own (see sandbox::uids), the same gid.
            let uid: u32 = line
                .split("uid=")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .and_then(|u| u.parse().ok())
                .unwrap_or_else(|| panic!("no uid in {line}"));
            assert!((61_000..62_000).contains(&uid), "{line}");
            assert!(line.contains(&format!("gid={uid} ")), "{line}");
        }
        assert!(line.contains("fsize=0 core=0 nofile=32"), "{line}");
        assert!(line.contains("env=clean"), "{line}");
        if when == "solve" {
            // stdin, stdout, stderr and the protocol fd, nothing else.
            assert!(line.contains("fds=4 highest=3"), "{line}");
        }
    }
}

/// Whether these tests run as root (from /proc, without unsafe).
fn unsafe_free_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .map(|u| u.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

#[test]
fn ignoring_sigxcpu_is_still_a_timeout() {
    let source = solver(
        "",
        "signal(SIGXCPU, SIG_IGN); for (volatile unsigned long i = 0; i < 100000000000UL; i++) {}",
        "",
    );
    let (run, outcome) = run_with(&env(), &source, 200, 128);
    assert_eq!(expect_fail(outcome, &run).verdict, Verdict::Timeout);
}

#[test]
fn spinning_threads_are_a_timeout() {
    let extra = "static void *spin(void *a) { (void)a; for (volatile unsigned long i = 0; i < 100000000000UL; i++) {} return 0; }";
    let pre =
        "pthread_t t[4]; for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, spin, 0); spin(0);";
    let (run, outcome) = run_with(&env(), &solver("", pre, extra), 300, 128);
    let outcome = expect_fail(outcome, &run);
    assert_eq!(outcome.verdict, Verdict::Timeout, "{outcome:?}");
    assert!(run.cpu_ms >= 300, "{run:?}");
}

#[test]
fn threads_that_finish_are_allowed() {
    let extra = "static void *work(void *a) { *(int *)a = 42; return 0; }";
    let pre = "pthread_t t; int x = 0; if (pthread_create(&t, 0, work, &x) != 0) abort(); pthread_join(t, 0); if (x != 42) abort();";
    let (run, outcome) = run(&solver("", pre, extra));
    expect_solved(&run, outcome);
}

#[test]
fn fork_is_forbidden() {
    let pre = "for (int i = 0; i < 20; i++) { pid_t p = fork(); if (p == 0) _exit(0); if (p > 0) waitpid(p, 0, 0); }";
    expect_verdict(
        &solver("", pre, ""),
        Verdict::Forbidden,
        "`clone` (creating a process)",
    );
}

#[test]
fn exec_is_forbidden() {
    let pre = "char *argv[] = {\"/bin/true\", 0}; execv(\"/bin/true\", argv);";
    expect_verdict(&solver("", pre, ""), Verdict::Forbidden, "`execve`");
}

#[test]
fn socket_is_forbidden() {
    let pre = "int s = socket(AF_INET, SOCK_STREAM, 0); (void)s;";
    expect_verdict(
        &solver("", pre, ""),
        Verdict::Forbidden,
        "`socket` (networking)",
    );
}

#[test]
fn killing_the_parent_is_forbidden() {
    let pre = "kill(getppid(), SIGKILL);";
    expect_verdict(
        &solver("", pre, ""),
        Verdict::Forbidden,
        "`kill` (signalling another process)",
    );
}

#[test]
fn leaving_the_process_group_is_forbidden() {
    expect_verdict(
        &solver("", "setpgid(0, 0);", ""),
        Verdict::Forbidden,
        "`setpgid`",
    );
}

#[test]
fn outliving_the_grader_is_forbidden() {
    let ctor = "prctl(PR_SET_PDEATHSIG, 0);";
    let source = solver(ctor, "", "#include <sys/prctl.h>");
    expect_verdict(&source, Verdict::Forbidden, "`prctl` while loading");
}

#[test]
fn closing_the_protocol_fd_does_not_hide_a_forbidden_call() {
    let pre = "close(3); socket(AF_INET, SOCK_STREAM, 0);";
    expect_verdict(
        &solver("", pre, ""),
        Verdict::Forbidden,
        "the sandbox refused",
    );
}

#[test]
fn fork_in_a_constructor_is_forbidden_while_loading() {
    let ctor = "for (int i = 0; i < 20; i++) { pid_t p = fork(); if (p == 0) _exit(0); }";
    expect_verdict(&solver(ctor, "", ""), Verdict::Forbidden, "while loading");
}

#[test]
fn files_cannot_be_read() {
    // In solve the allow-list refuses openat; in the constructor Landlock
    // does. Either way the library carries on and solves.
    let extra = "static int ctor_fd = -2;";
    let ctor = "ctor_fd = open(\"/etc/passwd\", O_RDONLY);";
    let pre = "int fd = open(\"/etc/passwd\", O_RDONLY); fprintf(stderr, \"open=%d ctor=%d\\n\", fd, ctor_fd);";
    let (run, outcome) = run(&solver(ctor, pre, extra));
    assert!(run.output.contains("open=-1 ctor=-1"), "{}", run.output);
    expect_solved(&run, outcome);
}

#[test]
fn a_thread_started_at_load_time_gets_the_allow_list_too() {
    let extra = r#"
static volatile int go = 0, result = -2;
static void *spy(void *a) {
    (void)a;
    for (long i = 0; i < 2000000000L && !go; i++) sched_yield();
    result = open("/etc/ld.so.cache", O_RDONLY);
    return 0;
}
"#;
    let ctor = "pthread_t t; pthread_create(&t, 0, spy, 0); pthread_detach(t);";
    let pre = "go = 1; for (long i = 0; i < 2000000000L && result == -2; i++) sched_yield(); fprintf(stderr, \"spy open=%d\\n\", result);";
    let (run, outcome) = run(&solver(ctor, pre, &format!("#include <sched.h>\n{extra}")));
    assert!(run.output.contains("spy open=-1"), "{}", run.output);
    expect_solved(&run, outcome);
}

#[test]
fn constructor_that_never_returns_is_a_load_timeout() {
    let ctor = "for (volatile unsigned long i = 0; i < 100000000000UL; i++) {}";
    let (run, outcome) = run_with(&env(), &solver(ctor, "", ""), 200, 128);
    let outcome = expect_fail(outcome, &run);
    assert_eq!(outcome.verdict, Verdict::Timeout, "{outcome:?}");
    assert!(
        outcome.message.contains("did not finish loading"),
        "{outcome:?}"
    );
}

#[test]
fn missing_symbol_is_an_error_naming_it() {
    let source = solver("", "", "")
        .replace("bool find_empty(", "bool find_empty_typo(")
        .replace("find_empty(b, n, &r, &c)", "find_empty_typo(b, n, &r, &c)");
    expect_verdict(&source, Verdict::Error, "no symbol `find_empty`");
}

#[test]
fn wrong_abi_version_is_an_error() {
    let source = solver("", "", "").replace("return 1; }", "return 7; }");
    expect_verdict(&source, Verdict::Error, "returns 7");
}

#[test]
fn stack_overflow_is_a_crash() {
    let extra = "static int deep(int d) { volatile char pad[256]; pad[0] = (char)d; if (d > 100000000) return pad[0]; return deep(d + 1) + pad[0]; }";
    let pre = "if (deep(0) == 12345) return false;";
    expect_verdict(&solver("", pre, extra), Verdict::Crash, "stack overflow");
}

#[test]
fn memory_bomb_is_a_memory_verdict() {
    let env = env();
    let pre = "for (int i = 0; i < 64; i++) { char *p = malloc(16 << 20); if (!p) { fprintf(stderr, \"malloc failed\\n\"); abort(); } memset(p, 1, 16 << 20); }";
    let (run, outcome) = run_with(&env, &solver("", pre, ""), 2000, 64);
    let outcome = expect_fail(outcome, &run);
    if env.active().contains(&"memory cgroup (v1)") {
        assert_eq!(outcome.verdict, Verdict::Memory, "{outcome:?}\n{run:#?}");
        assert!(run.oom_killed);
    } else {
        // Under RLIMIT_AS alone, C sees malloc fail and aborts.
        assert_eq!(outcome.verdict, Verdict::Crash, "{outcome:?}");
    }
}

/// Resident memory of this process, in KiB.
fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

#[test]
fn printing_200_mb_is_capped_and_still_passes() {
    let pre = "static char chunk[65536]; memset(chunk, 'x', sizeof chunk); chunk[sizeof chunk - 1] = '\\n'; for (int i = 0; i < 3200; i++) fwrite(chunk, 1, sizeof chunk, stdout); fflush(stdout); fprintf(stderr, \"last words\\n\");";
    let before = rss_kb();
    let started = Instant::now();
    let (run, outcome) = run_with(&env(), &solver("", pre, ""), 10_000, 128);
    let after = rss_kb();
    eprintln!(
        "200 MB print: {} ms, grader RSS {before} -> {after} KiB, output kept {} bytes, dropped {}",
        started.elapsed().as_millis(),
        run.output.len(),
        run.output_dropped
    );
    expect_solved(&run, outcome);
    assert!(run.output_dropped >= 200_000_000, "{}", run.output_dropped);
    assert!(run.output.len() <= 70 * 1024, "{}", run.output.len());
    assert!(run.output.contains("bytes dropped"));
    assert!(run.output.contains("last words"));
    assert!(
        after < before + 20 * 1024,
        "grader RSS grew from {before} to {after} KiB"
    );
}

/// A Rust cdylib whose `solve` panics, built with plain `rustc`.
const RUST_PANIC: &str = r#"
#[unsafe(no_mangle)]
pub extern "C" fn legal(_b: *const u8, _n: usize, _r: usize, _c: usize, _v: u8) -> bool { true }
#[unsafe(no_mangle)]
pub extern "C" fn find_empty(_b: *const u8, _n: usize, _r: *mut usize, _c: *mut usize) -> bool { false }
#[unsafe(no_mangle)]
pub extern "C" fn solve(_b: *mut u8, n: usize) -> bool {
    let cells = vec![0u8; n];
    if cells.len() < 100 { panic!("the board is haunted: {}", n); }
    true
}
"#;

#[test]
fn rust_panic_is_a_crash_naming_the_panic() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path().join("lib.rs");
    std::fs::write(&src, RUST_PANIC).expect("write");
    let lib = dir.path().join("libpanic.so");
    let status = Command::new("rustc")
        .args([
            "--edition",
            "2024",
            "--crate-type",
            "cdylib",
            "-C",
            "opt-level=1",
            "-o",
        ])
        .arg(&lib)
        .arg(&src)
        .env_remove("RUST_BACKTRACE")
        .status()
        .expect("rustc runs");
    assert!(status.success());
    let req = request(&lib, 2000, 128);
    let run = run_test(&req, &env()).expect("runs");
    assert_no_leftovers(&run);
    let outcome = expect_fail(outcome(&run, &req.limits), &run);
    assert_eq!(outcome.verdict, Verdict::Crash, "{outcome:?}\n{run:#?}");
    assert!(
        outcome
            .message
            .starts_with("panic: the board is haunted: 2 (at "),
        "{outcome:?}"
    );
}

#[test]
fn sleeping_is_a_timeout_for_time_not_using_a_cpu() {
    let pre = "for (int i = 0; i < 100; i++) sleep(1);";
    let (run, outcome) = run_with(&env(), &solver("", pre, ""), 200, 128);
    let outcome = expect_fail(outcome, &run);
    assert_eq!(outcome.verdict, Verdict::Timeout, "{outcome:?}");
    assert_eq!(run.killed, Some(Kill::Idle), "{run:?}");
    assert!(
        outcome
            .message
            .contains("without using or waiting for a CPU"),
        "{outcome:?}"
    );
    // The limit (200 ms) plus the allowance (500 ms), give or take a check.
    assert!(run.idle_ms >= 700 && run.idle_ms < 1200, "{run:?}");
}

#[test]
fn a_broken_worker_is_the_graders_error_not_the_students() {
    let (_dir, lib) = build(&solver("", "", ""));
    let req = request(&lib, 1000, 64);
    // A box that cannot be made is an error of the run, never a verdict
    // (grading turns it into a grader fault: see runner::test_run).
    let env = SandboxEnv::detect().with_worker("/bin/false");
    let err = run_test(&req, &env).expect_err("no box");
    assert!(err.to_string().contains("the box"), "{err}");
    let missing = SandboxEnv::detect().with_worker("/nonexistent/grader");
    assert!(run_test(&req, &missing).is_err());
}

#[test]
fn a_library_that_cannot_be_loaded_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lib = dir.path().join("libnothing.so");
    std::fs::write(&lib, b"not an ELF file").expect("write");
    let req = request(&lib, 1000, 64);
    let run = run_test(&req, &env()).expect("runs");
    let outcome = outcome(&run, &req.limits);
    let outcome = expect_fail(outcome, &run);
    assert_eq!(outcome.verdict, Verdict::Error, "{outcome:?}");
    assert!(outcome.message.contains("cannot load"), "{outcome:?}");
}
