//! The HTML report (`--html`): one self-contained static page for an
//! instructor, no script and no outside resource (inline CSS, and a content
//! security policy that forbids both). Student ids, messages and output are
//! untrusted and every piece of text is escaped.
//!
//! The page holds a summary table (student, kind, score, failing tests, each
//! row linking to its student), then one section per student with each
//! failing test's verdict, message, board picture and output, or the
//! compiler's message for a submission that could not be built or loaded.

use std::io::{self, Write};

use super::naming::{status_name, test_name};
use super::{Report, ReportFormat, Status, SubmissionReport, TestReport};

/// The HTML format for the dispatcher.
pub struct Html;

impl ReportFormat for Html {
    fn write(&self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
        Ok(write(report, out)?)
    }
}
use crate::verdict::Verdict;

const STYLE: &str = "\
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}
table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.id{white-space:nowrap}
td.score{text-align:right;white-space:nowrap}
.pass{color:#176f2c}.fail{color:#b00020}.partial{color:#9a6700}
pre{background:#f6f8fa;border:1px solid #ddd;padding:.5em;overflow-x:auto}
.message{white-space:pre-wrap}
.tag{font-size:.8em;border:1px solid #999;border-radius:.3em;padding:0 .3em;color:#555}
section{border-top:2px solid #ddd;margin-top:2em}
";

/// Writes `report` as one HTML page.
pub fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let passed = report.submissions.iter().filter(|s| s.all_passed()).count();
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>grader report</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <h1>Grading report</h1>\n<p>{} submissions, {passed} passed every test.</p>\n",
        report.submissions.len()
    )?;
    summary(report, out)?;
    for (index, sub) in report.submissions.iter().enumerate() {
        details(index, sub, out)?;
    }
    writeln!(out, "</body>\n</html>")?;
    out.flush()
}

fn summary(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "<table>\n<thead><tr><th>student</th><th>kind</th><th>score</th><th>failing tests</th></tr></thead>\n<tbody>"
    )?;
    for (index, sub) in report.submissions.iter().enumerate() {
        let class = score_class(sub);
        let result = match sub.status {
            Status::Ok => {
                let failing: Vec<String> = failing(sub)
                    .map(|t| format!("{} ({})", escape(&test_name(t)), t.verdict))
                    .collect();
                if failing.is_empty() {
                    "<span class=\"pass\">all passed</span>".to_string()
                } else {
                    failing.join(", ")
                }
            }
            status => format!(
                "<span class=\"fail\">{}</span>: {}",
                status_name(status).replace('_', " "),
                escape(super::headline(&sub.message))
            ),
        };
        writeln!(
            out,
            "<tr><td class=\"id\"><a href=\"#s{index}\">{}</a></td><td>{}</td><td class=\"score {class}\">{}/{}</td><td>{result}</td></tr>",
            escape(&sub.id),
            escape(sub.kind.as_deref().unwrap_or("?")),
            sub.score,
            sub.max_score,
        )?;
    }
    writeln!(out, "</tbody>\n</table>")
}

fn details(index: usize, sub: &SubmissionReport, out: &mut dyn Write) -> io::Result<()> {
    let passed = sub
        .tests
        .iter()
        .filter(|t| t.verdict == Verdict::Pass)
        .count();
    writeln!(
        out,
        "<section id=\"s{index}\">\n<h2>{}</h2>\n<p>kind: {}, status: {}, score <span class=\"{}\">{}/{}</span>, {passed} of {} tests passed.</p>",
        escape(&sub.id),
        escape(sub.kind.as_deref().unwrap_or("?")),
        status_name(sub.status),
        score_class(sub),
        sub.score,
        sub.max_score,
        sub.tests.len(),
    )?;
    if sub.status != Status::Ok {
        let what = match sub.status {
            Status::LoadError => "could not be loaded",
            _ => "could not be built",
        };
        writeln!(
            out,
            "<p class=\"fail\">The submission {what}; no test ran.</p>\n<pre>{}</pre>",
            escape(&sub.message)
        )?;
    } else {
        for test in failing(sub) {
            failure(test, out)?;
        }
    }
    writeln!(out, "</section>")
}

fn failure(test: &TestReport, out: &mut dyn Write) -> io::Result<()> {
    let hidden = if test.hidden {
        " <span class=\"tag\">hidden</span>"
    } else {
        ""
    };
    let time = test
        .time_ms
        .map(|ms| format!(" ({ms:.2} ms)"))
        .unwrap_or_default();
    writeln!(
        out,
        "<h3>{} <span class=\"fail\">{}</span>{hidden}{time}</h3>",
        escape(&test_name(test)),
        test.verdict
    )?;
    if let Some(description) = &test.description {
        writeln!(out, "<p>The case: {}</p>", escape(description))?;
    }
    writeln!(out, "<p class=\"message\">{}</p>", escape(&test.message))?;
    if let Some(board) = &test.board {
        writeln!(out, "<pre>{}</pre>", escape(board))?;
    }
    if !test.output.is_empty() {
        writeln!(
            out,
            "<p>The code printed:</p>\n<pre>{}</pre>",
            escape(&test.output)
        )?;
    }
    Ok(())
}

fn failing(sub: &SubmissionReport) -> impl Iterator<Item = &TestReport> {
    sub.tests.iter().filter(|t| t.verdict != Verdict::Pass)
}

fn score_class(sub: &SubmissionReport) -> &'static str {
    if sub.all_passed() {
        "pass"
    } else if sub.score == 0 {
        "fail"
    } else {
        "partial"
    }
}

/// Escapes `text` for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{self, BOB_COMPILER};

    fn page(report: &Report) -> String {
        let mut out = Vec::new();
        write(report, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_the_five_characters() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn student_output_and_ids_cannot_inject_markup() {
        let mut report = fixture::sample();
        report.submissions[1].id = "<img src=x onerror=alert(1)>".into();
        let html = page(&report);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;done&#39;"),
            "{html}"
        );
        assert!(
            html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{html}"
        );
        assert!(html.contains("default-src 'none'"), "a CSP forbids scripts");
    }

    #[test]
    fn summary_and_details_name_each_failure() {
        let html = page(&fixture::sample());
        assert_eq!(html.matches("<tr><td class=\"id\"><a href=\"#s").count(), 2);
        assert!(
            html.contains("campus-4x4/solve (wrong), deep-9x9/solve (crash)"),
            "{html}"
        );
        assert!(html.contains("<section id=\"s0\">"), "{html}");
        // One heading per failing test of alice, none for her pass.
        assert_eq!(html.matches("<h3>").count(), 2, "{html}");
        assert!(!html.contains("<h3>campus-4x4/legal"), "{html}");
        assert!(html.contains("<span class=\"tag\">hidden</span>"), "{html}");
        assert!(html.contains("<pre> 1 . | . 4\n . 4 |[1].\n"), "{html}");
        assert!(html.contains("<pre>trying r1c2\n</pre>"), "{html}");
        assert!(html.contains("1/7"), "{html}");
    }

    #[test]
    fn a_build_error_shows_the_compiler_message() {
        let html = page(&fixture::sample());
        assert!(html.contains("build error</span>: bob.c:3:1: error: expected &#39;;&#39;"));
        assert!(html.contains(&format!("<pre>{}</pre>", escape(BOB_COMPILER))));
    }

    #[test]
    fn the_summary_shows_the_line_that_names_the_error() {
        assert_eq!(
            crate::report::headline(
                "cc failed:\nx.c: In function 'solve':\nx.c:5:1: error: expected ';'\n"
            ),
            "x.c:5:1: error: expected ';'"
        );
        assert_eq!(
            crate::report::headline("\n  missing symbol `legal`\n"),
            "missing symbol `legal`"
        );
        assert_eq!(crate::report::headline(""), "");
    }

    #[test]
    fn the_page_is_balanced() {
        let html = page(&fixture::sample());
        for tag in ["section", "table", "pre", "h3", "p", "tr", "td"] {
            let open = html.matches(&format!("<{tag}>")).count()
                + html.matches(&format!("<{tag} ")).count();
            let close = html.matches(&format!("</{tag}>")).count();
            assert_eq!(open, close, "<{tag}> opened {open} times, closed {close}");
        }
    }
}
