//! Runs the real `grader grade` with every report format and checks that
//! the JUnit, CSV, HTML and Gradescope reports tell the same story as the
//! JSON report: the same students, scores and per-test points. Also the
//! report flags' usage errors: `--gradescope` with several submissions is
//! refused before grading, and only one report may go to stdout. The JUnit
//! report is validated with `xmllint` against Jenkins' `junit-10.xsd`
//! (`schemas/`), the HTML page rendered in headless Chromium, the LMS CSV
//! layouts read back, and a submission whose name is an attack (a formula,
//! quotes, `]]>`, an escape sequence) graded beside innocent ones.
//!
//! Submissions: copies of `submissions/c-listing.c` (all pass),
//! `submissions/bug-no-clear.c` (fails the solve tests that backtrack) and
//! `submissions/broken-compile.c` (a build error), graded on `cases/`.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::{Grader, grader, root, text};

/// A folder under `dir` holding copies of the named fixtures.
fn submissions(dir: &Path, fixtures: &[&str]) -> PathBuf {
    let subs = dir.join("subs");
    fs::create_dir_all(&subs).unwrap();
    for name in fixtures {
        fs::copy(root().join("submissions").join(name), subs.join(name)).unwrap();
    }
    subs
}

/// `grader grade SUBS --cases cases ARGS...`, run from the project root.
fn grade(subs: &Path, args: &[&str]) -> Output {
    Grader::new()
        .current_dir(root())
        .arg("grade")
        .arg(subs)
        .args(["--cases", "cases"])
        .args(args)
        .output()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn path_arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temp path")
}

/// The JSON report's facts per student: (score, max_score, status,
/// [(case/function, points, verdict)]).
type Facts = BTreeMap<String, (u64, u64, String, Vec<(String, u64, String)>)>;

fn facts(json: &Value) -> Facts {
    json["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .map(|sub| {
            let tests = sub["tests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    (
                        format!(
                            "{}/{}",
                            t["case"].as_str().unwrap(),
                            t["function"].as_str().unwrap()
                        ),
                        t["points"].as_u64().unwrap(),
                        t["verdict"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            (
                sub["id"].as_str().unwrap().to_string(),
                (
                    sub["score"].as_u64().unwrap(),
                    sub["max_score"].as_u64().unwrap(),
                    sub["status"].as_str().unwrap().to_string(),
                    tests,
                ),
            )
        })
        .collect()
}

#[test]
fn every_format_agrees_with_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let subs = submissions(
        dir.path(),
        &["c-listing.c", "bug-no-clear.c", "broken-compile.c"],
    );
    let out = |name: &str| dir.path().join(name);
    let output = grade(
        &subs,
        &[
            "--json",
            path_arg(&out("r.json")),
            "--junit",
            path_arg(&out("r.xml")),
            "--csv",
            path_arg(&out("r.csv")),
            "--html",
            path_arg(&out("r.html")),
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "some tests fail\n{}",
        text(&output.stderr)
    );
    let json: Value = serde_json::from_str(&read(&out("r.json"))).unwrap();
    let facts = facts(&json);
    let ids: Vec<&str> = facts.keys().map(String::as_str).collect();
    assert_eq!(ids, ["broken-compile", "bug-no-clear", "c-listing"]);
    let (score, max, status, _) = &facts["c-listing"];
    assert_eq!((score, status.as_str()), (max, "ok"), "the listing passes");
    let (score, max, _, _) = &facts["bug-no-clear"];
    assert!(score > &0 && score < max, "bug-no-clear fails some tests");
    assert_eq!(facts["broken-compile"].2, "build_error");

    check_junit(&read(&out("r.xml")), &facts);
    check_csv(&read(&out("r.csv")), &facts);
    check_html(&read(&out("r.html")), &facts);
}

fn check_junit(xml: &str, facts: &Facts) {
    let report = quick_junit::Report::deserialize_from_str(xml).expect("valid JUnit XML");
    assert_eq!(report.name.as_deref(), Some("grader"));
    assert_eq!(report.test_suites.len(), facts.len());
    for suite in &report.test_suites {
        let (score, max, status, tests) = &facts[suite.name.as_str()];
        let property = |props: &[quick_junit::Property], name: &str| {
            props
                .iter()
                .find(|p| p.name.as_str() == name)
                .map(|p| p.value.as_str().to_string())
                .unwrap_or_else(|| panic!("no property {name} in {}", suite.name.as_str()))
        };
        assert_eq!(property(&suite.properties, "score"), score.to_string());
        assert_eq!(property(&suite.properties, "max_score"), max.to_string());
        assert_eq!(&property(&suite.properties, "status"), status);
        let names: Vec<&str> = suite.test_cases.iter().map(|c| c.name.as_str()).collect();
        let expected: Vec<&str> = tests.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(names, expected, "{}", suite.name.as_str());
        let mut points = 0;
        for (case, (_, test_points, verdict)) in suite.test_cases.iter().zip(tests) {
            assert_eq!(case.classname.as_deref(), Some(suite.name.as_str()));
            let max_points = property(&suite.properties, &format!("points:{}", case.name.as_str()));
            assert!(
                max_points.starts_with(&format!("{test_points}/")),
                "{}: {max_points}",
                case.name.as_str()
            );
            points += test_points;
            match (&case.status, verdict.as_str()) {
                (quick_junit::TestCaseStatus::Success { .. }, "pass") => {}
                (quick_junit::TestCaseStatus::NonSuccess { kind, ty, .. }, verdict) => {
                    let expected_kind = if verdict == "error" {
                        quick_junit::NonSuccessKind::Error
                    } else {
                        quick_junit::NonSuccessKind::Failure
                    };
                    assert_eq!(*kind, expected_kind, "{}", case.name.as_str());
                    if status == "ok" {
                        assert_eq!(ty.as_deref(), Some(verdict));
                    } else {
                        assert_eq!(ty.as_deref(), Some(status.as_str()));
                    }
                }
                (other, verdict) => panic!("{}: {other:?} for {verdict}", case.name.as_str()),
            }
        }
        assert_eq!(points, *score);
        let failed = tests.iter().filter(|t| t.2 != "pass").count();
        assert_eq!(suite.failures + suite.errors, failed);
    }
}

fn check_csv(csv: &str, facts: &Facts) {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(header[..5], ["id", "kind", "status", "score", "max_score"]);
    let mut rows = 0;
    for record in reader.records() {
        let record = record.unwrap();
        rows += 1;
        let (score, max, status, tests) = &facts[&record[0]];
        assert_eq!(record[2], **status);
        assert_eq!(record[3], score.to_string());
        assert_eq!(record[4], max.to_string());
        assert_eq!(record.len(), header.len());
        for (name, points, _) in tests {
            let column = header
                .iter()
                .position(|h| h == name)
                .unwrap_or_else(|| panic!("no column {name}"));
            assert_eq!(record[column], points.to_string(), "{} {name}", &record[0]);
        }
    }
    assert_eq!(rows, facts.len());
}

fn check_html(html: &str, facts: &Facts) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(
        html.matches("<script").count(),
        1,
        "one script in the page, the filter's"
    );
    for (id, (score, max, status, tests)) in facts {
        assert!(html.contains(&format!("<summary>{id} ")), "{id}");
        assert!(html.contains(&format!("{score}/{max}")), "{id}");
        if status == "ok" {
            for (name, _, verdict) in tests.iter().filter(|t| t.2 != "pass") {
                assert!(
                    html.contains(&format!(
                        "<summary><span class=\"name\">{name}</span> <span class=\"fail\">{verdict}</span>"
                    )),
                    "{id}: {name}"
                );
            }
        }
    }
    let failing_ok: usize = facts
        .values()
        .filter(|f| f.2 == "ok")
        .map(|f| f.3.iter().filter(|t| t.2 != "pass").count())
        .sum();
    assert_eq!(html.matches("<details class=\"test\">").count(), failing_ok);
}

#[test]
fn gradescope_agrees_with_the_json_for_one_submission() {
    let dir = tempfile::tempdir().unwrap();
    let subs = submissions(dir.path(), &["bug-no-clear.c"]);
    let json_path = dir.path().join("r.json");
    let results_path = dir.path().join("results.json");
    let output = grade(
        &subs,
        &[
            "--json",
            path_arg(&json_path),
            "--gradescope",
            path_arg(&results_path),
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let facts = facts(&serde_json::from_str(&read(&json_path)).unwrap());
    let (score, _, _, tests) = &facts["bug-no-clear"];
    let results: Value = serde_json::from_str(&read(&results_path)).unwrap();
    assert_eq!(results["score"].as_u64(), Some(*score));
    assert!(results["execution_time"].as_f64().unwrap() >= 0.0);
    let gs_tests = results["tests"].as_array().unwrap();
    assert_eq!(gs_tests.len(), tests.len());
    let mut sum = 0;
    for (gs, (name, points, verdict)) in gs_tests.iter().zip(tests) {
        assert_eq!(gs["name"].as_str().unwrap(), name.replace('/', " "));
        assert_eq!(gs["score"].as_u64(), Some(*points));
        let passed = if verdict == "pass" {
            "passed"
        } else {
            "failed"
        };
        assert_eq!(gs["status"], passed, "{name}");
        let visibility = if name.starts_with("hidden-") {
            "after_published"
        } else {
            "visible"
        };
        assert_eq!(gs["visibility"], visibility, "{name}");
        if verdict != "pass" {
            let out = gs["output"].as_str().unwrap();
            assert!(out.starts_with(&format!("{verdict}: ")), "{out}");
        }
        sum += gs["score"].as_u64().unwrap();
    }
    assert_eq!(sum, *score);
}

#[test]
fn gradescope_with_two_submissions_is_refused_before_grading() {
    let dir = tempfile::tempdir().unwrap();
    let subs = submissions(dir.path(), &["c-listing.c", "bug-no-clear.c"]);
    let results = dir.path().join("results.json");
    let output = grade(&subs, &["--gradescope", path_arg(&results)]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("--gradescope needs exactly one submission"),
        "{stderr}"
    );
    assert!(stderr.contains("use --json"), "{stderr}");
    assert!(
        !stderr.contains("sandbox:"),
        "refused before the sandbox was set up: {stderr}"
    );
    assert!(!results.exists(), "no report file was made");
    assert!(output.stdout.is_empty(), "no summary: nothing was graded");
}

#[test]
fn one_report_on_stdout_moves_the_summary_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let subs = submissions(dir.path(), &["c-listing.c"]);
    let output = grade(&subs, &["--csv", "-"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let mut reader = csv::Reader::from_reader(stdout.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1, "{stdout}");
    assert_eq!(&rows[0][0], "c-listing");
    assert_eq!(rows[0][3], rows[0][4], "full marks");
    assert!(text(&output.stderr).contains("1 submissions, 1 passed every test"));
}

#[test]
fn two_reports_on_stdout_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let subs = submissions(dir.path(), &["c-listing.c"]);
    let output = grade(&subs, &["--json", "-", "--html", "-"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("--json and --html ask for stdout"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn an_unwritable_report_path_is_refused_before_grading() {
    let dir = tempfile::tempdir().unwrap();
    let subs = submissions(dir.path(), &["c-listing.c"]);
    let missing = dir.path().join("no-such-folder").join("r.xml");
    let output = grade(&subs, &["--junit", path_arg(&missing)]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("cannot create the JUnit report"),
        "{stderr}"
    );
    assert!(!stderr.contains("sandbox:"), "{stderr}");
}

/// The fixtures of a small class, one of them under a hostile name: a
/// formula, quotes, a comma, `]]>`, markup and a terminal escape that
/// would clear the line.
const HOSTILE_NAME: &str = "=HYPERLINK(\"x\"),\"q\" ]]><b>\u{1b}[2K.c";

fn hostile_class(dir: &Path) -> PathBuf {
    let subs = submissions(dir, &["c-listing.c", "bug-no-clear.c", "broken-compile.c"]);
    fs::copy(
        root().join("submissions/c-listing.c"),
        subs.join(HOSTILE_NAME),
    )
    .unwrap();
    // A newline and a byte that is not UTF-8 (reports show it lossy).
    use std::os::unix::ffi::OsStrExt;
    fs::copy(
        root().join("submissions/c-listing.c"),
        subs.join(std::ffi::OsStr::from_bytes(b"two\nlines\xff.c")),
    )
    .unwrap();
    subs
}

/// Runs a tool the test needs, or fails saying how to install it.
fn tool(name: &str, package: &str) -> Command {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "`{name}` is needed by this test: install it (Debian: apt-get install {package}); .ci/run does"
    );
    Command::new(name)
}

/// Checks `json` against `schemas/report.schema.json` with Python's
/// `jsonschema` (a real consumer of the schema, not our own reading of it).
fn assert_valid_report(json: &Path) {
    let check = tool("python3", "python3")
        .args([
            "-c",
            "import json, sys, jsonschema\n\
             schema = json.load(open(sys.argv[1]))\n\
             jsonschema.Draft202012Validator.check_schema(schema)\n\
             jsonschema.validate(json.load(open(sys.argv[2])), schema)\n\
             print('valid')",
        ])
        .arg(root().join("schemas/report.schema.json"))
        .arg(json)
        .output()
        .unwrap();
    assert!(
        check.status.success() && text(&check.stdout).contains("valid"),
        "{} against schemas/report.schema.json (python3-jsonschema is needed; .ci/run installs it):\n{}\n{}",
        json.display(),
        text(&check.stderr),
        read(json)
    );
}

/// The JSON report follows its schema, with the fields a fault and a
/// failed check add: a `wrong` test names its check, and a grader that
/// cannot build (no compiler on PATH) is a typed fault, not a build error.
#[test]
fn json_validates_against_the_report_schema_with_checks_and_faults() {
    let dir = tempfile::tempdir().unwrap();
    let subs = hostile_class(dir.path());
    let json = dir.path().join("r.json");
    let output = grade(&subs, &["--json", path_arg(&json)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_valid_report(&json);
    let report: Value = serde_json::from_str(&read(&json)).unwrap();
    let no_clear = report["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "bug-no-clear")
        .expect("bug-no-clear graded");
    let checks: Vec<&str> = no_clear["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] == "wrong")
        .map(|t| t["check"].as_str().expect("a wrong test names its check"))
        .collect();
    assert!(checks.contains(&"solve.leftover"), "{checks:?}");
    for sub in report["submissions"].as_array().unwrap() {
        for test in sub["tests"].as_array().unwrap() {
            assert_eq!(
                test["verdict"] == "wrong",
                test.get("check").is_some(),
                "a check id on every wrong test, and only there: {test}"
            );
        }
    }

    // No compiler: a pinned time limit, since the lab's listing cannot be
    // built to time one.
    let empty = dir.path().join("empty-path");
    fs::create_dir_all(&empty).unwrap();
    let cases = dir.path().join("cases");
    fs::create_dir_all(&cases).unwrap();
    fs::copy(root().join("cases/campus.toml"), cases.join("campus.toml")).unwrap();
    fs::write(cases.join("grader.toml"), "time_limit_ms = 1000\n").unwrap();
    let faulted = dir.path().join("faulted.json");
    let output = grader()
        .current_dir(root())
        .arg("grade")
        .arg(&subs)
        .arg("--cases")
        .arg(&cases)
        .args(["--json", path_arg(&faulted)])
        .env("PATH", &empty)
        .output()
        .expect("run grader");
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert_valid_report(&faulted);
    let report: Value = serde_json::from_str(&read(&faulted)).unwrap();
    for sub in report["submissions"].as_array().unwrap() {
        assert_eq!(sub["status"], "grader_error", "{sub}");
        assert_eq!(sub["fault"]["blame"], "grader", "{sub}");
        assert_eq!(sub["fault"]["kind"], "toolchain", "{sub}");
        assert!(
            !sub["message"].as_str().unwrap().contains("not your fault"),
            "the JSON holds the fault typed, not a sentence: {sub}"
        );
    }
}

#[test]
fn junit_validates_against_the_jenkins_schema_for_any_id() {
    let dir = tempfile::tempdir().unwrap();
    let subs = hostile_class(dir.path());
    let xml = dir.path().join("r.xml");
    let output = grade(&subs, &["--junit", path_arg(&xml)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let check = tool("xmllint", "libxml2-utils")
        .arg("--noout")
        .arg("--schema")
        .arg(root().join("schemas/junit-10.xsd"))
        .arg(&xml)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "xmllint: {}\n{}",
        text(&check.stderr),
        read(&xml)
    );
    assert!(
        text(&check.stderr).contains("validates"),
        "{}",
        text(&check.stderr)
    );
    // Points, run facts and wall times are all there.
    let report = quick_junit::Report::deserialize_from_str(&read(&xml)).unwrap();
    let hostile = report
        .test_suites
        .iter()
        .find(|s| s.name.as_str().starts_with("=HYPERLINK"))
        .expect("the hostile submission's suite");
    assert!(
        hostile.name.as_str().contains("\\e[2K"),
        "{}",
        hostile.name.as_str()
    );
    let names: Vec<&str> = hostile.properties.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"grader"), "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("case_file:")),
        "{names:?}"
    );
    assert!(names.iter().any(|n| n.starts_with("points:")), "{names:?}");
    assert!(hostile.test_cases.iter().all(|c| c.time.is_some()));
}

#[test]
fn a_hostile_name_cannot_break_any_report_or_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let subs = hostile_class(dir.path());
    let out = |name: &str| dir.path().join(name);
    let output = grade(
        &subs,
        &[
            "--json",
            path_arg(&out("r.json")),
            "--csv",
            path_arg(&out("r.csv")),
            "--html",
            path_arg(&out("r.html")),
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let summary = text(&output.stdout);
    assert!(
        !summary.contains('\u{1b}'),
        "no escape reaches the terminal: {summary:?}"
    );
    assert!(summary.contains("\\e[2K"), "{summary}");
    let json: Value = serde_json::from_str(&read(&out("r.json"))).unwrap();
    let facts = facts(&json);
    let hostile_id = HOSTILE_NAME.trim_end_matches(".c");
    // The innocent neighbour with the same code scores the same.
    assert_eq!(facts[hostile_id].0, facts["c-listing"].0);
    assert_eq!(facts["two\nlines\u{fffd}"].0, facts["c-listing"].0);
    assert!(
        summary.contains("two\\nlines\\u{fffd}"),
        "one row, newline shown, the id escaped: {summary}"
    );
    let csv = read(&out("r.csv"));
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let ids: Vec<String> = reader
        .records()
        .map(|r| r.unwrap()[0].to_string())
        .collect();
    // Its escape shown (an id with a control character is shown escaped).
    let shown_id = hostile_id.replace('\u{1b}', "\\e");
    assert!(ids.contains(&format!("'{shown_id}")), "{ids:?}");
    let html = read(&out("r.html"));
    assert!(!html.contains("]]><b>"), "markup escaped");
    assert!(
        html.contains("]]&gt;&lt;b&gt;\\e[2K"),
        "escapes shown: {html}"
    );
}

#[test]
fn lms_csv_layouts_follow_the_roster() {
    let dir = tempfile::tempdir().unwrap();
    let subs = submissions(dir.path(), &["c-listing.c", "bug-no-clear.c"]);
    let roster = dir.path().join("roster.csv");
    fs::write(
        &roster,
        "id,lms_id,name,section\nc-listing,s1001,Ada Lovelace,L01\nbug-no-clear,s1002,Alan Turing,L02\n",
    )
    .unwrap();
    let csv_path = dir.path().join("canvas.csv");
    let output = grade(
        &subs,
        &[
            "--csv",
            path_arg(&csv_path),
            "--csv-for",
            "canvas",
            "--roster",
            path_arg(&roster),
            "--csv-assignment",
            "Lab 3 (1234)",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let csv = read(&csv_path);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(csv.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(
        rows[0].iter().collect::<Vec<_>>(),
        [
            "Student",
            "ID",
            "SIS User ID",
            "SIS Login ID",
            "Section",
            "Lab 3 (1234)"
        ]
    );
    assert_eq!(rows[1][0].trim(), "Points Possible");
    let ada = rows
        .iter()
        .find(|r| &r[0] == "Ada Lovelace")
        .expect("Ada's row");
    assert_eq!((&ada[2], &ada[4], &ada[5]), ("s1001", "L01", &rows[1][5]));

    // A roster with a repeated id stops the run before grading.
    fs::write(&roster, "id,lms_id\nc-listing,a\nc-listing,b\n").unwrap();
    let output = grade(
        &subs,
        &[
            "--csv",
            path_arg(&csv_path),
            "--csv-for",
            "moodle",
            "--roster",
            path_arg(&roster),
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("roster.csv:3: the id `c-listing` is already on line 2"),
        "{stderr}"
    );
    assert!(!stderr.contains("sandbox:"), "{stderr}");
    // A roster without --csv is a usage error.
    let output = grade(&subs, &["--roster", path_arg(&roster)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("add --csv PATH"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn gradescope_output_is_text_with_the_visible_score_and_wall_time() {
    let dir = tempfile::tempdir().unwrap();
    let subs = submissions(dir.path(), &["broken-compile.c"]);
    let results_path = dir.path().join("results.json");
    let output = grade(&subs, &["--gradescope", path_arg(&results_path)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let results: Value = serde_json::from_str(&read(&results_path)).unwrap();
    assert_eq!(results["output_format"], "text");
    let top = results["output"].as_str().unwrap();
    assert!(top.starts_with("Score on the visible tests: 0/"), "{top}");
    assert!(top.contains("could not be built"), "{top}");
    assert!(
        top.contains("How this grade was made:\n  grader: grader "),
        "{top}"
    );
    for test in results["tests"].as_array().unwrap() {
        assert_eq!(test["output_format"], "text");
    }
    assert!(
        results["execution_time"].as_f64().unwrap() > 0.0,
        "wall time of the run"
    );
}

#[test]
#[ignore = "slow: headless Chromium renders the HTML report of a class"]
fn the_html_page_shows_the_class_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let subs = hostile_class(dir.path());
    let html = dir.path().join("r.html");
    let output = grade(&subs, &["--html", path_arg(&html)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let browser = |args: &[&str]| {
        let profile = tempfile::tempdir().unwrap();
        let run = tool("chromium", "chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(args)
            .arg(format!("file://{}", html.display()))
            .output()
            .unwrap();
        assert!(run.status.success(), "chromium: {}", text(&run.stderr));
        run
    };
    let dom = text(&browser(&["--dump-dom"]).stdout);
    // What the browser built from the page: the matrix (5 students x the
    // bundled tests), the histogram, the most-failed list, one <details>
    // per student, the failing ones open.
    let rows = dom.matches("<th class=\"id\" scope=\"row\">").count();
    assert_eq!(rows, 5, "{dom}");
    // The filter's script ran (the policy admitted it by its hash) and
    // counted the students (the page without script: the slow tier's
    // class of 200).
    assert!(
        dom.contains("<output id=\"f-count\" aria-live=\"polite\">5 of 5 students shown</output>"),
        "{dom}"
    );
    assert!(
        dom.contains("<div class=\"filter\" id=\"filter\" role=\"search\">"),
        "{dom}"
    );
    assert!(dom.matches("class=\"v-pass\"").count() > 10, "{dom}");
    assert!(dom.contains("class=\"v-wrong\""), "{dom}");
    assert!(dom.contains("<table class=\"histogram\">"), "{dom}");
    assert!(dom.contains("<ol class=\"most-failed\">"), "{dom}");
    assert_eq!(
        dom.matches("<details class=\"student\"").count(),
        5,
        "{dom}"
    );
    assert_eq!(dom.matches("<details class=\"student\" id=\"s").count(), 5);
    assert_eq!(
        dom.matches(" open=\"\"").count(),
        2,
        "the two failing students open: {dom}"
    );
    assert!(!dom.contains("]]><b>"), "the hostile name stays text");
    let shot = dir.path().join("page.png");
    browser(&[
        "--window-size=1200,900",
        "--hide-scrollbars",
        &format!("--screenshot={}", shot.display()),
    ]);
    let png = fs::read(&shot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    assert!(
        png.len() > 10_000,
        "a page with content, not a blank one: {} bytes",
        png.len()
    );
}

/// The rows of a CSV as Python's `csv` module reads them (a header, then
/// one dict per row), as JSON.
fn python_csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import csv, json, sys\nprint(json.dumps(list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))))",
        ])
        .arg(path)
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("python printed JSON")
}

#[test]
fn an_lms_import_is_whole_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let subs = submissions(d, &["c-listing.c", "bug-no-clear.c", "missing-symbol.c"]);
    let results = d.join("results");
    let graded = grade(&subs, &["--results", path_arg(&results)]);
    assert_eq!(graded.status.code(), Some(1), "{}", text(&graded.stderr));
    // missing-symbol is not in the roster; zoe has no submission.
    let roster = d.join("roster.csv");
    fs::write(
        &roster,
        "id,lms_id,name\nc-listing,s1001,Ada Lovelace\nbug-no-clear,s1002,Alan Turing\nzoe,s1003,Zoe Zed\n",
    )
    .unwrap();
    let report = |args: &[&str]| {
        grader()
            .current_dir(root())
            .arg("report")
            .arg(&results)
            .args(args)
            .output()
            .expect("run grader")
    };
    let csv_path = d.join("moodle.csv");
    let json_path = d.join("report.json");
    let out = report(&[
        "--csv",
        path_arg(&csv_path),
        "--csv-for",
        "moodle",
        "--roster",
        path_arg(&roster),
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("1 submission(s) are not in the roster and have no row in the CSV (an LMS refuses an unknown student): missing-symbol"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 roster student(s) have no submission: zoe"),
        "{stderr}"
    );
    let rows = python_csv_rows(&csv_path);
    let usernames: Vec<&str> = rows.iter().map(|r| r["Username"].as_str()).collect();
    // zoe has no row: an import keeps the grade Moodle has for her.
    assert_eq!(usernames, ["s1002", "s1001"], "{rows:?}");
    assert!(rows[1]["Sudoku lab"].parse::<u32>().unwrap() > 0);

    // --roster-strict: the CSV is refused (and not left behind), the JSON
    // report beside it is still written.
    let out = report(&[
        "--csv",
        path_arg(&csv_path),
        "--csv-for",
        "moodle",
        "--roster",
        path_arg(&roster),
        "--roster-strict",
        "--json",
        path_arg(&json_path),
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "the CSV is not written: 1 submission(s) are not in the roster (missing-symbol)"
        ),
        "{stderr}"
    );
    assert!(!csv_path.exists(), "a refused CSV is not left behind");
    assert!(read(&json_path).contains("\"missing-symbol\""));

    // An identifier that starts with - (a valid Moodle username) is
    // written exactly as the LMS knows it.
    fs::write(
        &roster,
        "id,lms_id\nc-listing,-jdoe\nbug-no-clear,s1002\nmissing-symbol,s1004\n",
    )
    .unwrap();
    let canvas = d.join("canvas.csv");
    let out = report(&[
        "--csv",
        path_arg(&canvas),
        "--csv-for",
        "canvas",
        "--roster",
        path_arg(&roster),
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(read(&canvas).contains("\n,,-jdoe,,,"), "{}", read(&canvas));

    // Blackboard: the Column ID is asked for, then written into the header.
    fs::write(
        &roster,
        "id,lms_id,name\nc-listing,s1001,Ada Lovelace\nbug-no-clear,s1002,Alan Turing\nmissing-symbol,s1004,Bo Bo\n",
    )
    .unwrap();
    let blackboard = d.join("blackboard.csv");
    let args = [
        "--csv",
        path_arg(&blackboard),
        "--csv-for",
        "blackboard",
        "--roster",
        path_arg(&roster),
    ];
    let out = report(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--csv-for blackboard needs --csv-column-id ID"),
        "{}",
        text(&out.stderr)
    );
    let out = report(&[&args[..], &["--csv-column-id", "12x"]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not a Column ID"));
    let out = report(&[&args[..], &["--csv-column-id", "12345"]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let rows = python_csv_rows(&blackboard);
    let column = format!(
        "Sudoku lab [Total Pts: {} Score] |12345",
        rows[0]
            .keys()
            .find_map(|k| k.strip_prefix("Sudoku lab [Total Pts: "))
            .and_then(|k| k.split(' ').next())
            .expect("the grade column")
    );
    let ada = rows.iter().find(|r| r["Username"] == "s1001").unwrap();
    assert_eq!(
        (ada["Last Name"].as_str(), ada["First Name"].as_str()),
        ("Lovelace", "Ada")
    );
    assert!(ada[&column].parse::<u32>().unwrap() > 0, "{rows:?}");
    assert!(
        read(&blackboard).starts_with("\"Username\","),
        "every field quoted"
    );
}

/// The notes a notebook and a folder with the student's own tests get
/// are in the JSON report, which still follows its schema.
#[test]
fn notes_are_in_the_json_report_and_follow_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let subs = submissions(dir.path(), &["py-notebook-listing.ipynb"]);
    fs::create_dir(subs.join("ann")).unwrap();
    fs::copy(
        root().join("submissions/py-listing.py"),
        subs.join("ann/sudoku.py"),
    )
    .unwrap();
    fs::write(subs.join("ann/test_sudoku.py"), "import sudoku\n").unwrap();
    let json = dir.path().join("r.json");
    let output = grade(&subs, &["--json", path_arg(&json)]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_valid_report(&json);
    let report: Value = serde_json::from_str(&read(&json)).unwrap();
    let notes = |id: &str| {
        report["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .map(|s| s["notes"].clone())
            .unwrap()
    };
    assert_eq!(
        notes("ann"),
        serde_json::json!(["ignored, not part of the submission: test_sudoku.py"])
    );
    assert!(
        notes("py-notebook-listing")[0]
            .as_str()
            .unwrap()
            .starts_with("took code cells 1, 2, 3, 4 of py-notebook-listing.ipynb"),
        "{report}"
    );
}

/// Two students whose ids look the same, `aaa-x` and `ааа-x` (Cyrillic
/// `а`), graded together: every view for people (the summary lines, the
/// CSV, the HTML, the Markdown summary) tells their rows apart, the
/// look-alike escaped and noted; the JSON keeps both ids as they are; the
/// neighbour `bob` is shown as it is, and every score is the listing's.
#[test]
fn look_alike_ids_are_told_apart_in_every_view() {
    let dir = tempfile::tempdir().unwrap();
    let subs = dir.path().join("subs");
    let latin = "aaa-x";
    let cyrillic = "\u{430}\u{430}\u{430}-x";
    for id in [latin, cyrillic, "bob"] {
        fs::create_dir_all(subs.join(id)).unwrap();
        fs::copy(
            root().join("submissions/c-listing.c"),
            subs.join(id).join("sudoku.c"),
        )
        .unwrap();
    }
    let out = |name: &str| dir.path().join(name);
    let output = grade(
        &subs,
        &[
            "--json",
            path_arg(&out("r.json")),
            "--csv",
            path_arg(&out("r.csv")),
            "--html",
            path_arg(&out("r.html")),
            "--summary-md",
            path_arg(&out("r.md")),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let escaped = "\\u{430}\\u{430}\\u{430}-x";
    let json: Value = serde_json::from_str(&read(&out("r.json"))).unwrap();
    let facts = facts(&json);
    assert_eq!(facts.len(), 3, "{facts:?}");
    for id in [latin, cyrillic, "bob"] {
        assert_eq!(facts[id].0, facts[id].1, "{id}: the listing's score");
    }
    // The lines on a pipe, one a student, then the notes and the totals.
    let summary = text(&output.stdout);
    // Rows are padded to the widest id shown (the table's column).
    let starts = |id: &str| {
        summary
            .lines()
            .filter(|l| {
                l.strip_prefix(id).is_some_and(|rest| {
                    rest.starts_with(' ') && rest.trim_start().starts_with("c  ")
                })
            })
            .count()
    };
    assert_eq!(starts("aaa-x"), 1, "{summary}");
    assert_eq!(starts(escaped), 1, "{summary}");
    assert_eq!(starts("bob"), 1, "{summary}");
    assert!(!summary.contains(cyrillic), "{summary}");
    assert!(
        summary.contains(&format!(
            "note: the id `{escaped}` is shown escaped: it looks like `aaa-x`"
        )),
        "{summary}"
    );
    // The CSV: two different ids, the look-alike escaped.
    let csv = read(&out("r.csv"));
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let mut ids: Vec<String> = reader
        .records()
        .map(|r| r.unwrap()[0].to_string())
        .collect();
    ids.sort();
    let mut want = vec!["aaa-x", "bob", escaped];
    want.sort();
    assert_eq!(ids, want, "{csv}");
    // The HTML: the matrix's row and the student's block, and the note.
    let html = read(&out("r.html"));
    assert!(!html.contains(cyrillic), "{html}");
    assert!(html.contains(&format!(">{escaped}</a></th>")), "{html}");
    assert!(html.contains(&format!("<summary>{escaped} ")), "{html}");
    assert!(
        html.contains("Note: the id `aaa-x` is shown escaped"),
        "{html}"
    );
    let md = read(&out("r.md"));
    assert!(!md.contains(cyrillic), "{md}");
    assert!(md.contains("| \\\\u{430}"), "{md}");
}

/// Student text in `--summary-md` never becomes a link: a build error
/// whose `#error` line holds a URL, a `www.` address and an email, and a
/// student named like a web address, rendered by GitHub's own Markdown
/// renderer (`cmark-gfm` with its autolink and table extensions) beside the
/// listing: no `<a` in the page, and the text still reads the same.
#[test]
fn no_student_text_becomes_a_link_in_the_markdown_summary() {
    let dir = tempfile::tempdir().unwrap();
    let subs = submissions(dir.path(), &["c-listing.c"]);
    fs::write(
        subs.join("linked.c"),
        "#error \"grade me at https://evil.example/grade or www.evil.example, or mail me@evil.example\"\n",
    )
    .unwrap();
    fs::copy(
        root().join("submissions/c-listing.c"),
        subs.join("www.evil.example.c"),
    )
    .unwrap();
    let md = dir.path().join("r.md");
    let output = grade(&subs, &["--summary-md", path_arg(&md)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let summary = read(&md);
    let plain = summary.replace('\u{200d}', "");
    assert!(plain.contains("https://evil.example/grade"), "{summary}");
    assert!(plain.contains("| www.evil.example |"), "{summary}");
    let rendered = tool("cmark-gfm", "cmark-gfm")
        .args(["-e", "autolink", "-e", "table"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(summary.as_bytes())?;
            child.wait_with_output()
        })
        .expect("cmark-gfm runs");
    assert!(rendered.status.success(), "{}", text(&rendered.stderr));
    let html = text(&rendered.stdout);
    assert!(html.contains("<table>"), "a table: {html}");
    assert!(html.contains("evil.example/grade"), "{html}");
    assert!(!html.contains("<a "), "a link: {html}");
    // The renderer does link the same text without the joiners.
    let raw = tool("cmark-gfm", "cmark-gfm")
        .args(["-e", "autolink", "-e", "table"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(plain.as_bytes())?;
            child.wait_with_output()
        })
        .expect("cmark-gfm runs");
    assert!(text(&raw.stdout).contains("<a "), "the test can fail");
}
