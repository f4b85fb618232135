//! `grader diff OLD.json NEW.json`: whose scores changed between two JSON
//! reports (e.g. a regrade after fixing a case), and which tests flipped,
//! verdict before -> after. Exit 0 when nothing changed, 1 when something
//! did.

use std::collections::BTreeMap;
use std::io::Write;

use crate::cli::DiffArgs;
use crate::exit;
use crate::report::read::read_report;
use crate::report::{SubmissionReport, TestReport};
use crate::verdict::Function;
use crate::visible::visible_line;

/// Runs `grader diff`.
pub fn run(args: &DiffArgs) -> anyhow::Result<u8> {
    let old = read_report(&args.old)?;
    let new = read_report(&args.new)?;
    let mut out = std::io::stdout().lock();
    let changed = write_diff(&old.submissions, &new.submissions, &mut out)?;
    out.flush()?;
    Ok(if changed == 0 {
        exit::SUCCESS
    } else {
        exit::FAILURE
    })
}

/// Writes what changed from `old` to `new`; returns how many students
/// changed (a score, a verdict, added or removed).
pub fn write_diff(
    old: &[SubmissionReport],
    new: &[SubmissionReport],
    out: &mut dyn Write,
) -> std::io::Result<usize> {
    let old_by_id: BTreeMap<&str, &SubmissionReport> =
        old.iter().map(|s| (s.id.as_str(), s)).collect();
    let new_by_id: BTreeMap<&str, &SubmissionReport> =
        new.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut ids: Vec<&str> = old_by_id.keys().chain(new_by_id.keys()).copied().collect();
    ids.sort_unstable();
    ids.dedup();
    let mut changed = 0;
    for id in ids {
        let shown = visible_line(id);
        match (old_by_id.get(id), new_by_id.get(id)) {
            (Some(before), None) => {
                changed += 1;
                writeln!(out, "{shown}: removed (was {})", before.score_text())?;
            }
            (None, Some(after)) => {
                changed += 1;
                writeln!(out, "{shown}: added ({})", after.score_text())?;
            }
            (Some(before), Some(after)) => {
                let flips = flipped(before, after);
                let score_changed = before.score_text() != after.score_text();
                if !score_changed && flips.is_empty() && before.status == after.status {
                    continue;
                }
                changed += 1;
                writeln!(
                    out,
                    "{shown}: {} -> {}",
                    before.score_text(),
                    after.score_text()
                )?;
                if before.status != after.status {
                    writeln!(
                        out,
                        "  status: {} -> {}",
                        crate::report::naming::status_name(before.status),
                        crate::report::naming::status_name(after.status)
                    )?;
                }
                for line in flips {
                    writeln!(out, "  {line}")?;
                }
            }
            (None, None) => {}
        }
    }
    if changed == 0 {
        writeln!(out, "no score or verdict changed ({} students)", new.len())?;
    } else {
        writeln!(out, "{changed} students changed")?;
    }
    Ok(changed)
}

/// The tests whose verdict differs, one line each; tests only in one report
/// too.
fn flipped(before: &SubmissionReport, after: &SubmissionReport) -> Vec<String> {
    let old = index(before);
    let new = index(after);
    let mut lines = Vec::new();
    for (key, test) in &old {
        let name = format!("{} {}", visible_line(key.0), key.1);
        match new.get(key) {
            Some(now) if now.verdict != test.verdict => {
                lines.push(format!("{name}: {} -> {}", test.verdict, now.verdict));
            }
            Some(_) => {}
            None => lines.push(format!("{name}: {} -> (no longer tested)", test.verdict)),
        }
    }
    for (key, test) in &new {
        if !old.contains_key(key) {
            let name = format!("{} {}", visible_line(key.0), key.1);
            lines.push(format!("{name}: (new test) -> {}", test.verdict));
        }
    }
    lines
}

/// A submission's tests by (case, function).
fn index(sub: &SubmissionReport) -> BTreeMap<(&str, Function), &TestReport> {
    sub.tests
        .iter()
        .map(|t| ((t.case.as_str(), t.function), t))
        .collect()
}
