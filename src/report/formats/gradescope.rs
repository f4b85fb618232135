//! The Gradescope `results.json` (`--gradescope`), following Gradescope's
//! autograder specification. Gradescope runs the autograder once per
//! student, so this report holds exactly one submission: a report of several
//! is refused with [`GradescopeError::NotOneSubmission`], which `grade`
//! checks before grading starts ([`check_submission_count`]).
//!
//! - top level: `score` (points earned; 0 for a submission the grader
//!   failed on, which `output` opens by saying is not a grade, and the
//!   run exits 2), `execution_time` (wall seconds:
//!   the run's duration, else the tests' wall times summed), `output` with
//!   the score on the visible tests beside the total, the compiler's or
//!   loader's message for a submission that could not be built or loaded,
//!   the notes on how the upload was read (files ignored, the notebook
//!   cells taken),
//!   and how the grade was made (grader version, case-file hashes, limits);
//!   `extra_data` with the visible and hidden points as numbers;
//! - `tests[]`, one per (case, function): `name` `"<case> <function>"`,
//!   `score`, `max_score`, `status` `passed`/`failed`, `output` (verdict and
//!   message, the board picture, what the code printed), and `visibility`:
//!   `after_published` for a hidden case, `visible` otherwise;
//! - every `output` has `output_format` `text`: compiler messages (`<...>`,
//!   carets aligned under code) and board pictures are shown as written,
//!   never rendered as HTML (`simple_format`, the default, would).

use serde::Serialize;
use std::io::{self, Write};

use super::ReportFormat;
use crate::report::{Report, RunInfo, Status, SubmissionReport, TestReport};
use crate::verdict::Verdict;

/// Why the Gradescope report could not be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GradescopeError {
    /// The report does not hold exactly one submission.
    #[error(
        "--gradescope needs exactly one submission, and there are {0}: Gradescope runs the autograder once per student; point grade at a folder holding one, or use --json"
    )]
    NotOneSubmission(usize),
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Checks that a run over `count` submissions can write a Gradescope report.
///
/// # Errors
/// [`GradescopeError::NotOneSubmission`] unless `count` is 1.
pub(crate) fn check_submission_count(count: usize) -> Result<(), GradescopeError> {
    if count == 1 {
        Ok(())
    } else {
        Err(GradescopeError::NotOneSubmission(count))
    }
}

/// The Gradescope format for the dispatcher.
pub(crate) struct Gradescope;

impl ReportFormat for Gradescope {
    fn write(&self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
        Ok(write(report, out)?)
    }
}

/// How every `output` is rendered: as plain text.
const OUTPUT_FORMAT: &str = "text";

/// Gradescope's `results.json`, the fields this grader fills.
#[derive(Debug, Serialize)]
struct Results {
    score: u32,
    execution_time: f64,
    output: String,
    output_format: &'static str,
    test_output_format: &'static str,
    extra_data: ExtraData,
    tests: Vec<Test>,
}

/// The score split the instructor may want beside Gradescope's own total.
#[derive(Debug, Serialize)]
struct ExtraData {
    visible_score: u32,
    visible_max_score: u32,
    hidden_score: u32,
    hidden_max_score: u32,
}

/// One entry of `tests[]`.
#[derive(Debug, Serialize)]
struct Test {
    name: String,
    score: u32,
    max_score: u32,
    status: &'static str,
    output: String,
    output_format: &'static str,
    visibility: &'static str,
}

/// Writes the report's single submission as Gradescope's `results.json`.
///
/// # Errors
/// [`GradescopeError::NotOneSubmission`] when the report holds more or
/// fewer than one submission; [`GradescopeError::Io`] when writing fails.
pub(crate) fn write(report: &Report, out: &mut dyn Write) -> Result<(), GradescopeError> {
    check_submission_count(report.submissions.len())?;
    let sub = &report.submissions[0];
    serde_json::to_writer_pretty(&mut *out, &results(sub, report.run.as_ref()))
        .map_err(io::Error::from)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

fn results(sub: &SubmissionReport, run: Option<&RunInfo>) -> Results {
    let points = |hidden: bool, earned: bool| -> u32 {
        sub.tests
            .iter()
            .filter(|t| t.hidden == hidden)
            .map(|t| if earned { t.points } else { t.max_points })
            .fold(0, u32::saturating_add)
    };
    let extra = ExtraData {
        visible_score: points(false, true),
        visible_max_score: points(false, false),
        hidden_score: points(true, true),
        hidden_max_score: points(true, false),
    };
    let mut output = if sub.graded() {
        format!(
            "Score on the visible tests: {}/{}.",
            extra.visible_score, extra.visible_max_score
        )
    } else {
        "Not graded: the grader failed on this submission (not the student's doing), so the score of 0 is not a grade; the instructor grades it again.".to_string()
    };
    if sub.graded() && extra.hidden_max_score > 0 {
        output.push_str(&format!(
            " The total out of {} includes hidden tests worth {}, shown after the grades are published.",
            sub.max_score, extra.hidden_max_score
        ));
    }
    output.push('\n');
    if !sub.notes.is_empty() {
        output.push('\n');
        for note in &sub.notes {
            output.push_str(&format!("Note: {note}\n"));
        }
    }
    for diagnosis in sub.diagnoses() {
        output.push_str(&format!("\nDiagnosis: {diagnosis}\n"));
    }
    match sub.status {
        Status::Ok => {}
        Status::BuildError => output.push_str(&format!(
            "\nYour submission could not be built, so no test ran:\n\n{}\n",
            sub.shown_message()
        )),
        Status::LoadError => output.push_str(&format!(
            "\nYour submission was built but could not be loaded, so no test ran:\n\n{}\n",
            sub.shown_message()
        )),
        Status::GraderError if sub.tests.iter().any(|t| t.fault.is_none()) => {
            output.push_str(&format!(
                "\nThe grader failed in some of your tests, so the tests below are not a grade:\n\n{}\n",
                sub.shown_message()
            ));
        }
        Status::GraderError => output.push_str(&format!(
            "\nThe grader failed on your submission, so no test ran (this is not a grade):\n\n{}\n",
            sub.shown_message()
        )),
    }
    if let Some(run) = run {
        output.push_str("\nHow this grade was made:\n");
        for (name, value) in run.lines() {
            output.push_str(&format!("  {name}: {value}\n"));
        }
    }
    let execution_s = run
        .map(|r| r.duration_s)
        .filter(|s| s.is_finite() && *s >= 0.0)
        .unwrap_or_else(|| {
            sub.tests
                .iter()
                .filter_map(TestReport::wall_seconds)
                // Not `sum`: the sum of no f64 is -0.0, which would print as such.
                .fold(0.0, |total, s| total + s)
        });
    Results {
        // Gradescope needs a number: 0, said above not to be a grade.
        score: sub.grade().unwrap_or(0),
        execution_time: execution_s,
        output,
        output_format: OUTPUT_FORMAT,
        test_output_format: OUTPUT_FORMAT,
        extra_data: extra,
        tests: sub.tests.iter().map(test).collect(),
    }
}

fn test(test: &TestReport) -> Test {
    let mut output = String::new();
    if test.verdict != Verdict::Pass {
        output.push_str(test.verdict.name());
        output.push_str(": ");
        output.push_str(&test.shown_message());
        output.push('\n');
        if let Some(description) = &test.description {
            output.push_str(&format!("the case: {description}\n"));
        }
        if let Some(board) = &test.board {
            output.push('\n');
            output.push_str(&board.picture());
        }
    }
    if !test.output.is_empty() {
        if !output.is_empty() {
            output.push('\n');
        }
        output.push_str("Your code printed:\n");
        output.push_str(&test.output);
        if !test.output.ends_with('\n') {
            output.push('\n');
        }
    }
    Test {
        name: format!("{} {}", test.case, test.function),
        score: test.points,
        max_score: test.max_points,
        status: if test.verdict == Verdict::Pass {
            "passed"
        } else {
            "failed"
        },
        output,
        output_format: OUTPUT_FORMAT,
        visibility: if test.hidden {
            "after_published"
        } else {
            "visible"
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{self, BOARD, BOB_COMPILER, HOSTILE_OUTPUT};
    use serde_json::Value;

    fn one(index: usize) -> Value {
        let mut report = fixture::sample();
        let sub = report.submissions.remove(index);
        report.submissions = vec![sub];
        let mut out = Vec::new();
        write(&report, &mut out).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

    #[test]
    fn scores_sum_and_tests_carry_status_and_visibility() {
        let results = one(0);
        let tests = results["tests"].as_array().unwrap();
        let sum: u64 = tests.iter().map(|t| t["score"].as_u64().unwrap()).sum();
        assert_eq!(results["score"], 1);
        assert_eq!(sum, 1);
        let max: u64 = tests.iter().map(|t| t["max_score"].as_u64().unwrap()).sum();
        assert_eq!(max, 7);
        let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            ["campus-4x4 legal", "campus-4x4 solve", "deep-9x9 solve"]
        );
        let statuses: Vec<&str> = tests
            .iter()
            .map(|t| t["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["passed", "failed", "failed"]);
        let visibility: Vec<&str> = tests
            .iter()
            .map(|t| t["visibility"].as_str().unwrap())
            .collect();
        assert_eq!(visibility, ["visible", "visible", "after_published"]);
        // Two timed tests of 1.5 ms; the crash has no time.
        assert!((results["execution_time"].as_f64().unwrap() - 0.003).abs() < 1e-9);
        assert_eq!(results["output_format"], "text");
        assert_eq!(results["test_output_format"], "text");
        assert!(tests.iter().all(|t| t["output_format"] == "text"));
        let output = results["output"].as_str().unwrap();
        assert!(
            output.starts_with("Score on the visible tests: 1/3. The total out of 7 includes hidden tests worth 4, shown after the grades are published.\n"),
            "{output}"
        );
        assert_eq!(results["extra_data"]["visible_score"], 1);
        assert_eq!(results["extra_data"]["visible_max_score"], 3);
        assert_eq!(results["extra_data"]["hidden_max_score"], 4);
    }

    #[test]
    fn test_output_holds_verdict_message_board_and_printed_text() {
        let results = one(0);
        let wrong = results["tests"][1]["output"].as_str().unwrap();
        assert!(wrong.starts_with("wrong: solve returned true"), "{wrong}");
        assert!(wrong.contains(BOARD), "{wrong}");
        assert!(
            wrong.contains("Your code printed:\ntrying r1c2\n"),
            "{wrong}"
        );
        let crash = results["tests"][2]["output"].as_str().unwrap();
        assert!(crash.starts_with("crash: killed by signal 11"), "{crash}");
        assert!(crash.contains(HOSTILE_OUTPUT), "{crash}");
        assert_eq!(results["tests"][0]["output"], "");
    }

    #[test]
    fn a_build_error_shows_the_compiler_message() {
        let results = one(1);
        assert_eq!(results["score"], 0);
        let time = results["execution_time"].as_f64().unwrap();
        assert!(time == 0.0 && time.is_sign_positive(), "{time}");
        let output = results["output"].as_str().unwrap();
        assert!(output.contains("could not be built"), "{output}");
        assert!(output.contains(BOB_COMPILER), "{output}");
        let tests = results["tests"].as_array().unwrap();
        assert_eq!(tests.len(), 3);
        assert!(
            tests
                .iter()
                .all(|t| t["status"] == "failed" && t["score"] == 0)
        );
    }

    #[test]
    fn more_than_one_submission_is_refused_with_advice() {
        let mut out = Vec::new();
        let err = write(&fixture::sample(), &mut out).unwrap_err();
        assert!(matches!(err, GradescopeError::NotOneSubmission(2)));
        let text = err.to_string();
        assert!(text.starts_with("--gradescope needs exactly one submission"));
        assert!(text.contains("use --json"), "{text}");
        assert!(out.is_empty(), "nothing written");
        assert!(check_submission_count(0).is_err());
        assert!(check_submission_count(1).is_ok());
    }
}
