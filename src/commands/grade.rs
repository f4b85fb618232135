//! `grader grade SUBMISSIONS`: an instructor grades a folder of submissions.

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Instant, SystemTime};

use crate::cli::GradeArgs;
use crate::commands::plan::{load_cases, prepare};
use crate::exit;
use crate::report::csv::{CsvLayout, Roster};
use crate::report::text::visible_line;
use crate::report::{Format, Outputs, ReportOptions, RunInfo, gradescope, terminal};
use crate::runner::grade::grade_all;
use crate::submission::discover;

/// Runs `grader grade`; the exit code is 0 iff every test of every
/// submission passed.
pub fn run(args: &GradeArgs) -> anyhow::Result<u8> {
    let options = report_options(args)?;
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
    if args.gradescope.is_some() {
        gradescope::check_submission_count(submissions.len())?;
    }
    // Create the report files now, so a path that cannot be written is
    // found before any time is spent grading.
    let outputs = Outputs::create(requested_reports(args), options)?;
    let mut plan = prepare(cases, args.jobs, &args.submissions)?;
    // `grade` shows no board on the terminal: pictures go only into the
    // reports, where terminal colors would be noise.
    plan.color = false;
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
    let started = SystemTime::now();
    let clock = Instant::now();
    let mut report = grade_all(&submissions, &plan, &|sub| {
        bar.set_message(visible_line(&sub.id).into_owned());
        bar.inc(1);
    });
    bar.finish_and_clear();

    report.run = Some(RunInfo::new(
        &plan.cases,
        &plan.sandbox.active(),
        started,
        clock.elapsed(),
    ));
    let summary_to_stderr = outputs.write_all(&report)?;
    // The summary goes to stdout, unless a report already does.
    if summary_to_stderr {
        terminal::write_summary(&report, &mut io::stderr().lock())?;
    } else {
        let mut out = io::stdout().lock();
        terminal::write_summary(&report, &mut out)?;
        out.flush()?;
    }
    Ok(if report.grader_fault() {
        eprintln!(
            "error: the grader itself failed on some submissions (see their messages); their scores are not grades"
        );
        exit::USAGE_OR_INPUT
    } else if report.all_passed() {
        exit::SUCCESS
    } else {
        exit::FAILURE
    })
}

/// The CSV options: layout, roster (read now, so a bad one stops the run
/// before any grading) and grade column.
fn report_options(args: &GradeArgs) -> anyhow::Result<ReportOptions> {
    if args.csv.is_none()
        && (args.roster.is_some()
            || args.csv_for != CsvLayout::Plain
            || args.csv_assignment.is_some())
    {
        bail!("--roster, --csv-for and --csv-assignment shape the CSV report: add --csv PATH");
    }
    let roster = match &args.roster {
        Some(path) => Some(Roster::load(path)?),
        None => None,
    };
    Ok(ReportOptions {
        csv_layout: args.csv_for,
        roster,
        csv_assignment: args.csv_assignment.clone(),
    })
}

/// The reports asked for, in flag order, with their paths.
fn requested_reports(args: &GradeArgs) -> Vec<(Format, PathBuf)> {
    [
        (Format::Json, &args.json),
        (Format::Junit, &args.junit),
        (Format::Csv, &args.csv),
        (Format::Gradescope, &args.gradescope),
        (Format::Html, &args.html),
    ]
    .into_iter()
    .filter_map(|(format, path)| path.clone().map(|p| (format, p)))
    .collect()
}
