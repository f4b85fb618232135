//! Runs the real `grader grade` with every report format and checks that
//! the JUnit, CSV, HTML and Gradescope reports tell the same story as the
//! JSON report: the same students, scores and per-test points. Also the
//! report flags' usage errors: `--gradescope` with several submissions is
//! refused before grading, and only one report may go to stdout.
//!
//! Submissions: copies of `submissions/c-listing.c` (all pass),
//! `submissions/bug-no-clear.c` (fails the solve tests that backtrack) and
//! `submissions/broken-compile.c` (a build error), graded on `cases/`.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::util::{grader, root, text};

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
    grader()
        .current_dir(root())
        .arg("grade")
        .arg(subs)
        .args(["--cases", "cases"])
        .args(args)
        .output()
        .expect("run grader")
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
            assert_eq!(
                property(&case.properties, "points"),
                test_points.to_string()
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
    assert!(!html.contains("<script"), "no script in the page");
    for (id, (score, max, status, tests)) in facts {
        assert!(html.contains(&format!("<h2>{id}</h2>")), "{id}");
        assert!(html.contains(&format!("{score}/{max}")), "{id}");
        if status == "ok" {
            for (name, _, verdict) in tests.iter().filter(|t| t.2 != "pass") {
                assert!(
                    html.contains(&format!("<h3>{name} <span class=\"fail\">{verdict}</span>")),
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
    assert_eq!(html.matches("<h3>").count(), failing_ok);
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
