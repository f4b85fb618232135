//! `--summary-md`: a short Markdown summary for a CI job page (GitHub's
//! `$GITHUB_STEP_SUMMARY`): the score of each student and what failed.
//! Student text (ids, messages) is shown, never interpreted: control
//! characters escaped, HTML and Markdown table syntax neutralised, and
//! nothing a GitHub Flavored Markdown renderer would turn into a link
//! ([`unlinked`]): a student's `https://...` beside a grade must not be
//! clickable on the job's page. Ids are shown as every view for people
//! shows them (`report::ids`), with the run's notes under the table.

use std::io::{self, Write};

use super::html::escape;
use crate::report::naming::headline;
use crate::report::{Report, Status, SubmissionReport};
use crate::verdict::Verdict;
use crate::visible::visible_line;

/// How many failing tests a row names before "and N more".
const FAILURES_PER_ROW: usize = 5;

/// The `--summary-md` format.
pub(crate) struct SummaryMd;

impl super::ReportFormat for SummaryMd {
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
    let ids = crate::report::ids::of_report(report);
    for sub in &report.submissions {
        writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&ids.shown(&sub.id)),
            cell(sub.kind.as_deref().unwrap_or("?")),
            sub.score_text(),
            result(sub)
        )?;
    }
    let notes = ids.notes();
    if !notes.is_empty() {
        writeln!(out)?;
    }
    for note in notes {
        writeln!(out, "Note: {}\n", cell(&note))?;
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
/// shown, no autolink ([`unlinked`]), HTML escaped, and the characters
/// Markdown would act on backslash-escaped.
fn cell(text: &str) -> String {
    let mut safe = String::new();
    for ch in visible_line(text).chars() {
        if "|\\`*_[]#!~".contains(ch) {
            safe.push('\\');
        }
        safe.push(ch);
    }
    // Last: the joiners are the grader's, not to be escaped as student
    // text is.
    unlinked(&escape(&safe))
}

/// The zero-width joiner put inside what would be a link.
const JOINER: char = '\u{200d}';

/// `text` with every GitHub Flavored Markdown autolink broken by a
/// zero-width joiner (`text` has had its own control and format characters
/// escaped by [`visible_line`] and [`escape`], so every joiner here is the
/// grader's):
/// before the `:` of a scheme (`https://`, `ftp://`, any letters then
/// `://`; `mailto:`, `xmpp:`), before the `.` of `www.` (any case), and
/// after every `@` (an email's domain). The text reads the same; a
/// renderer sees no scheme, no `www.` and no domain after `@`.
pub(crate) fn unlinked(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    for (i, &ch) in chars.iter().enumerate() {
        let before = &chars[..i];
        let ends_with = |word: &str| {
            let word: Vec<char> = word.chars().collect();
            before.len() >= word.len()
                && before[before.len() - word.len()..]
                    .iter()
                    .zip(&word)
                    .all(|(a, b)| a.eq_ignore_ascii_case(b))
        };
        let scheme = ch == ':'
            && before.last().is_some_and(char::is_ascii_alphabetic)
            && (chars.get(i + 1..i + 3) == Some(&['/', '/'][..])
                || ends_with("mailto")
                || ends_with("xmpp"));
        let www = ch == '.' && ends_with("www");
        if scheme || www {
            out.push(JOINER);
        }
        out.push(ch);
        if ch == '@' {
            out.push(JOINER);
        }
    }
    out
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

    #[test]
    fn no_autolink_survives_in_student_text() {
        for link in [
            "see https://evil.example/grade",
            "HTTP://EVIL.EXAMPLE",
            "ftp://evil.example",
            "(www.evil.example)",
            "WwW.evil.example",
            "mail me@evil.example",
            "mailto:me@evil.example",
            "xmpp:me@evil.example",
        ] {
            let shown = unlinked(link);
            assert_eq!(shown.replace(JOINER, ""), link, "reads the same");
            let lower = shown.to_ascii_lowercase();
            let scheme = lower
                .as_bytes()
                .windows(4)
                .any(|w| w[0].is_ascii_alphabetic() && &w[1..] == b"://");
            assert!(!scheme, "{shown:?} holds a scheme");
            for token in ["www.", "mailto:", "xmpp:"] {
                assert!(!lower.contains(token), "{shown:?} holds {token}");
            }
            assert!(
                shown
                    .split('@')
                    .skip(1)
                    .all(|after| after.starts_with(JOINER)),
                "{shown:?}"
            );
        }
        // In a cell the joiner is the grader's: not escaped as student text.
        let shown = cell("see www.evil.example");
        assert!(shown.contains("www\u{200d}."), "{shown:?}");
        // Plain text is left alone.
        assert_eq!(
            unlinked("x.c:5:1: error: expected ';'"),
            "x.c:5:1: error: expected ';'"
        );
    }
}
