//! The JUnit XML report (`--junit`), in the dialect every consumer reads:
//! valid against the Jenkins xUnit plugin's `junit-10.xsd` (kept in
//! `schemas/`, checked by a test with `xmllint`), and read by GitLab,
//! dorny/test-reporter, mikepenz/action-junit-report and junitparser.
//! Written through `quick-junit`, the serializer cargo-nextest uses.
//!
//! - `<testsuites name="grader">`, one `<testsuite name="<id>">` per student.
//!   Its properties (the schema allows them only there, and xunitparser
//!   wants each name once per suite) carry `kind`, `status`, `score`,
//!   `max_score`, one `points:<case>/<function>` = `earned/possible` per
//!   test (and `hidden:<case>/<function>` = `true` for a hidden case), and
//!   the run (`grader`, `started`, `duration_s`, `case_file:<name>` = its
//!   SHA-256, `time_limit_ms`, `memory_limit_mb`, `find_empty_policy`,
//!   `safeguards`);
//! - one `<testcase name="<case>/<function>" classname="<id>">` per test,
//!   `time` = the test's wall time in seconds (absent when not measured);
//! - a `wrong`, `timeout`, `memory`, `crash` or `forbidden` verdict is a
//!   `<failure type="<verdict>">`, an `error` verdict an `<error>`: the
//!   `message` attribute is the message's first line, the text is the whole
//!   message and the board picture;
//! - a submission that could not be built or loaded has each test as an
//!   `<error type="build_error|load_error">` whose text holds the compiler's
//!   (or loader's) message;
//! - what the student's code printed is the test's `<system-out>`.
//!
//! Control characters in student text are shown as escapes (`\e`, `\u{7}`),
//! characters XML 1.0 cannot hold (U+FFFE, U+FFFF) dropped, the rest
//! escaped.

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};
use std::io::{self, Write};
use std::time::Duration;

use super::ReportFormat;
use crate::report::naming::{first_line, status_name, test_name};
use crate::report::{Report, RunInfo, Status, SubmissionReport, TestReport};
use crate::verdict::Verdict;
use crate::visible::visible;

/// The name of the `<testsuites>` element.
pub(crate) const REPORT_NAME: &str = "grader";

/// The JUnit format for the dispatcher.
pub(crate) struct Junit;

impl ReportFormat for Junit {
    fn write(&self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
        Ok(write(report, out)?)
    }
}

/// Writes `report` as JUnit XML.
pub(crate) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut junit = quick_junit::Report::new(REPORT_NAME);
    let mut total = Duration::ZERO;
    for sub in &report.submissions {
        let suite = suite(sub, report.run.as_ref());
        total = total.saturating_add(suite.time.unwrap_or_default());
        junit.add_test_suite(suite);
    }
    junit.set_time(total);
    let mut xml = Vec::new();
    junit.serialize(&mut xml).map_err(io::Error::other)?;
    out.write_all(&without_root_skipped(xml))?;
    writeln!(out)?;
    out.flush()
}

/// `junit-10.xsd` allows no `skipped` attribute on `<testsuites>`, which
/// quick-junit always writes (nothing is ever skipped here): drop it from
/// the root tag. The root tag holds only our own name and counts.
fn without_root_skipped(xml: Vec<u8>) -> Vec<u8> {
    let text = String::from_utf8_lossy(&xml);
    let Some(start) = text.find("<testsuites ") else {
        return xml;
    };
    let end = start + text[start..].find('>').unwrap_or(0);
    let tag = &text[start..end];
    let Some(at) = tag.find(" skipped=\"") else {
        return xml;
    };
    let value_end = tag[at + 10..]
        .find('"')
        .map_or(tag.len(), |i| at + 10 + i + 1);
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start + at]);
    out.push_str(&text[start + value_end..]);
    out.into_bytes()
}

/// Student `text` for XML: control characters made visible (as a terminal
/// view shows them, [`visible`]), then the characters XML 1.0 cannot hold
/// at all (U+FFFE, U+FFFF) dropped.
pub(crate) fn xml_safe(text: &str) -> String {
    visible(text)
        .chars()
        .filter(|&ch| {
            matches!(ch, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        })
        .collect()
}

fn suite(sub: &SubmissionReport, run: Option<&RunInfo>) -> TestSuite {
    let mut suite = TestSuite::new(xml_safe(&sub.id));
    let mut properties = vec![
        Property::new("kind", xml_safe(sub.kind.as_deref().unwrap_or(""))),
        Property::new("status", status_name(sub.status)),
        Property::new(
            "score",
            sub.grade()
                .map_or_else(|| "not graded".to_string(), |score| score.to_string()),
        ),
        Property::new("max_score", sub.max_score.to_string()),
    ];
    for test in &sub.tests {
        let name = xml_safe(&test_name(test));
        properties.push(Property::new(
            format!("points:{name}"),
            format!("{}/{}", test.points, test.max_points),
        ));
        if test.hidden {
            properties.push(Property::new(format!("hidden:{name}"), "true"));
        }
    }
    if let Some(run) = run {
        properties.extend(run_properties(run));
    }
    suite.add_properties(properties);
    let mut time = Duration::ZERO;
    for test in &sub.tests {
        let case = test_case(sub, test);
        time = time.saturating_add(case.time.unwrap_or_default());
        suite.add_test_case(case);
    }
    suite.set_time(time);
    suite
}

fn run_properties(run: &RunInfo) -> Vec<Property> {
    let mut properties = vec![
        Property::new("grader", xml_safe(&run.grader)),
        Property::new("started", xml_safe(&run.started)),
        Property::new("duration_s", format!("{:.3}", finite(run.duration_s))),
    ];
    for file in &run.case_files {
        properties.push(Property::new(
            format!("case_file:{}", xml_safe(&file.name)),
            file.sha256.clone().unwrap_or_else(|| "unreadable".into()),
        ));
    }
    properties.extend([
        Property::new("time_limit", xml_safe(&run.limits.time_policy())),
        Property::new("memory_limit_mb", run.limits.memory_limit_mb.to_string()),
        Property::new("find_empty_policy", xml_safe(&run.limits.find_empty_policy)),
        Property::new("safeguards", xml_safe(&run.safeguards.join(", "))),
    ]);
    properties
}

fn finite(x: f64) -> f64 {
    if x.is_finite() { x } else { 0.0 }
}

fn test_case(sub: &SubmissionReport, test: &TestReport) -> TestCase {
    let mut case = TestCase::new(xml_safe(&test_name(test)), status(sub, test));
    case.set_classname(xml_safe(&sub.id));
    if let Some(seconds) = test.wall_seconds() {
        if let Ok(time) = Duration::try_from_secs_f64(seconds) {
            case.set_time(time);
        }
    }
    if !test.output.is_empty() {
        case.set_system_out(xml_safe(&test.output));
    }
    case
}

fn status(sub: &SubmissionReport, test: &TestReport) -> TestCaseStatus {
    if sub.status != Status::Ok {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status
            .set_type(status_name(sub.status))
            .set_message(xml_safe(first_line(&test.shown_message())))
            .set_description(xml_safe(&format!(
                "{}\n{}",
                test.shown_message(),
                sub.shown_message()
            )));
        return status;
    }
    let kind = match test.verdict {
        Verdict::Pass => return TestCaseStatus::success(),
        Verdict::Error => NonSuccessKind::Error,
        Verdict::Wrong
        | Verdict::Timeout
        | Verdict::Memory
        | Verdict::Crash
        | Verdict::Forbidden => NonSuccessKind::Failure,
    };
    let mut description = test.shown_message().into_owned();
    if let Some(board) = &test.board {
        description.push_str("\n\n");
        description.push_str(board.picture().trim_end());
    }
    let mut status = TestCaseStatus::non_success(kind);
    status
        .set_type(test.verdict.name())
        .set_message(xml_safe(first_line(&test.shown_message())))
        .set_description(xml_safe(&description));
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{self, BOARD, BOB_COMPILER, HOSTILE_OUTPUT};

    fn parsed() -> (String, quick_junit::Report) {
        let mut out = Vec::new();
        write(&fixture::sample(), &mut out).unwrap();
        let xml = String::from_utf8(out).unwrap();
        let report = quick_junit::Report::deserialize_from_str(&xml)
            .unwrap_or_else(|e| panic!("{e}\n{xml}"));
        (xml, report)
    }

    fn property<'a>(props: &'a [Property], name: &str) -> Option<&'a str> {
        props
            .iter()
            .find(|p| p.name.as_str() == name)
            .map(|p| p.value.as_str())
    }

    fn non_success(case: &TestCase) -> (NonSuccessKind, &str, &str, &str) {
        match &case.status {
            TestCaseStatus::NonSuccess {
                kind,
                message,
                ty,
                description,
                ..
            } => (
                *kind,
                message.as_deref().unwrap_or(""),
                ty.as_deref().unwrap_or(""),
                description.as_deref().unwrap_or(""),
            ),
            other => panic!("{} is not a failure: {other:?}", case.name.as_str()),
        }
    }

    #[test]
    fn one_suite_per_student_one_case_per_test() {
        let (xml, report) = parsed();
        assert_eq!(report.name.as_deref(), Some("grader"));
        assert_eq!((report.tests, report.failures, report.errors), (6, 2, 3));
        let names: Vec<&str> = report.test_suites.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["alice", "bob"]);
        let alice = &report.test_suites[0];
        assert_eq!(property(&alice.properties, "score"), Some("1"));
        assert_eq!(property(&alice.properties, "max_score"), Some("7"));
        assert_eq!(property(&alice.properties, "status"), Some("ok"));
        let cases: Vec<&str> = alice.test_cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            cases,
            ["campus-4x4/legal", "campus-4x4/solve", "deep-9x9/solve"]
        );
        for case in &alice.test_cases {
            assert_eq!(case.classname.as_deref(), Some("alice"));
        }
        // 1.5 ms, in seconds with three decimals as nextest writes them;
        // the crash has no time.
        assert!(xml.contains("time=\"0.002\""), "{xml}");
        assert_eq!(alice.test_cases[0].time, Some(Duration::from_millis(2)));
        assert_eq!(alice.test_cases[2].time, None);
        assert_eq!(
            property(&alice.properties, "hidden:deep-9x9/solve"),
            Some("true")
        );
        assert_eq!(property(&alice.properties, "hidden:campus-4x4/legal"), None);
        assert_eq!(
            property(&alice.properties, "points:campus-4x4/legal"),
            Some("1/1")
        );
        assert_eq!(
            property(&alice.properties, "points:campus-4x4/solve"),
            Some("0/2")
        );
        for case in &alice.test_cases {
            assert!(
                case.properties.is_empty(),
                "junit-10.xsd has no testcase properties"
            );
        }
        let root = &xml[xml.find("<testsuites").unwrap()..];
        let root = &root[..root.find('>').unwrap()];
        assert!(
            !root.contains("skipped="),
            "junit-10.xsd has no skipped on testsuites: {root}"
        );
    }

    #[test]
    fn verdicts_map_to_failure_types_with_message_and_board() {
        let (_, report) = parsed();
        let alice = &report.test_suites[0];
        assert!(matches!(
            alice.test_cases[0].status,
            TestCaseStatus::Success { .. }
        ));
        let (kind, message, ty, text) = non_success(&alice.test_cases[1]);
        assert_eq!(kind, NonSuccessKind::Failure);
        assert_eq!(ty, "wrong");
        assert_eq!(
            message,
            "solve returned true but r2c3 holds 1, which is not in the solution"
        );
        assert!(text.contains("the board after solve:"), "{text}");
        assert!(text.contains(BOARD.trim_end()), "{text}");
        assert_eq!(
            alice.test_cases[1].system_out.as_deref(),
            Some("trying r1c2") // the parser trims text
        );
        let (kind, _, ty, _) = non_success(&alice.test_cases[2]);
        assert_eq!((kind, ty), (NonSuccessKind::Failure, "crash"));
        assert_eq!(
            alice.test_cases[2].system_out.as_deref(),
            Some(HOSTILE_OUTPUT.trim_end())
        );
    }

    #[test]
    fn a_build_error_makes_every_test_an_error_with_the_compiler_message() {
        let (_, report) = parsed();
        let bob = &report.test_suites[1];
        assert_eq!(bob.errors, 3);
        assert_eq!(property(&bob.properties, "status"), Some("build_error"));
        for case in &bob.test_cases {
            let (kind, message, ty, text) = non_success(case);
            assert_eq!(kind, NonSuccessKind::Error);
            assert_eq!(ty, "build_error");
            assert_eq!(message, "not run: the submission could not be built");
            assert!(text.contains(BOB_COMPILER), "{text}");
        }
    }

    #[test]
    fn student_markup_is_escaped() {
        let (xml, _) = parsed();
        assert!(!xml.contains("<script>"), "{xml}");
        assert!(xml.contains("&lt;script&gt;"), "{xml}");
    }

    #[test]
    fn control_characters_in_output_are_shown_and_do_not_break_the_xml() {
        let mut report = fixture::sample();
        report.submissions[0].tests[0].output = "\x1b[31mred\x1b[0m\x00\x07 ok".into();
        let mut out = Vec::new();
        write(&report, &mut out).unwrap();
        let xml = String::from_utf8(out).unwrap();
        let parsed = quick_junit::Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(
            parsed.test_suites[0].test_cases[0].system_out.as_deref(),
            Some("\\e[31mred\\e[0m\\0\\u{7} ok")
        );
    }
}
