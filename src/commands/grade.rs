//! `grader grade SUBMISSIONS`: an instructor grades a folder of submissions.

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::cli::GradeArgs;
use crate::commands::plan::{load_cases, prepare};
use crate::exit;
use crate::report::{self, Report, csv, gradescope, html, json, junit, terminal};
use crate::runner::grade::grade_all;
use crate::submission::discover;

/// Runs `grader grade`; the exit code is 0 iff every test of every
/// submission passed.
pub fn run(args: &GradeArgs) -> anyhow::Result<u8> {
    let requested = requested_reports(args);
    let to_stdout: Vec<&str> = requested
        .iter()
        .filter(|(_, path)| is_stdout(path))
        .map(|(format, _)| format.flag())
        .collect();
    if to_stdout.len() > 1 {
        bail!(
            "{} ask for stdout (`-`), which can hold only one report: write the others to files",
            to_stdout.join(" and ")
        );
    }
    for (i, (format, path)) in requested.iter().enumerate() {
        if let Some((other, _)) = requested[..i].iter().find(|(_, p)| p == path) {
            bail!(
                "{} and {} both write to {}: give each report its own file",
                other.flag(),
                format.flag(),
                path.display()
            );
        }
    }
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
    // found before any time is spent grading; stdout is taken at the end.
    let mut sinks = Vec::new();
    for (format, path) in requested {
        let file = if is_stdout(path) {
            None
        } else {
            let file = File::create(path).with_context(|| {
                format!(
                    "cannot create the {} report {}: check that its folder exists and is writable",
                    format.name(),
                    path.display()
                )
            })?;
            Some(BufWriter::new(file))
        };
        sinks.push((format, path, file));
    }
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
    let report = grade_all(&submissions, &plan, &|sub| {
        bar.set_message(sub.id.clone());
        bar.inc(1);
    });
    bar.finish_and_clear();

    let mut summary_to_stderr = false;
    for (format, path, file) in sinks {
        let written = match file {
            Some(mut file) => format.write(&report, &mut file),
            None => {
                summary_to_stderr = true;
                format.write(&report, &mut *report::open_sink(path)?)
            }
        };
        written.with_context(|| {
            format!(
                "cannot write the {} report to {}",
                format.name(),
                path.display()
            )
        })?;
    }
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

/// The report formats of `grade`, one per flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Json,
    Junit,
    Csv,
    Gradescope,
    Html,
}

impl Format {
    /// The command-line flag that asks for it.
    fn flag(self) -> &'static str {
        match self {
            Format::Json => "--json",
            Format::Junit => "--junit",
            Format::Csv => "--csv",
            Format::Gradescope => "--gradescope",
            Format::Html => "--html",
        }
    }

    /// Its name in messages.
    fn name(self) -> &'static str {
        match self {
            Format::Json => "JSON",
            Format::Junit => "JUnit",
            Format::Csv => "CSV",
            Format::Gradescope => "Gradescope",
            Format::Html => "HTML",
        }
    }

    fn write(self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
        match self {
            Format::Json => json::write(report, out)?,
            Format::Junit => junit::write(report, out)?,
            Format::Csv => csv::write(report, out)?,
            Format::Gradescope => gradescope::write(report, out)?,
            Format::Html => html::write(report, out)?,
        }
        Ok(())
    }
}

/// The reports asked for, in flag order, with their paths.
fn requested_reports(args: &GradeArgs) -> Vec<(Format, &PathBuf)> {
    [
        (Format::Json, &args.json),
        (Format::Junit, &args.junit),
        (Format::Csv, &args.csv),
        (Format::Gradescope, &args.gradescope),
        (Format::Html, &args.html),
    ]
    .into_iter()
    .filter_map(|(format, path)| path.as_ref().map(|p| (format, p)))
    .collect()
}

fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}
