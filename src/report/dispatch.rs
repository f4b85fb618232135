//! The dispatcher that opens every requested sink before grading starts and
//! writes each format at the end ([`ReportSinks`]), as hyperfine's export
//! manager does: a path that cannot be written is found before any time is
//! spent grading. `-` is stdout, which only one report may take.

use anyhow::{Context, bail};
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use super::Report;
use super::formats::ReportFormat;
use super::formats::csv::{CsvLayout, Roster};
use super::formats::{csv, gradescope, html, json, junit};

/// The report formats of `grade`, one per flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// `--json`: SPEC 6.
    Json,
    /// `--junit`: JUnit XML for CI viewers.
    Junit,
    /// `--csv`: a gradebook.
    Csv,
    /// `--gradescope`: Gradescope's results.json.
    Gradescope,
    /// `--html`: a page for the instructor.
    Html,
    /// `--summary-md`: a Markdown summary for a CI job page.
    SummaryMd,
    /// `--classroom`: GitHub Classroom's runner result.
    Classroom,
}

impl Format {
    /// The command-line flag that asks for it.
    pub(crate) fn flag(self) -> &'static str {
        match self {
            Format::Json => "--json",
            Format::Junit => "--junit",
            Format::Csv => "--csv",
            Format::Gradescope => "--gradescope",
            Format::Html => "--html",
            Format::SummaryMd => "--summary-md",
            Format::Classroom => "--classroom",
        }
    }

    /// Its name in messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Json => "JSON",
            Format::Junit => "JUnit",
            Format::Csv => "CSV",
            Format::Gradescope => "Gradescope",
            Format::Html => "HTML",
            Format::SummaryMd => "Markdown summary",
            Format::Classroom => "GitHub Classroom",
        }
    }

    /// The writer of this format with `options`.
    pub(crate) fn writer(self, options: &ReportOptions) -> Box<dyn ReportFormat + '_> {
        match self {
            Format::Json => Box::new(json::Json),
            Format::Junit => Box::new(junit::Junit),
            Format::Csv => Box::new(csv::Csv {
                options: csv::CsvOptions {
                    layout: options.csv_layout,
                    roster: options.roster.as_ref(),
                    assignment: options
                        .csv_assignment
                        .as_deref()
                        .unwrap_or(csv::DEFAULT_ASSIGNMENT),
                    roster_strict: options.roster_strict,
                    missing: options.roster_missing,
                    column_id: options.csv_column_id.as_deref(),
                },
            }),
            Format::Gradescope => Box::new(gradescope::Gradescope),
            Format::Html => Box::new(html::Html),
            Format::SummaryMd => Box::new(super::formats::summary_md::SummaryMd),
            Format::Classroom => Box::new(super::formats::classroom::Classroom),
        }
    }
}

/// What the formats need beyond the report: the CSV's layout, roster and
/// grade column.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReportOptions {
    /// `--csv-for`.
    pub csv_layout: CsvLayout,
    /// `--roster`, loaded.
    pub roster: Option<Roster>,
    /// `--csv-assignment`: the grade column of the LMS layouts.
    pub csv_assignment: Option<String>,
    /// `--roster-strict`: a submission not in the roster refuses the CSV.
    pub roster_strict: bool,
    /// `--roster-missing`: a roster student without a submission.
    pub roster_missing: csv::MissingRow,
    /// `--csv-column-id`: Blackboard's Column ID of the grade column.
    pub csv_column_id: Option<String>,
}

/// The requested reports with their sinks, created before grading.
pub(crate) struct ReportSinks {
    options: ReportOptions,
    sinks: Vec<Sink>,
}

struct Sink {
    format: Format,
    path: PathBuf,
    /// `None` for stdout, which is taken only when written.
    file: Option<BufWriter<File>>,
}

impl ReportSinks {
    /// Checks the requests (one report at most on stdout, each path once)
    /// and creates every file.
    ///
    /// # Errors
    /// Two reports on stdout or on one path, or a file that cannot be
    /// created; each message says which flags and what to do.
    pub(crate) fn create(
        requested: Vec<(Format, PathBuf)>,
        options: ReportOptions,
    ) -> anyhow::Result<ReportSinks> {
        check_requests(&requested)?;
        let mut sinks = Vec::new();
        for (format, path) in requested {
            let file = if is_stdout(&path) {
                None
            } else {
                let file = File::create(&path).with_context(|| {
                    format!(
                        "cannot create the {} report {}: check that its folder exists and is writable",
                        format.name(),
                        path.display()
                    )
                })?;
                Some(BufWriter::new(file))
            };
            sinks.push(Sink { format, path, file });
        }
        Ok(ReportSinks { options, sinks })
    }

    /// Writes every requested report. Returns true iff one went to stdout
    /// (the terminal summary then goes to stderr). A report that cannot be
    /// written (or is refused, as a CSV an LMS would half-import) does not
    /// stop the others, and its file is removed: what is left is whole.
    ///
    /// # Errors
    /// The first report that could not be written, named with its path.
    pub(crate) fn write_all(self, report: &Report) -> anyhow::Result<bool> {
        let mut to_stdout = false;
        let mut first_error = None;
        for sink in self.sinks {
            let writer = sink.format.writer(&self.options);
            let written = match sink.file {
                Some(mut file) => {
                    let written = writer.write(report, &mut file);
                    drop(file);
                    if written.is_err() {
                        let _ = std::fs::remove_file(&sink.path);
                    }
                    written
                }
                None => {
                    to_stdout = true;
                    let mut out = BufWriter::new(io::stdout().lock());
                    writer.write(report, &mut out)
                }
            };
            if let Err(err) = written {
                let err = err.context(format!(
                    "cannot write the {} report to {}",
                    sink.format.name(),
                    sink.path.display()
                ));
                if first_error.is_some() {
                    eprintln!("error: {err:#}");
                } else {
                    first_error = Some(err);
                }
            }
        }
        match first_error {
            Some(err) => Err(err),
            None => Ok(to_stdout),
        }
    }
}

/// The checks on the requested reports, before anything is created: one
/// report at most on stdout, each path once.
///
/// # Errors
/// Saying which flags clash and what to do.
pub(crate) fn check_requests(requested: &[(Format, PathBuf)]) -> anyhow::Result<()> {
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
    Ok(())
}

/// Whether `path` means stdout (`-`).
pub(crate) fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_reports_on_stdout_or_one_path_are_refused_before_grading() {
        let err = ReportSinks::create(
            vec![(Format::Json, "-".into()), (Format::Html, "-".into())],
            ReportOptions::default(),
        )
        .err()
        .unwrap();
        assert!(
            err.to_string()
                .starts_with("--json and --html ask for stdout"),
            "{err}"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r");
        let err = ReportSinks::create(
            vec![(Format::Csv, path.clone()), (Format::Junit, path)],
            ReportOptions::default(),
        )
        .err()
        .unwrap();
        assert!(
            err.to_string().contains("--csv and --junit both write to"),
            "{err}"
        );
    }

    #[test]
    fn every_format_writes_through_the_trait() {
        let dir = tempfile::tempdir().unwrap();
        let mut report = super::super::fixture::sample();
        report.submissions.truncate(1);
        let all = [
            Format::Json,
            Format::Junit,
            Format::Csv,
            Format::Gradescope,
            Format::Html,
        ];
        let requested = all
            .iter()
            .map(|f| (*f, dir.path().join(f.name())))
            .collect();
        let outputs = ReportSinks::create(requested, ReportOptions::default()).unwrap();
        assert!(!outputs.write_all(&report).unwrap(), "nothing on stdout");
        for format in all {
            let written = std::fs::read(dir.path().join(format.name())).unwrap();
            assert!(!written.is_empty(), "{}", format.name());
        }
    }
}
