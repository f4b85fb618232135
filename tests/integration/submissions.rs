//! Grades the fixture submissions in `submissions/` with the real `grader`
//! binary and checks every verdict against `submissions/expected.toml`;
//! then checks that no fixture process outlived the run and that no fixture
//! left a file behind.
//!
//! The run uses its own small case set (a unique 4x4, a 9x9 that needs
//! backtracking, an unsolvable 4x4 that needs search) with a 1 s time limit,
//! so the hostile fixtures, which cost their time limit, keep the test short.
//! Fixtures marked `policy = "first"` are graded a second time, with copies
//! of two correct fixtures and a prebuilt `.so` as controls, against the same
//! cases under `find_empty_policy = "first"`.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use crate::util::{Grader, copy_tree, grader, root};

const CASES: &str = r#"
[[case]]
name = "campus-4x4"
puzzle = """
1 . | . 4
. 4 | 1 .
----+----
2 . | . 3
. 3 | 2 .
"""
solutions = 1
solution = """
1 2 | 3 4
3 4 | 1 2
----+----
2 1 | 4 3
4 3 | 2 1
"""

[[case]]
name = "newspaper-9x9"
puzzle = """
5 3 . | . 7 . | . . .
6 . . | 1 9 5 | . . .
. 9 8 | . . . | . 6 .
------+-------+------
8 . . | . 6 . | . . 3
4 . . | 8 . 3 | . . 1
7 . . | . 2 . | . . 6
------+-------+------
. 6 . | . . . | 2 8 .
. . . | 4 1 9 | . . 5
. . . | . 8 . | . 7 9
"""
solutions = 1
solution = """
5 3 4 | 6 7 8 | 9 1 2
6 7 2 | 1 9 5 | 3 4 8
1 9 8 | 3 4 2 | 5 6 7
------+-------+------
8 5 9 | 7 6 1 | 4 2 3
4 2 6 | 8 5 3 | 7 9 1
7 1 3 | 9 2 4 | 8 5 6
------+-------+------
9 6 1 | 5 3 7 | 2 8 4
2 8 7 | 4 1 9 | 6 3 5
3 4 5 | 2 8 6 | 1 7 9
"""

[[case]]
name = "unsolvable-4x4"
puzzle = """
. . | . .
. . | . .
----+----
1 . | . .
. 2 | 4 3
"""
solutions = 0
"#;

/// What one fixture must get, from `expected.toml`.
#[derive(Debug)]
struct Expected {
    kind: String,
    status: String,
    message: Option<String>,
    /// Phrases the submission's `notes` must hold, each in one note.
    notes: Vec<String>,
    policy_first: bool,
    functions: BTreeMap<String, FunctionExpectation>,
}

/// What the tests of one function must come to.
#[derive(Debug, Clone)]
struct FunctionExpectation {
    /// The accepted worst verdicts ("pass": every test passes).
    verdicts: Vec<String>,
    /// Phrases one of which the message of a test with that verdict must
    /// contain.
    phrases: Vec<String>,
    /// Verdicts tolerated besides the main one.
    also: Vec<String>,
}

impl FunctionExpectation {
    fn all_pass() -> FunctionExpectation {
        FunctionExpectation {
            verdicts: vec!["pass".to_string()],
            phrases: Vec::new(),
            also: Vec::new(),
        }
    }
}

fn load_expected() -> BTreeMap<String, Expected> {
    let path = root().join("submissions/expected.toml");
    let text = fs::read_to_string(&path).expect("submissions/expected.toml is readable");
    let table: toml::Table = toml::from_str(&text).expect("expected.toml is valid TOML");
    let strings = |v: Option<&toml::Value>| -> Vec<String> {
        match v {
            None => Vec::new(),
            Some(toml::Value::String(s)) => vec![s.clone()],
            Some(toml::Value::Array(a)) => a
                .iter()
                .map(|x| x.as_str().expect("a list of strings").to_string())
                .collect(),
            Some(other) => panic!("expected a string or a list of strings, found {other}"),
        }
    };
    table
        .into_iter()
        .map(|(id, spec)| {
            let spec = spec.as_table().expect("one table per fixture");
            let get = |key: &str| spec.get(key).and_then(|v| v.as_str()).map(str::to_string);
            let mut functions = BTreeMap::new();
            for function in ["legal", "find_empty", "solve"] {
                if let Some(f) = spec.get(function) {
                    let verdicts = strings(f.get("verdict"));
                    let messages = strings(f.get("message"));
                    assert!(!verdicts.is_empty(), "{id}.{function} has no verdict");
                    let also = strings(f.get("also"));
                    let exp = FunctionExpectation {
                        verdicts,
                        phrases: messages,
                        also,
                    };
                    functions.insert(function.to_string(), exp);
                }
            }
            let expected = Expected {
                kind: get("kind").unwrap_or_else(|| panic!("{id} has no kind")),
                status: get("status").unwrap_or_else(|| panic!("{id} has no status")),
                message: get("message"),
                notes: strings(spec.get("notes")),
                policy_first: get("policy").as_deref() == Some("first"),
                functions,
            };
            if expected.status == "ok" {
                assert_eq!(
                    expected.functions.len(),
                    3,
                    "{id}: ok fixtures list all three functions"
                );
            }
            (id, expected)
        })
        .collect()
}

/// The student ids of `submissions/` by the discovery rules.
fn fixture_ids() -> BTreeSet<String> {
    fs::read_dir(root().join("submissions"))
        .expect("submissions/ is readable")
        .map(|e| e.expect("an entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            !name.starts_with('.') && name != "README.md" && name != "expected.toml"
        })
        .map(|p| {
            if p.is_dir() {
                p.file_name().and_then(|n| n.to_str()).map(str::to_string)
            } else {
                p.file_stem().and_then(|n| n.to_str()).map(str::to_string)
            }
            .expect("a UTF-8 name")
        })
        .collect()
}

#[test]
fn expected_toml_covers_every_fixture() {
    let expected: BTreeSet<String> = load_expected().into_keys().collect();
    let fixtures = fixture_ids();
    let missing: Vec<_> = fixtures.difference(&expected).collect();
    let stale: Vec<_> = expected.difference(&fixtures).collect();
    assert!(
        missing.is_empty(),
        "fixtures without an entry in expected.toml: {missing:?}"
    );
    assert!(
        stale.is_empty(),
        "expected.toml entries without a fixture: {stale:?}"
    );
}

/// Every file under `dir` with its size and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, Option<SystemTime>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).expect("readable folder") {
            let entry = entry.expect("an entry");
            let meta = entry.metadata().expect("metadata");
            if meta.is_dir() {
                stack.push(entry.path());
            }
            out.insert(entry.path(), (meta.len(), meta.modified().ok()));
        }
    }
    out
}

/// Files named `grader-fixture-escaped-*` under `dir` (recursively).
fn markers_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with("grader-fixture-escaped")
            {
                found.push(path.clone());
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    found
}

/// The markers hostile fixtures leave in /tmp when the sandbox lets them
/// through.
fn tmp_markers() -> Vec<PathBuf> {
    fs::read_dir("/tmp")
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with("grader-fixture-escaped-")
                })
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

/// Processes (other than this one) whose command line or working directory
/// mentions `needle`: the graders and workers of a run whose TMPDIR is
/// inside `needle` (a worker runs in an empty folder under TMPDIR, and its
/// children inherit it).
fn processes_mentioning(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_digit())
        })
        .filter(|e| e.file_name().to_string_lossy() != me)
        .filter_map(|e| {
            let cmdline = fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let cwd = fs::read_link(e.path().join("cwd"))
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            (cmdline.contains(needle) || cwd.contains(needle)).then(|| {
                format!(
                    "pid {} (cwd {cwd}): {cmdline}",
                    e.file_name().to_string_lossy()
                )
            })
        })
        .collect()
}

/// A finished `grader grade` run.
struct Run {
    report: Value,
    code: Option<i32>,
    stderr: String,
    elapsed: Duration,
    peak_rss_kib: u64,
    /// Whether the process scan found the running grader (so that it would
    /// find a leftover process too).
    scan_saw_grader: bool,
}

/// Runs `grader grade subs --cases cases --json <out>` in the repository
/// root, with TMPDIR inside `tmp`, watching the grader's peak RSS.
fn grade(subs: &Path, cases: &Path, tmp: &Path, name: &str) -> Run {
    let json = tmp.join(format!("{name}.json"));
    let tmpdir = tmp.join("tmpdir");
    fs::create_dir_all(&tmpdir).expect("mkdir");
    fs::set_permissions(&tmpdir, fs::Permissions::from_mode(0o755)).expect("chmod");
    let start = Instant::now();
    let mut child = Grader::new()
        .arg("grade")
        .arg(subs)
        .arg("--cases")
        .arg(cases)
        .arg("--json")
        .arg(&json)
        .args(["--jobs", "2"])
        .current_dir(root())
        .env("TMPDIR", &tmpdir)
        .into_command()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("grader starts");
    let stderr_pipe = child.stderr.take().expect("stderr");
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let mut pipe = stderr_pipe;
        let _ = std::io::Read::read_to_string(&mut pipe, &mut text);
        text
    });
    let status_path = PathBuf::from(format!("/proc/{}/status", child.id()));
    let mut peak_rss_kib = 0;
    let needle = tmp.display().to_string();
    let mut scan_saw_grader = false;
    let status = loop {
        if !scan_saw_grader {
            scan_saw_grader = !processes_mentioning(&needle).is_empty();
        }
        let kib = fs::read_to_string(&status_path)
            .ok()
            .and_then(|text| {
                let line = text.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
                line.split_whitespace().nth(1)?.parse::<u64>().ok()
            })
            .unwrap_or(0);
        peak_rss_kib = peak_rss_kib.max(kib);
        if let Some(status) = child.try_wait().expect("wait for grader") {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "grader grade ran for over 10 minutes"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let elapsed = start.elapsed();
    let stderr = stderr_reader.join().unwrap_or_default();
    let text = fs::read_to_string(&json).unwrap_or_else(|e| {
        panic!("grader wrote no JSON report ({e}); exit {status}; stderr:\n{stderr}")
    });
    let report: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("the JSON report does not parse: {e}\n{text}"));
    Run {
        report,
        code: status.code(),
        stderr,
        elapsed,
        peak_rss_kib,
        scan_saw_grader,
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string {key:?} in {v}"))
}

/// Checks the SPEC 6 shape of a report and returns its submissions by id.
fn submissions_by_id(report: &Value, problems: &mut Vec<String>) -> BTreeMap<String, Value> {
    assert_eq!(report["version"], 1, "report version");
    let subs = report["submissions"]
        .as_array()
        .expect("submissions is an array");
    let mut by_id = BTreeMap::new();
    for sub in subs {
        for key in ["id", "kind", "status", "message"] {
            if !sub.get(key).is_some_and(|v| v.is_string() || v.is_null()) {
                problems.push(format!("submission lacks {key:?}: {sub}"));
            }
        }
        for key in ["score", "max_score"] {
            if !sub.get(key).is_some_and(Value::is_number) {
                problems.push(format!("submission lacks numeric {key:?}: {}", sub["id"]));
            }
        }
        let tests = sub["tests"].as_array().cloned().unwrap_or_default();
        for t in &tests {
            for key in ["case", "function", "verdict", "message", "output"] {
                if !t.get(key).is_some_and(Value::is_string) {
                    problems.push(format!("{}: a test lacks {key:?}: {t}", sub["id"]));
                }
            }
            for key in ["points", "max_points"] {
                if !t.get(key).is_some_and(Value::is_number) {
                    problems.push(format!("{}: a test lacks numeric {key:?}: {t}", sub["id"]));
                }
            }
            if !t
                .get("time_ms")
                .is_some_and(|v| v.is_number() || v.is_null())
            {
                problems.push(format!("{}: a test lacks \"time_ms\": {t}", sub["id"]));
            }
        }
        let points: f64 = tests.iter().filter_map(|t| t["points"].as_f64()).sum();
        if sub["score"]
            .as_f64()
            .is_some_and(|s| (s - points).abs() > 1e-9)
        {
            problems.push(format!(
                "{}: score {} is not the sum of its tests' points {points}",
                sub["id"], sub["score"]
            ));
        }
        by_id.insert(str_field(sub, "id").to_string(), sub.clone());
    }
    by_id
}

/// Checks one submission of a report against its expectation.
fn check_submission(id: &str, sub: &Value, expected: &Expected, problems: &mut Vec<String>) {
    let kind = sub["kind"].as_str().unwrap_or("");
    if kind != expected.kind {
        problems.push(format!("{id}: kind {kind:?}, expected {:?}", expected.kind));
    }
    let status = sub["status"].as_str().unwrap_or("");
    let message = sub["message"].as_str().unwrap_or("");
    let tests = sub["tests"].as_array().cloned().unwrap_or_default();
    let notes: Vec<&str> = sub["notes"]
        .as_array()
        .map(|notes| notes.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for want in &expected.notes {
        if !notes.iter().any(|note| note.contains(want.as_str())) {
            problems.push(format!("{id}: no note holds {want:?}: {notes:?}"));
        }
    }
    if status != expected.status {
        let verdicts: Vec<String> = tests
            .iter()
            .map(|t| format!("{}/{}={}", t["case"], t["function"], t["verdict"]))
            .collect();
        problems.push(format!(
            "{id}: status {status:?} ({message}), expected {:?}; tests: {verdicts:?}",
            expected.status
        ));
        return;
    }
    if expected.status != "ok" {
        if let Some(want) = &expected.message {
            if !message.to_lowercase().contains(&want.to_lowercase()) {
                problems.push(format!("{id}: message {message:?} lacks {want:?}"));
            }
        }
        if let Some(t) = tests.iter().find(|t| t["verdict"] != "error") {
            problems.push(format!("{id}: status {status} but a test ran: {t}"));
        }
        return;
    }
    for (function, accepted) in &expected.functions {
        let mine: Vec<&Value> = tests
            .iter()
            .filter(|t| t["function"] == **function)
            .collect();
        if mine.is_empty() {
            problems.push(format!("{id}: no {function} test in the report"));
            continue;
        }
        let failing: Vec<&Value> = mine
            .iter()
            .copied()
            .filter(|t| t["verdict"] != "pass")
            .collect();
        let seen: BTreeSet<&str> = failing
            .iter()
            .filter_map(|t| t["verdict"].as_str())
            .collect();
        let describe = || {
            failing
                .iter()
                .map(|t| format!("[{} {}: {}]", t["case"], t["verdict"], t["message"]))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let FunctionExpectation {
            verdicts,
            phrases,
            also,
        } = accepted;
        if verdicts.iter().any(|v| v == "pass") {
            if !failing.is_empty() {
                problems.push(format!(
                    "{id}.{function}: expected every test to pass, got {}",
                    describe()
                ));
            }
            continue;
        }
        // Exactly one non-pass verdict (besides those tolerated), one of
        // those accepted.
        let main: BTreeSet<&str> = seen
            .iter()
            .copied()
            .filter(|v| !also.iter().any(|a| a == v))
            .collect();
        let verdict = match main.iter().next() {
            Some(v) if main.len() == 1 && verdicts.iter().any(|a| a == v) => *v,
            _ => {
                problems.push(format!(
                    "{id}.{function}: expected {verdicts:?} (and otherwise pass), got {}",
                    if failing.is_empty() {
                        "all pass".to_string()
                    } else {
                        describe()
                    }
                ));
                continue;
            }
        };
        // ... whose message names the check, signal or system call.
        if !phrases.is_empty() {
            let named = failing.iter().any(|t| {
                let message = t["message"].as_str().unwrap_or("").to_lowercase();
                t["verdict"] == verdict
                    && phrases.iter().any(|p| message.contains(&p.to_lowercase()))
            });
            if !named {
                problems.push(format!(
                    "{id}.{function}: no {verdict} message contains one of {phrases:?}: {}",
                    describe()
                ));
            }
        }
    }
    // The output of a flood is capped.
    for t in &tests {
        let len = t["output"].as_str().map_or(0, str::len);
        if len > 1 << 20 {
            problems.push(format!(
                "{id}: a test kept {len} bytes of output (not capped)"
            ));
        }
    }
}

fn write_cases(dir: &Path, policy: &str) {
    fs::create_dir_all(dir).expect("mkdir");
    fs::write(dir.join("fixture.toml"), CASES).expect("write cases");
    fs::write(
        dir.join("grader.toml"),
        format!("time_limit_ms = 1000\nmemory_limit_mb = 256\nfind_empty_policy = \"{policy}\"\n"),
    )
    .expect("write grader.toml");
}

/// Checks the report of a run over `submissions/` (policy "any") against
/// `expected.toml`.
fn check_main_run(run: &Run, expected: &BTreeMap<String, Expected>, problems: &mut Vec<String>) {
    let by_id = submissions_by_id(&run.report, problems);
    for (id, exp) in expected {
        let Some(sub) = by_id.get(id) else {
            problems.push(format!("{id}: missing from the report"));
            continue;
        };
        if exp.policy_first {
            // Under "any" it is a correct solver.
            let failing: Vec<String> = sub["tests"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|t| t["verdict"] != "pass")
                .map(|t| format!("{} {}: {}", t["function"], t["verdict"], t["message"]))
                .collect();
            if sub["status"] != "ok" || !failing.is_empty() {
                problems.push(format!(
                    "{id}: should pass everything under policy any: {failing:?}"
                ));
            }
        } else {
            check_submission(id, sub, exp, problems);
        }
    }
    for id in by_id.keys() {
        if !expected.contains_key(id) {
            problems.push(format!("{id}: in the report but not in expected.toml"));
        }
    }
    if run.code != Some(1) {
        problems.push(format!(
            "grader grade exited {:?}, expected 1 (some tests failed)",
            run.code
        ));
    }
}

/// The same check over the bundled `cases/` (about a minute and a half on
/// two cores, hence ignored by default: `cargo test --test integration
/// submissions:: -- --ignored`).
///
/// CI has graded the same class already, in its main job (the release
/// build, on a loaded machine): it names that run's JSON report in
/// `GRADER_BUNDLED_REPORT` and its exit code in `GRADER_BUNDLED_EXIT`, and
/// this test checks that run instead of grading the class a second time.
#[test]
#[ignore = "slow: grades every fixture against the bundled cases"]
fn fixtures_get_their_verdicts_on_the_bundled_cases() {
    let expected = load_expected();
    let tmp = tempfile::Builder::new()
        .prefix("grader-fixtures-bundled-")
        .tempdir()
        .expect("tempdir");
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    let run = match main_job_run() {
        Some(run) => run,
        None => grade(
            &root().join("submissions"),
            &root().join("cases"),
            tmp.path(),
            "bundled",
        ),
    };
    let mut problems = Vec::new();
    check_main_run(&run, &expected, &mut problems);
    eprintln!(
        "graded the fixtures on the bundled cases in {:.1} s",
        run.elapsed.as_secs_f64()
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n  {}\n--- grader stderr ---\n{}",
        problems.len(),
        problems.join("\n  "),
        run.stderr
    );
}

/// The main job's run that CI names (see the test above), or `None` when
/// it names none. A named report that cannot be read fails the test.
fn main_job_run() -> Option<Run> {
    let report = std::env::var_os("GRADER_BUNDLED_REPORT")?;
    let code = std::env::var("GRADER_BUNDLED_EXIT")
        .expect("GRADER_BUNDLED_EXIT names the main job's exit code beside GRADER_BUNDLED_REPORT");
    let text = fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("the main job's report {report:?}: {e}"));
    eprintln!("checking the main job's run: {report:?}");
    Some(Run {
        report: serde_json::from_str(&text).expect("the main job's report is JSON"),
        code: Some(code.trim().parse().expect("an exit code")),
        stderr: String::new(),
        elapsed: Duration::ZERO,
        peak_rss_kib: 0,
        scan_saw_grader: false,
    })
}

#[test]
#[ignore = "slow: a whole class: every fixture submission graded, then the host searched for leftovers"]
fn fixtures_get_their_verdicts_and_leave_nothing_behind() {
    let expected = load_expected();
    let tmp = tempfile::Builder::new()
        .prefix("grader-fixtures-test-")
        .tempdir()
        .expect("tempdir");
    let tmp = tmp.path();
    // The worker drops to an unprivileged user, which must reach the built
    // libraries under TMPDIR (inside this folder).
    fs::set_permissions(tmp, fs::Permissions::from_mode(0o755)).expect("chmod");
    let tmp_text = tmp.display().to_string();
    let submissions = root().join("submissions");
    for marker in tmp_markers() {
        // Left by an earlier run that failed: remove it so this run is judged alone.
        let _ = fs::remove_file(marker);
    }
    let before = snapshot(&submissions);

    // The hand-written solutions must agree with the reference.
    let cases = tmp.join("cases");
    write_cases(&cases, "any");
    let checked = grader()
        .arg("reference")
        .arg("--check")
        .arg(cases.join("fixture.toml"))
        .output()
        .expect("grader reference runs");
    assert!(
        checked.status.success(),
        "the test's cases disagree with the reference:\n{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );

    // Run 1: every fixture, policy "any".
    let run = grade(&submissions, &cases, tmp, "any");
    let mut problems = Vec::new();
    check_main_run(&run, &expected, &mut problems);

    // Run 2: the policy-"first" fixtures, with correct controls (a C file,
    // a Rust crate copied away from the repository, a prebuilt .so).
    let first_cases = tmp.join("cases-first");
    write_cases(&first_cases, "first");
    let first_subs = tmp.join("subs-first");
    fs::create_dir_all(&first_subs).expect("mkdir");
    let mut first_expected: BTreeMap<String, &Expected> = BTreeMap::new();
    for (id, exp) in expected.iter().filter(|(_, e)| e.policy_first) {
        let file = submissions.join(format!("{id}.c"));
        if file.is_file() {
            fs::copy(&file, first_subs.join(format!("{id}.c"))).expect("copy");
        } else {
            copy_tree(&submissions.join(id), &first_subs.join(id));
        }
        first_expected.insert(id.clone(), exp);
    }
    fs::copy(
        submissions.join("c-listing.c"),
        first_subs.join("c-listing.c"),
    )
    .expect("copy");
    copy_tree(
        &submissions.join("rust-trait"),
        &first_subs.join("rust-trait"),
    );
    let built = Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-std=c11", "-I"])
        .arg(root().join("lab/include"))
        .arg("-o")
        .arg(first_subs.join("prebuilt-listing.so"))
        .arg(submissions.join("c-listing.c"))
        .status()
        .expect("cc runs");
    assert!(built.success(), "cc could not build the prebuilt control");
    let controls = [
        ("c-listing", "c"),
        ("rust-trait", "rust"),
        ("prebuilt-listing", "library"),
    ];
    let control_expected: Vec<(String, Expected)> = controls
        .iter()
        .map(|(id, kind)| {
            let functions = ["legal", "find_empty", "solve"]
                .iter()
                .map(|f| (f.to_string(), FunctionExpectation::all_pass()))
                .collect();
            let exp = Expected {
                kind: kind.to_string(),
                status: "ok".to_string(),
                message: None,
                notes: Vec::new(),
                policy_first: true,
                functions,
            };
            (id.to_string(), exp)
        })
        .collect();
    for (id, exp) in &control_expected {
        first_expected.insert(id.clone(), exp);
    }
    let first_run = grade(&first_subs, &first_cases, tmp, "first");
    let first_by_id = submissions_by_id(&first_run.report, &mut problems);
    for (id, exp) in &first_expected {
        match first_by_id.get(id) {
            Some(sub) => check_submission(id, sub, exp, &mut problems),
            None => problems.push(format!("{id}: missing from the policy-first report")),
        }
    }

    // Nothing outlives the runs.
    let deadline = Instant::now() + Duration::from_secs(5);
    let alive = loop {
        let alive = processes_mentioning(&tmp_text);
        if alive.is_empty() || Instant::now() > deadline {
            break alive;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    for p in &alive {
        problems.push(format!("still alive after the run: {p}"));
    }
    if !run.scan_saw_grader {
        problems
            .push("the process scan never saw the running grader: it cannot see leftovers".into());
    }

    // Nothing was written where it should not be.
    for marker in tmp_markers() {
        problems.push(format!(
            "a fixture got through the sandbox: {} exists",
            marker.display()
        ));
        let _ = fs::remove_file(marker);
    }
    for marker in markers_under(tmp)
        .into_iter()
        .chain(markers_under(&submissions))
        .chain(
            fs::read_dir(root())
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("grader-fixture-escaped"))
                }),
        )
    {
        problems.push(format!("a fixture wrote a file: {}", marker.display()));
    }
    let after = snapshot(&submissions);
    if before != after {
        let changed: Vec<String> = after
            .iter()
            .filter(|(p, m)| before.get(*p) != Some(*m))
            .map(|(p, _)| p.display().to_string())
            .chain(
                before
                    .keys()
                    .filter(|p| !after.contains_key(*p))
                    .map(|p| format!("removed {}", p.display())),
            )
            .collect();
        problems.push(format!("submissions/ changed during the run: {changed:?}"));
    }

    // The fixtures that loop without end ran to their limits, and the
    // grader says how much of the run that cost.
    if !run.stderr.contains("test(s) ran to a time limit") {
        problems.push("no note of the time spent in tests that ran to a limit".to_string());
    }

    // The grader stays small while a fixture prints 200 MB.
    let peak_mib = run.peak_rss_kib.max(first_run.peak_rss_kib) / 1024;
    if peak_mib >= 100 {
        problems.push(format!(
            "the grader's peak RSS was {peak_mib} MiB (limit 100 MiB)"
        ));
    }

    eprintln!(
        "graded {} fixtures in {:.1} s and the policy-first set in {:.1} s; grader peak RSS {peak_mib} MiB",
        expected.len(),
        run.elapsed.as_secs_f64(),
        first_run.elapsed.as_secs_f64()
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n  {}\n--- grader stderr (run 1) ---\n{}\n--- grader stderr (run 2) ---\n{}",
        problems.len(),
        problems.join("\n  "),
        run.stderr,
        first_run.stderr
    );
}
