//! GitHub Classroom's runner result (`--classroom`): what a Classroom
//! grader action (`autograding-command-grader`, `autograding-io-grader`)
//! sets as its step output `result`, and what
//! `classroom-resources/autograding-grading-reporter` reads from the
//! environment variable `<STEP-ID>_RESULTS` to print its table and send
//! Classroom the points (its "Autograding report" notice).
//!
//! The file holds one line: the base64 of a JSON object, version 1:
//!
//! - `version` `1`, `status` `pass` (every test passed), `fail` (some test
//!   failed), or `error` (the code did not build or load, or the grader
//!   failed: not graded, and then every test's `score` is 0, so the
//!   reporter sends Classroom no points), `max_score` (points possible);
//! - `tests[]`, one per (case, function): `name` `"<case> <function>"`,
//!   `status` `pass`/`fail`/`error` (a test that could not run), `score`
//!   (points earned: the reporter's notice sums them), `message` (verdict
//!   and message, cut to [`MAX_MESSAGE_CHARS`]), `test_code` (the command
//!   that runs this test alone: `grader check --case C --function F`),
//!   `filename` `""`, `line_no` `0`, `duration` (wall milliseconds).
//!
//! A hidden case's test carries its verdict only (Classroom shows the
//! whole result to the student). The reporter gets the result through an
//! environment variable, and Linux caps one at 128 KiB, so the encoded
//! line is kept under [`MAX_ENCODED_BYTES`]: messages are cut to their
//! first line, then left out, until it fits.
//!
//! The reporter's own table computes a runner's score as the fraction of
//! tests passed times `max_score`; the points it sends Classroom are the
//! sum of the tests' `score`. The two agree when every test is worth the
//! same; with weighted cases, the notice (the grade) is the exact one.

use base64::Engine;
use serde::Serialize;
use std::io::Write;

use super::ReportFormat;
use crate::report::{Report, Status, SubmissionReport, TestReport};
use crate::verdict::Verdict;

/// The longest message of a test, in characters.
pub(crate) const MAX_MESSAGE_CHARS: usize = 1000;

/// The longest encoded result, in bytes: under Linux's 128 KiB for one
/// environment variable, with room for its name.
pub(crate) const MAX_ENCODED_BYTES: usize = 120 * 1024;

/// The Classroom format for the dispatcher.
pub(crate) struct Classroom;

impl ReportFormat for Classroom {
    fn write(&self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
        if report.submissions.len() != 1 {
            anyhow::bail!(
                "--classroom needs exactly one submission, and there are {}: a Classroom repository is one student's; grade it with --single",
                report.submissions.len()
            );
        }
        writeln!(out, "{}", encoded(&report.submissions[0]))?;
        out.flush()?;
        Ok(())
    }
}

/// The runner result, version 1.
#[derive(Debug, Serialize)]
struct RunnerResult {
    version: u32,
    status: &'static str,
    max_score: u32,
    tests: Vec<Test>,
}

/// One entry of `tests[]`.
#[derive(Debug, Serialize)]
struct Test {
    name: String,
    status: &'static str,
    score: u32,
    message: String,
    test_code: String,
    filename: String,
    line_no: u32,
    duration: u64,
}

/// How much of each message is kept.
#[derive(Clone, Copy)]
enum Detail {
    Full,
    FirstLine,
    None,
}

/// The base64 line for `sub`, within [`MAX_ENCODED_BYTES`].
pub(crate) fn encoded(sub: &SubmissionReport) -> String {
    let encode = |detail| {
        let json = serde_json::to_vec(&result(sub, detail)).unwrap_or_default();
        base64::engine::general_purpose::STANDARD.encode(json)
    };
    [Detail::Full, Detail::FirstLine]
        .into_iter()
        .map(encode)
        .find(|line| line.len() <= MAX_ENCODED_BYTES)
        .unwrap_or_else(|| encode(Detail::None))
}

fn result(sub: &SubmissionReport, detail: Detail) -> RunnerResult {
    let ran = sub.status == Status::Ok && sub.graded();
    let status = if !ran {
        "error"
    } else if sub.all_passed() {
        "pass"
    } else {
        "fail"
    };
    RunnerResult {
        version: 1,
        status,
        max_score: sub.max_score,
        tests: sub.tests.iter().map(|t| test(sub, t, detail)).collect(),
    }
}

fn test(sub: &SubmissionReport, test: &TestReport, detail: Detail) -> Test {
    let status = match test.verdict {
        Verdict::Pass => "pass",
        Verdict::Error => "error",
        _ => "fail",
    };
    let mut message = if test.verdict == Verdict::Pass {
        String::new()
    } else if test.hidden {
        format!(
            "{} (a hidden case: its details are not shown)",
            test.verdict
        )
    } else {
        format!("{}: {}", test.verdict, test.message)
    };
    if sub.status != Status::Ok && !test.hidden {
        message.push_str(&format!(": {}", sub.one_line()));
    }
    let message = match detail {
        Detail::Full => cut(&message, MAX_MESSAGE_CHARS),
        Detail::FirstLine => cut(message.lines().next().unwrap_or(""), 200),
        Detail::None => String::new(),
    };
    Test {
        name: format!("{} {}", test.case, test.function),
        status,
        // Not graded: no test carries points to the reporter's sum.
        score: if sub.graded() { test.points } else { 0 },
        message,
        test_code: if test.hidden {
            String::new()
        } else {
            format!(
                "grader check --case {} --function {}",
                test.case,
                test.function.name()
            )
        },
        filename: String::new(),
        line_no: 0,
        duration: test
            .wall_seconds()
            .map_or(0, |s| (s * 1000.0).round() as u64),
    }
}

/// `text` cut to `max` characters, saying so.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let kept: String = text.chars().take(max).collect();
        format!("{kept}... (cut: the job log above has it all)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;
    use serde_json::Value;

    fn decoded(sub: &SubmissionReport) -> Value {
        let line = encoded(sub);
        let json = base64::engine::general_purpose::STANDARD
            .decode(line)
            .unwrap();
        serde_json::from_slice(&json).unwrap()
    }

    #[test]
    fn the_result_has_the_reporters_shape_and_sums_to_the_score() {
        let report = fixture::sample();
        let alice = decoded(&report.submissions[0]);
        assert_eq!(alice["version"], 1);
        assert_eq!(alice["status"], "fail");
        assert_eq!(alice["max_score"], 7);
        let tests = alice["tests"].as_array().unwrap();
        let sum: u64 = tests.iter().map(|t| t["score"].as_u64().unwrap()).sum();
        assert_eq!(sum, u64::from(report.submissions[0].score));
        let statuses: Vec<&str> = tests
            .iter()
            .map(|t| t["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["pass", "fail", "fail"]);
        for t in tests {
            for key in ["name", "message", "test_code", "filename"] {
                assert!(t[key].is_string(), "{key} in {t}");
            }
            assert_eq!(t["line_no"], 0);
            assert!(t["duration"].is_u64(), "{t}");
        }
        assert_eq!(
            tests[0]["test_code"],
            "grader check --case campus-4x4 --function legal"
        );
        // The hidden case says its verdict only.
        assert_eq!(
            tests[2]["message"],
            "crash (a hidden case: its details are not shown)"
        );
        assert_eq!(tests[2]["test_code"], "");

        let bob = decoded(&report.submissions[1]);
        assert_eq!(bob["status"], "error");
        assert!(
            bob["tests"][0]["message"]
                .as_str()
                .unwrap()
                .contains("error"),
            "{bob}"
        );
    }

    #[test]
    fn a_huge_message_is_cut_to_fit_an_environment_variable() {
        let mut sub = fixture::sample().submissions.remove(0);
        let template = sub.tests[1].clone();
        sub.tests = (0..400)
            .map(|i| {
                let mut t = template.clone();
                t.case = format!("case-{i}");
                t.message = format!("first line\n{}", "x".repeat(5000));
                t
            })
            .collect();
        let line = encoded(&sub);
        assert!(line.len() <= MAX_ENCODED_BYTES, "{}", line.len());
        let value = decoded(&sub);
        assert_eq!(value["tests"].as_array().unwrap().len(), 400);
        assert_eq!(value["tests"][0]["message"], "wrong: first line");
    }
}
