//! The report files of `grade`, `report` and `merge`: checked and created
//! before any work (a path that cannot be written is found before an hour
//! of grading), written at the end. `-` means stdout, for one report only.

use anyhow::{Context, bail};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::cli::ReportOutputs;
use crate::commands::summary_md;
use crate::report::{self, Report, csv, gradescope, html, json, junit};

/// The report formats, one per flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Json,
    Junit,
    Csv,
    Gradescope,
    Html,
    SummaryMd,
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
            Format::SummaryMd => "--summary-md",
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
            Format::SummaryMd => "Markdown summary",
        }
    }

    fn write(self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
        match self {
            Format::Json => json::write(report, out)?,
            Format::Junit => junit::write(report, out)?,
            Format::Csv => csv::write(report, out)?,
            Format::Gradescope => gradescope::write(report, out)?,
            Format::Html => html::write(report, out)?,
            Format::SummaryMd => summary_md::write(report, out)?,
        }
        Ok(())
    }
}

/// The report files asked for, created.
pub struct Outputs {
    sinks: Vec<(Format, PathBuf, Option<BufWriter<File>>)>,
    gradescope: bool,
}

/// Whether `path` means stdout.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

impl Outputs {
    /// Checks the flags: one report at most on stdout, no two on one file.
    /// Nothing is created until [`Outputs::create`].
    ///
    /// # Errors
    /// On a bad combination.
    pub fn plan(flags: &ReportOutputs) -> anyhow::Result<Outputs> {
        let requested: Vec<(Format, &PathBuf)> = [
            (Format::Json, &flags.json),
            (Format::Junit, &flags.junit),
            (Format::Csv, &flags.csv),
            (Format::Gradescope, &flags.gradescope),
            (Format::Html, &flags.html),
            (Format::SummaryMd, &flags.summary_md),
        ]
        .into_iter()
        .filter_map(|(format, path)| path.as_ref().map(|p| (format, p)))
        .collect();
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
        Ok(Outputs {
            gradescope: flags.gradescope.is_some(),
            sinks: requested
                .into_iter()
                .map(|(format, path)| (format, path.clone(), None))
                .collect(),
        })
    }

    /// Creates the report files (stdout is taken only when written), so
    /// that a path that cannot be written is found before any grading.
    ///
    /// # Errors
    /// When a file cannot be created.
    pub fn create(&mut self) -> anyhow::Result<()> {
        for (format, path, file) in &mut self.sinks {
            if is_stdout(path) || file.is_some() {
                continue;
            }
            let created = File::create(&*path).with_context(|| {
                format!(
                    "cannot create the {} report {}: check that its folder exists and is writable",
                    format.name(),
                    path.display()
                )
            })?;
            *file = Some(BufWriter::new(created));
        }
        Ok(())
    }

    /// Whether a report goes to stdout (then summaries go to stderr).
    pub fn uses_stdout(&self) -> bool {
        self.sinks.iter().any(|(_, path, _)| is_stdout(path))
    }

    /// Whether a Gradescope report is asked for (it holds one submission).
    pub fn wants_gradescope(&self) -> bool {
        self.gradescope
    }

    /// Writes `report` in every format asked for (creating the files not
    /// yet created).
    ///
    /// # Errors
    /// When a report cannot be written.
    pub fn write(mut self, report: &Report) -> anyhow::Result<()> {
        self.create()?;
        for (format, path, file) in self.sinks {
            let written = match file {
                Some(mut file) => format
                    .write(report, &mut file)
                    .and_then(|()| Ok(file.flush()?)),
                None => format.write(report, &mut *report::open_sink(&path)?),
            };
            written.with_context(|| {
                format!(
                    "cannot write the {} report to {}",
                    format.name(),
                    path.display()
                )
            })?;
        }
        Ok(())
    }
}

/// The exit code of a command that produced `report`: 2 when the grader
/// itself failed on a submission (its score is not a grade); with
/// `fail_under`, 1 when a submission scores under that percent of its
/// points, else 0; without it, 0 iff every test of every submission passed.
pub fn exit_code(report: &Report, fail_under: Option<f64>) -> u8 {
    if report.grader_fault() {
        eprintln!(
            "error: the grader itself failed on some submissions (see their messages); their scores are not grades"
        );
        return crate::exit::USAGE_OR_INPUT;
    }
    let failed = match fail_under {
        None => !report.all_passed(),
        Some(threshold) => {
            let under: Vec<&str> = report
                .submissions
                .iter()
                .filter(|s| percent(s.score, s.max_score) < threshold)
                .map(|s| s.id.as_str())
                .collect();
            if !under.is_empty() {
                eprintln!(
                    "{} of {} submissions scored under {threshold}%",
                    under.len(),
                    report.submissions.len()
                );
            }
            !under.is_empty()
        }
    };
    if failed {
        crate::exit::FAILURE
    } else {
        crate::exit::SUCCESS
    }
}

/// `score` as a percent of `max` (100 when there is nothing to score).
pub fn percent(score: u32, max: u32) -> f64 {
    if max == 0 {
        100.0
    } else {
        f64::from(score) * 100.0 / f64::from(max)
    }
}
