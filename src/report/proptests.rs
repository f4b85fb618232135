//! Property tests: no report writer panics on any value a student or a
//! forged protocol line can put in the model (ids, messages, outputs with
//! control characters, `]]>`, quotes, huge or non-finite times), and what
//! each writes parses back: JSON and Gradescope as JSON, Classroom's
//! base64 line as JSON, CSV with the csv
//! crate (every row as wide as the header), JUnit as XML, HTML with every
//! student string escaped.

use proptest::prelude::*;

use super::formats::csv::{CsvLayout, Roster};
use super::formats::{csv, gradescope, html, json, junit};
use super::{Report, Status, SubmissionReport, TestReport};
use crate::verdict::{Function, Verdict};

/// Student text: anything, weighted towards what breaks formats.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[=+@\\-\t\r]?[a-z,\"' \n]{0,12}",
        Just("]]><script>alert(1)</script>".to_string()),
        Just("\u{0}\u{1b}[2K\r\u{7}\u{202e}\u{feff}\u{fffe}\u{ffff}".to_string()),
        Just("a\"b,c\nd\r\ne".to_string()),
        Just("x".repeat(5000)),
    ]
}

fn time() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        Just(None),
        any::<f64>().prop_map(Some),
        prop::sample::select(vec![
            1e300,
            -1.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.4,
        ])
        .prop_map(Some),
    ]
}

fn verdict() -> impl Strategy<Value = Verdict> {
    prop::sample::select(vec![
        Verdict::Pass,
        Verdict::Wrong,
        Verdict::Timeout,
        Verdict::Memory,
        Verdict::Crash,
        Verdict::Forbidden,
        Verdict::Error,
    ])
}

/// A board as a forged report may hold it: any box size, ragged rows, any
/// values, a mark anywhere.
fn board() -> impl Strategy<Value = crate::board_view::BoardView> {
    (
        0usize..6,
        prop::collection::vec(prop::collection::vec(any::<u8>(), 0..6), 0..6),
        prop::option::of((0usize..8, 0usize..8)),
    )
        .prop_map(|(n, rows, mark)| crate::board_view::BoardView {
            n,
            rows,
            mark: mark.map(|(r, c)| [r, c]),
        })
}

fn test_report() -> impl Strategy<Value = TestReport> {
    (
        hostile(),
        verdict(),
        (0u32..5, time(), time()),
        (hostile(), hostile(), prop::option::of(board())),
        any::<bool>(),
    )
        .prop_map(
            |(case, verdict, (max_points, time_ms, wall_ms), (message, output, board), hidden)| {
                TestReport {
                    case,
                    function: Function::Solve,
                    verdict,
                    points: if verdict == Verdict::Pass {
                        max_points
                    } else {
                        0
                    },
                    max_points,
                    time_ms,
                    wall_ms,
                    reruns: 0,
                    check: None,
                    fault: None,
                    message,
                    output,
                    board,
                    finding: None,
                    hidden,
                    description: None,
                    side: None,
                }
            },
        )
}

fn submission() -> impl Strategy<Value = SubmissionReport> {
    (
        hostile(),
        prop::option::of(hostile()),
        prop::sample::select(vec![Status::Ok, Status::BuildError, Status::LoadError]),
        hostile(),
        prop::collection::vec(test_report(), 0..4),
    )
        .prop_map(|(id, kind, status, message, tests)| SubmissionReport {
            id,
            kind,
            status,
            message,
            hint: None,
            score: tests.iter().map(|t| t.points).sum(),
            max_score: tests.iter().map(|t| t.max_points).sum(),
            notes: Vec::new(),
            fixed_size: None,
            fault: None,
            tests,
        })
}

fn report(max: usize) -> impl Strategy<Value = Report> {
    prop::collection::vec(submission(), 1..=max).prop_map(|submissions| Report {
        version: 1,
        submissions,
        run: None,
    })
}

fn written(write: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut out = Vec::new();
    write(&mut out);
    String::from_utf8(out).expect("every report is UTF-8")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn json_parses_back(report in report(3)) {
        let text = written(|out| json::write(&report, out).unwrap());
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(value["submissions"].as_array().unwrap().len(), report.submissions.len());
        for (sub, parsed) in report.submissions.iter().zip(value["submissions"].as_array().unwrap()) {
            prop_assert_eq!(parsed["id"].as_str(), Some(sub.id.as_str()));
        }
    }

    #[test]
    fn classroom_decodes_back_with_integer_scores_and_durations(report in report(1)) {
        use base64::Engine;
        let text = written(|out| {
            super::formats::ReportFormat::write(&super::formats::classroom::Classroom, &report, out).unwrap()
        });
        prop_assert_eq!(text.lines().count(), 1);
        let json = base64::engine::general_purpose::STANDARD
            .decode(text.trim_end())
            .unwrap();
        let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
        prop_assert_eq!(value["version"].as_u64(), Some(1));
        let sum: u64 = value["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["score"].as_u64().unwrap())
            .sum();
        prop_assert_eq!(sum, report.submissions[0].tests.iter().map(|t| u64::from(t.points)).sum::<u64>());
        for test in value["tests"].as_array().unwrap() {
            prop_assert!(test["duration"].is_u64());
        }
    }

    #[test]
    fn gradescope_parses_back_with_a_finite_time(report in report(1)) {
        let text = written(|out| gradescope::write(&report, out).unwrap());
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let time = value["execution_time"].as_f64().unwrap();
        prop_assert!(time.is_finite() && time >= 0.0, "{}", time);
        for test in value["tests"].as_array().unwrap() {
            prop_assert_eq!(test["output_format"].as_str(), Some("text"));
        }
    }

    #[test]
    fn csv_parses_back_in_every_layout(report in report(3), lms_id in hostile()) {
        let first = report.submissions[0].id.clone();
        let mut roster_csv = ::csv::Writer::from_writer(Vec::new());
        roster_csv.write_record(["id", "lms_id", "name"]).unwrap();
        roster_csv.write_record([first.as_str(), lms_id.as_str(), lms_id.as_str()]).unwrap();
        let roster = Roster::parse("roster.csv", &roster_csv.into_inner().unwrap()).ok();
        for layout in [CsvLayout::Plain, CsvLayout::Canvas, CsvLayout::Moodle, CsvLayout::Blackboard] {
            let mut out = Vec::new();
            // Never refused whole for an identifier (an odd one leaves out
            // its own row).
            csv::write_layout(&report, layout, roster.as_ref(), "Lab", &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            let mut reader = ::csv::ReaderBuilder::new().has_headers(false).from_reader(text.as_bytes());
            let rows: Vec<::csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
            let width = rows[0].len();
            for row in &rows {
                prop_assert_eq!(row.len(), width);
                for cell in row {
                    // Only an LMS identifier of a username's characters
                    // alone may start with - or @ (it can call nothing).
                    let inert_id = layout != CsvLayout::Plain
                        && cell.starts_with(['-', '@'])
                        && cell.chars().all(|c| c.is_ascii_alphanumeric() || "_.@-".contains(c));
                    prop_assert!(
                        inert_id || !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                        "{:?}",
                        cell
                    );
                }
            }
        }
    }

    #[test]
    fn junit_is_well_formed_xml(report in report(3)) {
        let text = written(|out| junit::write(&report, out).unwrap());
        let parsed = quick_junit::Report::deserialize_from_str(&text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(parsed.test_suites.len(), report.submissions.len());
        prop_assert!(!text.contains("<script"));
    }

    #[test]
    fn html_escapes_every_student_string(report in report(3)) {
        let text = written(|out| html::write(&report, out).unwrap());
        // The page's one script is the filter, at its end; no other tag
        // that could run or load anything.
        let script = text.find("<script").unwrap();
        prop_assert_eq!(text.matches("<script").count(), 1, "a student string reached the page as markup");
        let opening = "<script>(function(){";
        prop_assert!(text[script..].starts_with(opening));
        prop_assert!(text[script..].ends_with("</script>\n</body>\n</html>\n"));
        for tag in ["<img", "<iframe", "<object", "<embed", "<link", "<svg", "<style"] {
            let allowed = usize::from(tag == "<style");
            prop_assert!(text.matches(tag).count() <= allowed, "{} in the page", tag);
        }
        prop_assert!(text.ends_with("</html>\n"));
    }

    #[test]
    fn terminal_summary_shows_no_control_character(report in report(3)) {
        colored::control::set_override(false);
        let text = written(|out| super::formats::terminal::write_summary(&report, out).unwrap());
        prop_assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{:?}", text);
    }
}
