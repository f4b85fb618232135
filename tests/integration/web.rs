//! The browser check's engine in Node (`web/`, `crates/judge-web`): the
//! Node runner `check.mjs` of a site folder laid out as `grader package
//! web` lays it out ([`site`]), against `grader check` on Linux.
//!
//! - parity: every Python and notebook fixture of `submissions/` gets the
//!   same verdict on every test, the same exit code, the same first 15
//!   lines (times aside) and the same run with the grader's `legal` (its
//!   reading and words, in the JSON) as `grader check` (where a verdict
//!   legitimately differs, the fixture and why are named in [`DIFFERS`]);
//! - the hostile fixtures (an endless loop, a loop that swallows the
//!   interrupt, deep recursion, a huge list, a memory bomb, `import os`,
//!   `sys.exit`) each end with a clear message, and the runner goes on to
//!   the next test (the swallowed interrupt and the memory bomb are
//!   `tests/fixtures/web/`'s: the native check needs neither);
//! - what a test's code does to the interpreter does not reach the next
//!   test (`tests/fixtures/web/py-counts-its-runs.py`);
//! - the site refuses hidden cases.
//!
//! They need Node and the npm packages of `web/` (`npm ci --prefix web`),
//! and a grader built with the judge's WebAssembly (the
//! `wasm32-unknown-unknown` target installed); under `CI=true` a missing
//! one fails the test. Slow: each run loads Pyodide.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::util::{Grader, code, fixture, needs, printed, root, text};

/// Whether Node runs here.
fn node_runs() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The npm package `pyodide` as `npm ci --prefix web` installs it.
fn pyodide_package() -> PathBuf {
    root().join("web/node_modules/pyodide")
}

/// Whether the site can be laid out here: Node, the Pyodide package, the
/// judge's WebAssembly in this grader. Under `CI=true` a missing one fails.
fn can_lay_out() -> bool {
    needs("node", node_runs())
        && needs(
            "the npm package pyodide (`npm ci --prefix web`)",
            pyodide_package().join("pyodide.asm.wasm").is_file(),
        )
        && needs(
            "the judge's WebAssembly built into the grader (`rustup target add wasm32-unknown-unknown`)",
            grader::web_engine::judge_wasm().is_ok(),
        )
}

/// Lays out a site folder in `dir` as `grader package web` does (see
/// `web/engine/checker.mjs`): the engine, the judge's WebAssembly, Pyodide
/// from the npm package, and the public case files of `cases` (a file
/// holding a hidden case is left out, as `grader check` leaves its cases
/// out), listed in `cases/index.json`.
fn site(dir: &Path, cases: &Path) {
    for (path, text) in grader::web_engine::ENGINE_FILES {
        write(&dir.join(path), text.as_bytes());
    }
    let wasm = grader::web_engine::judge_wasm().expect("the judge's WebAssembly");
    write(&dir.join("engine/judge.wasm"), wasm);
    for name in grader::web_engine::PYODIDE_FILES {
        let bytes = fs::read(pyodide_package().join(name)).expect("a file of the pyodide package");
        write(&dir.join("pyodide").join(name), &bytes);
    }
    let mut names = Vec::new();
    let mut entries: Vec<PathBuf> = fs::read_dir(cases)
        .expect("the cases folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    entries.sort();
    for path in entries {
        let text = fs::read_to_string(&path).expect("a case file");
        if text
            .lines()
            .any(|l| l.trim().replace(' ', "") == "hidden=true")
        {
            continue;
        }
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        write(&dir.join("cases").join(&name), text.as_bytes());
        names.push(name);
    }
    write(
        &dir.join("cases/index.json"),
        serde_json::to_string(&names).expect("names").as_bytes(),
    );
}

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().expect("a folder")).expect("make the folder");
    fs::write(path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// `node SITE/check.mjs ARGS`.
fn node_check(site: &Path, args: &[&str]) -> Output {
    Command::new("node")
        .arg(site.join("check.mjs"))
        .args(args)
        .output()
        .expect("start node")
}

/// One site of the bundled cases for every test of this module, made once.
fn bundled_site() -> &'static Path {
    static SITE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    SITE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        site(dir.path(), &root().join("cases"));
        dir
    })
    .path()
}

/// A site with the campus cases only (four 4x4 boards, each given the
/// least wall-clock limit, 5 s): for the tests that run a solve to its
/// limit on every case, which on the bundled cases' 9x9s and 16x16 would
/// wait minutes to show the same thing.
fn campus_site() -> &'static Path {
    static SITE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    SITE.get_or_init(|| {
        let cases = tempfile::tempdir().expect("a temporary folder");
        for name in ["grader.toml", "campus.toml"] {
            fs::copy(root().join("cases").join(name), cases.path().join(name))
                .expect("copy a case file");
        }
        let dir = tempfile::tempdir().expect("a temporary folder");
        site(dir.path(), cases.path());
        dir
    })
    .path()
}

/// The fixtures whose browser verdict legitimately differs (or may) from
/// the native one, and why: the box refuses what Pyodide has no way to do
/// at all, the box's fds and limits are not the browser's, a long search
/// meets a wall clock instead of a CPU clock. Measured: every other
/// Python and notebook fixture gets the native verdicts.
const DIFFERS: &[(&str, &str)] = &[
    (
        "py-os-system",
        "the box refuses the system call (forbidden); Pyodide has no processes: os.system answers -1, solve goes on, slowed by each call",
    ),
    (
        "py-subprocess",
        "the box refuses the system call (forbidden); Pyodide cannot start a process: an OSError (crash)",
    ),
    (
        "py-ctypes",
        "the box refuses libc's system() (forbidden); in Pyodide it answers -1, solve goes on, slowed by each call",
    ),
    (
        "py-fake-protocol",
        "its os.write to the fds beside 3 reaches the box's protocol pipe (a second `done`: wrong); the web transport has no fd, and solve's real answers pass",
    ),
    (
        "py-huge-list",
        "[0] * 10**10 is a MemoryError under the box's memory limit; in Pyodide (32-bit WebAssembly) the size is an OverflowError (crash)",
    ),
    (
        "py-fixed-9x9",
        "its search of the 16x16's top-left 9x9 takes 18 s of CPU natively and ends wrong; in Pyodide on a loaded host it can pass its 38 s wall-clock limit (timeout)",
    ),
];

/// The fixtures whose verdicts are the native ones but whose first lines
/// are not yet, and why.
const LINES_DIFFER: &[(&str, &str)] = &[(
    "py-read-cases",
    "listing `/` is a PermissionError in the box and a FileNotFoundError in Pyodide's file system: the same crash, Python's words differ",
)];

/// Python and notebook fixtures, by id, with the file the runner is given.
fn python_fixtures() -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = fs::read_dir(root().join("submissions"))
        .expect("submissions/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py" || e == "ipynb"))
        .map(|p| {
            (
                p.file_stem()
                    .expect("a stem")
                    .to_string_lossy()
                    .into_owned(),
                p,
            )
        })
        .collect();
    // A folder with its main.py beside the solution: the runner takes the
    // file grader check finds in it (the one that defines the functions).
    found.push(("py-with-main".into(), fixture("py-with-main/sudoku.py")));
    found.sort();
    found
}

/// (case, function, verdict) of every test of a `grader check --json` report.
fn verdicts(report: &Value) -> Vec<(String, String, String)> {
    report["submission"]["tests"]
        .as_array()
        .map(|tests| {
            tests
                .iter()
                .map(|t| {
                    let field = |k: &str| t[k].as_str().unwrap_or_default().to_string();
                    (field("case"), field("function"), field("verdict"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Python's own words that changed between the host's Python (3.11) and
/// Pyodide's (3.14): the same error, worded anew.
const PYTHON_REWORDED: &[(&str, &str)] = &[(
    "maximum recursion depth exceeded while calling a Python object",
    "maximum recursion depth exceeded",
)];

/// How many lines of `grader check`'s text must be the same.
const FIRST_LINES: usize = 15;

/// The first [`FIRST_LINES`] lines of a check's text, with what may
/// differ between two runs taken out: times (`(3.0 ms)`, `found in 5
/// runs, 35 ms`) and Python's own words that changed between the host's
/// Python and Pyodide's, and how a traceback marks the expression under a
/// line (Python 3.14 marks the call's callee with `~` where 3.11 has `^`:
/// the same columns).
fn first_lines(text: &str) -> Vec<String> {
    text.lines()
        .take(FIRST_LINES)
        .map(|line| {
            let line = PYTHON_REWORDED
                .iter()
                .fold(line.to_string(), |line, (old, new)| line.replace(old, new));
            without_times(&traceback_marks(&line))
        })
        .collect()
}

/// A traceback's marker line (only spaces, `~` and `^`) with every `~`
/// as `^`; any other line as it is.
fn traceback_marks(line: &str) -> String {
    let marker = line.contains('^') && line.chars().all(|c| matches!(c, ' ' | '~' | '^'));
    if marker {
        line.replace('~', "^")
    } else {
        line.to_string()
    }
}

/// `line` with every number of milliseconds replaced by `N`.
fn without_times(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(" ms") {
        let head = &rest[..at];
        let start = head
            .rfind(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map_or(0, |i| i + 1);
        if start < head.len() {
            out.push_str(&head[..start]);
            out.push('N');
        } else {
            out.push_str(head);
        }
        out.push_str(" ms");
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    out
}

#[test]
#[ignore = "slow: every Python fixture through grader check and the Node runner (Pyodide)"]
fn every_python_fixture_gets_the_native_verdicts_in_node() {
    if !can_lay_out() {
        return;
    }
    let site = bundled_site();
    let mut mismatches = Vec::new();
    for (id, path) in python_fixtures() {
        if id == "py-endless-loop" {
            // Its native run spins to every limit (minutes): the hostile
            // test below checks the browser's timeouts instead.
            continue;
        }
        let file = path.to_string_lossy().into_owned();
        if DIFFERS.iter().any(|(fixture, _)| *fixture == id) {
            // Its verdicts may differ, for the reason given (the native
            // ones are checked by the main job): the Node runner must
            // still end with a report, shown on the campus cases (on the
            // bundled ones os.system's and ctypes' searches, slowed by
            // each call, take minutes).
            let output = node_check(campus_site(), &["--json", "--no-shrink", &file]);
            if let Err(e) = serde_json::from_slice::<Value>(&output.stdout) {
                mismatches.push(format!("{id}: check.mjs --json: {e}\n{}", printed(&output)));
            }
            continue;
        }
        // The native check and the Node runner side by side (one core
        // each): the test's time is the slower of the two, not the sum.
        let ((native, native_text), (web, web_text)) = std::thread::scope(|scope| {
            let native = scope.spawn(|| {
                let check = |json: bool| {
                    Grader::new()
                        .arg("check")
                        .args(json.then_some("--json"))
                        .arg("--cases")
                        .arg(root().join("cases"))
                        .arg(&file)
                        .output()
                };
                (check(true), check(false))
            });
            // One run of the Node runner (one Pyodide load): the text on
            // stdout, the JSON report in a file.
            let json = tempfile::NamedTempFile::new().expect("a temporary file");
            let json_path = json.path().to_string_lossy().into_owned();
            let text = node_check(site, &["--json-file", &json_path, &file]);
            let mut report = text.clone();
            report.stdout = fs::read(json.path()).unwrap_or_default();
            (native.join().expect("the native checks"), (report, text))
        });
        let native_report: Value = serde_json::from_slice(&native.stdout)
            .unwrap_or_else(|e| panic!("{id}: grader check --json: {e}\n{}", printed(&native)));
        let web_report: Value = serde_json::from_slice(&web.stdout)
            .unwrap_or_else(|e| panic!("{id}: check.mjs --json: {e}\n{}", printed(&web)));
        let status = |r: &Value| {
            r["submission"]["status"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        let same = verdicts(&native_report) == verdicts(&web_report)
            && status(&native_report) == status(&web_report)
            && code(&native) == code(&web);
        if !same {
            mismatches.push(format!(
                "{id}: native {} {:?} exit {}\n  web {} {:?} exit {}",
                status(&native_report),
                verdicts(&native_report),
                code(&native),
                status(&web_report),
                verdicts(&web_report),
                code(&web)
            ));
            continue;
        }
        // The run with the grader's legal (a failing legal beside a
        // failing solve): the same reading and words, wherever the view
        // puts them.
        if native_report["legal_swap"] != web_report["legal_swap"] {
            mismatches.push(format!(
                "{id}: the run with the grader's legal differs\n  native: {}\n  web: {}",
                native_report["legal_swap"], web_report["legal_swap"]
            ));
        }
        if LINES_DIFFER.iter().any(|(fixture, _)| *fixture == id) {
            continue;
        }
        // The same words: the first lines of the student view.
        let (ours, theirs) = (
            first_lines(&text(&web_text.stdout)),
            first_lines(&text(&native_text.stdout)),
        );
        if ours != theirs {
            mismatches.push(format!(
                "{id}: the first {FIRST_LINES} lines differ\n  native: {theirs:#?}\n  web: {ours:#?}"
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// What the Node runner of `site` said of `file`: its exit code and JSON
/// report. Without shrinking: these tests are about each test's verdict
/// and message, and a failing solve shrunk in Pyodide reruns it many
/// times.
fn web_report(site: &Path, file: &Path) -> (i32, Value) {
    let output = node_check(site, &["--json", "--no-shrink", &file.to_string_lossy()]);
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: check.mjs --json: {e}\n{}",
            file.display(),
            printed(&output)
        )
    });
    (code(&output), report)
}

/// The `solve` tests of `report`: (verdict, message).
fn solve_tests(report: &Value) -> Vec<(String, String)> {
    report["submission"]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter(|t| t["function"] == "solve")
        .map(|t| {
            (
                t["verdict"].as_str().unwrap_or_default().to_string(),
                t["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// Every test of `report` but solve's passes (the runner went on after
/// each hostile solve).
fn helpers_pass(report: &Value) -> bool {
    report["submission"]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter(|t| t["function"] != "solve")
        .all(|t| t["verdict"] == "pass")
}

#[test]
#[ignore = "slow: an endless loop to every wall-clock limit, in Node (Pyodide)"]
fn an_endless_loop_times_out_on_the_wall_clock_and_says_it_is_advisory() {
    if !can_lay_out() {
        return;
    }
    let (exit, report) = web_report(campus_site(), &fixture("py-endless-loop.py"));
    assert_eq!(exit, 1, "{report:#}");
    assert!(helpers_pass(&report), "{report:#}");
    for (verdict, message) in solve_tests(&report) {
        assert_eq!(verdict, "timeout", "{message}");
        assert!(
            message.contains("wall-clock") && message.contains("advisory"),
            "{message}"
        );
    }
}

#[test]
#[ignore = "slow: a loop that swallows KeyboardInterrupt, each test ended by a new worker (Pyodide reloaded)"]
fn a_loop_that_swallows_the_interrupt_is_ended_by_a_new_worker() {
    if !can_lay_out() {
        return;
    }
    let (exit, report) = web_report(
        campus_site(),
        &root().join("tests/fixtures/web/py-swallows-interrupt.py"),
    );
    assert_eq!(exit, 1, "{report:#}");
    assert!(helpers_pass(&report), "{report:#}");
    let solves = solve_tests(&report);
    assert_eq!(solves.len(), 4, "one solve a campus case: {report:#}");
    for (verdict, message) in solves {
        assert_eq!(verdict, "timeout", "{message}");
        assert!(message.contains("advisory"), "{message}");
    }
}

#[test]
#[ignore = "slow: a memory bomb filling Pyodide's memory, in Node"]
fn a_memory_bomb_ends_with_a_clear_message() {
    if !can_lay_out() {
        return;
    }
    let (exit, report) = web_report(
        campus_site(),
        &root().join("tests/fixtures/web/py-memory-bomb.py"),
    );
    assert_eq!(exit, 1, "{report:#}");
    assert!(helpers_pass(&report), "{report:#}");
    // Filling the WebAssembly memory (4 GiB at most) takes seconds: the
    // end of the memory (MemoryError) or the wall-clock limit, whichever
    // comes first.
    for (verdict, message) in solve_tests(&report) {
        let clear = (verdict == "memory" && message.contains("ran out of memory"))
            || (verdict == "timeout" && message.contains("advisory"));
        assert!(clear, "{verdict}: {message}");
    }
}

#[test]
#[ignore = "slow: the hostile Python fixtures in Node (Pyodide)"]
fn hostile_fixtures_end_with_a_clear_message() {
    if !can_lay_out() {
        return;
    }
    // On the campus cases (each call of os.system slows Pyodide's search:
    // minutes on the bundled 9x9s and 16x16). (fixture, its solve's
    // verdict, a phrase of its message, the exit code)
    let expected = [
        (
            "py-recurse-before-write.py",
            "crash",
            "recursed too deep in solve",
            1,
        ),
        ("py-huge-list.py", "crash", "OverflowError", 1),
        // A browser has no shell: Pyodide's `os.system` runs nothing and
        // returns, so the search goes on and passes; natively the box
        // kills it. Nothing escapes either way.
        ("py-os-system.py", "pass", "", 0),
    ];
    let mut wrong = Vec::new();
    for (name, verdict, phrase, code) in expected {
        let (exit, report) = web_report(campus_site(), &fixture(name));
        let solves = solve_tests(&report);
        let fine = exit == code
            && helpers_pass(&report)
            && solves
                .iter()
                .any(|(v, m)| v == verdict && m.contains(phrase));
        if !fine {
            wrong.push(format!("{name}: exit {exit}, solve {solves:#?}"));
        }
    }
    // sys.exit while imported: the code does not load (exit 3), said so.
    let (exit, report) = web_report(campus_site(), &fixture("py-exit-at-import.py"));
    let message = report["submission"]["message"].as_str().unwrap_or_default();
    if exit != 3 || !message.contains("called sys.exit(0) while being imported") {
        wrong.push(format!("py-exit-at-import.py: exit {exit}, {message}"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A solution that answers wrong once the interpreter has run it before
/// (a count kept on `sys` and in the builtins) passes every test, in Node
/// as natively: the engine puts the interpreter back after each test, as a
/// fresh process does, so a verdict does not depend on the tests before.
#[test]
#[ignore = "slow: the Node runner (Pyodide), a test after a test"]
fn what_a_test_did_to_the_interpreter_does_not_reach_the_next() {
    if !can_lay_out() {
        return;
    }
    let file = root().join("tests/fixtures/web/py-counts-its-runs.py");
    Grader::new()
        .arg("check")
        .arg("--cases")
        .arg(root().join("cases/campus.toml"))
        .arg(&file)
        .expect(0);
    let (code, report) = web_report(campus_site(), &file);
    let failing: Vec<&Value> = report["submission"]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter(|t| t["verdict"] != "pass")
        .collect();
    assert!(failing.is_empty(), "{failing:#?}");
    assert_eq!(code, 0);
}

/// `--fail-fast`, `-v`, `--case` and `--function` do in the Node runner
/// what they do in `grader check`: the same lines (times aside), the same
/// exit code, and for a case that is not there the same error.
#[test]
#[ignore = "slow: the Node runner (Pyodide) with grader check's flags"]
fn the_node_runner_takes_grader_checks_flags() {
    if !can_lay_out() {
        return;
    }
    let cases = root().join("cases/campus.toml");
    let file = fixture("py-no-clear.py");
    let path = file.to_string_lossy().into_owned();
    let flag_sets: [&[&str]; 4] = [
        &["--fail-fast"],
        &["-v"],
        &["--case", "campus-dead-end", "--function", "solve"],
        &["--case", "nope"],
    ];
    for flags in flag_sets {
        let native = Grader::new()
            .arg("check")
            .args(flags)
            .arg("--no-shrink")
            .arg("--cases")
            .arg(&cases)
            .arg(&file)
            .output();
        let mut args = flags.to_vec();
        args.extend(["--no-shrink", path.as_str()]);
        let web = node_check(campus_site(), &args);
        let lines = |out: &[u8]| -> Vec<String> { text(out).lines().map(without_times).collect() };
        assert_eq!(code(&web), code(&native), "{flags:?}\n{}", printed(&web));
        assert_eq!(lines(&web.stdout), lines(&native.stdout), "{flags:?}");
        assert_eq!(lines(&web.stderr), lines(&native.stderr), "{flags:?}");
    }
    let stopped = text(&node_check(campus_site(), &["--fail-fast", &path]).stdout);
    assert!(
        stopped.contains("not run: --fail-fast stopped at the first failure"),
        "{stopped}"
    );
}

#[test]
#[ignore = "slow: loads the judge's WebAssembly in Node"]
fn a_site_with_a_hidden_case_is_refused() {
    if !can_lay_out() {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    site(dir.path(), &root().join("cases"));
    let hidden = fs::read_to_string(root().join("cases/hidden.toml")).expect("hidden.toml");
    write(&dir.path().join("cases/hidden.toml"), hidden.as_bytes());
    let index = dir.path().join("cases/index.json");
    let mut names: Vec<String> =
        serde_json::from_slice(&fs::read(&index).expect("index")).expect("names");
    names.push("hidden.toml".into());
    write(
        &index,
        serde_json::to_string(&names).expect("names").as_bytes(),
    );
    let output = node_check(dir.path(), &[&fixture("py-listing.py").to_string_lossy()]);
    assert_eq!(code(&output), 2, "{}", printed(&output));
    assert!(
        text(&output.stderr)
            .contains("is hidden: a page or a runner anyone can read holds public cases only"),
        "{}",
        printed(&output)
    );
}

#[test]
fn times_are_taken_out_of_a_line() {
    assert_eq!(
        without_times("solve on x: wrong (3.0 ms) (found in 5 runs, 35 ms)"),
        "solve on x: wrong (N ms) (found in 5 runs, N ms)"
    );
}
