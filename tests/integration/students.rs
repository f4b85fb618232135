//! The student's side, through the real binary: `grader init` then `grader
//! check` round trips for each language, run from a temporary folder with
//! a copy of the binary (the grader's source checkout is not reachable);
//! exit codes and a closed stdout; snapshots of `grader check` on the
//! correct fixture and every bug fixture, with the first line of each
//! diagnosis naming its bug class; and the shrinker's result checked
//! minimal on the bug fixtures.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use grader::case::{self, Case, CaseSet};
use grader::runner::grade_plan::GradePlan;
use grader::runner::session::Session;

use grader::runner::shrink::{FailureClass, ShrinkBudget, fill, shrink_solve, smaller_case};
use grader::sandbox::SandboxEnv;
use grader::submission::discover::{Submission, SubmissionKind, classify};
use grader::verdict::{Function, Verdict};
use sudoku_reference::BoardRules;

use crate::util::{code, copy_tree, fixture, is_root, needs, printed, root};

/// A copy of `grader` and `grader-worker` in a fresh folder, run from
/// there with no `GRADER_LAB_DIR`: what a student who was handed the
/// binary has.
struct Kit {
    dir: tempfile::TempDir,
}

impl Kit {
    fn new() -> Kit {
        let dir = tempfile::tempdir().expect("temp dir");
        let bin = dir.path().join("bin");
        fs::create_dir(&bin).unwrap();
        fs::copy(env!("CARGO_BIN_EXE_grader"), bin.join("grader")).unwrap();
        fs::copy(
            env!("CARGO_BIN_EXE_grader-worker"),
            bin.join("grader-worker"),
        )
        .unwrap();
        // A test thread that forks while a copy is still open for writing
        // holds it until its child execs, and an exec of the copy meanwhile
        // fails with ETXTBSY ("Text file busy"): wait until both copies run.
        for (exe, arg) in [("grader", "--version"), ("grader-worker", "--identity")] {
            for _ in 0..250 {
                match Command::new(bin.join(exe)).arg(arg).output() {
                    Err(err) if err.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                        std::thread::sleep(std::time::Duration::from_millis(20));
                    }
                    _ => break,
                }
            }
        }
        Kit { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Runs the copied `grader` in `cwd` (relative to the kit's folder).
    fn grader(&self, cwd: &str, args: &[&str]) -> Output {
        Command::new(self.path("bin/grader"))
            .args(args)
            .current_dir(self.path(cwd))
            .env_remove("GRADER_LAB_DIR")
            .env("NO_COLOR", "1")
            .output()
            .expect("grader runs")
    }
}

#[test]
fn c_init_then_check_round_trip() {
    let kit = Kit::new();
    let init = kit.grader(".", &["init", "--lang", "c", "proj"]);
    assert_eq!(code(&init), 0, "{}", printed(&init));
    for file in ["sudoku.c", "sudoku_lab.h", "Makefile", "README.md"] {
        assert!(kit.path("proj").join(file).is_file(), "{file}");
    }
    // The local recipe builds into build/, and the folder still checks.
    if Command::new("make").arg("--version").output().is_ok() {
        let make = Command::new("make")
            .current_dir(kit.path("proj"))
            .output()
            .unwrap();
        assert!(make.status.success(), "{}", printed(&make));
        assert!(kit.path("proj/build/libsudoku.so").is_file());
    }
    // The stubs compile and fail cleanly: wrong answers, no crash.
    let stubs = kit.grader("proj", &["check"]);
    let shown = printed(&stubs);
    assert_eq!(code(&stubs), 1, "{shown}");
    assert!(shown.contains("✗ legal"), "{shown}");
    assert!(!shown.contains("crash"), "{shown}");
    // Filling in the listing makes every public test pass.
    fs::copy(fixture("c-listing.c"), kit.path("proj/sudoku.c")).unwrap();
    let done = kit.grader("proj", &["check"]);
    let shown = printed(&done);
    assert_eq!(code(&done), 0, "{shown}");
    assert!(shown.contains("public tests passed"), "{shown}");
    assert!(shown.contains("hidden tests"), "{shown}");
}

#[test]
#[ignore = "slow: cargo in a box: grader init --lang rust, then grader check"]
fn rust_init_then_check_round_trip() {
    let kit = Kit::new();
    let init = kit.grader(".", &["init", "--lang", "rust", "proj"]);
    assert_eq!(code(&init), 0, "{}", printed(&init));
    // The vendored lab crate builds on its own, outside any workspace.
    let build = Command::new("cargo")
        .args(["build", "--offline", "--quiet"])
        .current_dir(kit.path("proj"))
        .env("CARGO_TARGET_DIR", kit.path("target"))
        .output()
        .expect("cargo runs");
    assert!(build.status.success(), "{}", printed(&build));
    let stubs = kit.grader("proj", &["check", "--no-shrink"]);
    assert_eq!(code(&stubs), 1, "{}", printed(&stubs));
    // The kit hands out no solution: the lab crate's own example, pasted
    // in as the student's crate, passes no test, and the crate offers none
    // of the lab's rules.
    let lab = fs::read_to_string(kit.path("proj/sudoku-lab/src/lib.rs")).unwrap();
    let example: String = lab
        .lines()
        .skip_while(|line| *line != "//! ```")
        .skip(1)
        .take_while(|line| *line != "//! ```")
        .map(|line| {
            format!(
                "{}\n",
                line.trim_start_matches("//!")
                    .strip_prefix(' ')
                    .unwrap_or("")
            )
        })
        .collect();
    assert!(example.contains("impl Sudoku for"), "{example}");
    for rule in ["fn conflicts", "fn empty_cells", "fn box_origin"] {
        assert!(!lab.contains(rule), "the lab crate offers `{rule}`");
    }
    fs::write(kit.path("proj/src/lib.rs"), &example).unwrap();
    let pasted = kit.grader("proj", &["check", "--no-shrink"]);
    let shown = printed(&pasted);
    assert_eq!(code(&pasted), 1, "{shown}");
    assert!(shown.contains("\n0 of 21 public tests passed"), "{shown}");
    fs::copy(
        fixture("rust-trait/src/lib.rs"),
        kit.path("proj/src/lib.rs"),
    )
    .unwrap();
    let done = kit.grader("proj", &["check"]);
    assert_eq!(code(&done), 0, "{}", printed(&done));
}

#[test]
fn python_init_then_check_round_trip() {
    let kit = Kit::new();
    let init = kit.grader(".", &["init", "--lang", "python", "proj"]);
    assert_eq!(code(&init), 0, "{}", printed(&init));
    let stubs = kit.grader("proj", &["check", "--no-shrink"]);
    assert_eq!(code(&stubs), 1, "{}", printed(&stubs));
    // The seed's listing, exactly as the lab prints it.
    let listing = r#"
def legal(board, r, c, v, n=2):
    N = n * n
    if v in board[r] or v in (board[i][c] for i in range(N)):
        return False
    br, bc = n * (r // n), n * (c // n)
    for i in range(br, br + n):
        for j in range(bc, bc + n):
            if board[i][j] == v:
                return False
    return True

def find_empty(board):
    for i, row in enumerate(board):
        for j, v in enumerate(row):
            if v == 0:
                return i, j
    return None

def solve(board, n=2):
    spot = find_empty(board)
    if spot is None:
        return True
    r, c = spot
    for v in range(1, n * n + 1):
        if legal(board, r, c, v, n):
            board[r][c] = v
            if solve(board, n):
                return True
            board[r][c] = 0
    return False
"#;
    fs::write(kit.path("proj/sudoku.py"), listing).unwrap();
    let done = kit.grader("proj", &["check"]);
    assert_eq!(code(&done), 0, "{}", printed(&done));
}

#[test]
fn init_refuses_a_folder_that_is_not_empty() {
    let kit = Kit::new();
    fs::create_dir(kit.path("proj")).unwrap();
    fs::write(kit.path("proj/mine.c"), "int x;").unwrap();
    let init = kit.grader(".", &["init", "proj"]);
    assert_eq!(code(&init), 2, "{}", printed(&init));
    assert!(printed(&init).contains("not empty"), "{}", printed(&init));
    assert_eq!(
        fs::read_to_string(kit.path("proj/mine.c")).unwrap(),
        "int x;"
    );
}

#[test]
fn exit_codes_tell_build_errors_from_wrong_answers() {
    let kit = Kit::new();
    let check = |name: &str| {
        let path = fixture(name);
        kit.grader(".", &["check", "--no-shrink", path.to_str().unwrap()])
    };
    let broken = check("broken-compile.c");
    assert_eq!(code(&broken), 3, "{}", printed(&broken));
    assert!(
        printed(&broken).contains("did not build"),
        "{}",
        printed(&broken)
    );
    let missing = check("missing-symbol.c");
    assert_eq!(code(&missing), 3, "{}", printed(&missing));
    let wrong = check("bug-solve-always-true.c");
    assert_eq!(code(&wrong), 1, "{}", printed(&wrong));
    // A bare file name in the current folder builds too.
    fs::copy(fixture("c-listing.c"), kit.path("sudoku.c")).unwrap();
    let bare = kit.grader(".", &["check", "sudoku.c"]);
    assert_eq!(code(&bare), 0, "{}", printed(&bare));
    let usage = kit.grader(".", &["check", "--case", "no-such-case", "."]);
    assert_eq!(code(&usage), 2, "{}", printed(&usage));
    assert!(
        printed(&usage).contains("campus-4x4"),
        "{}",
        printed(&usage)
    );
}

#[test]
fn a_closed_stdout_is_a_quiet_success() {
    let kit = Kit::new();
    let mut child = Command::new(kit.path("bin/grader"))
        .args(["check", "--no-shrink"])
        .arg(fixture("bug-legal-no-box.c"))
        .env_remove("GRADER_LAB_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // `grader check | head -0`
    let output = child.wait_with_output().unwrap();
    assert_eq!(code(&output), 0, "{}", printed(&output));
    assert!(output.stderr.is_empty(), "{}", printed(&output));
}

#[test]
fn json_for_editors() {
    let kit = Kit::new();
    let path = fixture("bug-no-clear.c");
    let out = kit.grader(
        ".",
        &[
            "check",
            "--json",
            "--function",
            "solve",
            path.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), 1, "{}", printed(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["exit_code"], 1);
    assert_eq!(doc["hidden_tests_also_count"], true);
    let tests = doc["submission"]["tests"].as_array().unwrap();
    assert!(tests.iter().all(|t| t["function"] == "solve"), "{doc}");
    assert!(doc["shrunk"][0]["empty"].as_u64().unwrap() >= 1, "{doc}");
    assert!(!out.stdout.contains(&0x1b), "no terminal escapes in JSON");
    // --fail-fast stops at the first failing test and says how many were left.
    let fast = kit.grader(
        ".",
        &[
            "check",
            "--json",
            "--fail-fast",
            "--no-shrink",
            path.to_str().unwrap(),
        ],
    );
    let doc: serde_json::Value = serde_json::from_slice(&fast.stdout).expect("JSON");
    let tests = doc["submission"]["tests"].as_array().unwrap();
    assert_eq!(tests.last().unwrap()["verdict"], "wrong", "{doc}");
    assert!(
        tests[..tests.len() - 1]
            .iter()
            .all(|t| t["verdict"] == "pass"),
        "{doc}"
    );
    assert!(doc["not_run"].as_u64().unwrap() > 0, "{doc}");
}

// ---------------------------------------------------------------- snapshots

/// The bug fixtures, each with a phrase the first line of its first
/// diagnosis must hold: the bug class in the lab's words.
const BUG_CLASSES: &[(&str, &str)] = &[
    ("bug-box-origin.c", "legal(board, "),
    ("bug-digit-loop-short.c", "digit loop"),
    ("bug-find-empty-never-none.c", "on a full board"),
    (
        "bug-find-empty-order.c",
        "first empty cell in reading order",
    ),
    ("bug-legal-no-box.c", "box"),
    ("bug-legal-no-column.c", "column"),
    ("bug-no-clear.c", "on a dead branch"),
    ("bug-out-of-range.c", "outside 1..="),
    ("bug-overwrites-givens.c", "given"),
    ("bug-partial-clear.c", "on a dead branch"),
    ("bug-recurse-without-write.c", "stack overflow"),
    ("bug-solve-always-true.c", "returned true after step"),
    ("bug-solves-copy.c", "solved a copy"),
    (
        "bug-base-case-inverted.c",
        "its base case returns true while a cell is empty",
    ),
    ("bug-clear-after-success.c", "but solve then cleared"),
    ("bug-swapped-coordinates.c", "row and column swapped"),
    ("bug-index-with-n.c", "the write lands on another cell"),
    ("bug-legal-board-as-rows.c", "in your function `legal`"),
];

/// Every hint `grader check` can give, by a phrase only that hint says.
const HINTS: &[(&str, &str)] = &[
    // Blame across functions without evidence: never, anywhere.
    ("caused-by", "caused by"),
    ("size", "your code assumes a"),
    ("find-empty-false", "returned `False` on a full board"),
    (
        "at-once",
        "without writing a digit and without calling itself",
    ),
    ("leftover", "fake given"),
    ("bound-first", "most likely your digit loop stops before"),
    (
        "early-first",
        "most likely solve returns false (or breaks out of the digit loop)",
    ),
    ("one-cell", "with a single empty cell"),
    ("no-cell", "with no empty cell left"),
    ("copy-first", "most likely it solved a copy"),
    ("copy-or-base", "either it solved a copy"),
    ("cleared-after-success", "return true at once"),
    (
        "base-case-false",
        "the call on the complete board returned false",
    ),
    (
        "illegal-write",
        "every placement must be legal when it is written",
    ),
    (
        "rule-forbids",
        "a digit was placed where the rule forbids it",
    ),
    ("no-box", "your legal never checks the box"),
    ("no-column", "your legal never checks the column"),
    ("no-row", "your legal never checks the row"),
    ("wrong-box", "your legal checks the wrong box"),
    ("given", "over the given"),
    ("given-changed", "changed from"),
    ("range", "outside 0..="),
    ("stack", "crashed with a stack overflow"),
    ("true-empty", "returned true after step"),
    ("untraced", "could not see"),
    ("in-place", "the board is exactly as it was passed in"),
    ("find-empty-full", "on a full board"),
    ("reading-order", "first empty cell in reading order"),
    ("gave-up", "this puzzle has a solution"),
    ("no-solution", "this puzzle has no solution"),
    ("rust-runtime", "<unknown>"),
    (
        "unwritten",
        "without writing a digit, though every empty cell",
    ),
    ("swapped", "the cell written with row and column swapped"),
    ("too-deep", "and the grader stopped it there"),
    (
        "crash-site",
        "crashed with SIGSEGV in your function `legal`",
    ),
    ("misplaced-write", "the write lands on another cell"),
    ("no-change", "no cell of the board changed"),
    ("n-index", "uses n where N belongs"),
    ("recursive-args", "passes other arguments than solve got"),
    ("base-case-proved", "which a search on a copy would not do"),
    ("copy-proved", "rightly returned"),
    ("module", "cannot work in the grader"),
    ("macro-clash", "that macro defines legal"),
    ("helpers-first", "make those pass first"),
    (
        "find-empty-misses",
        "your find_empty reports no empty cell on a board that has one",
    ),
    (
        "write-first",
        "before asking legal about it (write-then-check)",
    ),
    // Words of one language only: C's false never told to Python.
    ("other-language", "false in C"),
    ("full-board-false", "on a board with no empty cell"),
    // Blame across functions on evidence: a run of the student's solve
    // with the grader's own legal passed (legal named, unless the test's
    // own trace shows a step of solve's own), or still failed.
    (
        "legal-swap-passes",
        "this solve passed this test (its calls of legal went to the grader's): your legal",
    ),
    ("legal-swap-fails", "this solve still failed this test"),
    ("legal-swap-own-step", "a step no wrong legal makes"),
];

/// The hint table: for each fixture, the hints of [`HINTS`] that must
/// fire in its `grader check` output; every other hint must not (a third
/// list, "may", holds hints left to undefined behaviour, said why). The C
/// and Rust rows and the Python bug rows are graded on the campus cases
/// ([`snapshot_cases`]), the fixed-size rows on the public cases (a size
/// is told only with several sizes to compare).
const HINT_TABLE: &[(&str, &[&str], &[&str])] = &[
    ("c-listing.c", &[], &[]),
    (
        "bug-box-origin.c",
        &["wrong-box", "gave-up", "legal-swap-passes"],
        &[],
    ),
    (
        "bug-digit-loop-short.c",
        &["bound-first", "unwritten", "gave-up"],
        &[],
    ),
    (
        "bug-find-empty-never-none.c",
        &["no-cell", "find-empty-full", "gave-up", "base-case-false"],
        &[],
    ),
    ("bug-find-empty-order.c", &["reading-order"], &[]),
    ("bug-legal-no-box.c", &["no-box"], &[]),
    (
        "bug-legal-no-column.c",
        &[
            "illegal-write",
            "no-column",
            "no-solution",
            "legal-swap-passes",
        ],
        &[],
    ),
    (
        "bug-legal-no-column-no-clear.c",
        &["leftover", "no-column", "no-solution", "legal-swap-fails"],
        &[],
    ),
    ("bug-no-clear.c", &["leftover"], &[]),
    ("bug-out-of-range.c", &["range"], &[]),
    ("bug-overwrites-givens.c", &["given", "given-changed"], &[]),
    ("bug-partial-clear.c", &["leftover"], &[]),
    (
        "bug-recurse-without-write.c",
        &["stack", "too-deep", "no-change"],
        &[],
    ),
    (
        "bug-solve-always-true.c",
        &["in-place", "no-solution", "true-empty"],
        &[],
    ),
    (
        "bug-solves-copy.c",
        &["copy-first", "copy-proved", "in-place"],
        &[],
    ),
    ("py-listing.py", &[], &[]),
    ("py-no-clear.py", &["leftover"], &[]),
    ("py-solves-copy.py", &["copy-first", "copy-proved"], &[]),
    (
        "py-legal-no-column.py",
        &["no-column", "illegal-write", "legal-swap-passes"],
        &[],
    ),
    (
        "py-solve-inline-rules.py",
        &["illegal-write", "no-box"],
        &[],
    ),
    (
        "py-digits-from-zero.py",
        &["one-cell", "bound-first", "gave-up"],
        &["at-once"],
    ),
    ("py-fixed-9x9.py", &["size"], &[]),
    ("bug-fixed-9x9.c", &["size", "range", "gave-up"], &[]),
    ("rust-fixed-9x9", &["size", "gave-up"], &[]),
    ("rust-trait", &[], &[]),
    ("rust-no-clear", &["leftover"], &[]),
    // Issue 18's bugs that once shared a message, on the campus cases.
    (
        "bug-base-case-inverted.c",
        &["base-case-proved", "in-place", "no-solution"],
        &[],
    ),
    (
        "bug-clear-after-success.c",
        &["cleared-after-success", "in-place"],
        &[],
    ),
    ("py-clear-after-success.py", &["cleared-after-success"], &[]),
    (
        "py-swapped-coordinates.py",
        &["swapped", "illegal-write"],
        &[],
    ),
    (
        "py-recurse-before-write.py",
        &["too-deep", "no-change"],
        &[],
    ),
    // Issue 27's misleading messages, each on a bug of our own.
    (
        "py-find-empty-zero-char.py",
        &["find-empty-misses", "in-place", "no-solution"],
        &[],
    ),
    (
        "py-find-empty-false.py",
        &["find-empty-false", "find-empty-full"],
        &[],
    ),
    (
        "py-write-then-check.py",
        &["illegal-write", "write-first"],
        &[],
    ),
    (
        "py-legal-args-swapped.py",
        &["illegal-write", "write-first", "at-once"],
        &["gave-up"],
    ),
    (
        "bug-swapped-coordinates.c",
        &["swapped", "illegal-write", "gave-up", "stack"],
        &[],
    ),
    (
        "bug-index-with-n.c",
        &["stack", "too-deep", "misplaced-write"],
        &[],
    ),
    (
        "bug-legal-board-as-rows.c",
        &["crash-site", "legal-swap-passes"],
        &[],
    ),
    // On the public cases: these pass every campus board.
    ("bug-early-return-false.c", &["early-first", "gave-up"], &[]),
    ("py-early-return-false.py", &["early-first"], &[]),
    (
        "py-recurse-drops-n.py",
        &["recursive-args", "illegal-write", "gave-up"],
        &[],
    ),
    // the_hint_table_holds_on_the_public_cases: size first, then its
    // crashes and wrong answers; its illegal writes quote legal's rule.
    (
        "py-fixed-4x4.py",
        &["size", "illegal-write", "legal-swap-fails"],
        &["rule-forbids", "gave-up", "no-solution"],
    ),
    // No test runs: the build or load error and its hint.
    ("py-imports-numpy.py", &["module"], &[]),
    ("rust-name-clash", &["macro-clash"], &[]),
    // `grader init`'s untouched stubs (the_untouched_stubs_are_told_only_what_is_true).
    (
        "stub-c",
        &["helpers-first", "no-cell"],
        &["at-once", "gave-up"],
    ),
    (
        "stub-rust",
        &["helpers-first", "no-cell"],
        &["at-once", "gave-up"],
    ),
    (
        "stub-python",
        &["helpers-first", "no-cell", "at-once"],
        &["gave-up"],
    ),
];

/// Checks `shown`, the `grader check` output of fixture `name`, against
/// its row of [`HINT_TABLE`].
fn assert_hints(name: &str, shown: &str) {
    let &(_, must, may) = HINT_TABLE
        .iter()
        .find(|(fixture, _, _)| *fixture == name)
        .unwrap_or_else(|| panic!("{name} has no row in HINT_TABLE"));
    let lower = shown.to_lowercase();
    for &(hint, phrase) in HINTS {
        let fired = lower.contains(&phrase.to_lowercase());
        if must.contains(&hint) {
            assert!(
                fired,
                "{name}: hint {hint} ({phrase:?}) must fire:\n{shown}"
            );
        } else if !may.contains(&hint) {
            assert!(
                !fired,
                "{name}: hint {hint} ({phrase:?}) must not fire:\n{shown}"
            );
        }
    }
    for hint in must.iter().chain(may) {
        assert!(
            HINTS.iter().any(|(h, _)| h == hint),
            "{name}: unknown hint {hint}"
        );
    }
}

/// The C bug fixtures whose failing `solve` breaks a rule the write watch
/// can see on the campus cases (an endless recursion included: the watch
/// stops it before the stack overflows), and what the first rule-breaking
/// step must say. The others fail by their end state only (a `legal`
/// without the box check passes `solve` on the campus boards) or do not
/// fail `solve`.
const FIRST_STEPS: &[(&str, &str)] = &[
    (
        "bug-find-empty-never-none.c",
        "the call on the complete board returned false",
    ),
    ("bug-digit-loop-short.c", "without writing a digit"),
    ("bug-legal-no-column.c", "but column"),
    ("bug-no-clear.c", "on a dead branch"),
    ("bug-partial-clear.c", "on a dead branch"),
    ("bug-out-of-range.c", "outside 1..="),
    ("bug-overwrites-givens.c", "over the given"),
    ("bug-solves-copy.c", "it solved a copy"),
    ("bug-solve-always-true.c", "returned true after step"),
    ("bug-base-case-inverted.c", "its base case returns true"),
    ("bug-clear-after-success.c", "but solve then cleared"),
    ("bug-swapped-coordinates.c", "row and column swapped"),
    ("bug-index-with-n.c", "the write lands on another cell"),
    (
        "bug-recurse-without-write.c",
        "no cell of the board changed",
    ),
];

/// The line after the "first step" heading of `grader check`'s output.
fn first_step(shown: &str) -> Option<&str> {
    let mut lines = shown.lines();
    lines.find(|l| {
        l.contains("the first step that breaks the lab's rules")
            || l.contains("what the search did (")
    })?;
    lines.next()
}

/// The campus cases under the listing's `find_empty` policy: small,
/// quick, and the same on every machine (no 9x9 search that a broken
/// `legal` could stretch to the time limit).
fn snapshot_cases(kit: &Kit) -> PathBuf {
    let dir = kit.path("cases");
    fs::create_dir_all(&dir).unwrap();
    fs::copy(root().join("cases/campus.toml"), dir.join("campus.toml")).unwrap();
    fs::write(dir.join("grader.toml"), "find_empty_policy = \"first\"\n").unwrap();
    dir
}

/// `grader check` output with the times and the fixture's folder redacted.
fn redacted(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut line = line.replace(root().to_str().unwrap(), "[repo]");
        for (open, close) in [(" (", " ms)"), (", ", " ms")] {
            while let Some(start) = line.find(open) {
                let Some(len) = line[start..].find(close) else {
                    break;
                };
                let number = &line[start + open.len()..start + len];
                if number.is_empty() || !number.chars().all(|ch| ch.is_ascii_digit() || ch == '.') {
                    break;
                }
                line.replace_range(start + open.len()..start + len, "[ms]");
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn check_fixture(kit: &Kit, cases: &Path, name: &str) -> (i32, String) {
    // A bug whose search runs to the time limit on the big boards is kept
    // out of the bundled run: its fixture is a test's own.
    let own = root().join("tests/fixtures/messages").join(name);
    let path = if own.exists() { own } else { fixture(name) };
    let out = kit.grader(
        ".",
        &[
            "check",
            "--cases",
            cases.to_str().unwrap(),
            path.to_str().unwrap(),
        ],
    );
    (code(&out), redacted(&String::from_utf8_lossy(&out.stdout)))
}

/// The first line of the first failure's message: after the `✗ function`
/// line, its `function on case: verdict` header and the case's description.
fn first_diagnosis(shown: &str) -> &str {
    shown
        .lines()
        .skip_while(|l| !l.starts_with('✗'))
        .skip(2)
        .find(|l| {
            let l = l.trim_start();
            !l.starts_with("the case:")
                && !l.starts_with("the first step that breaks the lab's rules (")
                && !l.starts_with("what the search did (")
        })
        .unwrap_or("")
}

#[test]
#[ignore = "slow: a whole class: grader check of every bug fixture"]
fn snapshots_of_check_and_the_first_line_names_the_bug() {
    let kit = Kit::new();
    let cases = snapshot_cases(&kit);
    let (status, shown) = check_fixture(&kit, &cases, "c-listing.c");
    assert_eq!(status, 0, "{shown}");
    assert_hints("c-listing.c", &shown);
    insta::assert_snapshot!("check-c-listing", shown);
    for &(name, class) in BUG_CLASSES {
        let (status, shown) = check_fixture(&kit, &cases, name);
        assert_eq!(status, 1, "{name}: {shown}");
        let first = first_diagnosis(&shown);
        assert!(
            first.contains(class),
            "{name}: the first diagnosis line does not name {class:?}: {first:?}\n{shown}"
        );
        let step = FIRST_STEPS.iter().find(|(fixture, _)| *fixture == name);
        match (step, first_step(&shown)) {
            (Some((_, says)), Some(line)) => {
                assert!(
                    line.contains(says),
                    "{name}: {line:?} does not say {says:?}"
                )
            }
            (Some(_), None) => panic!("{name}: no first rule-breaking step:\n{shown}"),
            (None, Some(line)) => panic!("{name}: an unexpected first step {line:?}"),
            (None, None) => {}
        }
        assert_hints(name, &shown);
        insta::assert_snapshot!(format!("check-{}", name.trim_end_matches(".c")), shown);
    }
}

/// The hint table's Python rows: traced on every test, so the trace's
/// findings (a leftover at its return, a copy, an illegal write) word the
/// failures themselves.
#[test]
#[ignore = "slow: a whole class: grader check of every Python bug fixture"]
fn the_hint_table_holds_for_python() {
    let kit = Kit::new();
    let cases = snapshot_cases(&kit);
    for name in [
        "py-listing.py",
        "py-no-clear.py",
        "py-solves-copy.py",
        "py-legal-no-column.py",
        "py-digits-from-zero.py",
        "py-clear-after-success.py",
        "py-swapped-coordinates.py",
        "py-recurse-before-write.py",
        "py-find-empty-zero-char.py",
        "py-find-empty-false.py",
        "py-write-then-check.py",
        "py-legal-args-swapped.py",
    ] {
        let (status, shown) = check_fixture(&kit, &cases, name);
        assert_eq!(
            status,
            i32::from(name != "py-listing.py"),
            "{name}: {shown}"
        );
        assert_hints(name, &shown);
        if name != "py-listing.py" {
            insta::assert_snapshot!(
                format!("check-{}-first-15-lines", name.trim_end_matches(".py")),
                first_lines(&shown)
            );
        }
    }
}

/// The first 15 lines of `grader check`'s output: what a reader sees
/// before scrolling, which must name the bug.
fn first_lines(shown: &str) -> String {
    shown.lines().take(15).collect::<Vec<_>>().join("\n") + "\n"
}

/// The hint table's rows for the bugs that pass every campus board (a
/// search that gives up after the first digit, a recursive call that
/// loses `n`, the campus board's sizes written in) and for submissions
/// that never run a test: `grader check` on the public cases, each
/// fixture's first 15 lines kept as a snapshot, its diagnosis in them.
#[test]
#[ignore = "slow: a whole class: grader check of bug fixtures on the public cases"]
fn the_hint_table_holds_on_the_public_cases() {
    let kit = Kit::new();
    for (name, status, names) in [
        (
            "bug-early-return-false.c",
            1,
            "most likely solve returns false",
        ),
        (
            "py-early-return-false.py",
            1,
            "most likely solve returns false",
        ),
        (
            "py-recurse-drops-n.py",
            1,
            "passes other arguments than solve got",
        ),
        (
            "py-fixed-4x4.py",
            1,
            "your code assumes a 4x4 board (n = 2)",
        ),
        (
            "py-imports-numpy.py",
            3,
            "`import numpy` cannot work in the grader",
        ),
        ("rust-name-clash", 3, "that macro defines legal"),
    ] {
        let path = fixture(name);
        let out = kit.grader(".", &["check", path.to_str().unwrap()]);
        let shown = redacted(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(code(&out), status, "{name}: {shown}");
        assert_hints(name, &shown);
        let head = first_lines(&shown);
        assert!(
            head.contains(names),
            "{name}: the first 15 lines do not say {names:?}:\n{head}"
        );
        let stem = name.trim_end_matches(".c").trim_end_matches(".py");
        insta::assert_snapshot!(format!("check-{stem}-first-15-lines"), head);
    }
}

/// `grader check` on `grader init`'s untouched stubs says only what its
/// tests proved: each function's own failure, `solve`'s end state without
/// the advice that assumes working helpers, and what the full small board
/// proves of the base case; no cause across functions, no digit loop.
#[test]
#[ignore = "slow: cargo in a box: grader init and check in C, Rust and Python"]
fn the_untouched_stubs_are_told_only_what_is_true() {
    let kit = Kit::new();
    for lang in ["c", "rust", "python"] {
        let dir = format!("stub-{lang}");
        let init = kit.grader(".", &["init", "--lang", lang, &dir]);
        assert_eq!(code(&init), 0, "{}", printed(&init));
        let out = kit.grader(&dir, &["check"]);
        let shown = redacted(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(code(&out), 1, "{lang}: {shown}");
        assert_hints(&dir, &shown);
        for function in ["legal", "find_empty", "solve"] {
            assert!(
                shown.contains(&format!("✗ {function:<10} 7 of 7 cases fail"))
                    || shown.contains(&format!("✗ {function:<10} 5 of 7 cases fail")),
                "{lang}: {function} is not failing:\n{shown}"
            );
        }
    }
}

/// A Rust trait submission's `solve` is traced through the lab crate's
/// recording board: `grader check` quotes the write that left the dead
/// branch's digit, on the shrunk board, in place of the end state.
#[test]
#[ignore = "slow: cargo in a box: a Rust crate checked, shrunk and traced"]
fn a_rust_trait_solve_is_traced_through_its_board() {
    let kit = Kit::new();
    let cases = snapshot_cases(&kit);
    let (status, shown) = check_fixture(&kit, &cases, "rust-no-clear");
    assert_eq!(status, 1, "{shown}");
    assert_hints("rust-no-clear", &shown);
    let block = shown
        .split_once("the first step that breaks the lab's rules (the grader recorded every board.set on the smallest failing board, below):\n")
        .unwrap_or_else(|| panic!("no first step in:\n{shown}"))
        .1;
    assert!(
        block.trim_start().starts_with(
            "solve returned false after step 1, but the write at step 1 left 2 at (row 2, col 2)"
        ),
        "{shown}"
    );
    // The correct trait submission passes, traced or not.
    let (status, shown) = check_fixture(&kit, &cases, "rust-trait");
    assert_eq!(status, 0, "{shown}");
    assert_hints("rust-trait", &shown);
}

/// A solver with 9 and 3 written into it passes every 9x9 and fails the
/// 4x4s and the 16x16 (IndexError in Python, a panic in Rust, a digit
/// past N in C):
/// `grader check` names the size before any failure, in the language's
/// spelling.
#[test]
#[ignore = "slow: cargo in a box: a fixed-size solver checked in C, Rust and Python"]
fn a_board_size_written_into_the_code_is_named() {
    let kit = Kit::new();
    for (name, spelled) in [
        ("py-fixed-9x9.py", "range(N)"),
        ("bug-fixed-9x9.c", "i < N"),
        ("rust-fixed-9x9", "0..board.side()"),
    ] {
        let path = fixture(name);
        let out = kit.grader(".", &["check", "--no-shrink", path.to_str().unwrap()]);
        let shown = printed(&out);
        assert_eq!(code(&out), 1, "{shown}");
        let first = shown.lines().next().unwrap_or("");
        assert!(
            first.starts_with("! your code assumes a 9x9 board (n = 3): every 9x9 test passes"),
            "{name}: {shown}"
        );
        assert!(first.contains(spelled), "{name}: {first}");
        assert_hints(name, &shown);
        // A Rust panic off the board names the student's file and line
        // (Board::get tracks its caller), without the runtime's report.
        if name.starts_with("rust") {
            assert!(shown.contains("is off a board of side 4"), "{shown}");
            assert!(shown.contains("(at src/lib.rs:17:"), "{shown}");
            assert!(!shown.contains("<unknown>"), "{shown}");
        }
    }
}

// ---------------------------------------------------------------- shrinking

fn plan_for(cases: CaseSet) -> GradePlan {
    let fixtures = root().join("submissions");
    let mut plan = GradePlan::prepare(cases, Some(1), &fixtures, false).expect("plan");
    plan.sandbox = SandboxEnv::detect().with_worker(env!("CARGO_BIN_EXE_grader-worker"));
    plan
}

/// The fixture `submission` built in a box of its own (one session); its
/// tests run in that box.
fn built<'p>(submission: &'p Submission, plan: &'p GradePlan) -> Session<'p> {
    Session::open(submission, plan)
        .unwrap_or_else(|report| panic!("the fixture builds: {}", report.message))
}

fn campus_case(name: &str) -> Case {
    case::builtin()
        .cases
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("the bundled case {name}"))
}

#[test]
fn the_shrunk_board_is_minimal() {
    let plan = plan_for(case::builtin());
    for (name, case_name) in [
        ("bug-no-clear.c", "campus-dead-end"),
        ("bug-digit-loop-short.c", "campus-4x4"),
        ("bug-solves-copy.c", "campus-4x4"),
        ("bug-solve-always-true.c", "campus-clash"),
        ("bug-out-of-range.c", "campus-dead-end"),
    ] {
        let submission = classify(&fixture(name));
        let mut session = built(&submission, &plan);
        let case = campus_case(case_name);
        let first = session.test(&case, Function::Solve, false);
        assert_ne!(first.report.verdict, Verdict::Pass, "{name} on {case_name}");
        let class = FailureClass::of(first.report.verdict, first.failure.as_ref());
        let small = shrink_solve(&mut session, &case, &class, ShrinkBudget::default())
            .unwrap_or_else(|| panic!("{name} on {case_name}: nothing to shrink"));
        assert!(!small.stopped_early, "{name}: the budget ran out");
        assert!(small.empty < small.original_empty, "{name}: {small:?}");
        // Still failing the same way on the small board...
        let again = session.test(&smaller_case(&case, &small.puzzle), Function::Solve, false);
        assert_eq!(
            FailureClass::of(again.report.verdict, again.failure.as_ref()),
            class,
            "{name}"
        );
        // ...and filling any one more cell makes that failure go away.
        for cell in small.puzzle.empty_cells().collect::<Vec<_>>() {
            let Some(bigger) = fill(&case, &small.puzzle, &[cell]) else {
                continue;
            };
            let run = session.test(&smaller_case(&case, &bigger), Function::Solve, false);
            assert_ne!(
                FailureClass::of(run.report.verdict, run.failure.as_ref()),
                class,
                "{name}: filling {cell:?} still fails the same way: not minimal"
            );
        }
    }
}

#[test]
fn watch_reruns_when_a_source_changes() {
    use std::io::{BufRead, BufReader};
    use std::sync::mpsc;
    use std::time::Duration;

    let kit = Kit::new();
    let init = kit.grader(".", &["init", "proj"]);
    assert_eq!(code(&init), 0, "{}", printed(&init));
    let mut child = Command::new(kit.path("bin/grader"))
        .args(["check", "--watch", "--no-shrink", "proj"])
        .current_dir(kit.path("."))
        .env_remove("GRADER_LAB_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // Lines up to the end of one run (the watcher's own line).
    let one_run = || -> Vec<String> {
        let mut lines = Vec::new();
        while let Ok(line) = rx.recv_timeout(Duration::from_secs(60)) {
            let done = line.starts_with("[watching");
            lines.push(line);
            if done {
                break;
            }
        }
        lines
    };
    let first = one_run();
    let stubs = first.join("\n");
    assert!(stubs.contains("exit code would be 1"), "{stubs}");
    fs::copy(fixture("c-listing.c"), kit.path("proj/sudoku.c")).unwrap();
    let second = one_run();
    child.kill().unwrap();
    child.wait().unwrap();
    let fixed = second.join("\n");
    assert!(fixed.contains("public tests passed"), "{fixed}");
    assert!(fixed.contains("exit code would be 0"), "{fixed}");
}

/// Colour follows `--color` and the terminal world's conventions: never on
/// a pipe, forced by `FORCE_COLOR` or `CLICOLOR_FORCE`, refused by
/// `NO_COLOR`, whatever `TERM` says when forced by the flag.
#[test]
fn colour_follows_the_flag_and_the_environment() {
    let fixture = fixture("bug-no-clear.c");
    let painted = |args: &[&str], env: &[(&str, &str)]| -> bool {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_grader"));
        cmd.arg("check")
            .arg(&fixture)
            .args(["--case", "campus-dead-end"]);
        cmd.args(args);
        for var in [
            "NO_COLOR",
            "FORCE_COLOR",
            "CLICOLOR",
            "CLICOLOR_FORCE",
            "TERM",
        ] {
            cmd.env_remove(var);
        }
        cmd.envs(env.iter().copied());
        let out = cmd.output().expect("grader check runs");
        assert_eq!(code(&out), 1, "{}", printed(&out));
        out.stdout.contains(&0x1b)
    };
    assert!(!painted(&[], &[]), "a pipe gets no colour");
    assert!(painted(&[], &[("FORCE_COLOR", "1")]), "FORCE_COLOR");
    assert!(painted(&[], &[("CLICOLOR_FORCE", "1")]), "CLICOLOR_FORCE");
    assert!(
        !painted(&[], &[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]),
        "NO_COLOR wins"
    );
    assert!(!painted(&[], &[("FORCE_COLOR", "0")]), "FORCE_COLOR=0");
    assert!(
        painted(
            &["--color", "always"],
            &[("TERM", "dumb"), ("NO_COLOR", "1")]
        ),
        "--color always"
    );
    assert!(
        !painted(&["--color", "never"], &[("FORCE_COLOR", "1")]),
        "--color never"
    );
    // On a real terminal (util-linux `script` makes one): colour, but not
    // for TERM=dumb, even on a CI runner.
    let on_a_terminal = |term: &str| -> Option<bool> {
        let line = format!(
            "{} check {} --case campus-dead-end",
            env!("CARGO_BIN_EXE_grader"),
            fixture.display()
        );
        let out = Command::new("script")
            .args(["-q", "-c", &line, "/dev/null"])
            .env("TERM", term)
            .env("CI", "true")
            .env_remove("NO_COLOR")
            .env_remove("FORCE_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .stdin(Stdio::null())
            .output()
            .ok()?;
        Some(out.stdout.contains(&0x1b))
    };
    match (on_a_terminal("xterm"), on_a_terminal("dumb")) {
        (Some(xterm), Some(dumb)) => {
            assert!(xterm, "a terminal gets colour");
            assert!(!dumb, "TERM=dumb gets none");
        }
        _ => panic!("`script` (util-linux; Debian: bsdutils) is needed to make a terminal"),
    }
}

#[test]
fn a_student_checking_a_notebook_is_told_which_cells_were_taken() {
    let kit = Kit::new();
    fs::create_dir(kit.path("proj")).unwrap();
    fs::copy(
        fixture("py-notebook-magics.ipynb"),
        kit.path("proj/sudoku.ipynb"),
    )
    .unwrap();
    fs::write(kit.path("proj/test_sudoku.py"), "import sudoku\n").unwrap();
    let out = kit.grader("proj", &["check", "--no-shrink"]);
    let shown = printed(&out);
    assert_eq!(code(&out), 0, "{shown}");
    assert!(
        shown.contains("note: ignored, not part of the submission: test_sudoku.py"),
        "{shown}"
    );
    assert!(
        shown
            .contains("note: took code cells 1, 3, 4, 5, 7 of sudoku.ipynb as your Python program"),
        "{shown}"
    );
    assert!(
        shown.contains("left out code cell 2 (In [2]): shell escape"),
        "{shown}"
    );
    // A folder with no solution: what is there, and what to put there.
    fs::remove_file(kit.path("proj/sudoku.ipynb")).unwrap();
    fs::remove_file(kit.path("proj/test_sudoku.py")).unwrap();
    fs::write(kit.path("proj/sudoku.rs"), "fn main() {}\n").unwrap();
    fs::write(kit.path("proj/notes.txt"), "todo\n").unwrap();
    let out = kit.grader("proj", &["check"]);
    let shown = printed(&out);
    assert_eq!(code(&out), 2, "{shown}");
    assert!(
        shown.contains("holds no submission: it holds notes.txt, sudoku.rs (a .rs file alone is not a crate: upload Cargo.toml with src/); put one .c, .py, .ipynb or .so file in it, or make it a crate with Cargo.toml"),
        "{shown}"
    );
}

/// A demo cell that runs at import and crashes is named, as Jupyter shows
/// it, with the fix; guarded as the hint says, the same notebook loads and
/// its real bug (`find_empty` answers `False` on a full board) is tested.
#[test]
fn a_notebook_demo_cell_that_crashes_at_import_is_named_with_the_fix() {
    let kit = Kit::new();
    fs::create_dir(kit.path("proj")).unwrap();
    let notebook = fs::read_to_string(fixture("py-notebook-demo-crash.ipynb")).unwrap();
    fs::write(kit.path("proj/sudoku.ipynb"), &notebook).unwrap();
    let out = kit.grader("proj", &["check", "--no-shrink"]);
    let shown = printed(&out);
    assert_eq!(code(&out), 3, "{shown}");
    assert!(
        shown.contains("cannot unpack non-iterable bool object"),
        "{shown}"
    );
    assert!(
        shown.contains("code cell 4 (In [6]) runs `print(solve(campus))` (line 38) when the grader imports your notebook"),
        "{shown}"
    );
    assert!(shown.contains("`if __name__ == \"__main__\":`"), "{shown}");
    // The fix the hint gives: the demo under the guard.
    let mut json: serde_json::Value = serde_json::from_str(&notebook).unwrap();
    let demo = &mut json["cells"][5]["source"];
    let lines: Vec<String> = demo
        .as_array()
        .unwrap()
        .iter()
        .map(|l| format!("    {}", l.as_str().unwrap()))
        .collect();
    let mut guarded = vec!["if __name__ == \"__main__\":\n".to_string()];
    guarded.extend(lines);
    *demo = serde_json::json!(guarded);
    fs::write(kit.path("proj/sudoku.ipynb"), json.to_string()).unwrap();
    let out = kit.grader("proj", &["check", "--no-shrink"]);
    let shown = printed(&out);
    assert_eq!(code(&out), 1, "{shown}");
    assert!(!shown.contains("when the grader imports"), "{shown}");
    assert!(shown.contains("find_empty"), "{shown}");
}

/// Blame crosses from `solve` to `legal` only on evidence: `grader check`
/// runs the failing `solve` once more with the grader's own `legal` in
/// place of the student's. A `legal` without the column check under a
/// right `solve` (C, Python) is named the likely cause; a `solve` that checks
/// the rules itself never calls the grader's `legal`, and nothing is said;
/// a wrong `legal` beside a `solve` that never clears still fails with the
/// grader's `legal`, and `legal` is not blamed. The runs themselves, in a
/// child of the test zygote and in a child of init: the stand-in is called
/// where `solve` calls `legal`, never where it does not.
#[test]
fn blame_crosses_to_legal_only_when_a_run_with_the_graders_legal_shows_it() {
    use grader::runner::test_run::Asks;

    let kit = Kit::new();
    let cases = snapshot_cases(&kit);
    for name in [
        "bug-legal-no-column.c",
        "py-legal-no-column.py",
        "py-solve-inline-rules.py",
        "bug-legal-no-column-no-clear.c",
    ] {
        let (status, shown) = check_fixture(&kit, &cases, name);
        assert_eq!(status, 1, "{name}: {shown}");
        assert_hints(name, &shown);
    }
    // For editors, in the JSON: what was proven, and of which case.
    let path = fixture("bug-legal-no-column.c");
    let out = kit.grader(
        ".",
        &[
            "check",
            "--json",
            "--cases",
            cases.to_str().unwrap(),
            path.to_str().unwrap(),
        ],
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["legal_swap"]["observed"], "passed", "{doc}");
    assert_eq!(
        doc["legal_swap"]["contradicted_by"],
        serde_json::Value::Null,
        "{doc}"
    );
    assert_eq!(doc["legal_swap"]["case"], "campus-clash", "{doc}");

    let asks = Asks {
        reference_legal: true,
        ..Asks::default()
    };
    // A library test runs in a child of the test zygote, or, without one,
    // in a child of init that confines itself: the stand-in works in both.
    for zygote in [true, false] {
        let mut plan = plan_for(case::builtin());
        plan.sandbox.test_zygote = zygote;
        for (name, kind, case_name, calls_legal, passes) in [
            (
                "bug-legal-no-column.c",
                SubmissionKind::C,
                "campus-clash",
                true,
                true,
            ),
            (
                "py-legal-no-column.py",
                SubmissionKind::Python,
                "campus-clash",
                true,
                true,
            ),
            (
                "py-solve-inline-rules.py",
                SubmissionKind::Python,
                "campus-clash",
                false,
                false,
            ),
            (
                "bug-legal-no-column-no-clear.c",
                SubmissionKind::C,
                "campus-dead-end",
                true,
                false,
            ),
        ] {
            let submission = classify(&fixture(name));
            let mut session = built(&submission, &plan);
            assert_eq!(session.kind(), kind, "{name}");
            let case = campus_case(case_name);
            let real = session.test(&case, Function::Solve, false);
            assert_eq!(real.report.verdict, Verdict::Wrong, "{name} on {case_name}");
            assert_eq!(real.legal_swap, None, "{name}: a test never swaps legal");
            let swapped = session.test_asking(&case, Function::Solve, asks);
            let said = swapped
                .legal_swap
                .as_ref()
                .unwrap_or_else(|| panic!("{name} (zygote {zygote}): no word of the experiment"));
            assert_eq!(said.not_possible, None, "{name} (zygote {zygote})");
            assert_eq!(
                said.calls > 0,
                calls_legal,
                "{name} (zygote {zygote}): {said:?}"
            );
            assert_eq!(said.strange, 0, "{name} (zygote {zygote}): {said:?}");
            let verdict = if passes {
                Verdict::Pass
            } else {
                Verdict::Wrong
            };
            assert_eq!(
                swapped.report.verdict, verdict,
                "{name} (zygote {zygote}): {}",
                swapped.report.message
            );
        }
    }
}

/// `grader check` in a folder that is no project (the class folder, one
/// level too high) is a usage error, exit 2, that names the projects it
/// holds; no build is tried.
#[test]
fn check_outside_a_project_is_a_usage_error_that_names_the_project() {
    let kit = Kit::new();
    fs::create_dir_all(kit.path("lab3/s-c")).unwrap();
    fs::copy(fixture("c-listing.c"), kit.path("lab3/s-c/sudoku.c")).unwrap();
    fs::write(kit.path("lab3/notes.txt"), "my notes").unwrap();
    let wrong = kit.grader("lab3", &["check"]);
    let shown = printed(&wrong);
    assert_eq!(code(&wrong), 2, "{shown}");
    assert!(
        shown.contains("holds no submission: it holds notes.txt, s-c/"),
        "{shown}"
    );
    assert!(
        shown.contains("; did you mean `grader check s-c`?"),
        "{shown}"
    );
    assert!(!shown.contains("did not build"), "{shown}");
    let right = kit.grader("lab3", &["check", "s-c"]);
    assert_eq!(code(&right), 0, "{}", printed(&right));
}

/// A student (no root) asking `grader check -v` is told only what changes
/// a verdict they see: no sandbox notice meant for an instructor, no
/// guide they do not have.
#[test]
fn verbose_check_as_a_student_says_only_what_a_student_can_use() {
    let able = is_root() && Command::new("setpriv").arg("--version").output().is_ok();
    if !needs("root (to become nobody) and setpriv(1)", able) {
        return;
    }
    let kit = Kit::new();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(kit.path(""), fs::Permissions::from_mode(0o777)).unwrap();
    fs::copy(fixture("c-listing.c"), kit.path("sudoku.c")).unwrap();
    fs::set_permissions(kit.path("sudoku.c"), fs::Permissions::from_mode(0o644)).unwrap();
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(kit.path("bin/grader"))
        .args(["check", "-v", "sudoku.c"])
        .current_dir(kit.path(""))
        .env("HOME", kit.path(""))
        .env("NO_COLOR", "1")
        .output()
        .expect("setpriv runs");
    let shown = printed(&out);
    assert_eq!(code(&out), 0, "{shown}");
    assert!(!shown.contains("sandbox:"), "{shown}");
    assert!(!shown.contains("design.md"), "{shown}");
    assert!(
        shown.contains("note: this check has no memory cgroup"),
        "{shown}"
    );
}

/// The compiler's warnings about the student's own file are shown beside
/// the failure of the function they are in, short and without the
/// grader's paths: `cc -Wall`'s "unused variable 'bc'" names the bug of a
/// box loop whose columns start at the row's origin.
#[test]
fn a_c_warning_that_names_the_bug_is_shown_beside_its_failure() {
    let kit = Kit::new();
    fs::copy(fixture("bug-box-column-from-row.c"), kit.path("sudoku.c")).unwrap();
    let out = kit.grader(".", &["check", "--no-shrink", "sudoku.c"]);
    let shown = printed(&out);
    assert_eq!(code(&out), 1, "{shown}");
    let block = shown
        .split("the compiler warned in your legal (one may name the bug):\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no warning block:\n{shown}"));
    let first = block.lines().next().unwrap_or("");
    assert!(
        first
            .trim_start()
            .starts_with("sudoku.c:21:12: unused variable 'bc'"),
        "{shown}"
    );
    assert!(
        !shown.contains("submission.c") && !shown.contains("/tmp/"),
        "{shown}"
    );
    // Fixed, it passes and nothing is said of warnings.
    let fixed = fs::read_to_string(kit.path("sudoku.c"))
        .unwrap()
        .replace("size_t j = br; j < br + n", "size_t j = bc; j < bc + n");
    fs::write(kit.path("sudoku.c"), fixed).unwrap();
    let out = kit.grader(".", &["check", "--no-shrink", "sudoku.c"]);
    assert_eq!(code(&out), 0, "{}", printed(&out));
    assert!(!printed(&out).contains("compiler warned"));
}

/// A warm Rust check compiles only the student's crate: the lab crate's
/// build is kept in the user's cache folder and reused (its artefact keeps
/// its time while the student's changes), and rustc's warning that names
/// the bug ("unused variable: `bc`") is shown beside legal's failure.
#[test]
#[ignore = "slow: cargo in a box: a Rust check twice, the lab's build kept"]
fn a_warm_rust_check_rebuilds_only_the_students_crate() {
    let kit = Kit::new();
    copy_tree(&fixture("rust-box-column-from-row"), &kit.path("proj"));
    let check = || {
        Command::new(kit.path("bin/grader"))
            .args(["check", "--no-shrink"])
            .current_dir(kit.path("proj"))
            .env_remove("GRADER_LAB_DIR")
            .env("XDG_CACHE_HOME", kit.path("cache"))
            .env("NO_COLOR", "1")
            .output()
            .expect("grader runs")
    };
    let kept = || -> Vec<(String, u64)> {
        let files: Vec<PathBuf> = fs::read_dir(kit.path("cache/grader"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("rust-build-")
            })
            .collect();
        assert_eq!(files.len(), 1, "one cache file for the project: {files:?}");
        let doc: serde_json::Value = serde_json::from_slice(&fs::read(&files[0]).unwrap()).unwrap();
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["path"].as_str().unwrap().to_string(),
                    f["nanos"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    // The lab's artefact, and the student's library (named by the grader).
    let time_of = |files: &[(String, u64)], lab: bool| {
        files
            .iter()
            .find(|(path, _)| match lab {
                true => path.starts_with("release/deps/libsudoku_lab-") && path.ends_with(".rlib"),
                false => path.starts_with("release/deps/lib") && path.ends_with(".so"),
            })
            .map(|(_, nanos)| *nanos)
            .unwrap_or_else(|| panic!("not in the cache: {files:?}"))
    };
    let out = check();
    let shown = printed(&out);
    assert_eq!(code(&out), 1, "{shown}");
    assert!(
        shown.contains("the compiler warned in your legal (one may name the bug):"),
        "{shown}"
    );
    assert!(shown.contains("unused variable: `bc`"), "{shown}");
    assert!(
        !shown.contains(".grader-lab") && !shown.contains("/tmp/"),
        "{shown}"
    );
    let before = kept();
    let lab_before = time_of(&before, true);
    let fixed = fs::read_to_string(kit.path("proj/src/lib.rs"))
        .unwrap()
        .replace("for j in br..br + n", "for j in bc..bc + n");
    fs::write(kit.path("proj/src/lib.rs"), fixed).unwrap();
    let out = check();
    assert_eq!(code(&out), 0, "{}", printed(&out));
    let after = kept();
    assert_eq!(
        time_of(&after, true),
        lab_before,
        "the lab crate was built again"
    );
    assert_ne!(
        time_of(&after, false),
        time_of(&before, false),
        "the student's crate was not built again"
    );
}

/// A student (no root, so no PID namespace) gets the test zygote too, and
/// the zygote's leak fixes hold there: the attacks that walk the heap they
/// were forked with, looking for another test's request, find none (every
/// public test passes), and a test that starts a process is stopped.
#[test]
#[ignore = "slow: as nobody, with a home of its own, so the C and Python listings are timed afresh"]
fn a_student_check_without_a_pid_namespace_keeps_no_request_between_tests() {
    let able = is_root() && Command::new("setpriv").arg("--version").output().is_ok();
    if !needs("root (to become nobody) and setpriv(1)", able) {
        return;
    }
    let kit = Kit::new();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(kit.path(""), fs::Permissions::from_mode(0o777)).unwrap();
    let attack = |name: &str| root().join("attacks").join(name);
    for (from, name, expected) in [
        (attack("zygote-heap-requests.c"), "heap.c", 0),
        (attack("py-zygote-heap-requests.py"), "heap.py", 0),
        (fixture("hostile-fork.c"), "fork.c", 1),
    ] {
        fs::copy(&from, kit.path(name)).unwrap();
        fs::set_permissions(kit.path(name), fs::Permissions::from_mode(0o644)).unwrap();
        let out = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(kit.path("bin/grader"))
            .args(["check", "--no-shrink", name])
            .current_dir(kit.path(""))
            .env("HOME", kit.path(""))
            .env("NO_COLOR", "1")
            .output()
            .expect("setpriv runs");
        let shown = printed(&out);
        assert_eq!(code(&out), expected, "{name}: {shown}");
        if expected == 0 {
            assert!(shown.contains("21 of 21"), "{name}: {shown}");
        } else {
            assert!(shown.contains("creating a process"), "{name}: {shown}");
        }
    }
}

/// A `solve` that behaves well only when the grader's `legal` stands in
/// (`attacks/`): one asks `legal` a question whose answer it knows (C,
/// Python), one compares the module's global with its own `legal`
/// (Python). `grader check` never tells their failure as `legal`'s: a run
/// that passed with the grader's `legal` is said as what happened, beside
/// the leftover digit that the test's own trace found and no wrong `legal`
/// makes; the identity check cannot see the stand-in (the student's
/// function keeps its identity, its code replaced), so that run still
/// fails and is told so. Beside them their honest twin
/// `bug-legal-no-column.c`, whose run names `legal`.
#[test]
fn a_solve_that_notices_the_graders_legal_gets_no_false_cause() {
    let kit = Kit::new();
    let cases = snapshot_cases(&kit);
    let attack = |name: &str| root().join("attacks").join(name);
    let names_legal = "your legal (see legal above) is the likely cause";
    for (path, case, observed, contradicted_by) in [
        (
            attack("legal-swap-probe.c"),
            "campus-dead-end",
            "passed",
            Some("solve.trace.leftover"),
        ),
        (
            attack("py-legal-swap-probe.py"),
            "campus-dead-end",
            "passed",
            Some("solve.trace.leftover"),
        ),
        (
            attack("py-legal-swap-identity.py"),
            "campus-dead-end",
            "still_failed",
            None,
        ),
        (
            fixture("bug-legal-no-column.c"),
            "campus-clash",
            "passed",
            None,
        ),
    ] {
        let name = path.display();
        let run = |json: bool| {
            let mut args = vec!["check", "--cases", cases.to_str().unwrap()];
            if json {
                args.push("--json");
            }
            args.push(path.to_str().unwrap());
            let out = kit.grader(".", &args);
            assert_eq!(code(&out), 1, "{name}: {}", printed(&out));
            out
        };
        let doc: serde_json::Value = serde_json::from_slice(&run(true).stdout).expect("JSON");
        let swap = &doc["legal_swap"];
        assert_eq!(swap["case"], case, "{name}: {doc}");
        assert_eq!(swap["observed"], observed, "{name}: {doc}");
        assert_eq!(
            swap["contradicted_by"].as_str(),
            contradicted_by,
            "{name}: {doc}"
        );
        let shown = printed(&run(false));
        let blamed = contradicted_by.is_none() && observed == "passed";
        assert_eq!(shown.contains(names_legal), blamed, "{name}:\n{shown}");
        assert!(!shown.contains("comes from your legal"), "{name}:\n{shown}");
        if let Some(finding) = contradicted_by {
            assert!(
                shown.contains(&format!("a step no wrong legal makes ({finding}")),
                "{name}:\n{shown}"
            );
        }
    }
}
