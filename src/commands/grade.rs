//! `grader grade SUBMISSIONS`: an instructor grades a folder of submissions.

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};

use crate::cli::GradeArgs;
use crate::commands::plan::{load_cases, prepare};
use crate::exit;
use crate::report::{self, json, terminal};
use crate::runner::discover;
use crate::runner::grade::grade_all;

/// Runs `grader grade`; the exit code is 0 iff every test of every
/// submission passed.
pub fn run(args: &GradeArgs) -> anyhow::Result<u8> {
    let cases = load_cases(args.cases.as_deref(), true)?;
    let submissions = discover::discover(&args.submissions).with_context(|| {
        format!(
            "cannot read the submissions in {}",
            args.submissions.display()
        )
    })?;
    if submissions.is_empty() {
        bail!(
            "{} holds no submissions: put one entry per student in it (a folder with Cargo.toml, a .c, a .py or a .so)",
            args.submissions.display()
        );
    }
    let plan = prepare(cases, args.jobs)?;
    eprintln!("sandbox: {}", plan.sandbox.active().join(", "));

    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(submissions.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} graded, {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let report = grade_all(&submissions, &plan, &|sub| {
        bar.set_message(sub.id.clone());
        bar.inc(1);
    });
    bar.finish_and_clear();

    let json_to_stdout = args.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if let Some(path) = &args.json {
        let mut sink = report::open_sink(path)
            .with_context(|| format!("cannot write the JSON report to {}", path.display()))?;
        json::write(&report, &mut *sink)
            .with_context(|| format!("cannot write the JSON report to {}", path.display()))?;
    }
    // The summary goes to stdout, unless a report already does.
    if json_to_stdout {
        terminal::write_summary(&report, &mut std::io::stderr().lock())?;
    } else {
        let mut out = std::io::stdout().lock();
        terminal::write_summary(&report, &mut out)?;
        out.flush()?;
    }
    Ok(if report.all_passed() {
        exit::SUCCESS
    } else {
        exit::FAILURE
    })
}
