//! What the grader reads back and trusts, through the real binary:
//!
//! - a result with a grader fault in any test (`host_busy` after its
//!   reruns) is not graded in every report, never a score;
//! - a report read back (`merge`, `report`, `--results`) has its score,
//!   points and status recomputed from its tests: a forged shard is
//!   refused naming the student and the file, an honest one beside it
//!   merges;
//! - the results folder is opened as trusted state: refused when another
//!   user made it or can write to it or to a folder on its path, or when
//!   it is a link; a FIFO, a link to `/dev/zero`, another user's file or
//!   a huge file at a student's result name is refused or regraded, never
//!   a hang or a huge read;
//! - the LMS files: a roster student without a submission left out by
//!   default (`--roster-missing zero` writes 0), every layout's file run
//!   through Moodle's import rule, identifiers kept exactly, Blackboard's
//!   names split at the comma.
//!
//! Tests that plant another user's files need root (chown to a spare uid);
//! without it they say they skipped, and with `CI=true` they fail.

use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::{Dir, code, grader, json as read_json, printed, text};

/// A uid no account uses, for "another user's" folders and files.
const STRANGER: u32 = 4242;

/// True when running as root; otherwise says the test skipped, or fails
/// it under `CI=true` (where root is a given).
fn as_root(what: &str) -> bool {
    let root = fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .map(|u| u.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false);
    if !root {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{what} needs root (to chown to uid {STRANGER}), and CI runs as root"
        );
        eprintln!("{what} needs root: skipped");
    }
    root
}

/// Runs `grader args` in `dir`, killed (and the test failed) if it takes
/// longer than `limit`: a FIFO must never hang the grader.
fn bounded(dir: &Path, args: &[&str], limit: Duration) -> Output {
    let mut child = grader()
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start grader");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().expect("reap");
            panic!(
                "grader {args:?} still ran after {limit:?} (killed)\n{}",
                printed(&output)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

/// A class folder: the bundled cases, `alice` (the C listing: 27/27) and
/// `bob` (a solve that leaves digits behind).
fn class() -> Dir {
    Dir::new()
        .cases(&[
            "campus.toml",
            "grader.toml",
            "big.toml",
            "hidden.toml",
            "newspaper.toml",
        ])
        .submission("alice", "c-listing.c")
        .submission("bob", "bug-no-clear.c")
}

/// `grade` of `class()` with `--json shard.json`; the report.
fn graded_shard(dir: &Dir) -> Value {
    dir.grader()
        .args([
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--json",
            "shard.json",
        ])
        .expect(1);
    read_json(&dir.join("shard.json"))
}

fn write_json(path: &Path, value: &Value) {
    fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

fn submission<'a>(report: &'a mut Value, id: &str) -> &'a mut Value {
    report["submissions"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("{id} in the report"))
}

/// alice's second test as the runner leaves a test the host was too busy
/// to time after its reruns.
fn make_busy(alice: &mut Value) {
    let test = &mut alice["tests"][1];
    test["verdict"] = "error".into();
    test["points"] = 0.into();
    test["reruns"] = 2.into();
    test["fault"] = json!({"blame": "grader", "kind": "host_busy"});
    test["message"] = "the host was too busy to time this test".into();
}

#[test]
fn a_result_with_a_grader_fault_is_not_graded_in_any_report() {
    let dir = class();
    let mut report = graded_shard(&dir);
    // As the grader writes it now: not graded, no score.
    let alice = submission(&mut report, "alice");
    make_busy(alice);
    alice["status"] = "grader_error".into();
    alice["score"] = Value::Null;
    alice["fault"] = json!({"blame": "grader", "kind": "host_busy"});
    write_json(&dir.join("busy.json"), &report);

    let merged = dir
        .grader()
        .args(["merge", "busy.json", "--cases", "cases"])
        .args(["--json", "m.json", "--html", "m.html", "--junit", "m.xml"])
        .expect(2);
    let stdout = text(&merged.stdout);
    let line = stdout.lines().find(|l| l.starts_with("alice")).unwrap();
    assert!(
        line.contains("not graded") && !line.contains("26/27"),
        "{line}"
    );
    assert!(stdout.contains("bob "), "the neighbour is listed: {stdout}");
    let json = read_json(&dir.join("m.json"));
    let alice = &json["submissions"][0];
    assert_eq!(alice["status"], "grader_error", "{alice}");
    assert_eq!(alice["score"], Value::Null, "{alice}");
    let bob = &json["submissions"][1];
    assert_eq!(
        (&bob["status"], bob["score"].as_u64().is_some()),
        (&"ok".into(), true)
    );
    let html = fs::read_to_string(dir.join("m.html")).unwrap();
    assert!(
        html.contains("<td class=\"score fail\">not graded</td>"),
        "html"
    );
    assert!(
        fs::read_to_string(dir.join("m.xml"))
            .unwrap()
            .contains("value=\"not graded\"")
    );

    for layout in ["plain", "moodle", "canvas", "blackboard"] {
        let csv = format!("{layout}.csv");
        let mut args = vec!["merge", "busy.json", "--cases", "cases", "--csv", &csv];
        if layout != "plain" {
            args.extend(["--csv-for", layout]);
        }
        if layout == "blackboard" {
            args.extend(["--csv-column-id", "123"]);
        }
        let out = dir.grader().args(&args).expect(2);
        let written = fs::read_to_string(dir.join(&csv)).unwrap();
        if layout == "plain" {
            let row = written.lines().find(|l| l.starts_with("alice,")).unwrap();
            assert!(row.starts_with("alice,c,grader_error,,27,"), "{row}");
        } else {
            assert!(
                !written.contains("alice"),
                "{layout}: no row, the grade kept: {written}"
            );
            assert!(written.contains("bob"), "{layout}: {written}");
            assert!(
                text(&out.stderr).contains("not graded"),
                "{}",
                printed(&out)
            );
        }
    }

    // One student: Gradescope and Classroom.
    let mut alone = report.clone();
    alone["submissions"]
        .as_array_mut()
        .unwrap()
        .retain(|s| s["id"] == "alice");
    write_json(&dir.join("alone.json"), &alone);
    dir.grader()
        .args([
            "merge",
            "alone.json",
            "--cases",
            "cases",
            "--gradescope",
            "gs.json",
        ])
        .args(["--classroom", "classroom.txt"])
        .expect(2);
    let gs = read_json(&dir.join("gs.json"));
    assert_eq!(gs["score"], 0);
    assert!(
        gs["output"].as_str().unwrap().starts_with("Not graded"),
        "{gs}"
    );
    let encoded = fs::read_to_string(dir.join("classroom.txt")).unwrap();
    let decoded = Command::new("base64")
        .arg("-d")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(encoded.trim().as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    let classroom: Value = serde_json::from_slice(&decoded.stdout).unwrap();
    assert_eq!(classroom["status"], "error");
    assert!(
        classroom["tests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["score"] == 0),
        "{classroom}"
    );

    // What an earlier grader wrote (status ok, the partial score, the
    // fault flag beside it) is refused, not read as a grade.
    let mut old = graded_shard(&dir);
    make_busy(submission(&mut old, "alice"));
    submission(&mut old, "alice")["score"] = 26.into();
    write_json(&dir.join("old.json"), &old);
    let refused = dir
        .grader()
        .args(["merge", "old.json", "--cases", "cases", "--csv", "old.csv"])
        .expect(2);
    let stderr = text(&refused.stderr);
    assert!(stderr.contains("old.json is refused"), "{stderr}");
    assert!(
        stderr.contains("`alice`: its status is stored as `ok`, but the grader failed on it"),
        "{stderr}"
    );
    assert!(!dir.join("old.csv").exists());
}

#[test]
fn merge_refuses_a_shard_whose_stored_score_disagrees_and_merges_an_honest_one() {
    let dir = class();
    let mut report = graded_shard(&dir);
    let mut honest = report.clone();
    honest["submissions"]
        .as_array_mut()
        .unwrap()
        .retain(|s| s["id"] == "alice");
    write_json(&dir.join("honest.json"), &honest);
    // bob's shard: all 27 tests wrong with 0 points, and "score": 27.
    report["submissions"]
        .as_array_mut()
        .unwrap()
        .retain(|s| s["id"] == "bob");
    let bob = submission(&mut report, "bob");
    for test in bob["tests"].as_array_mut().unwrap() {
        test["verdict"] = "wrong".into();
        test["points"] = 0.into();
        test["check"] = "solve.leftover".into();
    }
    assert_eq!(bob["tests"].as_array().unwrap().len(), 27);
    bob["score"] = 27.into();
    write_json(&dir.join("forged.json"), &report);

    let out = dir
        .grader()
        .args([
            "merge",
            "honest.json",
            "forged.json",
            "--cases",
            "cases",
            "--csv",
            "all.csv",
        ])
        .expect(2);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("forged.json is refused")
            && stderr
                .contains("`bob`: its score is stored as 27, but its tests' points add up to 0"),
        "{stderr}"
    );
    assert!(!dir.join("all.csv").exists(), "nothing written");

    let out = dir
        .grader()
        .args([
            "merge",
            "honest.json",
            "--cases",
            "cases",
            "--csv",
            "honest.csv",
        ])
        .expect(0);
    let csv = fs::read_to_string(dir.join("honest.csv")).unwrap();
    assert!(
        csv.lines().nth(1).unwrap().starts_with("alice,c,ok,27,27,"),
        "{csv}\n{}",
        printed(&out)
    );
}

/// `grade --results results` of `class()`; the result files by student.
fn graded_results(dir: &Dir) -> (PathBuf, PathBuf) {
    dir.grader()
        .args([
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--results",
            "results",
        ])
        .expect(1);
    let file = |id: &str| {
        fs::read_dir(dir.join("results"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("{id}-"))
            })
            .unwrap_or_else(|| panic!("{id}'s result"))
    };
    (file("alice"), file("bob"))
}

#[test]
fn a_stored_result_that_disagrees_is_refused_by_report_and_regraded_by_grade() {
    let dir = class();
    let (alice, _) = graded_results(&dir);
    let mut stored = read_json(&alice);
    stored["result"]["score"] = 3.into();
    write_json(&alice, &stored);
    let out = dir
        .grader()
        .args(["report", "results", "--json", "r.json"])
        .expect(2);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{} is refused",
            alice.file_name().unwrap().to_string_lossy()
        )) && stderr
            .contains("`alice`: its score is stored as 3, but its tests' points add up to 27"),
        "{stderr}"
    );
    let out = dir
        .grader()
        .args([
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--results",
            "results",
            "--json",
            "g.json",
        ])
        .expect(1);
    assert!(
        text(&out.stderr).contains("is not reused"),
        "{}",
        printed(&out)
    );
    assert!(
        text(&out.stderr).contains("reusing 1 stored results"),
        "{}",
        printed(&out)
    );
    assert_eq!(
        read_json(&dir.join("g.json"))["submissions"][0]["score"],
        27
    );
    dir.grader()
        .args(["report", "results", "--json", "r.json"])
        .expect(1);
}

#[test]
fn a_fifo_a_link_to_dev_zero_or_a_huge_file_at_a_result_name_never_hangs_or_floods() {
    let dir = class();
    let (alice, _) = graded_results(&dir);
    let limit = Duration::from_secs(60);
    let plant = |what: &str| {
        fs::remove_file(&alice).unwrap_or_default();
        match what {
            "fifo" => {
                let made = Command::new("mkfifo").arg(&alice).status().unwrap();
                assert!(made.success());
            }
            "zero" => std::os::unix::fs::symlink("/dev/zero", &alice).unwrap(),
            _ => fs::File::create(&alice)
                .unwrap()
                .set_len(100 << 20)
                .unwrap(),
        }
    };
    for (what, says) in [
        ("fifo", "it is not a regular file but a FIFO"),
        ("zero", "it is a symbolic link (never followed)"),
        ("huge", "it holds 104857600 bytes, more than a result can"),
    ] {
        plant(what);
        let out = bounded(
            dir.path(),
            &["report", "results", "--json", "r.json"],
            limit,
        );
        assert_eq!(code(&out), 2, "{what}: {}", printed(&out));
        assert!(
            text(&out.stderr).contains(says),
            "{what}: {}",
            printed(&out)
        );
        // A rerun regrades alice, replaces the file, reuses bob.
        let out = bounded(
            dir.path(),
            &[
                "grade",
                "submissions",
                "--cases",
                "cases",
                "--results",
                "results",
                "--json",
                "g.json",
            ],
            limit,
        );
        assert_eq!(code(&out), 1, "{what}: {}", printed(&out));
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(says) && stderr.contains("reusing 1 stored results"),
            "{what}: {stderr}"
        );
        let meta = fs::symlink_metadata(&alice).unwrap();
        assert!(
            meta.is_file() && meta.len() < 1 << 20,
            "{what}: replaced by a result"
        );
        assert_eq!(
            read_json(&dir.join("g.json"))["submissions"][0]["score"],
            27
        );
    }
}

#[test]
fn the_results_folder_as_a_link_is_refused_and_nothing_is_written_where_it_leads() {
    let dir = class();
    let elsewhere = dir.join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, dir.join("results")).unwrap();
    let out = bounded(
        dir.path(),
        &[
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--results",
            "results",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(code(&out), 2, "{}", printed(&out));
    assert!(
        text(&out.stderr)
            .contains("results is a symbolic link, never followed for a results folder"),
        "{}",
        printed(&out)
    );
    assert_eq!(
        fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing written there"
    );
    let out = dir
        .grader()
        .args(["report", "results", "--json", "-"])
        .expect(2);
    assert!(
        text(&out.stderr).contains("symbolic link"),
        "{}",
        printed(&out)
    );
}

#[test]
fn a_results_folder_another_user_made_or_can_write_is_refused() {
    if !as_root("a_results_folder_another_user_made_or_can_write_is_refused") {
        return;
    }
    let dir = class();
    let refused = |results: &str, says: &str| {
        let out = dir
            .grader()
            .args([
                "grade",
                "submissions",
                "--cases",
                "cases",
                "--results",
                results,
            ])
            .expect(2);
        assert!(
            text(&out.stderr).contains(says),
            "{results}: {}",
            printed(&out)
        );
        let out = dir
            .grader()
            .args(["report", results, "--json", "-"])
            .expect(2);
        assert!(
            text(&out.stderr).contains(says),
            "{results}: {}",
            printed(&out)
        );
    };
    use std::os::unix::fs::PermissionsExt;
    // Made first by another user (a shared /tmp/lab3-results).
    fs::create_dir(dir.join("theirs")).unwrap();
    std::os::unix::fs::chown(dir.join("theirs"), Some(STRANGER), Some(STRANGER)).unwrap();
    refused(
        "theirs",
        &format!("belongs to uid {STRANGER}, not to the grader's user"),
    );
    // Ours, but others may write to it.
    fs::create_dir(dir.join("open")).unwrap();
    fs::set_permissions(dir.join("open"), fs::Permissions::from_mode(0o777)).unwrap();
    refused("open", "other users can write to it");
    // Ours, in a folder of another user's.
    fs::create_dir_all(dir.join("their-parent/results")).unwrap();
    std::os::unix::fs::chown(dir.join("their-parent"), Some(STRANGER), None).unwrap();
    refused(
        "their-parent/results",
        &format!("their-parent belongs to uid {STRANGER}, another user"),
    );
    // A file of another user's at a result name, in a folder of ours.
    let (alice, _) = graded_results(&dir);
    std::os::unix::fs::chown(&alice, Some(STRANGER), None).unwrap();
    let out = dir
        .grader()
        .args(["report", "results", "--json", "-"])
        .expect(2);
    assert!(
        text(&out.stderr).contains(&format!(
            "it belongs to uid {STRANGER}, not to the grader's user"
        )),
        "{}",
        printed(&out)
    );
    // A folder of ours under a sticky, world-writable one (as /tmp) is fine.
    fs::create_dir(dir.join("sticky")).unwrap();
    fs::set_permissions(dir.join("sticky"), fs::Permissions::from_mode(0o1777)).unwrap();
    dir.grader()
        .args([
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--results",
            "sticky/results",
        ])
        .expect(1);
}

/// A gradebook as Moodle's CSV grade import treats it, as a teacher's
/// import on a real Moodle 4.5 (Build 20241007, `grade/import/csv`)
/// showed (the instructors' guide): every cell is trimmed; a user is found
/// by the identifier column, a username ignoring case; a row whose
/// identifier matches no user aborts the whole import with nothing
/// applied, and so does a grade outside the item's 0 to maximum; a blank
/// or `-` grade cell stores "no grade" over what the gradebook held; a
/// number stores that number; a feedback column stores its text as it is.
#[derive(Clone, Debug, PartialEq)]
struct Gradebook {
    users: Vec<String>,
    grade_max: f64,
    grades: std::collections::BTreeMap<String, Option<f64>>,
    feedback: std::collections::BTreeMap<String, String>,
}

impl Gradebook {
    /// The gradebook after importing `csv`, reading identifiers from the
    /// column `id_column`, grades from the column whose header starts with
    /// `grade_column`, and feedback from a `Feedback` column if there is
    /// one; `Err` with what the teacher is told when the import aborts.
    fn import(&self, csv: &str, id_column: &str, grade_column: &str) -> Result<Gradebook, String> {
        let mut reader = ::csv::Reader::from_reader(csv.as_bytes());
        let header = reader.headers().map_err(|e| e.to_string())?.clone();
        let find = |name: &str| header.iter().position(|h| h.trim().starts_with(name));
        let id_at = find(id_column).ok_or("no identifier column")?;
        let grade_at = find(grade_column).ok_or("no grade column")?;
        let feedback_at = find("Feedback");
        let mut after = self.clone();
        for row in reader.records() {
            let row = row.map_err(|e| e.to_string())?;
            // Canvas's own second header row, not a student.
            if row.get(0).is_some_and(|c| c.trim() == "Points Possible") {
                continue;
            }
            let id = row[id_at].trim();
            let Some(user) = self.users.iter().find(|u| u.eq_ignore_ascii_case(id)) else {
                return Err(format!(
                    "User mapping error: Could not find user with username of {id:?}."
                ));
            };
            let cell = row[grade_at].trim();
            let grade = match cell {
                "" | "-" => None,
                number => Some(
                    number
                        .parse::<f64>()
                        .map_err(|e| format!("{cell:?}: {e}"))?,
                ),
            };
            if grade.is_some_and(|g| !(0.0..=self.grade_max).contains(&g)) {
                return Err(format!(
                    "One of the grade values is larger than the allowed grade maximum of {:.1}",
                    self.grade_max
                ));
            }
            after.grades.insert(user.clone(), grade);
            if let Some(at) = feedback_at {
                after
                    .feedback
                    .insert(user.clone(), row[at].trim().to_string());
            }
        }
        Ok(after)
    }
}

#[test]
fn lms_files_keep_hand_grades_and_exact_ids_under_moodles_import_rule() {
    let dir = Dir::new()
        .cases(&["campus.toml", "grader.toml", "big.toml", "hidden.toml", "newspaper.toml"])
        .submission("alice", "c-listing.c")
        .submission("erin", "bug-no-clear.c")
        .submission("carol", "c-listing.c")
        .submission("dave", "c-listing.c")
        // bob handed in on paper: no submission, a grade typed by hand.
        .create(
            "roster.csv",
            "id,lms_id,name\nalice,alice01,\"Liddell, Alice\"\nerin,erin01,Erin Test\ncarol,-carol,Carol Test\ndave,=eq01,Dave Test\nbob,bob01,Bob Test\n",
        );
    dir.grader()
        .args([
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--results",
            "results",
        ])
        .expect(1);
    // Moodle's users: `=eq01` cannot be one (Moodle refuses usernames
    // that start with = or +); `-carol` is one.
    let book = Gradebook {
        users: ["alice01", "erin01", "-carol", "bob01"]
            .map(String::from)
            .to_vec(),
        grade_max: 27.0,
        grades: [("bob01".to_string(), Some(20.0))].into_iter().collect(),
        feedback: Default::default(),
    };
    // The checker itself: a blank cell erases bob's 20, an escaped id
    // aborts the import, a username's case and spaces do not matter, a
    // grade above the item's maximum aborts the import.
    let erased = book.import(
        "Username,Full name,Sudoku lab\nbob01,Bob,\n",
        "Username",
        "Sudoku lab",
    );
    assert_eq!(erased.unwrap().grades["bob01"], None);
    assert!(
        book.import("Username,G\n'-carol,27\n", "Username", "G")
            .is_err()
    );
    let upper = book.import("Username,G\n\" ALICE01 \",27\n", "Username", "G");
    assert_eq!(upper.unwrap().grades["alice01"], Some(27.0));
    assert!(
        book.import("Username,G\nalice01,28\n", "Username", "G")
            .is_err()
    );

    for (layout, id_column, extra) in [
        ("moodle", "Username", &[][..]),
        ("canvas", "SIS User ID", &[][..]),
        ("blackboard", "Username", &["--csv-column-id", "123"][..]),
    ] {
        let csv = format!("{layout}.csv");
        let out = dir
            .grader()
            .args([
                "report",
                "results",
                "--csv",
                &csv,
                "--csv-for",
                layout,
                "--roster",
                "roster.csv",
            ])
            .args(extra)
            .expect(1);
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("roster student(s) have no submission: bob"),
            "{stderr}"
        );
        assert!(stderr.contains("=eq01 ("), "the odd id named: {stderr}");
        let written = fs::read_to_string(dir.join(&csv)).unwrap();
        let after = book
            .import(&written, id_column, "Sudoku lab")
            .unwrap_or_else(|e| panic!("{layout}: the import aborts: {e}\n{written}"));
        assert_eq!(
            after.grades["bob01"],
            Some(20.0),
            "{layout}: bob's hand grade kept\n{written}"
        );
        assert_eq!(after.grades["alice01"], Some(27.0), "{layout}");
        assert_eq!(
            after.grades["-carol"],
            Some(27.0),
            "{layout}: -carol written exactly"
        );
        assert!(after.grades["erin01"].is_some_and(|g| g < 27.0), "{layout}");
        if layout == "moodle" {
            assert_eq!(after.feedback["alice01"], "27 of 27 tests passed");
            assert!(!after.feedback.contains_key("bob01"), "{written}");
        }
        if layout == "blackboard" {
            assert!(
                written.contains("\"alice01\",\"Liddell\",\"Alice\","),
                "split at the comma: {written}"
            );
        }
    }

    // --roster-missing zero: bob's row is there, with 0, and the note says
    // it replaces what the LMS holds.
    let out = dir
        .grader()
        .args([
            "report",
            "results",
            "--csv",
            "zero.csv",
            "--csv-for",
            "moodle",
        ])
        .args(["--roster", "roster.csv", "--roster-missing", "zero"])
        .expect(1);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("their rows give 0 (--roster-missing zero), over any grade the LMS holds"),
        "{stderr}"
    );
    let written = fs::read_to_string(dir.join("zero.csv")).unwrap();
    let after = book.import(&written, "Username", "Sudoku lab").unwrap();
    // The 0 replaces his hand grade, as asked (a real Moodle: 20 -> 0).
    assert_eq!(after.grades["bob01"], Some(0.0), "{written}");
    assert_eq!(after.feedback["bob01"], "no submission");
}
