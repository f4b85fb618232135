//! The HTML report (`--html`): one self-contained static page an instructor
//! scans in seconds. No script and no outside resource (inline CSS, and a
//! content security policy that forbids both). Student ids, messages and
//! output are untrusted and every piece of text is escaped, its control
//! characters shown as escapes (`\e`, `\u{202e}`).
//!
//! Top to bottom:
//! - how the report was made (grader version, case files and hashes,
//!   limits, safeguards, time), when the run section is there;
//! - the class matrix: one row per student, one column per test, each cell
//!   coloured by verdict (its title says student, test and verdict), the
//!   student linking to their details;
//! - a histogram of scores (ten bands of the percentage, and full marks)
//!   and the most-failed tests with their verdicts;
//! - one `<details>` per student, collapsed when every test passed: the
//!   compiler's message for a submission that could not be built or
//!   loaded, else each failing test's verdict, message, board and output.
//!   A board is drawn as a grid (a table, thick lines between boxes) with
//!   the cell in question marked; an output already shown for an earlier
//!   test of the same student is not repeated ("same output as ... above"),
//!   and the first one says for how many more tests it stands.

use std::collections::HashMap;
use std::io::{self, Write};

use super::naming::{headline, status_name, test_name};
use super::picture::{self, Grid};
use super::run::short_hash;
use super::text::visible;
use super::{Report, ReportFormat, RunInfo, Status, SubmissionReport, TestReport};
use crate::verdict::Verdict;

/// The HTML format for the dispatcher.
pub(crate) struct Html;

impl ReportFormat for Html {
    fn write(&self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
        Ok(write(report, out)?)
    }
}

/// How many tests the "most failed" list names.
const MOST_FAILED_SHOWN: usize = 8;

const STYLE: &str = "\
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:90em;padding:0 1em;color:#222}
h1{margin:.2em 0}
table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}
dl.run{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;font-size:.85em;color:#444;margin:.5em 0 1em}
dl.run dt{font-weight:600}dl.run dd{margin:0;overflow-wrap:anywhere}
.overview{display:flex;flex-wrap:wrap;gap:0 3em;align-items:flex-start}
.matrix td,.matrix th{padding:0;text-align:center;min-width:1.4em;height:1.4em;font-size:.8em}
.matrix th.t{writing-mode:vertical-rl;transform:rotate(180deg);padding:.3em 0;white-space:nowrap;font-weight:normal;height:auto;text-align:left}
.matrix td.id{text-align:left;padding:0 .5em;white-space:nowrap;font-size:.9em}
.matrix td.score{text-align:right;padding:0 .5em;white-space:nowrap;font-size:.9em}
.v-pass{background:#2da44e;color:#fff}.v-wrong{background:#cf222e;color:#fff}
.v-timeout{background:#bf8700;color:#fff}.v-memory{background:#8250df;color:#fff}
.v-crash{background:#82071e;color:#fff}.v-forbidden{background:#0550ae;color:#fff}
.v-error{background:#57606a;color:#fff}.v-none{background:#fff}
.legend span{display:inline-block;padding:0 .4em;margin-right:.3em;font-size:.8em}
.histogram td{border:none;padding:.1em .4em;font-size:.85em}
.histogram .bar{display:inline-block;height:1em;background:#0969da;vertical-align:middle}
.pass{color:#176f2c}.fail{color:#b00020}.partial{color:#9a6700}
details.student{border:1px solid #ddd;border-radius:.3em;margin:.4em 0;padding:.2em .6em}
details.student>summary{cursor:pointer;font-weight:600}
pre{background:#f6f8fa;border:1px solid #ddd;padding:.5em;overflow-x:auto;white-space:pre-wrap}
.message{white-space:pre-wrap}
.tag{font-size:.8em;border:1px solid #999;border-radius:.3em;padding:0 .3em;color:#555}
.folded{color:#555;font-style:italic}
table.board{margin:.5em 0;border:2px solid #333}
table.board td{width:1.6em;height:1.6em;text-align:center;vertical-align:middle;padding:0;font-family:ui-monospace,monospace;border:1px solid #bbb}
table.board td.bl{border-left:2px solid #333}table.board td.bt{border-top:2px solid #333}
table.board td.m{background:#ffd7d5;color:#b00020;font-weight:700;outline:2px solid #cf222e}
";

/// Writes `report` as one HTML page.
pub(crate) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let passed = report.submissions.iter().filter(|s| s.all_passed()).count();
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>grader report</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <h1>Grading report</h1>\n"
    )?;
    if let Some(run) = &report.run {
        run_header(run, out)?;
    }
    writeln!(
        out,
        "<p class=\"count\">{} submissions, {passed} passed every test.</p>",
        report.submissions.len()
    )?;
    let columns = test_columns(report);
    matrix(report, &columns, out)?;
    writeln!(out, "<div class=\"overview\">")?;
    histogram(report, out)?;
    most_failed(report, &columns, out)?;
    writeln!(out, "</div>\n<h2>Students</h2>")?;
    for (index, sub) in report.submissions.iter().enumerate() {
        details(index, sub, out)?;
    }
    writeln!(out, "</body>\n</html>")?;
    out.flush()
}

fn run_header(run: &RunInfo, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<dl class=\"run\">")?;
    for (name, value) in run.lines() {
        writeln!(out, "<dt>{name}</dt><dd>{}</dd>", escape(&value))?;
    }
    if let Some(file) = run.case_files.iter().find(|f| f.sha256.is_none()) {
        writeln!(
            out,
            "<dt>note</dt><dd>{} could not be read again to be hashed ({})</dd>",
            escape(&file.name),
            short_hash(None)
        )?;
    }
    writeln!(out, "</dl>")
}

/// Every test's name, each once, in the order of first appearance.
fn test_columns(report: &Report) -> Vec<String> {
    let mut columns: Vec<String> = Vec::new();
    for test in report.submissions.iter().flat_map(|s| &s.tests) {
        let name = test_name(test);
        if !columns.contains(&name) {
            columns.push(name);
        }
    }
    columns
}

/// The one-letter mark of a verdict in the matrix.
fn mark(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "✓",
        Verdict::Wrong => "✗",
        Verdict::Timeout => "T",
        Verdict::Memory => "M",
        Verdict::Crash => "C",
        Verdict::Forbidden => "F",
        Verdict::Error => "E",
    }
}

const VERDICTS: [Verdict; 7] = [
    Verdict::Pass,
    Verdict::Wrong,
    Verdict::Timeout,
    Verdict::Memory,
    Verdict::Crash,
    Verdict::Forbidden,
    Verdict::Error,
];

fn matrix(report: &Report, columns: &[String], out: &mut dyn Write) -> io::Result<()> {
    write!(out, "<p class=\"legend\">")?;
    for verdict in VERDICTS {
        write!(
            out,
            "<span class=\"v-{verdict}\">{} {verdict}</span>",
            mark(verdict)
        )?;
    }
    writeln!(out, "</p>")?;
    write!(
        out,
        "<table class=\"matrix\">\n<thead><tr><th>student</th><th>score</th>"
    )?;
    for column in columns {
        let column = escape(column);
        write!(out, "<th class=\"t\" title=\"{column}\">{column}</th>")?;
    }
    writeln!(out, "</tr></thead>\n<tbody>")?;
    for (index, sub) in report.submissions.iter().enumerate() {
        let id = escape(&sub.id);
        write!(
            out,
            "<tr><td class=\"id\"><a href=\"#s{index}\">{id}</a></td><td class=\"score {}\">{}/{}</td>",
            score_class(sub),
            sub.score,
            sub.max_score
        )?;
        let by_name: HashMap<String, &TestReport> =
            sub.tests.iter().map(|t| (test_name(t), t)).collect();
        for column in columns {
            match by_name.get(column) {
                Some(test) => write!(
                    out,
                    "<td class=\"v-{}\" title=\"{id}: {}: {}\">{}</td>",
                    test.verdict,
                    escape(column),
                    test.verdict,
                    mark(test.verdict)
                )?,
                None => write!(
                    out,
                    "<td class=\"v-none\" title=\"{id}: {}: no result\"></td>",
                    escape(column)
                )?,
            }
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</tbody>\n</table>")
}

/// The band of a score: 0..=9 for each tenth of the maximum, 10 for full
/// marks.
fn band(sub: &SubmissionReport) -> usize {
    if sub.max_score == 0 || sub.score >= sub.max_score {
        return 10;
    }
    (u64::from(sub.score) * 10 / u64::from(sub.max_score)).min(9) as usize
}

fn histogram(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut counts = [0usize; 11];
    for sub in &report.submissions {
        counts[band(sub)] += 1;
    }
    let most = counts.iter().copied().max().unwrap_or(0).max(1);
    writeln!(
        out,
        "<section class=\"histogram\">\n<h2>Scores</h2>\n<table class=\"histogram\">"
    )?;
    for (band, count) in counts.iter().enumerate().rev() {
        let label = if band == 10 {
            "100%".to_string()
        } else {
            format!("{}–{}%", band * 10, band * 10 + 9)
        };
        let width = count * 20 / most;
        writeln!(
            out,
            "<tr><td>{label}</td><td><span class=\"bar\" style=\"width:{width}em\"></span></td><td class=\"n\">{count}</td></tr>"
        )?;
    }
    writeln!(out, "</table>\n</section>")
}

fn most_failed(report: &Report, columns: &[String], out: &mut dyn Write) -> io::Result<()> {
    // Per test: how many students failed it, by verdict.
    let mut failed: Vec<(usize, &String, HashMap<Verdict, usize>)> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| (i, c, HashMap::new()))
        .collect();
    let position: HashMap<&String, usize> =
        columns.iter().enumerate().map(|(i, c)| (c, i)).collect();
    for test in report.submissions.iter().flat_map(|s| &s.tests) {
        if test.verdict != Verdict::Pass {
            if let Some(&i) = position.get(&test_name(test)) {
                *failed[i].2.entry(test.verdict).or_default() += 1;
            }
        }
    }
    let total = |v: &HashMap<Verdict, usize>| v.values().sum::<usize>();
    failed.retain(|(_, _, v)| total(v) > 0);
    failed.sort_by(|a, b| total(&b.2).cmp(&total(&a.2)).then(a.0.cmp(&b.0)));
    writeln!(
        out,
        "<section class=\"most-failed\">\n<h2>Most failed tests</h2>"
    )?;
    if failed.is_empty() {
        writeln!(
            out,
            "<p class=\"pass\">Every test passed for every student.</p>"
        )?;
    } else {
        writeln!(out, "<ol class=\"most-failed\">")?;
        for (_, name, verdicts) in failed.iter().take(MOST_FAILED_SHOWN) {
            let kinds: Vec<String> = VERDICTS
                .iter()
                .filter_map(|v| verdicts.get(v).map(|n| format!("{v} {n}")))
                .collect();
            writeln!(
                out,
                "<li><b>{}</b>: failed by {} of {} ({})</li>",
                escape(name),
                total(verdicts),
                report.submissions.len(),
                kinds.join(", ")
            )?;
        }
        writeln!(out, "</ol>")?;
    }
    writeln!(out, "</section>")
}

fn details(index: usize, sub: &SubmissionReport, out: &mut dyn Write) -> io::Result<()> {
    let passed = sub
        .tests
        .iter()
        .filter(|t| t.verdict == Verdict::Pass)
        .count();
    let open = if sub.all_passed() { "" } else { " open" };
    writeln!(
        out,
        "<details class=\"student\" id=\"s{index}\"{open}>\n<summary>{} <span class=\"{}\">{}/{}</span> · {} · {passed} of {} tests passed</summary>",
        escape(&sub.id),
        score_class(sub),
        sub.score,
        sub.max_score,
        escape(sub.kind.as_deref().unwrap_or("?")),
        sub.tests.len(),
    )?;
    if sub.status != Status::Ok {
        let what = match sub.status {
            Status::LoadError => "could not be loaded",
            Status::GraderError => "could not be graded (the grader failed, not the student)",
            _ => "could not be built",
        };
        writeln!(
            out,
            "<p class=\"fail\">The submission {what} ({}); no test ran: {}</p>\n<pre>{}</pre>",
            status_name(sub.status),
            escape(headline(&sub.shown_message())),
            escape(&sub.shown_message())
        )?;
    } else {
        let failing: Vec<&TestReport> = failing(sub).collect();
        // Each distinct output is shown once, with the tests that repeat it.
        let mut first_with: HashMap<&str, &TestReport> = HashMap::new();
        let mut repeats: HashMap<&str, usize> = HashMap::new();
        for test in &failing {
            if !test.output.is_empty() {
                *repeats.entry(test.output.as_str()).or_default() += 1;
            }
        }
        for test in failing {
            failure(test, &mut first_with, &repeats, out)?;
        }
    }
    writeln!(out, "</details>")
}

fn failure<'a>(
    test: &'a TestReport,
    first_with: &mut HashMap<&'a str, &'a TestReport>,
    repeats: &HashMap<&str, usize>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let hidden = if test.hidden {
        " <span class=\"tag\">hidden</span>"
    } else {
        ""
    };
    let time = test
        .wall_seconds()
        .map(|s| format!(" ({:.2} ms)", s * 1000.0))
        .unwrap_or_default();
    writeln!(
        out,
        "<div class=\"test\">\n<h3>{} <span class=\"fail\">{}</span>{hidden}{time}</h3>",
        escape(&test_name(test)),
        test.verdict
    )?;
    if let Some(description) = &test.description {
        writeln!(out, "<p>The case: {}</p>", escape(description))?;
    }
    writeln!(
        out,
        "<p class=\"message\">{}</p>",
        escape(&test.shown_message())
    )?;
    if let Some(board) = &test.board {
        match picture::parse(board) {
            Some(grid) => board_grid(&grid, out)?,
            None => writeln!(out, "<pre>{}</pre>", escape(board))?,
        }
    }
    if !test.output.is_empty() {
        match first_with.get(test.output.as_str()) {
            Some(first) => writeln!(
                out,
                "<p class=\"folded\">The code printed the same as for {} above.</p>",
                escape(&test_name(first))
            )?,
            None => {
                first_with.insert(test.output.as_str(), test);
                let more = repeats.get(test.output.as_str()).copied().unwrap_or(1) - 1;
                let same = if more > 0 {
                    format!(
                        " <span class=\"folded\">(same output for {more} more tests below)</span>"
                    )
                } else {
                    String::new()
                };
                writeln!(
                    out,
                    "<p>The code printed:{same}</p>\n<pre>{}</pre>",
                    escape(&test.output)
                )?;
            }
        }
    }
    writeln!(out, "</div>")
}

/// A board as a table: thick lines between boxes, the marked cell
/// highlighted.
fn board_grid(grid: &Grid, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<table class=\"board\">")?;
    for (r, row) in grid.rows.iter().enumerate() {
        write!(out, "<tr>")?;
        for (c, cell) in row.iter().enumerate() {
            let mut classes = Vec::new();
            if grid.box_width > 0 && c > 0 && c % grid.box_width == 0 {
                classes.push("bl");
            }
            if grid.box_height > 0 && r > 0 && r % grid.box_height == 0 {
                classes.push("bt");
            }
            if grid.marked == Some((r, c)) {
                classes.push("m");
            }
            let class = if classes.is_empty() {
                String::new()
            } else {
                format!(" class=\"{}\"", classes.join(" "))
            };
            let text = if cell == "." { "" } else { cell.as_str() };
            write!(
                out,
                "<td{class} title=\"r{}c{}\">{}</td>",
                r + 1,
                c + 1,
                escape(text)
            )?;
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</table>")
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

/// Escapes `text` for HTML element content and quoted attribute values,
/// with control characters shown ([`visible`]): a bidi override cannot
/// reorder the page, an escape sequence is seen for what it is.
pub(crate) fn escape(text: &str) -> String {
    let text = visible(text);
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
    fn the_matrix_has_a_cell_per_student_and_test_coloured_by_verdict() {
        let html = page(&fixture::sample());
        assert_eq!(html.matches("<th class=\"t\"").count(), 3, "{html}");
        assert!(
            html.contains("<td class=\"v-pass\" title=\"alice: campus-4x4/legal: pass\">✓</td>"),
            "{html}"
        );
        assert!(
            html.contains("<td class=\"v-wrong\" title=\"alice: campus-4x4/solve: wrong\">✗</td>"),
            "{html}"
        );
        assert!(
            html.contains("<td class=\"v-crash\" title=\"alice: deep-9x9/solve: crash\">C</td>"),
            "{html}"
        );
        assert_eq!(
            html.matches("<td class=\"v-error\"").count(),
            3,
            "bob's tests: {html}"
        );
        assert!(html.contains("<a href=\"#s1\">bob</a>"), "{html}");
    }

    #[test]
    fn histogram_and_most_failed_tests() {
        let html = page(&fixture::sample());
        // alice 1/7 is in the 10-19% band, bob 0/7 in 0-9%.
        assert!(html.contains("<tr><td>10–19%</td><td><span class=\"bar\" style=\"width:20em\"></span></td><td class=\"n\">1</td></tr>"), "{html}");
        assert!(html.contains("<tr><td>100%</td><td><span class=\"bar\" style=\"width:0em\"></span></td><td class=\"n\">0</td></tr>"), "{html}");
        assert!(
            html.contains("<li><b>campus-4x4/solve</b>: failed by 2 of 2 (wrong 1, error 1)</li>"),
            "{html}"
        );
        assert!(
            html.contains("<li><b>campus-4x4/legal</b>: failed by 1 of 2 (error 1)</li>"),
            "{html}"
        );
    }

    #[test]
    fn students_fold_open_on_failure_and_boards_are_grids() {
        let mut report = fixture::sample();
        let mut all_pass = report.submissions[0].clone();
        all_pass.id = "carol".into();
        all_pass.tests.truncate(1);
        all_pass.score = 1;
        all_pass.max_score = 1;
        report.submissions.push(all_pass);
        let html = page(&report);
        assert!(
            html.contains("<details class=\"student\" id=\"s0\" open>"),
            "{html}"
        );
        assert!(
            html.contains("<details class=\"student\" id=\"s2\">"),
            "passed: closed: {html}"
        );
        assert_eq!(html.matches("<table class=\"board\">").count(), 1, "{html}");
        assert!(
            html.contains("<td class=\"bl m\" title=\"r2c3\">1</td>"),
            "{html}"
        );
        assert!(
            html.contains("<td class=\"bt\" title=\"r3c1\">2</td>"),
            "{html}"
        );
        assert!(html.contains("<span class=\"tag\">hidden</span>"), "{html}");
    }

    #[test]
    fn repeated_output_is_shown_once() {
        let mut report = fixture::sample();
        let alice = &mut report.submissions[0];
        for test in &mut alice.tests {
            test.verdict = Verdict::Crash;
            test.output = "backtrace:\n  0: solve\n  1: main\n".into();
        }
        let html = page(&report);
        assert_eq!(html.matches("  0: solve").count(), 1, "{html}");
        assert!(
            html.contains("(same output for 2 more tests below)"),
            "{html}"
        );
        assert_eq!(
            html.matches("The code printed the same as for campus-4x4/legal above.")
                .count(),
            2,
            "{html}"
        );
    }

    #[test]
    fn a_build_error_shows_the_compiler_message() {
        let html = page(&fixture::sample());
        assert!(html.contains("could not be built (build_error); no test ran: bob.c:3:1: error: expected &#39;;&#39;"), "{html}");
        assert!(html.contains(&format!("<pre>{}</pre>", escape(BOB_COMPILER))));
    }

    #[test]
    fn the_run_is_in_the_header() {
        let mut report = fixture::sample();
        report.run = Some(RunInfo::new(
            &crate::case::builtin(),
            Vec::new(),
            &["rlimits"],
            std::time::SystemTime::UNIX_EPOCH,
            std::time::Duration::from_secs(2),
        ));
        let html = page(&report);
        assert!(html.contains("<dt>grader</dt><dd>grader "), "{html}");
        assert!(html.contains("builtin:cases/campus.toml ("), "{html}");
        assert!(
            html.contains("<dt>safeguards</dt><dd>rlimits</dd>"),
            "{html}"
        );
    }

    #[test]
    fn the_page_is_balanced() {
        let html = page(&fixture::sample());
        for tag in [
            "details", "table", "pre", "h3", "p", "tr", "td", "div", "section", "summary",
        ] {
            let open = html.matches(&format!("<{tag}>")).count()
                + html.matches(&format!("<{tag} ")).count();
            let close = html.matches(&format!("</{tag}>")).count();
            assert_eq!(open, close, "<{tag}> opened {open} times, closed {close}");
        }
    }

    #[test]
    fn page_snapshot() {
        // The whole page of the shared fixture, CSS left out: what an
        // instructor reads, reviewed when it changes.
        let html = page(&fixture::sample());
        let body = &html[html.find("</head>").unwrap()..];
        insta::assert_snapshot!(body);
    }
}
