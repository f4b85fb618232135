//! A C library's crash in the student's words: the signal, then the
//! student's function from the test child's crash handler (`crash_site`
//! on fd 3), with the verdict still the wait status's. `grader check` on
//! the fixture `bug-legal-board-as-rows.c`, and small libraries built here
//! and run through `grader::runner::test_run::run_test` with the real binary
//! as the worker: a fault in a helper, in libc, under the write watch, a
//! stack overflow (still told by the Rust runtime's handler), and a signal
//! raised rather than faulted, which must end the process as it would
//! without the handler.

use std::path::{Path, PathBuf};
use std::process::Command;

use grader::check::{Probe, Response};
use grader::protocol::{CodeKind, Limits, WorkerMessage, WorkerRequest};
use grader::runner::{outcome::outcome, test_run::run_test};
use grader::sandbox::{SandboxEnv, TestRun};
use grader::verdict::{Outcome, Verdict};

use crate::util::{code, fixture, grader, printed, root};

/// A 4x4 puzzle with one solution (the campus board).
const PUZZLE: [u8; 16] = [1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0];

/// `legal` and `find_empty` of the listing; each test adds its `solve`.
const LISTING: &str = r#"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <signal.h>

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
"#;

#[test]
fn check_names_the_signal_and_the_students_function() {
    let out = grader()
        .args(["check", "--no-shrink"])
        .arg(fixture("bug-legal-board-as-rows.c"))
        .env("NO_COLOR", "1")
        .output()
        .expect("grader runs");
    let shown = printed(&out);
    assert_eq!(code(&out), 1, "{shown}");
    assert!(shown.contains("✓ find_empty"), "{shown}");
    // Both legal's own tests and solve's calls of it fault in `legal`.
    for function in ["legal", "solve"] {
        let block = shown
            .split_once(&format!("✗ {function}"))
            .unwrap_or_else(|| panic!("no failing {function}:\n{shown}"))
            .1;
        let first = block
            .lines()
            .find(|l| l.contains("crashed with"))
            .unwrap_or_else(|| panic!("no crash under {function}:\n{shown}"));
        assert!(
            first.contains("crashed with SIGSEGV in your function `legal`, an invalid"),
            "{function}: {first:?}"
        );
        assert!(first.contains("an invalid memory access"), "{first:?}");
    }
}

/// The first crash line under the failing `solve` of `grader check` on
/// the attack `name` (of `attacks/`), after `legal` and `find_empty` pass.
fn checked_crash(name: &str) -> String {
    let out = grader()
        .args(["check", "--no-shrink"])
        .arg(root().join("attacks").join(name))
        .env("NO_COLOR", "1")
        .output()
        .expect("grader runs");
    let shown = printed(&out);
    assert_eq!(code(&out), 1, "{shown}");
    assert!(
        shown.contains("✓ legal") && shown.contains("✓ find_empty"),
        "{shown}"
    );
    let block = shown
        .split_once("✗ solve")
        .unwrap_or_else(|| panic!("no failing solve:\n{shown}"))
        .1;
    block
        .lines()
        .find(|l| l.contains("crashed with"))
        .unwrap_or_else(|| panic!("no crash under solve:\n{shown}"))
        .to_string()
}

/// A local symbol named like a clone of `legal` (`legal.part.0`), planted
/// at `solve`'s address with its size, never names a crash in `solve`: the
/// lab's exported name wins.
#[test]
fn a_planted_local_name_never_overrides_the_labs_exported_one() {
    let first = checked_crash("crash-alias-legal.c");
    assert!(
        first.contains("crashed with SIGSEGV in your function `solve`, an invalid"),
        "{first:?}"
    );
    assert!(!first.contains("`legal`"), "{first:?}");
}

/// A `solve` that calls the first page of the test program (its headers,
/// no code) faults in the grader's program: the fault came during a call
/// of `solve`, so the message says the student's code got there, never
/// that the crash was the grader's program's.
#[test]
fn a_fault_reached_from_the_students_code_is_told_as_its() {
    let first = checked_crash("crash-jump-program.c");
    assert!(
        first.contains(
            "crashed with SIGSEGV outside your library, where your code jumped or called into \
             the grader's test program"
        ),
        "{first:?}"
    );
    assert!(
        !first.contains("(in the grader's test program"),
        "{first:?}"
    );
}

/// A sandbox environment whose worker is the built grader binary.
fn env() -> SandboxEnv {
    SandboxEnv::detect().with_worker(env!("CARGO_BIN_EXE_grader"))
}

/// Compiles the listing with `solve` as a shared library in a fresh
/// temp dir.
fn build(solve: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let c = dir.path().join("student.c");
    std::fs::write(&c, format!("{LISTING}\n{solve}")).expect("write source");
    let lib = dir.path().join("libstudent.so");
    let output = Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&c)
        .output()
        .expect("cc runs");
    assert!(output.status.success(), "cc failed: {}", printed(&output));
    (dir, lib)
}

fn request(code: &Path, trace: bool) -> WorkerRequest {
    WorkerRequest {
        kind: CodeKind::Library,
        code: code.to_path_buf(),
        probe: Probe::Solve {
            n: 2,
            board: PUZZLE.to_vec(),
        },
        limits: Limits {
            time_limit_ms: 2000,
            memory_limit_mb: 256,
        },
        python: None,
        trace,
        reference_legal: false,
        deep_stop: false,
    }
}

/// Runs a solve test of the listing with `solve` (under the write watch
/// when `trace`) and returns the run and its outcome.
fn run(solve: &str, trace: bool) -> (TestRun, Result<(Response, f64), Outcome>) {
    let (_dir, lib) = build(solve);
    let req = request(&lib, trace);
    let run = run_test(&req, &env()).expect("the worker runs");
    let decided = outcome(&run, &req.limits);
    (run, decided)
}

/// The crash handler's lines in `run`.
fn sites(run: &TestRun) -> Vec<&str> {
    run.messages
        .iter()
        .filter_map(|m| match m {
            WorkerMessage::CrashSite { site } => Some(site.as_str()),
            _ => None,
        })
        .collect()
}

/// Asserts a crash verdict whose message contains `phrase`; returns the
/// message.
fn crashed((run, decided): &(TestRun, Result<(Response, f64), Outcome>), phrase: &str) -> String {
    match decided {
        Err(outcome) if outcome.verdict == Verdict::Crash => {
            assert!(
                outcome.message.contains(phrase),
                "{:?} does not contain {phrase:?}\nrun: {run:#?}",
                outcome.message
            );
            outcome.message.clone()
        }
        other => panic!("want a crash, got {other:?}\nrun: {run:#?}"),
    }
}

#[test]
fn a_fault_in_a_helper_names_the_helper_and_the_signal() {
    let seen = run(
        r#"
__attribute__((noinline)) size_t box_side(size_t n) {
    volatile size_t zero = n - n;
    return n / zero;
}
bool solve(uint8_t *b, size_t n) { return box_side(n) == 2 && b[0]; }
"#,
        false,
    );
    crashed(
        &seen,
        "crashed with SIGFPE in your function `box_side`, an arithmetic error",
    );
    assert_eq!(sites(&seen.0).len(), 1, "{:#?}", seen.0);
}

#[test]
fn a_fault_in_libc_is_told_outside_the_students_library() {
    let seen = run(
        r#"
bool solve(uint8_t *b, size_t n) {
    volatile size_t far = (size_t)1 << 40;
    memset(b + far, 0, n * 4096);
    return false;
}
"#,
        false,
    );
    let message = crashed(
        &seen,
        "crashed with SIGSEGV outside your library (in libc.so",
    );
    assert!(!message.contains("your function"), "{message}");
}

#[test]
fn a_fault_under_the_write_watch_reaches_the_handler() {
    let solve = r#"
bool solve(uint8_t *b, size_t n) {
    b[1] = 2;
    volatile uint8_t *wild = (volatile uint8_t *)(uintptr_t)(n - 2);
    *wild = 1;
    return true;
}
"#;
    for trace in [false, true] {
        let seen = run(solve, trace);
        crashed(
            &seen,
            "crashed with SIGSEGV in your function `solve`, an invalid",
        );
    }
}

#[test]
fn a_stack_overflow_is_still_told_by_the_previous_disposition() {
    // Small frames, each touched: the recursion meets the guard page. The
    // handler runs on its signal stack, writes its line, and hands the
    // fault back to the Rust runtime's handler, which tells the overflow
    // and aborts. (Untraced: a traced run's watch stops a recursion this
    // deep before the stack runs out.)
    let solve = r#"
bool solve(uint8_t *b, size_t n) {
    volatile uint8_t frame[64];
    for (size_t i = 0; i < sizeof frame; i++) frame[i] = b[0];
    bool deeper = solve(b, n);
    return deeper && frame[n] == 0;
}
"#;
    let seen = run(solve, false);
    let message = crashed(
        &seen,
        "stack overflow (recursion too deep?), ended by SIGABRT",
    );
    assert!(!message.contains("your function"), "{message}");
    assert!(
        matches!(sites(&seen.0)[..], [site] if site.starts_with("11 in solve+0x")),
        "{:#?}",
        seen.0
    );
}

#[test]
fn a_raised_signal_ends_the_process_as_without_the_handler() {
    // Not a fault: nothing faults again on return, so the handler sends
    // the signal again, to the default disposition, which ends the
    // process; and it writes no line.
    let seen = run(
        r#"
bool solve(uint8_t *b, size_t n) { raise(SIGFPE); b[1] = 2; return n == 2; }
"#,
        false,
    );
    crashed(&seen, "crashed with SIGFPE (an arithmetic error");
    assert!(sites(&seen.0).is_empty(), "{:#?}", seen.0);
}
