//! The JUnit XML report (`--junit`), in the Jenkins JUnit dialect that
//! cargo-nextest writes (through the same serializer, `quick-junit`), so CI
//! systems that show test results (GitLab, Jenkins, GitHub test reporters)
//! show a grading run:
//!
//! - `<testsuites name="grader">`, one `<testsuite name="<id>">` per student,
//!   with properties `kind`, `status`, `score` and `max_score`;
//! - one `<testcase name="<case>/<function>" classname="<id>">` per test,
//!   `time` in seconds, properties `points` and `max_points` (and `hidden`
//!   for a hidden case);
//! - a `wrong`, `timeout`, `memory`, `crash` or `forbidden` verdict is a
//!   `<failure type="<verdict>">`, an `error` verdict an `<error>`: the
//!   `message` attribute is the message's first line, the text is the whole
//!   message and the board picture;
//! - a submission that could not be built or loaded has each test as an
//!   `<error type="build_error|load_error">` whose text holds the compiler's
//!   (or loader's) message;
//! - what the student's code printed is the test's `<system-out>`.

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};
use std::io::{self, Write};
use std::time::Duration;

use super::{Report, Status, SubmissionReport, TestReport};
use crate::verdict::Verdict;

/// The name of the `<testsuites>` element.
pub const REPORT_NAME: &str = "grader";

/// Writes `report` as JUnit XML.
pub fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut junit = quick_junit::Report::new(REPORT_NAME);
    let mut total = Duration::ZERO;
    for sub in &report.submissions {
        let suite = suite(sub);
        total += suite.time.unwrap_or_default();
        junit.add_test_suite(suite);
    }
    junit.set_time(total);
    junit.serialize(&mut *out).map_err(io::Error::other)?;
    writeln!(out)?;
    out.flush()
}

/// The test name used by the JUnit and CSV reports: `<case>/<function>`.
pub fn test_name(test: &TestReport) -> String {
    format!("{}/{}", test.case, test.function)
}

fn suite(sub: &SubmissionReport) -> TestSuite {
    let mut suite = TestSuite::new(sub.id.as_str());
    suite.add_properties([
        Property::new("kind", sub.kind.as_deref().unwrap_or("")),
        Property::new("status", status_name(sub.status)),
        Property::new("score", sub.score.to_string()),
        Property::new("max_score", sub.max_score.to_string()),
    ]);
    let mut time = Duration::ZERO;
    for test in &sub.tests {
        let case = test_case(sub, test);
        time += case.time.unwrap_or_default();
        suite.add_test_case(case);
    }
    suite.set_time(time);
    suite
}

fn test_case(sub: &SubmissionReport, test: &TestReport) -> TestCase {
    let mut case = TestCase::new(test_name(test), status(sub, test));
    case.set_classname(sub.id.as_str());
    if let Some(ms) = test.time_ms.filter(|ms| ms.is_finite() && *ms >= 0.0) {
        case.set_time(Duration::from_secs_f64(ms / 1000.0));
    }
    case.add_property(Property::new("points", test.points.to_string()));
    case.add_property(Property::new("max_points", test.max_points.to_string()));
    if test.hidden {
        case.add_property(Property::new("hidden", "true"));
    }
    if !test.output.is_empty() {
        case.set_system_out(test.output.as_str());
    }
    case
}

fn status(sub: &SubmissionReport, test: &TestReport) -> TestCaseStatus {
    if sub.status != Status::Ok {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status
            .set_type(status_name(sub.status))
            .set_message(first_line(&test.message))
            .set_description(format!("{}\n{}", test.message, sub.message));
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
    let mut description = test.message.clone();
    if let Some(board) = &test.board {
        description.push_str("\n\n");
        description.push_str(board.trim_end());
    }
    let mut status = TestCaseStatus::non_success(kind);
    status
        .set_type(test.verdict.name())
        .set_message(first_line(&test.message))
        .set_description(description);
    status
}

/// A submission's status as the JSON report writes it: `ok`,
/// `build_error` or `load_error`.
pub fn status_name(status: Status) -> &'static str {
    match status {
        Status::Ok => "ok",
        Status::BuildError => "build_error",
        Status::LoadError => "load_error",
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
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
            property(&alice.test_cases[2].properties, "hidden"),
            Some("true")
        );
        assert_eq!(property(&alice.test_cases[0].properties, "hidden"), None);
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
    fn control_characters_in_output_do_not_break_the_xml() {
        let mut report = fixture::sample();
        report.submissions[0].tests[0].output = "\x1b[31mred\x1b[0m\x00\x07 ok".into();
        let mut out = Vec::new();
        write(&report, &mut out).unwrap();
        let xml = String::from_utf8(out).unwrap();
        let parsed = quick_junit::Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(
            parsed.test_suites[0].test_cases[0].system_out.as_deref(),
            Some("red ok")
        );
    }
}
