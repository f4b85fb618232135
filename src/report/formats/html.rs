//! The HTML report (`--html`): one self-contained static page an instructor
//! scans in seconds, for a class of hundreds. No outside resource: inline
//! CSS, and one small inline script (the filter) that the content security
//! policy admits by its SHA-256 and nothing else. Without the script the
//! page is complete; the filter is simply not shown. Student ids, messages
//! and output are untrusted and every piece of text is escaped, its control
//! characters shown as escapes (`\e`, `\u{202e}`).
//!
//! Top to bottom:
//! - how the report was made (grader version, case files and hashes,
//!   limits, safeguards, time), when the run section is there;
//! - the filter: students with a verdict (or any failure) on a test (or on
//!   any test);
//! - the class matrix: one row per student, failing students first (in id
//!   order, then the students who passed everything), one column per test
//!   in the lab's order (by board size, 4x4 before 9x9 before 16x16, then
//!   as the plan runs them), each cell coloured by verdict and marked with
//!   a letter (its title says student, test and verdict), the student
//!   linking to their details;
//! - a histogram of scores (ten bands of the percentage, and full marks)
//!   and the most-failed tests with their verdicts;
//! - one `<details>` per student in the matrix's order, open when some test
//!   failed, closed when every test passed: the compiler's message for a
//!   submission that could not be built or loaded, else the failures
//!   grouped by finding (one function, verdict and failed check): a lone
//!   failing test is one closed `<details>` whose summary is its verdict
//!   and the first line of the message; a finding of several tests is one
//!   line naming the cases it covers, the first test's message once (the
//!   diagnosis), and each test closed, its body the whole message, the
//!   board and the output. When `legal` or `find_empty` failed, the
//!   `solve` findings come under the first of them (legal's before
//!   find_empty's), since `solve` calls them. A board is drawn as a grid (a
//!   table with row and column numbers counted from 0, as the messages
//!   count, thick lines between boxes) with the cell in question marked;
//!   an output already shown for an earlier test of the same student is
//!   not repeated ("same output as ... above"), and the first one says for
//!   how many more tests it stands.
//! - the page never scrolls sideways, down to a 390 px phone: the matrix
//!   and each board scroll inside boxes of their own.
//!
//! Every colour pair of text on background is in [`PALETTE`], which the
//! tests hold to a WCAG contrast of at least 4.5:1.

use std::collections::HashMap;
use std::io::{self, Write};

use base64::Engine as _;
use sha2::{Digest, Sha256};

use super::ReportFormat;
use crate::board_view::BoardView;
use crate::report::naming::{headline, status_name, test_name};
use crate::report::run_info::short_hash;
use crate::report::{Report, RunInfo, Status, SubmissionReport, TestReport};
use crate::verdict::{Function, Verdict};
use crate::visible::visible;

/// The HTML format for the dispatcher.
pub(crate) struct Html;

impl ReportFormat for Html {
    fn write(&self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
        Ok(write(report, out)?)
    }
}

/// How many tests the "most failed" list names.
const MOST_FAILED_SHOWN: usize = 8;

/// Layout only: no colour of text or background (those are in
/// [`PALETTE`], where the contrast test sees them).
const LAYOUT: &str = "\
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:90em;padding:0 1em;line-height:1.4}
h1{margin:.2em 0}
table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
dl.run{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;font-size:.85em;margin:.5em 0 1em}
dl.run dt{font-weight:600}dl.run dd{margin:0;overflow-wrap:anywhere}
.filter{margin:.5em 0;display:flex;flex-wrap:wrap;gap:.5em 1.5em;align-items:center}
.filter select{font:inherit;padding:.2em}
.overview{display:flex;flex-wrap:wrap;gap:0 3em;align-items:flex-start}
.matrix td,.matrix th{padding:0;text-align:center;min-width:1.6em;height:1.6em;font-size:.8em;line-height:1.2}
.scroll{overflow:auto;max-width:100%}
.scroll.matrix-box{max-height:85vh}
.matrix thead th{position:sticky;top:0}
.matrix th.t{writing-mode:vertical-rl;transform:rotate(180deg);padding:.3em 0;white-space:nowrap;font-weight:normal;height:auto;text-align:left}
.matrix th.id{text-align:left;padding:0 .5em;white-space:nowrap;font-size:.9em;font-weight:normal}
.matrix th.id a{display:inline-block;min-height:24px;line-height:24px}
.matrix td.score{text-align:right;padding:0 .5em;white-space:nowrap;font-size:.9em}
.legend span{display:inline-block;padding:0 .4em;margin-right:.3em;font-size:.8em}
.histogram td,.histogram th{border:none;padding:.1em .4em;font-size:.85em;font-weight:normal}
.histogram .bar{display:inline-block;height:1em;vertical-align:middle}
details.student{border:1px solid #ddd;border-radius:.3em;margin:.4em 0;padding:.2em .6em}
details.student>summary{cursor:pointer;font-weight:600}
details.test{margin:.1em 0 .1em 1em}
.finding{margin:.3em 0}
.finding-head{margin:.2em 0}.finding-head .name{font-weight:600}
.follows{margin:.3em 0 .3em 1em;padding-left:.6em;border-left:3px solid #bbb}
summary,.message,.finding-head{overflow-wrap:anywhere}
details.test>summary{cursor:pointer}
details.test>summary .name{font-weight:600}
pre{border:1px solid #ddd;padding:.5em;overflow-x:auto;white-space:pre-wrap}
.message{white-space:pre-wrap}
.tag{font-size:.8em;border:1px solid #999;border-radius:.3em;padding:0 .3em}
.folded{font-style:italic}
table.board{margin:.5em 0}
table.board td,table.board th{width:1.6em;height:1.6em;text-align:center;vertical-align:middle;padding:0;font-family:ui-monospace,monospace;border:1px solid #bbb}
table.board th{font-size:.7em;font-weight:normal;border:none}
table.board td.bl{border-left:2px solid #333}table.board td.bt{border-top:2px solid #333}
table.board td.br{border-right:2px solid #333}table.board td.bb{border-bottom:2px solid #333}
table.board td.m{font-weight:700;outline:2px solid #cf222e}
";

/// Every colour of the page: (selector, text colour, background). Each
/// rule sets both, so every text/background pair is one entry here.
const PALETTE: &[(&str, &str, &str)] = &[
    ("body", "#222222", "#ffffff"),
    ("a", "#0550ae", "#ffffff"),
    ("th", "#222222", "#f3f3f3"),
    ("dl.run", "#444444", "#ffffff"),
    (".v-pass", "#ffffff", "#1a7f37"),
    (".v-wrong", "#ffffff", "#cf222e"),
    (".v-timeout", "#1f2328", "#ffd33d"),
    (".v-memory", "#ffffff", "#8250df"),
    (".v-crash", "#ffffff", "#82071e"),
    (".v-forbidden", "#ffffff", "#0550ae"),
    (".v-error", "#ffffff", "#57606a"),
    (".v-none", "#222222", "#ffffff"),
    (".pass", "#176f2c", "#ffffff"),
    (".fail", "#b00020", "#ffffff"),
    (".partial", "#8a5a00", "#ffffff"),
    ("pre", "#222222", "#f6f8fa"),
    (".tag", "#555555", "#ffffff"),
    (".folded", "#555555", "#ffffff"),
    ("table.board th", "#555555", "#ffffff"),
    ("table.board td.m", "#b00020", "#ffd7d5"),
];

/// Colours that carry no text but must be seen against the page: (selector,
/// colour, the background it sits on); held to 3:1 (WCAG 1.4.11).
const NON_TEXT: &[(&str, &str, &str)] = &[(".histogram .bar", "#0969da", "#ffffff")];

/// The filter: shows the matrix rows and students whose cell in the chosen
/// column (or any) has the chosen verdict (or any failure). Admitted by the
/// content security policy through its hash, so nothing else can run.
const SCRIPT: &str = "\
(function(){
var box=document.getElementById('filter'),verdict=document.getElementById('f-verdict'),
test=document.getElementById('f-test'),count=document.getElementById('f-count'),
rows=document.querySelectorAll('table.matrix tbody tr');
function matches(cell){
var v=cell.getAttribute('data-v');
if(test.value!==''&&cell.getAttribute('data-c')!==test.value)return false;
if(verdict.value==='')return true;
if(verdict.value==='fail')return v!=='pass';
return v===verdict.value;
}
function apply(){
var shown=0;
rows.forEach(function(row){
var ok=Array.prototype.some.call(row.querySelectorAll('td[data-v]'),matches);
row.hidden=!ok;
var student=document.getElementById(row.getAttribute('data-s'));
if(student)student.hidden=!ok;
if(ok)shown++;
});
count.textContent=shown+' of '+rows.length+' students shown';
}
verdict.addEventListener('change',apply);
test.addEventListener('change',apply);
box.hidden=false;
apply();
})();
";

/// The CSS of the page: the layout and the palette.
fn style() -> String {
    let mut css = String::from(LAYOUT);
    for (selector, color, background) in PALETTE {
        css.push_str(&format!(
            "{selector}{{color:{color};background:{background}}}\n"
        ));
    }
    for (selector, color, _) in NON_TEXT {
        css.push_str(&format!("{selector}{{background:{color}}}\n"));
    }
    css
}

/// The content security policy's source for [`SCRIPT`]: `'sha256-...'`.
fn script_hash() -> String {
    let digest = Sha256::digest(SCRIPT.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// Writes `report` as one HTML page.
pub(crate) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let passed = report.submissions.iter().filter(|s| s.all_passed()).count();
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src {}\">\n\
         <title>grader report: {} submissions</title>\n<style>\n{}</style>\n</head>\n<body>\n<main>\n\
         <h1>Grading report</h1>\n",
        script_hash(),
        report.submissions.len(),
        style()
    )?;
    if let Some(run) = &report.run {
        run_header(run, out)?;
    }
    writeln!(
        out,
        "<p class=\"count\">{} submissions, {passed} passed every test.</p>",
        report.submissions.len()
    )?;
    let ids = crate::report::ids::of_report(report);
    for note in ids.notes() {
        writeln!(out, "<p class=\"count\">Note: {}</p>", escape(&note))?;
    }
    let columns = test_columns(report);
    let order = student_order(report);
    filter(&columns, out)?;
    matrix(report, &ids, &order, &columns, out)?;
    writeln!(out, "<div class=\"overview\">")?;
    histogram(report, out)?;
    most_failed(report, &columns, out)?;
    writeln!(out, "</div>\n<h2>Students</h2>")?;
    for &index in &order {
        details(index, &report.submissions[index], &ids, &columns, out)?;
    }
    writeln!(out, "</main>\n<script>{SCRIPT}</script>\n</body>\n</html>")?;
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

/// Every test's name, each once, in the lab's order: by the side of the
/// case's board (the campus 4x4 first, the 16x16 last), then in the order
/// the tests ran (the plan's: case files by name, cases and functions as
/// written). A test whose board size is unknown goes last.
fn test_columns(report: &Report) -> Vec<String> {
    let mut columns: Vec<(String, usize)> = Vec::new();
    for test in report.submissions.iter().flat_map(|s| &s.tests) {
        let name = test_name(test);
        if !columns.iter().any(|(c, _)| *c == name) {
            columns.push((name, test.side.unwrap_or(usize::MAX)));
        }
    }
    columns.sort_by_key(|&(_, side)| side);
    columns.into_iter().map(|(name, _)| name).collect()
}

/// The submissions' indices as the page lists them: every student who
/// failed something (a test, or the build) in id order, then those who
/// passed every test.
fn student_order(report: &Report) -> Vec<usize> {
    let (passed, failing): (Vec<usize>, Vec<usize>) =
        (0..report.submissions.len()).partition(|&i| report.submissions[i].all_passed());
    failing.into_iter().chain(passed).collect()
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

/// Every verdict, in the order the legend and the filter name them.
const VERDICTS: [Verdict; 7] = [
    Verdict::Pass,
    Verdict::Wrong,
    Verdict::Timeout,
    Verdict::Memory,
    Verdict::Crash,
    Verdict::Forbidden,
    Verdict::Error,
];

/// The filter's controls, hidden until the script shows them (a page
/// without script shows every student and no control that does nothing).
fn filter(columns: &[String], out: &mut dyn Write) -> io::Result<()> {
    write!(
        out,
        "<div class=\"filter\" id=\"filter\" role=\"search\" hidden>\n\
         <label>Show students with <select id=\"f-verdict\">\
         <option value=\"\">any verdict</option><option value=\"fail\">any failure</option>"
    )?;
    for verdict in VERDICTS {
        write!(out, "<option value=\"{verdict}\">{verdict}</option>")?;
    }
    write!(
        out,
        "</select></label>\n<label>on <select id=\"f-test\"><option value=\"\">any test</option>"
    )?;
    for (index, column) in columns.iter().enumerate() {
        write!(out, "<option value=\"{index}\">{}</option>", escape(column))?;
    }
    writeln!(
        out,
        "</select></label>\n<output id=\"f-count\" aria-live=\"polite\"></output>\n</div>"
    )
}

fn matrix(
    report: &Report,
    ids: &crate::report::ids::Ids<'_>,
    order: &[usize],
    columns: &[String],
    out: &mut dyn Write,
) -> io::Result<()> {
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
        "<div class=\"scroll matrix-box\" tabindex=\"0\" role=\"region\" aria-label=\"the class matrix (scrolls)\">\n\
         <table class=\"matrix\">\n<caption>Verdict of every test for every student</caption>\n\
         <thead><tr><th scope=\"col\">student</th><th scope=\"col\">score</th>"
    )?;
    for column in columns {
        let column = escape(column);
        write!(
            out,
            "<th class=\"t\" scope=\"col\" title=\"{column}\">{column}</th>"
        )?;
    }
    writeln!(out, "</tr></thead>\n<tbody>")?;
    for &index in order {
        let sub = &report.submissions[index];
        let id = escape(&ids.shown(&sub.id));
        write!(
            out,
            "<tr data-s=\"s{index}\"><th class=\"id\" scope=\"row\"><a href=\"#s{index}\">{id}</a></th><td class=\"score {}\">{}</td>",
            score_class(sub),
            sub.score_text()
        )?;
        let by_name: HashMap<String, &TestReport> =
            sub.tests.iter().map(|t| (test_name(t), t)).collect();
        for (column_index, column) in columns.iter().enumerate() {
            match by_name.get(column) {
                Some(test) => write!(
                    out,
                    "<td class=\"v-{verdict}\" data-c=\"{column_index}\" data-v=\"{verdict}\" title=\"{id}: {}: {verdict}\">{}</td>",
                    escape(column),
                    mark(test.verdict),
                    verdict = test.verdict,
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
    writeln!(out, "</tbody>\n</table>\n</div>")
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
    // A submission that is not graded has no score to count.
    for sub in report.submissions.iter().filter(|s| s.graded()) {
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
            "<tr><th scope=\"row\">{label}</th><td><span class=\"bar\" style=\"width:{width}em\"></span></td><td class=\"n\">{count}</td></tr>"
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

fn details(
    index: usize,
    sub: &SubmissionReport,
    ids: &crate::report::ids::Ids<'_>,
    columns: &[String],
    out: &mut dyn Write,
) -> io::Result<()> {
    let passed = sub
        .tests
        .iter()
        .filter(|t| t.verdict == Verdict::Pass)
        .count();
    let open = if sub.all_passed() { "" } else { " open" };
    writeln!(
        out,
        "<details class=\"student\" id=\"s{index}\"{open}>\n<summary>{} <span class=\"{}\">{}</span> · {} · {passed} of {} tests passed</summary>",
        escape(&ids.shown(&sub.id)),
        score_class(sub),
        sub.score_text(),
        escape(sub.kind.as_deref().unwrap_or("?")),
        sub.tests.len(),
    )?;
    for diagnosis in sub.diagnoses() {
        writeln!(out, "<p class=\"diagnosis\">{}</p>", escape(&diagnosis))?;
    }
    // Not graded, though tests ran: the grader failed in some of them.
    let ran = sub.tests.iter().any(|t| t.fault.is_none());
    if sub.status == Status::GraderError && ran {
        writeln!(
            out,
            "<p class=\"fail\">Not graded: the grader failed in some tests (not the student); the results below are not a grade: {}</p>",
            escape(headline(&sub.shown_message()))
        )?;
    }
    if sub.status != Status::Ok && !(sub.status == Status::GraderError && ran) {
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
        // In the matrix's order (the lab's), left to right.
        let mut failing: Vec<&TestReport> = failing(sub).collect();
        failing.sort_by_key(|t| {
            let name = test_name(t);
            columns.iter().position(|c| *c == name)
        });
        // Each distinct output is shown once, with the tests that repeat it.
        let mut repeats: HashMap<&str, usize> = HashMap::new();
        for test in &failing {
            if !test.output.is_empty() {
                *repeats.entry(test.output.as_str()).or_default() += 1;
            }
        }
        let mut shown = Shown {
            first_with: HashMap::new(),
            repeats,
        };
        findings(&failing, &mut shown, out)?;
    }
    writeln!(out, "</details>")
}

/// The outputs already shown for a student, and how often each repeats.
struct Shown<'a> {
    first_with: HashMap<&'a str, &'a TestReport>,
    repeats: HashMap<&'a str, usize>,
}

/// One finding: the failing tests of one function with the same verdict
/// and failed check (`legal` wrong by check `legal` on seven cases).
struct Finding<'a> {
    function: Function,
    tests: Vec<&'a TestReport>,
}

/// A student's failures grouped by finding, in the columns' order of each
/// finding's first test. When `legal` or `find_empty` failed, every
/// `solve` finding comes under the first of those findings: `solve` calls
/// them, so its failures may follow from theirs.
fn findings<'a>(
    failing: &[&'a TestReport],
    shown: &mut Shown<'a>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut groups: Vec<Finding<'a>> = Vec::new();
    for &test in failing {
        let same = |g: &&mut Finding<'a>| {
            let first = g.tests[0];
            first.function == test.function
                && first.verdict == test.verdict
                && first.check == test.check
        };
        match groups.iter_mut().find(same) {
            Some(group) => group.tests.push(test),
            None => groups.push(Finding {
                function: test.function,
                tests: vec![test],
            }),
        }
    }
    let (solve, helpers): (Vec<Finding<'a>>, Vec<Finding<'a>>) = groups
        .into_iter()
        .partition(|g| g.function == Function::Solve);
    let under = helpers
        .iter()
        .position(|g| g.function == Function::Legal)
        .or_else(|| (!helpers.is_empty()).then_some(0));
    for (index, group) in helpers.iter().enumerate() {
        writeln!(out, "<div class=\"finding\">")?;
        finding(group, shown, out)?;
        if Some(index) == under && !solve.is_empty() {
            let count: usize = solve.iter().map(|g| g.tests.len()).sum();
            writeln!(
                out,
                "<div class=\"follows\">\n<p>solve calls {} on every step, so its {count} failing test{} below may follow from this finding: fix {} first, then grade again.</p>",
                group.function,
                if count == 1 { "" } else { "s" },
                group.function
            )?;
            for group in &solve {
                writeln!(out, "<div class=\"finding\">")?;
                finding(group, shown, out)?;
                writeln!(out, "</div>")?;
            }
            writeln!(out, "</div>")?;
        }
        writeln!(out, "</div>")?;
    }
    if under.is_none() {
        for group in &solve {
            writeln!(out, "<div class=\"finding\">")?;
            finding(group, shown, out)?;
            writeln!(out, "</div>")?;
        }
    }
    Ok(())
}

/// One finding: a lone test as a closed `<details>`; several under one
/// line naming the function, verdict and check and the cases it covers,
/// then the first test's message once (the diagnosis), then each test
/// closed, its summary without the message.
fn finding<'a>(group: &Finding<'a>, shown: &mut Shown<'a>, out: &mut dyn Write) -> io::Result<()> {
    let first = group.tests[0];
    if group.tests.len() == 1 {
        return failure(first, true, shown, out);
    }
    let cases: Vec<String> = group.tests.iter().map(|t| escape(&t.case)).collect();
    let check = first
        .check
        .map(|c| format!(" (check {})", c.info().id))
        .unwrap_or_default();
    writeln!(
        out,
        "<p class=\"finding-head\"><span class=\"name\">{}</span> <span class=\"fail\">{}</span>{check} on {} cases: {}</p>\n<p class=\"message\">{}</p>",
        group.function,
        first.verdict,
        group.tests.len(),
        cases.join(", "),
        escape(&first.shown_message())
    )?;
    for test in &group.tests {
        failure(test, false, shown, out)?;
    }
    Ok(())
}

/// One failing test: a closed `<details>` whose summary names the test,
/// its verdict and (with `headline`) the first line of its message.
fn failure<'a>(
    test: &'a TestReport,
    headline: bool,
    shown: &mut Shown<'a>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let first_with = &mut shown.first_with;
    let repeats = &shown.repeats;
    let hidden = if test.hidden {
        " <span class=\"tag\">hidden</span>"
    } else {
        ""
    };
    let time = test
        .wall_seconds()
        .map(|s| format!(" ({:.2} ms)", s * 1000.0))
        .unwrap_or_default();
    let first_line = if headline {
        format!(": {}", escape(test.message.lines().next().unwrap_or("")))
    } else {
        String::new()
    };
    writeln!(
        out,
        "<details class=\"test\">\n<summary><span class=\"name\">{}</span> <span class=\"fail\">{}</span>{hidden}{time}{first_line}</summary>",
        escape(&test_name(test)),
        test.verdict,
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
        board_grid(board, out)?;
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
    writeln!(out, "</details>")
}

/// A board as a table: row and column numbers counted from 0, as every
/// message counts them ("(row 2, col 1)"), thick lines around the board and
/// between boxes, the marked cell highlighted; in a box of its own that
/// scrolls when the board is wider than the screen (a 25x25 on a phone).
fn board_grid(board: &BoardView, out: &mut dyn Write) -> io::Result<()> {
    let side = board.rows.first().map_or(0, Vec::len);
    write!(
        out,
        "<div class=\"scroll\">\n<table class=\"board\">\n<tr><td class=\"corner\"></td>"
    )?;
    for c in 0..side {
        write!(out, "<th scope=\"col\">{c}</th>")?;
    }
    writeln!(out, "</tr>")?;
    let last_row = board.rows.len().saturating_sub(1);
    for (r, row) in board.rows.iter().enumerate() {
        write!(out, "<tr><th scope=\"row\">{r}</th>")?;
        for (c, cell) in row.iter().enumerate() {
            let mut classes = Vec::new();
            if c == 0 || (board.n > 0 && c % board.n == 0) {
                classes.push("bl");
            }
            if r == 0 || (board.n > 0 && r % board.n == 0) {
                classes.push("bt");
            }
            if c + 1 == row.len() {
                classes.push("br");
            }
            if r == last_row {
                classes.push("bb");
            }
            if board.mark == Some([r, c]) {
                classes.push("m");
            }
            let class = if classes.is_empty() {
                String::new()
            } else {
                format!(" class=\"{}\"", classes.join(" "))
            };
            let text = if *cell == 0 {
                String::new()
            } else {
                cell.to_string()
            };
            write!(out, "<td{class} title=\"(row {r}, col {c})\">{text}</td>")?;
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</table>\n</div>")
}

fn failing(sub: &SubmissionReport) -> impl Iterator<Item = &TestReport> {
    sub.tests.iter().filter(|t| t.verdict != Verdict::Pass)
}

fn score_class(sub: &SubmissionReport) -> &'static str {
    if !sub.graded() {
        "fail"
    } else if sub.all_passed() {
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
    use crate::check::Check;
    use crate::report::fixture::{self, BOB_COMPILER};

    fn page(report: &Report) -> String {
        let mut out = Vec::new();
        write(report, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// A failing test of `function` on `case`, failed by `check`.
    fn failed(case: &str, function: Function, check: Option<Check>, message: &str) -> TestReport {
        let mut test = fixture::sample().submissions[0].tests[1].clone();
        test.case = case.into();
        test.function = function;
        test.check = check;
        test.message = message.into();
        test.output = String::new();
        test.board = None;
        test
    }

    #[test]
    fn failures_are_grouped_by_finding_with_solve_under_legal() {
        let legal = "your legal never checks the box: also check the n x n box";
        let mut report = fixture::sample();
        let sub = &mut report.submissions[0];
        sub.tests = vec![
            failed("a-4x4", Function::Legal, Some(Check::Legal), legal),
            failed("b-9x9", Function::Legal, Some(Check::Legal), legal),
            failed("c-9x9", Function::Legal, Some(Check::Legal), legal),
            failed(
                "a-4x4",
                Function::Solve,
                Some(Check::SolveGaveUp),
                "solve gave up",
            ),
            failed(
                "b-9x9",
                Function::Solve,
                Some(Check::SolveDuplicate),
                "solve twice",
            ),
            failed(
                "c-9x9",
                Function::Solve,
                Some(Check::SolveDuplicate),
                "solve twice",
            ),
        ];
        let html = page(&report);
        let student = &html[html.find("<details class=\"student\" id=\"s0\"").unwrap()..];
        let student = &student[..student
            .find("</details>\n<details class=\"student\"")
            .unwrap()];
        assert_eq!(
            student.matches(legal).count(),
            1 + 3,
            "once open, once per closed test: {student}"
        );
        assert!(
            student.contains("<p class=\"finding-head\"><span class=\"name\">legal</span> <span class=\"fail\">wrong</span> (check legal) on 3 cases: a-4x4, b-9x9, c-9x9</p>"),
            "{student}"
        );
        // The closed tests' summaries do not repeat the diagnosis.
        for summary in student.split("<summary>").skip(2) {
            let summary = &summary[..summary.find("</summary>").unwrap()];
            assert!(
                !summary.contains(legal) && !summary.contains("solve twice"),
                "{summary}"
            );
        }
        // solve's findings come under legal's, its lone test with its
        // headline.
        let follows = &student[student
            .find("<div class=\"follows\">")
            .expect("solve under legal")..];
        assert!(
            follows.contains(
                "its 3 failing tests below may follow from this finding: fix legal first"
            ),
            "{follows}"
        );
        assert!(follows.contains("a-4x4/solve</span> <span class=\"fail\">wrong</span> (1.50 ms): solve gave up</summary>"), "{follows}");
        assert!(
            follows.contains("(check solve.duplicate) on 2 cases: b-9x9, c-9x9"),
            "{follows}"
        );
        assert!(
            student.find("a-4x4/legal").unwrap() < student.find("<div class=\"follows\">").unwrap()
        );

        // Without a helper's failure, solve's findings stand alone.
        report.submissions[0].tests.drain(..3);
        let html = page(&report);
        assert!(!html.contains("<div class=\"follows\">"), "{html}");
        assert!(
            html.contains("(check solve.duplicate) on 2 cases: b-9x9, c-9x9"),
            "{html}"
        );
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
        assert_eq!(
            html.matches("<script").count(),
            1,
            "only the filter's script: {html}"
        );
        assert!(html.contains(&format!("<script>{SCRIPT}</script>")));
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;done&#39;"),
            "{html}"
        );
        assert!(
            html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{html}"
        );
        assert!(
            html.contains(&format!(
                "default-src 'none'; style-src 'unsafe-inline'; script-src {}\"",
                script_hash()
            )),
            "a CSP admits the filter's script alone: {html}"
        );
    }

    #[test]
    fn the_policy_hash_is_the_scripts_sha256() {
        // As the browser computes it over the element's text (checked
        // for real in Chromium by the integration tests): base64 of the
        // SHA-256 of exactly the bytes between <script> and </script>.
        let digest = Sha256::digest(SCRIPT.as_bytes());
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(
                script_hash()
                    .trim_matches('\'')
                    .trim_start_matches("sha256-"),
            )
            .unwrap();
        assert_eq!(decoded, digest.as_slice());
    }

    /// The background of each verdict's matrix cell (from [`PALETTE`]).
    fn verdict_background(verdict: Verdict) -> &'static str {
        let selector = format!(".v-{verdict}");
        PALETTE
            .iter()
            .find(|(s, _, _)| *s == selector)
            .map(|(_, _, bg)| *bg)
            .expect("every verdict has a colour")
    }

    /// WCAG 2 relative luminance of `#rrggbb`.
    fn luminance(hex: &str) -> f64 {
        assert!(
            hex.len() == 7 && hex.starts_with('#'),
            "{hex}: write colours as #rrggbb"
        );
        let channel = |i: usize| {
            let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
    }

    /// WCAG 2 contrast ratio of two colours.
    fn contrast(a: &str, b: &str) -> f64 {
        let (a, b) = (luminance(a), luminance(b));
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    /// CIELAB (D65) of `#rrggbb`, for colour differences.
    fn lab(hex: &str) -> (f64, f64, f64) {
        let linear = |i: usize| {
            let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        let (r, g, b) = (linear(1), linear(3), linear(5));
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
        let f = |t: f64| {
            if t > 0.008856 {
                t.cbrt()
            } else {
                7.787 * t + 16.0 / 116.0
            }
        };
        (
            116.0 * f(y) - 16.0,
            500.0 * (f(x) - f(y)),
            200.0 * (f(y) - f(z)),
        )
    }

    #[test]
    fn contrast_figures_are_right() {
        // Known values: black on white is 21:1, #777 on white about 4.48:1.
        assert!((contrast("#000000", "#ffffff") - 21.0).abs() < 1e-9);
        assert!((contrast("#777777", "#ffffff") - 4.48).abs() < 0.01);
    }

    #[test]
    fn every_text_colour_has_a_contrast_of_at_least_4_5() {
        for (selector, color, background) in PALETTE {
            let ratio = contrast(color, background);
            assert!(
                ratio >= 4.5,
                "{selector}: {color} on {background} has contrast {ratio:.2}:1, below 4.5:1"
            );
        }
        for (selector, color, background) in NON_TEXT {
            let ratio = contrast(color, background);
            assert!(
                ratio >= 3.0,
                "{selector}: {color} against {background} has contrast {ratio:.2}:1, below 3:1"
            );
        }
        // The page sets no colour outside the palette: every pair is above.
        for declaration in ["color:", "background:", "background-color:"] {
            assert!(
                !LAYOUT.contains(declaration),
                "{declaration} in LAYOUT: put the rule in PALETTE, where its contrast is tested"
            );
        }
        let css = style();
        for (selector, _, _) in PALETTE {
            assert!(css.contains(&format!("\n{selector}{{color:")), "{selector}");
        }
    }

    #[test]
    fn verdict_colours_are_told_apart() {
        // Every two verdicts' cells differ clearly in colour (CIE76
        // difference of at least 20), and pass and timeout also in
        // lightness (luminance ratio of at least 3), so that they stay
        // apart for a reader who does not see green from yellow.
        for (i, a) in VERDICTS.iter().enumerate() {
            for b in &VERDICTS[i + 1..] {
                let (la, lb) = (lab(verdict_background(*a)), lab(verdict_background(*b)));
                let delta =
                    ((la.0 - lb.0).powi(2) + (la.1 - lb.1).powi(2) + (la.2 - lb.2).powi(2)).sqrt();
                assert!(delta >= 20.0, "{a} and {b}: colour difference {delta:.1}");
            }
        }
        let ratio = contrast(
            verdict_background(Verdict::Pass),
            verdict_background(Verdict::Timeout),
        );
        assert!(ratio >= 3.0, "pass and timeout: luminance ratio {ratio:.2}");
        let marks: std::collections::HashSet<&str> = VERDICTS.iter().map(|v| mark(*v)).collect();
        assert_eq!(
            marks.len(),
            VERDICTS.len(),
            "every verdict has its own mark"
        );
    }

    #[test]
    fn a_viewport_and_a_title() {
        let html = page(&fixture::sample());
        assert!(
            html.contains(
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            )
        );
        assert!(html.contains("<title>grader report: 2 submissions</title>"));
        assert!(html.contains("<html lang=\"en\">"));
    }

    #[test]
    fn columns_follow_the_board_size_then_the_plan() {
        // The plan ran a 16x16 case first (files sorted by name, big.toml
        // before campus.toml): the matrix still goes 4x4, 9x9, 16x16.
        let mut report = fixture::sample();
        for sub in &mut report.submissions {
            let mut big = sub.tests[0].clone();
            big.case = "big-16x16".into();
            big.side = Some(16);
            sub.tests.insert(0, big);
        }
        let html = page(&report);
        let headers: Vec<&str> = html
            .match_indices("<th class=\"t\" scope=\"col\" title=\"")
            .map(|(at, m)| {
                let rest = &html[at + m.len()..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect();
        assert_eq!(
            headers,
            [
                "campus-4x4/legal",
                "campus-4x4/solve",
                "deep-9x9/solve",
                "big-16x16/legal"
            ]
        );
        // The filter's test choices are the same columns, by index.
        assert!(
            html.contains("<option value=\"3\">big-16x16/legal</option>"),
            "{html}"
        );
        assert!(
            html.contains("data-c=\"3\" data-v=\"pass\" title=\"alice: big-16x16/legal: pass\""),
            "{html}"
        );
    }

    #[test]
    fn failing_students_come_first_and_passing_ones_are_closed() {
        let mut report = fixture::sample();
        let mut passed = report.submissions[0].clone();
        passed.id = "aaron".into();
        passed.tests.truncate(1);
        passed.score = 1;
        passed.max_score = 1;
        report.submissions.insert(0, passed);
        let html = page(&report);
        let position = |needle: &str| {
            html.find(needle)
                .unwrap_or_else(|| panic!("{needle}: {html}"))
        };
        // Rows: alice, bob (failing, by id), then aaron (passed).
        assert!(position("<a href=\"#s1\">alice</a>") < position("<a href=\"#s2\">bob</a>"));
        assert!(position("<a href=\"#s2\">bob</a>") < position("<a href=\"#s0\">aaron</a>"));
        // Details in the same order, the failing open, the passing closed,
        // each failing test closed under its one-line summary.
        assert!(position("id=\"s1\" open>") < position("id=\"s2\" open>"));
        assert!(position("id=\"s2\" open>") < position("<details class=\"student\" id=\"s0\">"));
        assert_eq!(
            html.matches("<details class=\"test\">").count(),
            2,
            "alice's two failures"
        );
        assert!(html.contains("<details class=\"test\">\n<summary><span class=\"name\">campus-4x4/solve</span> <span class=\"fail\">wrong</span> (1.50 ms): solve returned true but r2c3 holds 1, which is not in the solution</summary>"), "{html}");
    }

    #[test]
    fn without_script_nothing_is_hidden_but_the_filter() {
        // The filter starts hidden and the script shows it; no student,
        // row or detail is hidden by the page itself.
        let html = page(&fixture::sample());
        assert!(html.contains("<div class=\"filter\" id=\"filter\" role=\"search\" hidden>"));
        assert_eq!(html.matches(" hidden>").count(), 1, "{html}");
        assert!(!LAYOUT.contains("display:none"));
        for verdict in VERDICTS {
            assert!(html.contains(&format!("<option value=\"{verdict}\">{verdict}</option>")));
        }
    }

    #[test]
    fn the_matrix_has_a_cell_per_student_and_test_coloured_by_verdict() {
        let html = page(&fixture::sample());
        assert_eq!(html.matches("<th class=\"t\"").count(), 3, "{html}");
        assert!(
            html.contains("<td class=\"v-pass\" data-c=\"0\" data-v=\"pass\" title=\"alice: campus-4x4/legal: pass\">✓</td>"),
            "{html}"
        );
        assert!(
            html.contains("<td class=\"v-wrong\" data-c=\"1\" data-v=\"wrong\" title=\"alice: campus-4x4/solve: wrong\">✗</td>"),
            "{html}"
        );
        assert!(
            html.contains("<td class=\"v-crash\" data-c=\"2\" data-v=\"crash\" title=\"alice: deep-9x9/solve: crash\">C</td>"),
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
        assert!(html.contains("<tr><th scope=\"row\">10–19%</th><td><span class=\"bar\" style=\"width:20em\"></span></td><td class=\"n\">1</td></tr>"), "{html}");
        assert!(html.contains("<tr><th scope=\"row\">100%</th><td><span class=\"bar\" style=\"width:0em\"></span></td><td class=\"n\">0</td></tr>"), "{html}");
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
            html.contains("<td class=\"bl m\" title=\"(row 1, col 2)\">1</td>"),
            "{html}"
        );
        assert!(
            html.contains("<td class=\"bl bt\" title=\"(row 2, col 0)\">2</td>"),
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
