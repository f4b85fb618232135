//! A small hand-built [`Report`] that the report writers' unit tests share:
//! `alice` (C) with a pass, a wrong answer with a board and a crash whose
//! output tries to inject markup, on a hidden case; and `bob`, whose
//! submission did not compile.

use super::{Report, Status, SubmissionReport, TestReport};
use crate::verdict::{Function, Verdict};

/// The compiler's message for `bob`.
pub(super) const BOB_COMPILER: &str =
    "bob.c:3:1: error: expected ';' before '}' token\n    3 | }\n      | ^";

/// What alice's crashing test printed: markup a report must not execute.
pub(super) const HOSTILE_OUTPUT: &str = "<script>alert(\"x\")</script> & 'done'\n";

/// The board picture of alice's wrong answer.
pub(super) const BOARD: &str = " 1 . | . 4\n . 4 |[1].\n-----+----\n 2 . | . 3\n . 3 | 2 .\n";

/// The board of [`BOARD`] as data: the campus 4x4, (row 1, col 2) marked.
pub(super) fn board() -> crate::board_view::BoardView {
    crate::board_view::BoardView {
        n: 2,
        rows: vec![
            vec![1, 0, 0, 4],
            vec![0, 4, 1, 0],
            vec![2, 0, 0, 3],
            vec![0, 3, 2, 0],
        ],
        mark: Some([1, 2]),
    }
}

fn test(case: &str, function: Function, verdict: Verdict, points: u32) -> TestReport {
    TestReport {
        points: if verdict == Verdict::Pass { points } else { 0 },
        max_points: points,
        time_ms: Some(1.5),
        side: match case {
            "campus-4x4" => Some(4),
            "deep-9x9" => Some(9),
            _ => None,
        },
        ..grader_judge::report::named(case, function, verdict)
    }
}

/// The shared report: two submissions, three tests each, 7 points possible.
pub(super) fn sample() -> Report {
    let mut wrong = test("campus-4x4", Function::Solve, Verdict::Wrong, 2);
    wrong.message =
        "solve returned true but r2c3 holds 1, which is not in the solution\nthe board after solve:"
            .into();
    wrong.board = Some(board());
    wrong.output = "trying r1c2\n".into();
    let mut crash = test("deep-9x9", Function::Solve, Verdict::Crash, 4);
    crash.message = "killed by signal 11 (SIGSEGV)".into();
    crash.output = HOSTILE_OUTPUT.into();
    crash.hidden = true;
    crash.time_ms = None;
    let alice = SubmissionReport {
        id: "alice".into(),
        kind: Some("c".into()),
        status: Status::Ok,
        message: String::new(),
        hint: None,
        score: 1,
        max_score: 7,
        notes: Vec::new(),
        fixed_size: None,
        fault: None,
        tests: vec![
            test("campus-4x4", Function::Legal, Verdict::Pass, 1),
            wrong,
            crash,
        ],
    };
    let not_built = |case: &str, function, points, hidden| TestReport {
        verdict: Verdict::Error,
        time_ms: None,
        message: "not run: the submission could not be built".into(),
        hidden,
        ..test(case, function, Verdict::Error, points)
    };
    let bob = SubmissionReport {
        id: "bob".into(),
        kind: Some("c".into()),
        status: Status::BuildError,
        hint: None,
        message: BOB_COMPILER.into(),
        score: 0,
        max_score: 7,
        notes: Vec::new(),
        fixed_size: None,
        fault: None,
        tests: vec![
            not_built("campus-4x4", Function::Legal, 1, false),
            not_built("campus-4x4", Function::Solve, 2, false),
            not_built("deep-9x9", Function::Solve, 4, true),
        ],
    };
    Report {
        version: 1,
        run: None,
        submissions: vec![alice, bob],
    }
}

/// A board size written into the code is told by every format, in the
/// words `grader check` uses, and travels in the JSON as data.
#[test]
fn every_format_tells_a_fixed_board_size_in_the_same_words() {
    use crate::words::across::{FixedSize, SizeTally};
    colored::control::set_override(false);
    let mut report = sample();
    report.submissions.truncate(1);
    let size = FixedSize {
        n: 3,
        others: vec![
            SizeTally {
                side: 4,
                failing: 2,
                tests: 3,
            },
            SizeTally {
                side: 16,
                failing: 1,
                tests: 3,
            },
        ],
    };
    report.submissions[0].fixed_size = Some(size.clone());
    let words = size.words(Some(crate::finding::Lang::C));
    assert!(
        words.starts_with("your code assumes a 9x9 board (n = 3)"),
        "{words}"
    );
    assert!(words.contains("i < N, n * (r / n)"), "{words}");
    let written = |write: &dyn Fn(&mut Vec<u8>)| {
        let mut out = Vec::new();
        write(&mut out);
        String::from_utf8(out).expect("utf-8")
    };
    let terminal = written(&|out| super::formats::terminal::write_summary(&report, out).unwrap());
    assert!(terminal.contains(&format!("alice: {words}")), "{terminal}");
    let gradescope = written(&|out| super::formats::gradescope::write(&report, out).unwrap());
    let escaped = serde_json::to_string(&format!("Diagnosis: {words}")).unwrap();
    assert!(
        gradescope.contains(escaped.trim_matches('"')),
        "{gradescope}"
    );
    let html = written(&|out| super::formats::html::write(&report, out).unwrap());
    assert!(
        html.contains("<p class=\"diagnosis\">your code assumes a 9x9 board"),
        "{html}"
    );
    let json = written(&|out| super::formats::json::write(&report, out).unwrap());
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["submissions"][0]["fixed_size"]["n"], 3, "{json}");
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back.submissions[0].fixed_size, Some(size));
}
