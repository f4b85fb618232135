//! The instructor's human-readable report: one row per student (`grader
//! grade`). The student's view of `grader check` is [`crate::report::student`].
//! This is a terminal edge: colour is painted here (by `colored`, whose
//! switch `crate::color` sets once for the run: `--color`, `NO_COLOR`,
//! `FORCE_COLOR`, `CLICOLOR_FORCE`, the terminal), never in the model.
//! The same header and rows serve the table at the end (a terminal) and
//! the lines streamed as students finish (a pipe, a CI log).

use colored::Colorize;
use std::io::{self, Write};
use unicode_width::UnicodeWidthStr;

use crate::report::{Report, Status, SubmissionReport, TestReport};
use crate::verdict::Verdict;
use crate::visible::visible_line;

/// How many failing tests a summary row names before "and N more".
const FAILURES_PER_ROW: usize = 3;

/// Writes one row per student: id, kind, score, and what failed, then a
/// closing line (`N submissions, M passed every test`); with `-q`, the
/// closing line alone. Every piece of student text (ids, kinds, case
/// names, compiler messages) is shown through [`visible_line`] (an id
/// through [`crate::report::ids::Ids::shown`], which escapes more): a name cannot move
/// the cursor, clear a line, fake another row or pass for another id,
/// and a note under the table names each escaped id and look-alike. Columns are
/// padded by display width (`unicode-width`): a CJK name takes two columns
/// a character, a combining accent none, and the rows still line up.
pub(crate) fn write_summary(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    if crate::quiet::is_quiet() {
        return closing_line(report, out);
    }
    let run_ids = crate::report::ids::of_report(report);
    let ids: Vec<String> = report
        .submissions
        .iter()
        .map(|s| run_ids.shown(&s.id).into_owned())
        .collect();
    let id_width = ids
        .iter()
        .map(|id| id.width())
        .max()
        .unwrap_or(0)
        .max("student".len());
    writeln!(out, "{}", header(id_width))?;
    for (sub, id) in report.submissions.iter().zip(&ids) {
        let score = sub.score_text();
        let score = if !sub.graded() {
            score.red()
        } else if sub.all_passed() {
            score.green()
        } else if sub.score == 0 {
            score.red()
        } else {
            score.yellow()
        };
        writeln!(
            out,
            "{}  {}  {:>7}  {}",
            pad(id, id_width),
            pad(&visible_line(sub.kind.as_deref().unwrap_or("?")), 7),
            score,
            summary_result(sub)
        )?;
    }
    for sub in &report.submissions {
        for diagnosis in sub.diagnoses() {
            writeln!(
                out,
                "{}: {}",
                crate::report::ids::shown_alone(&sub.id),
                diagnosis
            )?;
        }
    }
    for note in run_ids.notes() {
        writeln!(out, "note: {note}")?;
    }
    closing_line(report, out)
}

/// The width of the summary's first column for these ids (as shown,
/// by display width), never narrower than its header.
pub(crate) fn id_width<'a>(ids: impl Iterator<Item = &'a str>) -> usize {
    ids.map(|id| crate::report::ids::shown_alone(id).width())
        .max()
        .unwrap_or(0)
        .max("student".len())
}

/// The summary's header line, its first column `id_width` wide: the same
/// above the table at the end and above the lines streamed as students
/// finish (on a pipe, a CI log).
pub(crate) fn header(id_width: usize) -> String {
    format!(
        "{}  {:<7}  {:>7}  result",
        pad("student", id_width),
        "kind",
        "score"
    )
    .bold()
    .to_string()
}

/// One student's row: id, kind, score, and what failed; `stored` marks a
/// result reused from `--results`. Painted when the run paints (one
/// decision, `crate::color`), on a terminal or a pipe alike.
pub(crate) fn row(sub: &SubmissionReport, id_width: usize, stored: bool) -> String {
    let score = sub.score_text();
    let score = if !sub.graded() {
        score.red()
    } else if sub.all_passed() {
        score.green()
    } else if sub.score == 0 {
        score.red()
    } else {
        score.yellow()
    };
    format!(
        "{}  {}  {:>7}  {}{}",
        pad(&crate::report::ids::shown_alone(&sub.id), id_width),
        pad(&visible_line(sub.kind.as_deref().unwrap_or("?")), 7),
        score,
        summary_result(sub),
        if stored { "  (stored result)" } else { "" }
    )
}

/// The summary's last line, which scripts read.
pub(crate) fn closing_line(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let passed = report.submissions.iter().filter(|s| s.all_passed()).count();
    writeln!(
        out,
        "{} submissions, {} passed every test",
        report.submissions.len(),
        passed
    )
}

/// `text` followed by spaces up to `width` terminal columns (by display
/// width, not by characters or bytes).
fn pad(text: &str, width: usize) -> String {
    let fill = width.saturating_sub(text.width());
    format!("{text}{}", " ".repeat(fill))
}

fn summary_result(sub: &SubmissionReport) -> String {
    let headline = || visible_line(&sub.one_line()).into_owned();
    match sub.status {
        Status::BuildError => format!("{}: {}", "build error".red(), headline()),
        Status::LoadError => format!("{}: {}", "load error".red(), headline()),
        Status::GraderError => format!("{}: {}", "grader fault".red(), headline()),
        Status::Ok => {
            let failed: Vec<&TestReport> = sub
                .tests
                .iter()
                .filter(|t| t.verdict != Verdict::Pass)
                .collect();
            if failed.is_empty() {
                return "all passed".green().to_string();
            }
            let mut names: Vec<String> = failed
                .iter()
                .take(FAILURES_PER_ROW)
                .map(|t| {
                    format!(
                        "{}/{} {}",
                        visible_line(&t.case),
                        t.function,
                        verdict_colored(t.verdict)
                    )
                })
                .collect();
            if failed.len() > FAILURES_PER_ROW {
                names.push(format!("and {} more", failed.len() - FAILURES_PER_ROW));
            }
            names.join(", ")
        }
    }
}

fn verdict_colored(verdict: Verdict) -> String {
    match verdict {
        Verdict::Pass => verdict.name().green().to_string(),
        Verdict::Timeout | Verdict::Memory => verdict.name().yellow().to_string(),
        _ => verdict.name().red().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Function;

    fn test(case: &str, verdict: Verdict) -> TestReport {
        TestReport {
            case: case.into(),
            function: Function::Solve,
            verdict,
            points: u32::from(verdict == Verdict::Pass),
            max_points: 1,
            time_ms: Some(1.0),
            wall_ms: None,
            reruns: 0,
            check: None,
            fault: None,
            message: if verdict == Verdict::Pass {
                String::new()
            } else {
                "r1c1 still holds 3".into()
            },
            output: String::new(),
            board: None,
            finding: None,
            hidden: false,
            description: None,
            side: None,
        }
    }

    #[test]
    fn summary_names_failures_and_counts_the_rest() {
        colored::control::set_override(false);
        let tests = (0..5)
            .map(|i| test(&format!("c{i}"), Verdict::Wrong))
            .collect();
        let report = Report {
            version: 1,
            run: None,
            submissions: vec![SubmissionReport {
                id: "bob".into(),
                kind: Some("c".into()),
                status: Status::Ok,
                message: String::new(),
                hint: None,
                score: 0,
                max_score: 5,
                notes: Vec::new(),
                fixed_size: None,
                fault: None,
                tests,
            }],
        };
        let mut out = Vec::new();
        write_summary(&report, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("bob"), "{text}");
        assert!(text.contains("0/5"), "{text}");
        assert!(
            text.contains("c0/solve wrong, c1/solve wrong, c2/solve wrong, and 2 more"),
            "{text}"
        );
        assert!(
            text.contains("1 submissions, 0 passed every test"),
            "{text}"
        );
    }

    #[test]
    fn summary_snapshot_with_colour_off() {
        colored::control::set_override(false);
        let mut report = crate::report::fixture::sample();
        // A name that tries to clear the line and fake a row, and a
        // compiler message with an escape: both shown, not interpreted.
        report.submissions[1].id = "mallory\u{1b}[2K\rbob  c  7/7  all passed".into();
        report.submissions[1].message = "x.c:1:1: error: \u{1b}]52;c;aGk=\u{7}".into();
        let mut out = Vec::new();
        write_summary(&report, &mut out).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }
}
