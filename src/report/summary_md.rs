//! `--summary-md`: a short Markdown summary for a CI job page (GitHub's
//! `$GITHUB_STEP_SUMMARY`): the score of each student and what failed.
//! Student text (ids, messages) is shown, never interpreted: control
//! characters escaped, HTML and Markdown table syntax neutralised.

use std::io::{self, Write};

use crate::report::html::escape;
use crate::report::text::visible_line;
use crate::report::{Report, Status, SubmissionReport, headline};
use crate::verdict::Verdict;

/// How many failing tests a row names before "and N more".
const FAILURES_PER_ROW: usize = 5;

/// The `--summary-md` format.
pub(crate) struct SummaryMd;

impl super::dispatch::ReportFormat for SummaryMd {
    fn write(&self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
        write(report, out)?;
        Ok(out.flush()?)
    }
}

/// Writes the summary of `report`.
pub(crate) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let passed = report.submissions.iter().filter(|s| s.all_passed()).count();
    writeln!(out, "## Sudoku lab: grading summary\n")?;
    writeln!(
        out,
        "{} submissions, {passed} passed every test.\n",
        report.submissions.len()
    )?;
    writeln!(out, "| student | kind | score | result |")?;
    writeln!(out, "|---|---|---:|---|")?;
    for sub in &report.submissions {
        writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&sub.id),
            cell(sub.kind.as_deref().unwrap_or("?")),
            sub.score_text(),
            result(sub)
        )?;
    }
    out.flush()
}

fn result(sub: &SubmissionReport) -> String {
    match sub.status {
        Status::BuildError => format!("build error: {}", cell(headline(&sub.shown_message()))),
        Status::LoadError => format!("load error: {}", cell(headline(&sub.shown_message()))),
        Status::GraderError => format!("grader fault: {}", cell(&sub.shown_message())),
        Status::Ok => {
            let failed: Vec<String> = sub
                .tests
                .iter()
                .filter(|t| t.verdict != Verdict::Pass)
                .map(|t| format!("{} {} ({})", cell(&t.case), t.function, t.verdict))
                .collect();
            if failed.is_empty() {
                return "all passed".to_string();
            }
            let mut shown = failed[..failed.len().min(FAILURES_PER_ROW)].join(", ");
            if failed.len() > FAILURES_PER_ROW {
                shown.push_str(&format!(", and {} more", failed.len() - FAILURES_PER_ROW));
            }
            shown
        }
    }
}

/// `text` safe inside a Markdown table cell: one line, control characters
/// shown, HTML escaped, and the characters Markdown would act on
/// backslash-escaped.
fn cell(text: &str) -> String {
    let mut safe = String::new();
    for ch in visible_line(text).chars() {
        if "|\\`*_[]#!~".contains(ch) {
            safe.push('\\');
        }
        safe.push(ch);
    }
    escape(&safe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn student_text_cannot_break_the_table_or_inject_html() {
        let shown = cell("a|b <script>x</script>\n[link](http://e) `code`");
        assert!(!shown.contains('\n'), "{shown}");
        assert!(!shown.contains("<script>"), "{shown}");
        assert!(shown.contains("a\\|b"), "{shown}");
        assert!(shown.contains("\\[link\\]"), "{shown}");
        assert!(shown.contains("\\`code\\`"), "{shown}");
    }
}
