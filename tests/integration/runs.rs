//! Runs that stream, resume and shard, through the real `grader` binary:
//! `--jsonl`, `--results DIR` (and a run killed with SIGKILL halfway),
//! `grader report`, `--shard K/N` + `grader merge` against a single run,
//! `grader diff`, `--fail-under`, `--summary-md`, and the summary line of
//! each student arriving on a pipe before the run ends.
//!
//! The class is a few bundled fixtures (correct, one bug, does not build,
//! a missing symbol, a solve that never returns) graded against the small
//! bundled campus cases.

use serde_json::Value;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{Dir, grader, json, root, run_in, text, timeless};

/// A temp dir holding `cases/` (the bundled campus cases) and
/// `submissions/` with the named fixtures, each copied under the given id.
fn class(members: &[(&str, &str)]) -> Dir {
    members.iter().fold(
        Dir::new().cases(&["campus.toml", "grader.toml"]),
        |dir, (id, fixture)| dir.submission(id, fixture),
    )
}

const SMALL_CLASS: [(&str, &str); 5] = [
    ("ada", "c-listing.c"),
    ("bob", "bug-no-clear.c"),
    ("cy", "broken-compile.c"),
    ("dee", "missing-symbol.c"),
    ("eve", "bug-legal-no-box.c"),
];

fn result_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().ends_with(".result.json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn a_rerun_reuses_unchanged_results_and_regrades_a_changed_submission() {
    let dir = class(&SMALL_CLASS);
    let d = dir.path();
    let args = [
        "grade",
        "submissions",
        "--cases",
        "cases",
        "--results",
        "results",
        "--json",
        "first.json",
        "--jsonl",
        "first.jsonl",
    ];
    let first = run_in(d, &args);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
    assert_eq!(result_files(&d.join("results")).len(), 5);
    let lines: Vec<Value> = fs::read_to_string(d.join("first.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 5);
    let first_report = json(&d.join("first.json"));
    for line in &lines {
        let id = &line["id"];
        let in_report = first_report["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| &s["id"] == id)
            .expect("the line's student is in the report");
        assert_eq!(timeless(line.clone()), timeless(in_report.clone()));
    }

    // Unchanged: everything reused, nothing graded, the same report.
    let second = run_in(
        d,
        &[
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--results",
            "results",
            "--json",
            "second.json",
        ],
    );
    let stderr = text(&second.stderr);
    assert!(stderr.contains("reusing 5 stored results"), "{stderr}");
    assert_eq!(
        text(&second.stdout).matches("(stored result)").count(),
        5,
        "{}",
        text(&second.stdout)
    );
    // The run section says when this run ran; the results are the same.
    let without_run = |mut v: Value| {
        if let Some(map) = v.as_object_mut() {
            map.remove("run");
        }
        v
    };
    assert_eq!(
        without_run(json(&d.join("second.json"))),
        without_run(first_report.clone()),
        "reused results are the same, times too"
    );

    // bob fixes his bug: only bob is graded again.
    fs::copy(
        root().join("submissions/c-listing.c"),
        d.join("submissions/bob.c"),
    )
    .unwrap();
    let third = run_in(
        d,
        &[
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--results",
            "results",
            "--json",
            "third.json",
        ],
    );
    assert!(
        text(&third.stderr).contains("reusing 4 stored results"),
        "{}",
        text(&third.stderr)
    );
    let stdout = text(&third.stdout);
    let bob = stdout
        .lines()
        .find(|l| l.starts_with("bob "))
        .expect("bob's line");
    assert!(!bob.contains("stored"), "{stdout}");
    assert!(bob.contains("12/12"), "{stdout}");

    // Other cases: nothing is reused.
    fs::write(d.join("cases/grader.toml"), "time_limit_ms = 900\n").unwrap();
    let fourth = run_in(
        d,
        &[
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--results",
            "results",
        ],
    );
    assert!(
        !text(&fourth.stderr).contains("reusing"),
        "{}",
        text(&fourth.stderr)
    );

    // `grader report` writes any format from the folder.
    let replay = run_in(
        d,
        &[
            "report",
            "results",
            "--json",
            "replay.json",
            "--csv",
            "replay.csv",
        ],
    );
    assert_eq!(replay.status.code(), Some(1), "{}", text(&replay.stderr));
    let replayed = json(&d.join("replay.json"));
    assert_eq!(replayed["submissions"].as_array().unwrap().len(), 5);
    assert!(
        fs::read_to_string(d.join("replay.csv"))
            .unwrap()
            .starts_with("id,")
    );
}

#[test]
#[ignore = "slow: a whole class: graded, killed halfway and graded again"]
fn a_run_killed_halfway_keeps_every_finished_result_and_the_rerun_grades_only_the_rest() {
    // Slow students (a solve that never returns: 1 s per solve test) after
    // fast ones, one at a time, so the kill lands mid-run.
    let dir = class(&[
        ("a1", "c-listing.c"),
        ("a2", "bug-no-clear.c"),
        ("b1", "hostile-infinite-loop.c"),
        ("b2", "hostile-infinite-loop.c"),
        ("b3", "hostile-infinite-loop.c"),
        ("b4", "hostile-infinite-loop.c"),
    ]);
    let d = dir.path();
    let mut child = grader()
        .args(["grade", "submissions", "--cases", "cases", "--jobs", "1"])
        .args(["--results", "results", "--jsonl", "run.jsonl"])
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("grader starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    while result_files(&d.join("results")).len() < 3 {
        assert!(Instant::now() < deadline, "no results after 120 s");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the kill"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("SIGKILL");
    child.wait().unwrap();
    let kept = result_files(&d.join("results"));
    assert!(kept.len() >= 3 && kept.len() < 6, "{kept:?}");
    for file in &kept {
        let stored = json(file);
        assert!(stored["result"]["id"].is_string(), "{}", file.display());
    }
    let streamed = fs::read_to_string(d.join("run.jsonl")).unwrap();
    for line in streamed.lines() {
        serde_json::from_str::<Value>(line).expect("every streamed line is whole JSON");
    }
    // A result is stored, then streamed: the kill may fall between.
    let lines = streamed.lines().count();
    assert!(
        lines + 1 >= kept.len() && lines <= kept.len(),
        "{lines} lines, {kept:?}"
    );

    let rerun = run_in(
        d,
        &[
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--jobs",
            "1",
            "--results",
            "results",
            "--json",
            "all.json",
        ],
    );
    let stderr = text(&rerun.stderr);
    assert!(
        stderr.contains(&format!("reusing {} stored results", kept.len())),
        "{stderr}"
    );
    let stdout = text(&rerun.stdout);
    assert_eq!(
        stdout.matches("(stored result)").count(),
        kept.len(),
        "{stdout}"
    );
    let report = json(&d.join("all.json"));
    let ids: Vec<&str> = report["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a1", "a2", "b1", "b2", "b3", "b4"]);
    assert_eq!(result_files(&d.join("results")).len(), 6);
}

#[test]
fn three_shards_merged_equal_one_run() {
    let dir = class(&SMALL_CLASS);
    let d = dir.path();
    let single = run_in(
        d,
        &[
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--json",
            "single.json",
            "--csv",
            "single.csv",
        ],
    );
    assert_eq!(single.status.code(), Some(1));
    let mut shards = Vec::new();
    let mut graded = 0;
    for k in 1..=3 {
        let name = format!("shard-{k}.json");
        let out = run_in(
            d,
            &[
                "grade",
                "submissions",
                "--cases",
                "cases",
                "--shard",
                &format!("{k}/3"),
                "--json",
                &name,
            ],
        );
        assert!(
            out.status.code() == Some(0) || out.status.code() == Some(1),
            "{}",
            text(&out.stderr)
        );
        graded += json(&d.join(&name))["submissions"]
            .as_array()
            .unwrap()
            .len();
        shards.push(name);
    }
    assert_eq!(graded, 5, "every student in exactly one shard");
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend([
        "--cases",
        "cases",
        "--json",
        "merged.json",
        "--csv",
        "merged.csv",
    ]);
    let merged = run_in(d, &args);
    assert_eq!(merged.status.code(), Some(1), "{}", text(&merged.stderr));
    assert_eq!(
        timeless(json(&d.join("merged.json"))),
        timeless(json(&d.join("single.json")))
    );
    assert_eq!(
        fs::read_to_string(d.join("merged.csv")).unwrap(),
        fs::read_to_string(d.join("single.csv")).unwrap()
    );

    // The same shard twice: refused.
    let twice = run_in(
        d,
        &[
            "merge",
            "single.json",
            &shards[0],
            "--cases",
            "cases",
            "--json",
            "x.json",
        ],
    );
    assert_eq!(twice.status.code(), Some(2));
    assert!(
        text(&twice.stderr).contains("overlap"),
        "{}",
        text(&twice.stderr)
    );

    // Without --cases: the case set the shards record, hashes checked.
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend(["--json", "recorded.json"]);
    let merged = run_in(d, &args);
    let stderr = text(&merged.stderr);
    assert_eq!(merged.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cases: the 1 case file(s) the shards record, SHA-256 checked"),
        "{stderr}"
    );
    assert!(!stderr.contains("built-in"), "{stderr}");
    assert_eq!(
        timeless(json(&d.join("recorded.json"))),
        timeless(json(&d.join("single.json")))
    );

    // Graded on other cases than --cases: refused.
    let other_cases = d.join("other-cases");
    fs::create_dir(&other_cases).unwrap();
    fs::copy(d.join("cases/grader.toml"), other_cases.join("grader.toml")).unwrap();
    let campus = fs::read_to_string(d.join("cases/campus.toml")).unwrap();
    fs::write(
        other_cases.join("campus.toml"),
        campus.replacen("[[case]]", "[[case]]\npoints = 5", 1),
    )
    .unwrap();
    let other = run_in(
        d,
        &[
            "merge",
            "single.json",
            "--cases",
            "other-cases",
            "--json",
            "x.json",
        ],
    );
    assert_eq!(other.status.code(), Some(2));
    assert!(
        text(&other.stderr).contains("other cases"),
        "{}",
        text(&other.stderr)
    );

    // Shards graded on different case sets: refused, both named.
    let out = run_in(
        d,
        &[
            "grade",
            "submissions",
            "--cases",
            "other-cases",
            "--shard",
            "1/3",
            "--json",
            "other-shard-1.json",
        ],
    );
    assert!(out.status.code() == Some(0) || out.status.code() == Some(1));
    let mixed = run_in(
        d,
        &[
            "merge",
            "other-shard-1.json",
            &shards[1],
            "--json",
            "x.json",
        ],
    );
    let stderr = text(&mixed.stderr);
    assert_eq!(mixed.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("other-shard-1.json and shard-2.json were graded on different cases (other-cases/campus.toml (")
            && stderr.contains(") against cases/campus.toml ("),
        "{stderr}"
    );

    // A recorded case file changed since, or not there: refused.
    fs::write(d.join("cases/campus.toml"), format!("{campus}\n# edited\n")).unwrap();
    let changed = run_in(d, &["merge", &shards[0], &shards[1], "--json", "x.json"]);
    let stderr = text(&changed.stderr);
    assert_eq!(changed.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cases/campus.toml has changed since the shards were graded"),
        "{stderr}"
    );
    fs::write(d.join("cases/campus.toml"), &campus).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let shard_path = d.join(&shards[0]);
    let missing = run_in(
        elsewhere.path(),
        &["merge", shard_path.to_str().unwrap(), "--json", "x.json"],
    );
    let stderr = text(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot read cases/campus.toml, a case file the shards were graded on: run merge in the folder grade ran in"),
        "{stderr}"
    );

    // Another grader version (in the report's provenance): refused.
    for (name, version) in [("v1.json", "0.1.0"), ("v2.json", "0.2.0")] {
        let mut report = json(&d.join(if name == "v1.json" {
            &shards[0]
        } else {
            &shards[1]
        }));
        report["run"]["grader"] = format!("grader {version}").into();
        fs::write(d.join(name), report.to_string()).unwrap();
    }
    let versions = run_in(
        d,
        &[
            "merge", "v1.json", "v2.json", "--cases", "cases", "--json", "x.json",
        ],
    );
    assert_eq!(versions.status.code(), Some(2));
    assert!(
        text(&versions.stderr).contains("different grading runs"),
        "{}",
        text(&versions.stderr)
    );
}

#[test]
fn diff_names_the_students_and_tests_that_changed() {
    let dir = class(&[("ada", "c-listing.c"), ("bob", "bug-no-clear.c")]);
    let d = dir.path();
    run_in(
        d,
        &[
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--json",
            "old.json",
        ],
    );
    let same = run_in(d, &["diff", "old.json", "old.json"]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stdout));
    assert!(text(&same.stdout).contains("no score or verdict changed"));

    fs::copy(
        root().join("submissions/bug-legal-no-box.c"),
        d.join("submissions/ada.c"),
    )
    .unwrap();
    run_in(
        d,
        &[
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--json",
            "new.json",
        ],
    );
    let changed = run_in(d, &["diff", "old.json", "new.json"]);
    assert_eq!(changed.status.code(), Some(1));
    let stdout = text(&changed.stdout);
    assert!(stdout.contains("ada: 12/12 -> "), "{stdout}");
    assert!(
        stdout.contains("campus-4x4 legal: pass -> wrong"),
        "{stdout}"
    );
    assert!(!stdout.contains("bob"), "{stdout}");
    assert!(stdout.contains("1 students changed"), "{stdout}");

    let bad = run_in(d, &["diff", "old.json", "cases/grader.toml"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("is not a JSON report"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn fail_under_sets_the_exit_code_by_score_and_the_summary_is_markdown() {
    let dir = class(&[("bob", "bug-legal-no-box.c")]);
    let d = dir.path();
    let base = ["grade", "submissions", "--cases", "cases"];
    let score = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend(extra);
        run_in(d, &args).status.code()
    };
    // bob: legal misses the box rule, 8 of 12 points (67%).
    assert_eq!(score(&[]), Some(1));
    assert_eq!(score(&["--fail-under", "60"]), Some(0));
    assert_eq!(
        score(&["--fail-under", "70", "--summary-md", "summary.md"]),
        Some(1)
    );
    let summary = fs::read_to_string(d.join("summary.md")).unwrap();
    assert!(
        summary
            .contains("| bob | c | 8/12 | campus-4x4 legal (wrong), campus-last-digit legal (wrong), campus-dead-end legal (wrong), campus-clash legal (wrong) |"),
        "{summary}"
    );
    let bad = run_in(d, &["grade", "submissions", "--fail-under", "120"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("from 0 to 100"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
#[ignore = "slow: a whole class graded while its lines are timed on a pipe"]
fn on_a_pipe_each_students_line_arrives_as_soon_as_they_are_graded() {
    let dir = class(&[
        ("a-fast", "c-listing.c"),
        ("b-slow", "hostile-infinite-loop.c"),
    ]);
    let mut child = grader()
        .args(["grade", "submissions", "--cases", "cases", "--jobs", "1"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("grader starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let header = lines.next().expect("the header").unwrap();
    assert!(header.starts_with("student  kind"), "{header}");
    let first = lines.next().expect("a first line").unwrap();
    let words = |line: &str| {
        line.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        words(&first),
        ["a-fast", "c", "12/12", "all", "passed"],
        "{first}"
    );
    assert!(
        child.try_wait().unwrap().is_none(),
        "the first line came only when the run ended"
    );
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    child.wait().unwrap();
    assert_eq!(words(&rest[0])[..2], ["b-slow", "c"], "{rest:?}");
    assert!(rest[0].contains("timeout"), "{rest:?}");
    assert_eq!(rest.last().unwrap(), "2 submissions, 1 passed every test");
}

/// The listing's timing is kept in the user's cache folder and reused only
/// under the same key: a second run reads the kept time (here doctored to
/// 77 ms, which the run's limits then show), a kept file of another key is
/// a miss (timed anew), and a cache folder another user could write to is
/// refused, said, and not used.
#[test]
fn the_listings_timing_is_kept_between_runs_under_its_key() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path();
    fs::create_dir_all(work.join("cases")).unwrap();
    for file in ["campus.toml", "grader.toml"] {
        fs::copy(
            root().join("cases").join(file),
            work.join("cases").join(file),
        )
        .unwrap();
    }
    fs::create_dir_all(work.join("subs")).unwrap();
    fs::copy(
        root().join("submissions/c-listing.c"),
        work.join("subs/alice.c"),
    )
    .unwrap();
    let cache = work.join("cache");
    let grade = |cache: &Path| {
        let out = grader()
            .args(["grade", "subs", "--cases", "cases", "--json", "r.json"])
            .current_dir(work)
            .env("XDG_CACHE_HOME", cache)
            .output()
            .expect("grader runs");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let report = json(&work.join("r.json"));
        let listed: Vec<u64> = report["run"]["limits"]["time_limits"]
            .as_array()
            .expect("the limits")
            .iter()
            .filter(|l| l["language"] == "c")
            .map(|l| l["listing_ms"].as_u64().expect("a time"))
            .collect();
        (listed, text(&out.stderr))
    };
    let (first, said) = grade(&cache);
    assert!(!first.is_empty());
    assert!(said.contains("listing timed now in c"), "{said}");
    assert!(!said.contains("kept from an earlier run"), "{said}");
    let kept = cache.join("grader/listing-c.json");
    let mut stored: Value = serde_json::from_str(&fs::read_to_string(&kept).unwrap()).unwrap();
    for timed in stored["times"].as_object_mut().unwrap().values_mut() {
        timed["ms"] = Value::from(77);
    }
    fs::write(&kept, serde_json::to_vec(&stored).unwrap()).unwrap();
    let (second, said) = grade(&cache);
    assert!(second.iter().all(|&ms| ms == 77), "{second:?}");
    // The run says where its times came from: none were timed now.
    assert!(
        said.contains("times of c kept from an earlier run on this host"),
        "{said}"
    );
    assert!(!said.contains("timed now"), "{said}");
    // Another key (another grader, host or toolchain wrote it): timed anew.
    stored["key"] = Value::from("another key");
    fs::write(&kept, serde_json::to_vec(&stored).unwrap()).unwrap();
    let (third, _) = grade(&cache);
    assert!(third.iter().all(|&ms| ms != 77), "{third:?}");
    // A folder others may write to: refused, said, and nothing kept there.
    let open = work.join("open");
    fs::create_dir_all(open.join("grader")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(open.join("grader"), fs::Permissions::from_mode(0o777)).unwrap();
    let (_, said) = grade(&open);
    assert!(said.contains("its cache folder is refused"), "{said}");
    assert!(!open.join("grader/listing-c.json").exists());
}
