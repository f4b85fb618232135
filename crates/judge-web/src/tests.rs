//! The entry points on the bundled public cases, without WebAssembly: the
//! same functions the ABI calls.

use serde_json::{Value, json};

use crate::{cases, finish, shrink, swap, test};

fn files(with_hidden: bool) -> Value {
    let mut files = vec![
        json!({"name": "grader.toml", "text": include_str!("../../../cases/grader.toml")}),
        json!({"name": "campus.toml", "text": include_str!("../../../cases/campus.toml")}),
        json!({"name": "newspaper.toml", "text": include_str!("../../../cases/newspaper.toml")}),
    ];
    if with_hidden {
        files.push(
            json!({"name": "hidden.toml", "text": include_str!("../../../cases/hidden.toml")}),
        );
    }
    json!({ "files": files })
}

fn load() {
    cases::load(serde_json::from_value(files(false)).expect("a request"))
        .expect("the public cases load");
}

fn value<T: serde::Serialize>(t: T) -> Value {
    serde_json::to_value(t).expect("serialisable")
}

/// What the harness says for a solve that returned `board`.
fn returned(case: &str, solved: bool, board: &[u8]) -> Value {
    json!({
        "case": case, "function": "solve", "ended": "returned",
        "messages": [
            {"type": "loading"}, {"type": "loaded"},
            {"type": "done", "response": {"function": "solve", "args": {"solved": solved, "board": board}}, "time_ms": 1.0}
        ],
        "wall_ms": 2.0, "limit_ms": 5000
    })
}

fn solution(case: &str) -> Vec<u8> {
    cases::with(|set| {
        Ok(cases::find(set, case)?
            .solution
            .clone()
            .expect("a solution")
            .cells()
            .to_vec())
    })
    .expect("the case")
}

fn puzzle(case: &str) -> Vec<u8> {
    cases::with(|set| Ok(cases::find(set, case)?.puzzle.cells().to_vec())).expect("the case")
}

#[test]
fn a_hidden_case_is_refused_with_its_file() {
    let error = cases::load(serde_json::from_value(files(true)).expect("a request"))
        .err()
        .expect("refused");
    assert!(error.starts_with("hidden.toml:"), "{error}");
    assert!(error.contains("is hidden"), "{error}");
}

#[test]
fn the_tests_come_in_the_checks_order_with_planned_times() {
    load();
    let tests = value(cases::tests(json!({})).expect("tests"));
    let tests = tests.as_array().expect("a list");
    assert_eq!(tests[0]["case"], "campus-4x4");
    assert_eq!(tests[0]["function"], "legal");
    assert!(tests.iter().all(|t| t["planned_ms"].as_u64() >= Some(100)));
    // A 9x9 comes after every 4x4.
    let first_9x9 = tests
        .iter()
        .position(|t| t["case"] == "gentle-9x9")
        .expect("gentle");
    assert!(
        tests[first_9x9..]
            .iter()
            .all(|t| !t["case"].as_str().unwrap_or("").starts_with("campus"))
    );
}

#[test]
fn a_solved_board_passes_and_a_wrong_one_fails_with_its_check() {
    load();
    let right = solution("campus-4x4");
    let judged = value(
        test::judge(serde_json::from_value(returned("campus-4x4", true, &right)).expect("a run"))
            .expect("judged"),
    );
    assert_eq!(judged["report"]["verdict"], "pass", "{judged:#}");
    let untouched = puzzle("campus-4x4");
    let judged = value(
        test::judge(
            serde_json::from_value(returned("campus-4x4", true, &untouched)).expect("a run"),
        )
        .expect("judged"),
    );
    assert_eq!(judged["report"]["verdict"], "wrong", "{judged:#}");
    assert!(judged["failure"]["check"].is_string(), "{judged:#}");
    assert_eq!(judged["loaded"], true);
}

#[test]
fn a_stopped_run_is_an_advisory_timeout_and_a_lost_one_a_crash() {
    load();
    let run = |ended: &str, messages: Value| {
        let request = json!({"case": "campus-4x4", "function": "solve", "ended": ended,
            "messages": messages, "wall_ms": 6000.0, "limit_ms": 5000, "why": "RuntimeError: unreachable"});
        value(test::judge(serde_json::from_value(request).expect("a run")).expect("judged"))
    };
    let stopped = run("timeout", json!([{"type": "loading"}, {"type": "loaded"}]));
    assert_eq!(stopped["report"]["verdict"], "timeout");
    let message = stopped["report"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("5 s of wall-clock time") && message.contains("advisory"),
        "{message}"
    );
    let at_import = run("timeout", json!([{"type": "loading"}]));
    assert!(
        at_import["report"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("imported")
    );
    assert_eq!(at_import["loaded"], false);
    let lost = run("lost", json!([{"type": "loading"}, {"type": "loaded"}]));
    assert_eq!(lost["report"]["verdict"], "crash");
    assert!(
        lost["report"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("unreachable")
    );
    // A done before loaded counts for nothing.
    let forged = run(
        "returned",
        json!([{"type": "loading"},
        {"type": "done", "response": {"function": "solve", "args": {"solved": true, "board": solution("campus-4x4")}}}]),
    );
    assert_eq!(forged["report"]["verdict"], "crash", "{forged:#}");
}

#[test]
fn a_shrink_hands_out_smaller_boards_until_none_is_kept() {
    load();
    let started = value(
        shrink::start(serde_json::from_value(json!({"case": "campus-4x4"})).expect("a case"))
            .expect("started"),
    );
    assert!(started["empty"].as_u64() > Some(0), "{started:#}");
    let mut boards = 0;
    loop {
        let next = value(shrink::next(json!({})).expect("next"));
        if next["puzzle"].is_null() {
            break;
        }
        boards += 1;
        shrink::keep(serde_json::from_value(json!({"same": false})).expect("keep")).expect("kept");
    }
    assert!(boards > 0);
}

#[test]
fn the_report_has_check_s_shape_and_exit_code() {
    load();
    let right = solution("campus-4x4");
    let judged = value(
        test::judge(serde_json::from_value(returned("campus-4x4", true, &right)).expect("a run"))
            .expect("judged"),
    );
    let done = value(
        finish::finish(
            serde_json::from_value(json!({"path": "sudoku.py", "tests": [judged["report"]]}))
                .expect("input"),
        )
        .expect("finished"),
    );
    assert_eq!(done["exit_code"], 0, "{done:#}");
    assert_eq!(done["report"]["submission"]["status"], "ok");
    assert!(
        done["lines"][0]
            .as_str()
            .unwrap_or_default()
            .starts_with("✓ solve"),
        "{done:#}"
    );
    let failed = value(
        finish::finish(
            serde_json::from_value(
                json!({"path": "sudoku.py", "load_error": "sudoku.py does not compile"}),
            )
            .expect("input"),
        )
        .expect("finished"),
    );
    assert_eq!(failed["exit_code"], 3);
    assert_eq!(failed["lines"][0], "✗ sudoku.py could not be loaded");
}

/// A run with the grader's `legal` shows something only when its line says
/// the stand-in was called with the lab's arguments, and the words are the
/// judge's, as `grader check` says them.
#[test]
fn the_run_with_the_graders_legal_is_read_from_its_line_and_worded() {
    load();
    let with_line = |said: Value| {
        let mut ran = returned("campus-4x4", true, &solution("campus-4x4"));
        let messages = ran["messages"].as_array_mut().expect("lines");
        messages.insert(
            2,
            json!({"type": "legal_swap", "calls": said["calls"], "strange": said["strange"]}),
        );
        value(test::judge(serde_json::from_value(ran).expect("a run")).expect("judged"))
    };
    assert_eq!(
        with_line(json!({"calls": 12, "strange": 0}))["legal_swap"],
        "passed"
    );
    assert_eq!(
        with_line(json!({"calls": 0, "strange": 0}))["legal_swap"],
        Value::Null
    );
    assert_eq!(
        with_line(json!({"calls": 12, "strange": 1}))["legal_swap"],
        Value::Null
    );
    // When: a failing solve, then a failing legal; once.
    cases::tests(json!({})).expect("a check starts");
    let after = |function: &str, verdict: &str| {
        let input = json!({"case": "campus-4x4", "function": function, "verdict": verdict});
        swap::after(serde_json::from_value(input).expect("a test")).expect("noted")
    };
    assert_eq!(after("solve", "wrong"), None, "legal not failed yet");
    assert_eq!(after("legal", "wrong").as_deref(), Some("campus-4x4"));
    assert_eq!(after("legal", "wrong"), None, "once");
    let input = json!({"case": "campus-4x4", "observed": "passed"});
    swap::saw(serde_json::from_value(input).expect("a run")).expect("kept");
    let done = value(
        finish::finish(serde_json::from_value(json!({"path": "sudoku.py"})).expect("a finish"))
            .expect("finished"),
    );
    let says = done["report"]["legal_swap"]["says"]
        .as_str()
        .unwrap_or_default();
    assert!(
        says.contains("your legal (see legal above) is the likely cause"),
        "{done}"
    );
}
