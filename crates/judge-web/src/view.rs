//! The lines `grader check` prints, for the browser and the Node runner.
//!
//! Interim: the student view (`src/report/student.rs`) is moving into the
//! judge crate; until it is there, these lines say what its first lines
//! say from the judge's own per-test messages: one line per function, the
//! first failing test of each with its case and message, the other
//! failures one line each, and the closing lines. The pictures, the small
//! board's words and the first step are in the report and the boards.

use grader_judge::verdict::{Function, Verdict};

use crate::report::{CheckReport, Status, TestReport};

/// The lines of `report`.
pub(crate) fn lines(report: &CheckReport) -> Vec<String> {
    let sub = &report.submission;
    let mut out = Vec::new();
    for note in &sub.notes {
        out.push(format!("note: {note}"));
    }
    if sub.status != Status::Ok {
        let what = match sub.status {
            Status::GraderError => "could not be checked: the grader failed, not your code",
            Status::BuildError => "did not build",
            _ => "could not be loaded",
        };
        out.push(format!("✗ {} {what}", report.path));
        out.extend(sub.message.lines().map(|l| format!("  {l}")));
        out.push(String::new());
        out.push(match sub.status {
            Status::GraderError => "No test ran, through no fault of your code's: then run `grader check` again, and report it if it persists.".to_string(),
            _ => "No test ran: fix the message above, then run `grader check` again.".to_string(),
        });
        return out;
    }
    for function in Function::ALL {
        let tests: Vec<&TestReport> = sub
            .tests
            .iter()
            .filter(|t| t.function == function)
            .collect();
        if tests.is_empty() {
            continue;
        }
        let failing: Vec<&&TestReport> = tests
            .iter()
            .filter(|t| t.verdict != Verdict::Pass)
            .collect();
        let name = format!("{:<10}", function.name());
        if failing.is_empty() {
            out.push(format!(
                "✓ {name} {} of {} cases pass",
                tests.len(),
                tests.len()
            ));
            continue;
        }
        out.push(format!(
            "✗ {name} {} of {} cases fail",
            failing.len(),
            tests.len()
        ));
        for (k, test) in failing.iter().enumerate() {
            if k == 0 {
                let time = test
                    .time_ms
                    .map(|t| format!(" ({t:.1} ms)"))
                    .unwrap_or_default();
                out.push(format!(
                    "    {} on {}: {}{time}",
                    test.function, test.case, test.verdict
                ));
                if let Some(description) = &test.description {
                    out.push(format!("    the case: {description}"));
                }
                out.extend(test.message.lines().map(|l| format!("    {l}")));
            } else {
                out.push(format!(
                    "    also fails: {} ({}): {}",
                    test.case,
                    test.verdict,
                    fact(&test.message)
                ));
            }
        }
    }
    let passed = sub
        .tests
        .iter()
        .filter(|t| t.verdict == Verdict::Pass)
        .count();
    out.push(String::new());
    let line = format!("{passed} of {} public tests passed", sub.tests.len());
    if report.exit_code() == 2 {
        out.push(line);
        out.push("The checker itself failed on some test (see above): that is not your code's fault. Run again, and report it if it persists.".to_string());
    } else if passed == sub.tests.len() {
        out.push(format!("All {line}."));
        out.push("Your grade also counts hidden tests: other boards of every size, including puzzles with no solution.".to_string());
    } else {
        out.push(format!("{line}."));
        out.push("Fix the first failure above and run again; your grade also counts hidden tests on other boards.".to_string());
    }
    out
}

/// A message's first fact: its first line up to the first ": " outside
/// parentheses, as the student view cuts an "also fails" line.
fn fact(message: &str) -> &str {
    let first_line = message.lines().next().unwrap_or("");
    let mut depth = 0usize;
    let cut = first_line.char_indices().find_map(|(i, ch)| {
        match ch {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ':' if depth == 0 && first_line[i..].starts_with(": ") => return Some(i),
            _ => {}
        }
        None
    });
    match cut {
        Some(i) => &first_line[..i],
        None => first_line.strip_suffix(':').unwrap_or(first_line),
    }
}
