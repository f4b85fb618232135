//! The fields of a submission's result that follow from its tests: each
//! test's points, the submission's score, points possible, fault and
//! status. They are computed here, in one place, and never trusted as
//! stored:
//!
//! - [`SubmissionReport::settle`] recomputes them on a fresh result (the
//!   grading loop calls it before any report sees the result);
//! - the JSON writes them recomputed ([`Serialize`] below), so a result in
//!   which they disagree is never written;
//! - reading a result back (`merge`, `report`, `--results`) recomputes
//!   them and refuses a result whose stored values disagree
//!   ([`Deserialize`] below, through [`Stored`]), naming the student.
//!
//! A submission on which the grader failed (a `fault` on the submission or
//! on any of its tests, such as `host_busy` after its reruns) is **not
//! graded**: its status is `grader_error` and its score is no number
//! ([`SubmissionReport::grade`] is `None`, the JSON's `score` is `null`),
//! whatever the tests that did run earned. Every format shows it as not
//! graded.

use serde::{Deserialize, Serialize};

use super::{Status, SubmissionReport, TestReport};
use crate::verdict::{Fault, Verdict};
use crate::visible::visible_line;

/// A test's points as its verdict gives them: all of them for a pass the
/// grader ran to its end, none otherwise.
pub(crate) fn points_of(test: &TestReport) -> u32 {
    if test.verdict == Verdict::Pass && test.fault.is_none() {
        test.max_points
    } else {
        0
    }
}

/// What a submission's tests (and its own fault) say its derived fields are.
#[derive(Debug, PartialEq)]
struct Derived {
    status: Status,
    score: u32,
    max_score: u32,
    fault: Option<Fault>,
}

/// The derived fields of `sub`, from its tests; `status` is the stored
/// one, except that any fault makes it `grader_error`.
fn derive(sub: &SubmissionReport) -> Derived {
    let fault = sub.fault.or_else(|| sub.tests.iter().find_map(|t| t.fault));
    Derived {
        status: if fault.is_some() {
            Status::GraderError
        } else {
            sub.status
        },
        score: sub.tests.iter().map(points_of).fold(0, u32::saturating_add),
        max_score: sub
            .tests
            .iter()
            .map(|t| t.max_points)
            .fold(0, u32::saturating_add),
        fault,
    }
}

/// The tests of `sub` the grader could not run (a fault on the test).
fn faulted(sub: &SubmissionReport) -> Vec<&TestReport> {
    sub.tests.iter().filter(|t| t.fault.is_some()).collect()
}

impl SubmissionReport {
    /// True iff this result is a grade: the grader failed nowhere on it.
    pub fn graded(&self) -> bool {
        derive(self).status != Status::GraderError
    }

    /// The grade: the points earned, or `None` when the grader failed on
    /// this submission (then no number is a grade).
    pub fn grade(&self) -> Option<u32> {
        self.graded().then_some(self.score)
    }

    /// The score as every text report shows it: `14/15`, or `not graded`.
    pub fn score_text(&self) -> String {
        match self.grade() {
            Some(score) => format!("{score}/{}", self.max_score),
            None => "not graded".to_string(),
        }
    }

    /// Recomputes the derived fields from the tests (see the module doc).
    /// A submission that ran but met a grader fault in some tests becomes
    /// `grader_error`, its message naming those tests.
    pub fn settle(&mut self) {
        for test in &mut self.tests {
            test.points = points_of(test);
        }
        let derived = derive(self);
        if derived.status == Status::GraderError && self.status == Status::Ok {
            let faulted = faulted(self);
            let names: Vec<String> = faulted
                .iter()
                .take(3)
                .map(|t| format!("{}/{}", visible_line(&t.case), t.function))
                .collect();
            let more = faulted.len().saturating_sub(names.len());
            self.message = format!(
                "not graded: the grader could not run {} of {} tests ({}{}); grade again (the rest ran and are listed, but are not a grade)",
                faulted.len(),
                self.tests.len(),
                names.join(", "),
                if more > 0 {
                    format!(", and {more} more")
                } else {
                    String::new()
                }
            );
        }
        self.status = derived.status;
        self.score = derived.score;
        self.max_score = derived.max_score;
        self.fault = derived.fault;
    }
}

/// A submission's result as the JSON holds it: the model's fields, the
/// score `null` when not graded.
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields, rename = "SubmissionReport")]
pub(crate) struct Stored<T> {
    /// The student id: the name of the submission's entry.
    id: String,
    /// `rust`, `c`, `python` or `library`; null when not recognised.
    kind: Option<String>,
    /// How far grading got: `grader_error` whenever the grader failed on
    /// the submission or one of its tests.
    status: Status,
    /// Why it did not get further (the compiler's or loader's message).
    message: String,
    /// What to do about a build or load error whose message shows a
    /// mistake the lab's setting explains (an import the box's Python
    /// cannot satisfy, a name the Rust export macro defines too); absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
    /// How the upload was read, for the student (files ignored beside the
    /// submission, the notebook cells taken); absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
    /// A board size the code was written for, as its tests proved it:
    /// every test of boxes of size n passes, each other size has a
    /// failure; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fixed_size: Option<super::FixedSize>,
    /// Points earned: the sum of the tests' points; null when the
    /// submission is not graded (status `grader_error`).
    score: Option<u32>,
    /// Points possible: the sum of the tests' `max_points`.
    max_score: u32,
    /// The grader's fault on this submission or the first of its tests',
    /// when there is one: never a score, and the run exits 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fault: Option<Fault>,
    /// One per (case, function), in case order.
    tests: T,
}

impl Serialize for SubmissionReport {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let derived = derive(self);
        let graded = derived.status != Status::GraderError;
        Stored {
            id: self.id.clone(),
            kind: self.kind.clone(),
            status: derived.status,
            message: self.message.clone(),
            hint: self.hint.clone(),
            notes: self.notes.clone(),
            fixed_size: self.fixed_size.clone(),
            score: graded.then_some(derived.score),
            max_score: derived.max_score,
            fault: derived.fault,
            tests: &self.tests,
        }
        .serialize(serializer)
    }
}

/// A submission in the JSON report is what [`Stored`] holds.
impl schemars::JsonSchema for SubmissionReport {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SubmissionReport".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Stored::<Vec<TestReport>>::json_schema(generator)
    }
}

impl<'de> Deserialize<'de> for SubmissionReport {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = Stored::<Vec<TestReport>>::deserialize(deserializer)?;
        let stored_score = stored.score;
        let mut report = SubmissionReport {
            id: stored.id,
            kind: stored.kind,
            status: stored.status,
            message: stored.message,
            hint: stored.hint,
            notes: stored.notes,
            fixed_size: stored.fixed_size,
            score: 0,
            max_score: stored.max_score,
            fault: stored.fault,
            tests: stored.tests,
        };
        check(&report, stored_score).map_err(serde::de::Error::custom)?;
        // Checked: the score of the tests that ran, as `settle` makes it.
        report.score = derive(&report).score;
        Ok(report)
    }
}

/// Checks that the stored derived fields of `sub` (its score as stored,
/// `None` for `null`) are what its tests give, saying what disagrees.
fn check(sub: &SubmissionReport, stored_score: Option<u32>) -> Result<(), String> {
    let who = format!("`{}`", visible_line(&sub.id));
    let fix =
        "the result was changed after grading, or written by another grader: regrade this student";
    for test in &sub.tests {
        let due = points_of(test);
        if test.points != due {
            return Err(format!(
                "{who}: the test {}/{} ({}) stores {} points where its verdict gives {due}: {fix}",
                visible_line(&test.case),
                test.function,
                test.verdict,
                test.points
            ));
        }
    }
    let derived = derive(sub);
    let faultless_error = sub.status == Status::GraderError && derived.fault.is_none();
    if sub.status != derived.status || faultless_error {
        let why = if derived.fault.is_some() {
            "the grader failed on it (a fault), so it is `grader_error`".to_string()
        } else {
            "no fault is recorded on it or its tests".to_string()
        };
        return Err(format!(
            "{who}: its status is stored as `{}`, but {why}: {fix}",
            super::naming::status_name(sub.status)
        ));
    }
    let not_run = matches!(sub.status, Status::BuildError | Status::LoadError);
    if let Some(test) = sub
        .tests
        .iter()
        .find(|t| not_run && t.verdict != Verdict::Error)
    {
        return Err(format!(
            "{who}: it is stored as `{}` (no test ran), but its test {}/{} has the verdict {}: {fix}",
            super::naming::status_name(sub.status),
            visible_line(&test.case),
            test.function,
            test.verdict
        ));
    }
    let graded = derived.status != Status::GraderError;
    match (graded, stored_score) {
        (true, None) => {
            return Err(format!(
                "{who}: its score is stored as null (not graded), but no fault is recorded: {fix}"
            ));
        }
        (false, Some(score)) => {
            return Err(format!(
                "{who}: it stores the score {score}, but the grader failed on it, so it has no score: {fix}"
            ));
        }
        (true, Some(score)) if score != derived.score => {
            return Err(format!(
                "{who}: its score is stored as {score}, but its tests' points add up to {}: {fix}",
                derived.score
            ));
        }
        _ => {}
    }
    if sub.max_score != derived.max_score {
        return Err(format!(
            "{who}: its points possible are stored as {}, but its tests' add up to {}: {fix}",
            sub.max_score, derived.max_score
        ));
    }
    if sub.fault.is_some() && sub.fault != derived.fault {
        return Err(format!("{who}: its fault disagrees with its tests': {fix}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;
    use crate::verdict::FaultKind;

    /// alice with one test that met `host_busy` after its reruns.
    fn busy() -> SubmissionReport {
        let mut alice = fixture::sample().submissions.remove(0);
        let test = &mut alice.tests[1];
        test.verdict = Verdict::Error;
        test.fault = Some(Fault::grader(FaultKind::HostBusy));
        test.reruns = 2;
        test.message = "the host was too busy to time this test".into();
        alice
    }

    #[test]
    fn a_fault_in_one_test_makes_the_submission_not_graded() {
        let mut alice = busy();
        assert_eq!(alice.status, Status::Ok, "as the runner leaves it");
        alice.settle();
        assert_eq!(alice.status, Status::GraderError);
        assert_eq!(alice.fault, Some(Fault::grader(FaultKind::HostBusy)));
        assert_eq!(alice.grade(), None);
        assert_eq!(alice.score_text(), "not graded");
        assert!(
            alice.message.starts_with(
                "not graded: the grader could not run 1 of 3 tests (campus-4x4/solve)"
            ),
            "{}",
            alice.message
        );
        let json = serde_json::to_value(&alice).unwrap();
        assert_eq!(json["status"], "grader_error");
        assert_eq!(json["score"], serde_json::Value::Null);
        assert_eq!(json["fault"]["kind"], "host_busy");
        // Read back as written (but what the JSON leaves out).
        let back: SubmissionReport = serde_json::from_value(json).unwrap();
        assert_eq!(back.score, 1, "the points of the tests that ran");
        assert_eq!(back.tests.len(), 3);
        assert_eq!(
            (back.status, back.fault, &back.message, back.grade()),
            (alice.status, alice.fault, &alice.message, None)
        );
    }

    #[test]
    fn the_json_writes_the_derived_fields_even_of_an_unsettled_result() {
        let alice = busy();
        let json = serde_json::to_value(&alice).unwrap();
        assert_eq!(json["status"], "grader_error");
        assert_eq!(json["score"], serde_json::Value::Null);
        let graded = fixture::sample().submissions.remove(0);
        let json = serde_json::to_value(&graded).unwrap();
        assert_eq!(json["status"], "ok");
        assert_eq!(json["score"], 1);
        assert_eq!(graded.score_text(), "1/7");
    }

    #[test]
    fn a_stored_value_that_disagrees_with_the_tests_is_refused_naming_the_student() {
        let good = serde_json::to_value(fixture::sample().submissions.remove(0)).unwrap();
        let refused = |edit: &dyn Fn(&mut serde_json::Value), says: &str| {
            let mut value = good.clone();
            edit(&mut value);
            let err = serde_json::from_value::<SubmissionReport>(value)
                .unwrap_err()
                .to_string();
            assert!(err.starts_with("`alice`: "), "{err}");
            assert!(err.contains(says), "{err}");
            assert!(err.contains("regrade this student"), "{err}");
        };
        refused(
            &|v| v["score"] = 7.into(),
            "its score is stored as 7, but its tests' points add up to 1",
        );
        refused(
            &|v| v["tests"][1]["points"] = 2.into(),
            "campus-4x4/solve (wrong) stores 2 points where its verdict gives 0",
        );
        refused(&|v| v["max_score"] = 9.into(), "points possible");
        refused(&|v| v["score"] = serde_json::Value::Null, "stored as null");
        refused(
            &|v| v["status"] = "grader_error".into(),
            "no fault is recorded",
        );
        refused(
            &|v| {
                v["tests"][1]["fault"] = serde_json::json!({"blame": "grader", "kind": "host_busy"})
            },
            "its status is stored as `ok`, but the grader failed on it",
        );
        refused(
            &|v| {
                v["tests"][1]["fault"] =
                    serde_json::json!({"blame": "grader", "kind": "host_busy"});
                v["status"] = "grader_error".into();
            },
            "it stores the score 1, but the grader failed on it",
        );
        refused(
            &|v| v["status"] = "build_error".into(),
            "has the verdict pass",
        );
        // The honest one reads back.
        serde_json::from_value::<SubmissionReport>(good).unwrap();
    }

    /// The sample report with alice not graded (settled as `grade` does).
    fn class_with_busy_alice() -> crate::report::Report {
        let mut report = fixture::sample();
        report.submissions[0] = busy();
        report.submissions[0].settle();
        report
    }

    fn written(write: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        write(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_writer_shows_a_result_with_a_fault_as_not_graded() {
        use crate::report::formats::csv::{CsvLayout, write_layout};
        colored::control::set_override(false);
        let report = class_with_busy_alice();

        let json: serde_json::Value = serde_json::from_str(&written(|o| {
            crate::report::formats::json::write(&report, o).unwrap()
        }))
        .unwrap();
        let alice = &json["submissions"][0];
        assert_eq!(
            (&alice["status"], &alice["score"]),
            (&"grader_error".into(), &serde_json::Value::Null)
        );

        let plain = written(|o| {
            write_layout(&report, CsvLayout::Plain, None, "Lab", o).unwrap();
        });
        assert!(
            plain.contains("\nalice,c,grader_error,,7,1,0,0\n"),
            "{plain}"
        );
        for layout in [CsvLayout::Canvas, CsvLayout::Moodle, CsvLayout::Blackboard] {
            let text = written(|o| write_layout(&report, layout, None, "Lab", o).unwrap());
            assert!(
                !text.contains("alice"),
                "no row, so an import keeps the grade: {text}"
            );
            assert!(text.contains("bob"), "{text}");
        }

        let gradescope: serde_json::Value = {
            let mut one = report.clone();
            one.submissions.truncate(1);
            serde_json::from_str(&written(|o| {
                crate::report::formats::gradescope::write(&one, o).unwrap()
            }))
            .unwrap()
        };
        assert_eq!(gradescope["score"], 0);
        let output = gradescope["output"].as_str().unwrap();
        assert!(output.starts_with("Not graded: "), "{output}");
        assert!(output.contains("not a grade"), "{output}");

        let classroom = crate::report::formats::classroom::encoded(&report.submissions[0]);
        let classroom: serde_json::Value = {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(classroom)
                .unwrap();
            serde_json::from_slice(&bytes).unwrap()
        };
        assert_eq!(classroom["status"], "error");
        assert!(
            classroom["tests"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["score"] == 0),
            "no points reach the reporter's sum: {classroom}"
        );

        let html = written(|o| crate::report::formats::html::write(&report, o).unwrap());
        assert!(
            html.contains("<td class=\"score fail\">not graded</td>"),
            "{html}"
        );
        assert!(html.contains("<p class=\"fail\">Not graded: "), "{html}");
        assert!(!html.contains(">1/7<"), "{html}");

        let terminal =
            written(|o| crate::report::formats::terminal::write_summary(&report, o).unwrap());
        let line = terminal.lines().find(|l| l.starts_with("alice")).unwrap();
        assert!(
            line.contains("not graded") && !line.contains("1/7"),
            "{line}"
        );

        let summary = written(|o| crate::report::formats::summary_md::write(&report, o).unwrap());
        assert!(
            summary.contains("| alice | c | not graded | grader fault: "),
            "{summary}"
        );

        let junit = written(|o| crate::report::formats::junit::write(&report, o).unwrap());
        assert!(
            junit.contains("name=\"score\" value=\"not graded\""),
            "{junit}"
        );

        let line = crate::report::formats::terminal::row(&report.submissions[0], 5, false);
        // Without the colour codes a run may paint.
        let mut plain = String::new();
        let mut chars = line.chars();
        while let Some(ch) = chars.next() {
            if ch == '\u{1b}' {
                chars.by_ref().find(|&c| c == 'm');
            } else {
                plain.push(ch);
            }
        }
        assert!(
            plain.starts_with("alice  c        not graded  grader fault: "),
            "{plain}"
        );
    }
}
