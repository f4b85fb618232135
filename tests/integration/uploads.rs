//! Uploads as learners make them, graded through the real binary: a C
//! solver that needs the maths library (`sqrt`), and a prebuilt library
//! without it, whose load error leads with the loader's own reason; each
//! beside an innocent neighbour whose score must not change; a case
//! `grade` would refuse, which `grader reference --check` names.

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

use crate::util::{Dir, fixture, json, printed};

/// The public cases every test here grades against: the campus boards
/// (a 4x4 with no solution among them) and the newspaper 9x9s.
const CASES: [&str; 3] = ["grader.toml", "campus.toml", "newspaper.toml"];

/// `grader grade submissions --cases cases --json report.json` in `dir`,
/// exiting `status`; the report's submissions by id.
fn grade(dir: &Dir, status: i32) -> BTreeMap<String, Value> {
    grade_printed(dir, status).0
}

/// [`grade`], and what the run printed.
fn grade_printed(dir: &Dir, status: i32) -> (BTreeMap<String, Value>, String) {
    let run = dir
        .grader()
        .args(["grade", "submissions", "--cases", "cases"])
        .graded(dir.join("report.json"));
    assert_eq!(run.code(), status, "{}", run.printed());
    (run.by_id(), run.printed())
}

/// Every test of `sub` passed, and it scored its maximum.
fn passes_all(sub: &Value) -> bool {
    sub["status"] == "ok"
        && sub["score"] == sub["max_score"]
        && sub["tests"]
            .as_array()
            .is_some_and(|t| !t.is_empty() && t.iter().all(|t| t["verdict"] == "pass"))
}

#[test]
fn a_c_solver_that_calls_sqrt_is_linked_with_the_maths_library() {
    let dir = Dir::new()
        .cases(&CASES)
        .submission("ada", "c-learner-sqrt.c")
        .submission("bo", "c-listing.c");
    let subs = grade(&dir, 0);
    assert!(passes_all(&subs["ada"]), "{:#}", subs["ada"]);
    assert!(passes_all(&subs["bo"]), "{:#}", subs["bo"]);
}

#[test]
fn a_library_without_the_maths_library_says_the_loaders_reason() {
    let dir = Dir::new()
        .cases(&CASES)
        .submission("bo", "c-listing.c")
        .create("submissions/.keep", "");
    // The learner's own build of the same file, without `-lm`: a `.so`
    // handed in as is.
    let built = Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-I"])
        .arg(crate::util::root().join("lab/include"))
        .arg("-o")
        .arg(dir.join("submissions/cy.so"))
        .arg(fixture("c-learner-sqrt.c"))
        .output()
        .expect("cc runs");
    assert!(built.status.success(), "{}", printed(&built));
    let (subs, printed) = grade_printed(&dir, 1);
    assert!(
        printed.contains("load error: cannot load your library: undefined symbol: sqrt (hint: your library calls `sqrt`"),
        "{printed}"
    );
    let cy = &subs["cy"];
    assert_eq!(cy["status"], "load_error", "{cy:#}");
    let message = cy["message"].as_str().expect("a message");
    assert!(
        message.starts_with("cannot load your library: undefined symbol: sqrt"),
        "the loader's reason leads: {message}"
    );
    assert!(!message.contains("dlopen failed"), "{message}");
    // What to do is the report's data, in the JSON and in the terminal.
    let hint = cy["hint"].as_str().expect("a hint");
    assert!(
        hint.contains("link the library that defines it") && hint.contains("`-lm`"),
        "{hint}"
    );
    assert!(passes_all(&subs["bo"]), "{:#}", subs["bo"]);
}

#[test]
fn a_folder_with_the_students_own_main_py_is_graded_by_its_solution() {
    let dir = Dir::new()
        .cases(&CASES)
        .submission("ada", "py-with-main")
        .submission("bo", "py-listing.py")
        // Two solutions in one folder: refused, naming both.
        .submission("cy", "py-with-main")
        .create(
            "submissions/cy/old.py",
            std::fs::read(fixture("py-listing.py")).expect("read the listing"),
        );
    let (subs, printed) = grade_printed(&dir, 1);
    let ada = &subs["ada"];
    assert!(passes_all(ada), "{ada:#}");
    let notes: Vec<&str> = ada["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        notes,
        [
            "sudoku.py is the submission: the one source here that defines legal, find_empty and solve",
            "ignored, not part of the submission: main.py"
        ]
    );
    assert!(passes_all(&subs["bo"]), "{:#}", subs["bo"]);
    let cy = &subs["cy"];
    assert_eq!(cy["status"], "build_error", "{cy:#}");
    assert!(
        cy["message"].as_str().is_some_and(|m| m.contains(
            "several solutions (old.py, sudoku.py each define legal, find_empty and solve)"
        )),
        "{cy:#}"
    );
    assert!(printed.contains("several solutions"), "{printed}");
}

/// The campus cases with `extra` added to the bundled `grader.toml`
/// (Only the campus cases: every test of an allowed numpy imports it.)
fn cases_with(dir: Dir, extra: &str) -> Dir {
    let config = std::fs::read_to_string(crate::util::root().join("cases/grader.toml"))
        .expect("read cases/grader.toml");
    dir.cases(&["campus.toml"])
        .create("cases/grader.toml", format!("{config}\n{extra}\n"))
}

#[test]
fn an_unused_import_numpy_says_the_rule_in_every_report() {
    let dir = Dir::new()
        .cases(&CASES)
        .submission("ada", "py-unused-numpy.py");
    let out = dir
        .grader()
        .args(["grade", "submissions", "--cases", "cases", "--json"])
        .arg(dir.join("report.json"))
        .arg("--gradescope")
        .arg(dir.join("results.json"))
        .expect(1);
    let report = json(&dir.join("report.json"));
    let ada = &report["submissions"][0];
    assert_eq!(ada["status"], "load_error", "{ada:#}");
    assert!(
        ada["message"]
            .as_str()
            .is_some_and(|m| m.contains("No module named 'numpy'")),
        "{ada:#}"
    );
    let rule = "`import numpy` cannot work in the grader: its Python runs your one file with the standard library only";
    let hint = ada["hint"].as_str().expect("a hint in the JSON");
    assert!(hint.starts_with(rule), "{hint}");
    assert!(hint.contains("python_modules = [\"numpy\"]"), "{hint}");
    let terminal = printed(&out);
    assert!(terminal.contains(rule), "the terminal's line: {terminal}");
    let gradescope = json(&dir.join("results.json"));
    let output = gradescope["output"].as_str().expect("Gradescope's output");
    assert!(output.contains(&format!("hint: {rule}")), "{output}");
}

#[test]
fn a_module_the_instructor_allows_is_imported_from_the_host() {
    let dir = cases_with(Dir::new(), "python_modules = [\"numpy\"]")
        .submission("ada", "py-unused-numpy.py")
        .submission("bo", "py-listing.py");
    let out = dir
        .grader()
        .args(["grade", "submissions", "--cases", "cases", "--json"])
        .arg(dir.join("report.json"))
        .output();
    let said = printed(&out);
    if crate::util::code(&out) == 2 && said.contains("has no module `numpy`") {
        assert!(
            std::env::var_os("CI").is_none_or(|ci| ci != "true"),
            "CI needs numpy for the system python3 (.ci/run installs python3-numpy): {said}"
        );
        eprintln!("skipped: this host's python3 has no numpy (apt-get install python3-numpy)");
        return;
    }
    assert_eq!(crate::util::code(&out), 0, "{said}");
    let report = json(&dir.join("report.json"));
    for sub in report["submissions"].as_array().expect("submissions") {
        assert!(passes_all(sub), "{sub:#}");
    }
}

#[test]
fn a_module_the_host_does_not_have_is_refused_before_grading() {
    let dir = cases_with(Dir::new(), "python_modules = [\"no_such_module_anywhere\"]")
        .submission("ada", "py-listing.py");
    let out = dir
        .grader()
        .args(["grade", "submissions", "--cases", "cases"])
        .expect(2);
    let said = printed(&out);
    assert!(
        said.contains(
            "grader.toml allows the Python module `no_such_module_anywhere` (python_modules), but"
        ) && said.contains("take it out of python_modules"),
        "{said}"
    );
}

#[test]
fn a_colab_notebook_is_graded_without_its_colab_lines() {
    let dir = Dir::new()
        .cases(&CASES)
        .submission("ada", "py-notebook-colab.ipynb")
        .submission("bo", "py-listing.py");
    let subs = grade(&dir, 0);
    let ada = &subs["ada"];
    assert!(passes_all(ada), "{ada:#}");
    let notes = ada["notes"][0].as_str().expect("a note");
    assert!(
        notes.contains("left out code cell 1 (In [1]): google.colab import (Colab only), uses google.colab's drive (Colab only); code cell 2 (In [2]): google.colab import (Colab only)"),
        "{notes}"
    );
    assert!(passes_all(&subs["bo"]), "{:#}", subs["bo"]);
}

/// The campus board with a second 3 in its last column: the lab's listing
/// fills the rest and returns true, the reference finds no solution.
const CLASHING_CASE: &str = r#"# A case an author got wrong.

[[case]]
name = "mistyped-4x4"
description = "the campus board, mistyped"
puzzle = """
1 . | . 4
. 4 | 1 .
----+----
2 . | . 3
. 3 | 2 3
"""
"#;

#[test]
fn reference_check_fails_on_a_case_grade_would_refuse() {
    let dir = Dir::new()
        .cases(&["campus.toml"])
        .create("cases/clash.toml", CLASHING_CASE)
        .submission("ada", "c-listing.c");
    // Writing answers for it is refused, the file left as it was.
    let out = dir
        .grader()
        .args(["reference", "cases/clash.toml"])
        .expect(2);
    let said = printed(&out);
    assert!(
        said.contains("cases/clash.toml:3: case \"mistyped-4x4\": its givens clash (3 appears twice in column 3 ((row 2, col 3) and (row 3, col 3))), so the reference finds no solution, but the lab's listing does not check the givens: it fills the rest and returns true"),
        "{said}"
    );
    assert!(said.contains("no file was written"), "{said}");
    assert_eq!(
        std::fs::read_to_string(dir.join("cases/clash.toml")).expect("read"),
        CLASHING_CASE
    );
    // As `grader reference` wrote it before: `solutions = 0`.
    let answered = format!("{CLASHING_CASE}solutions = 0\n");
    let dir = dir.create("cases/clash.toml", &answered);
    let out = dir
        .grader()
        .args(["reference", "--check", "cases"])
        .expect(1);
    let said = printed(&out);
    assert!(
        said.contains("cases/clash.toml:3: case \"mistyped-4x4\": its givens clash")
            && said.contains("1 of 5 cases cannot be graded as they are"),
        "{said}"
    );
    // And `grade` does refuse it: the check is about a real refusal.
    let out = dir
        .grader()
        .args(["grade", "submissions", "--cases", "cases"])
        .expect(2);
    assert!(
        printed(&out).contains("does not pass mistyped-4x4/solve"),
        "{}",
        printed(&out)
    );
    // The bundled cases pass the check.
    dir.grader()
        .args(["reference", "--check"])
        .arg(crate::util::root().join("cases"))
        .expect(0);
}
