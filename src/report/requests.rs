//! The report flags of `grade`, `report` and `merge` ([`ReportOutputs`])
//! turned into requests for the one report dispatcher
//! ([`crate::report::dispatch::ReportSinks`]): checked before any work, the files created
//! before grading (a path that cannot be written is found before an hour
//! of grading), written at the end. `-` means stdout, for one report only.

use anyhow::bail;
use std::path::PathBuf;

use crate::cli::ReportOutputs;
use crate::report::Report;
use crate::report::dispatch::{Format, ReportOptions, ReportSinks};
use crate::report::formats::csv::{CsvLayout, Roster};

/// The report files asked for: planned, then created, then written.
pub(crate) struct ReportRequests {
    requested: Vec<(Format, PathBuf)>,
    options: Option<ReportOptions>,
    created: Option<ReportSinks>,
}

pub(crate) use crate::report::dispatch::is_stdout;

impl ReportRequests {
    /// Reads the flags (and the roster, so a bad one stops the run before
    /// any grading). Nothing is created until [`ReportRequests::create`].
    ///
    /// # Errors
    /// A CSV option without `--csv`, or a roster that does not load.
    pub(crate) fn plan(flags: &ReportOutputs) -> anyhow::Result<ReportRequests> {
        if flags.csv.is_none()
            && (flags.roster.is_some()
                || flags.csv_for != CsvLayout::Plain
                || flags.csv_assignment.is_some()
                || flags.csv_column_id.is_some())
        {
            bail!(
                "--roster, --csv-for, --csv-assignment and --csv-column-id shape the CSV report: add --csv PATH"
            );
        }
        match (&flags.csv_column_id, flags.csv_for) {
            (None, CsvLayout::Blackboard) => bail!(
                "--csv-for blackboard needs --csv-column-id ID, the Column ID of the grade column (Grade Center: the column's menu > Quick Column Information): without it every upload makes a new column worth 0 points"
            ),
            (Some(_), layout) if layout != CsvLayout::Blackboard => {
                bail!("--csv-column-id is Blackboard's: use it with --csv-for blackboard")
            }
            (Some(id), _) if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) => bail!(
                "--csv-column-id {id:?} is not a Column ID: Blackboard's are numbers (e.g. 12345)"
            ),
            _ => {}
        }
        if flags.roster.is_some() && flags.csv_for == CsvLayout::Plain {
            bail!(
                "--roster maps ids to an LMS's identifiers: add --csv-for canvas, moodle or blackboard"
            );
        }
        let roster = match &flags.roster {
            Some(path) => Some(Roster::load(path)?),
            None => None,
        };
        let requested: Vec<(Format, PathBuf)> = [
            (Format::Json, &flags.json),
            (Format::Junit, &flags.junit),
            (Format::Csv, &flags.csv),
            (Format::Gradescope, &flags.gradescope),
            (Format::Html, &flags.html),
            (Format::SummaryMd, &flags.summary_md),
            (Format::Classroom, &flags.classroom),
        ]
        .into_iter()
        .filter_map(|(format, path)| path.as_ref().map(|p| (format, p.clone())))
        .collect();
        let planned = ReportRequests {
            requested,
            options: Some(ReportOptions {
                csv_layout: flags.csv_for,
                roster,
                csv_assignment: flags.csv_assignment.clone(),
                roster_strict: flags.roster_strict,
                roster_missing: flags.roster_missing,
                csv_column_id: flags.csv_column_id.clone(),
            }),
            created: None,
        };
        // The dispatcher's checks (one stdout, one report per path), now.
        crate::report::dispatch::check_requests(&planned.requested)?;
        Ok(planned)
    }

    /// Creates the report files (stdout is taken only when written).
    ///
    /// # Errors
    /// When a file cannot be created.
    pub(crate) fn create(&mut self) -> anyhow::Result<()> {
        if self.created.is_none() {
            let options = self.options.take().unwrap_or_default();
            self.created = Some(ReportSinks::create(self.requested.clone(), options)?);
        }
        Ok(())
    }

    /// Whether a report goes to stdout (then summaries go to stderr).
    pub(crate) fn uses_stdout(&self) -> bool {
        self.requested.iter().any(|(_, path)| is_stdout(path))
    }

    /// Whether a Gradescope report is asked for (it holds one submission).
    pub(crate) fn wants_gradescope(&self) -> bool {
        self.requested.iter().any(|(f, _)| *f == Format::Gradescope)
    }

    /// Whether a GitHub Classroom result is asked for (one submission).
    pub(crate) fn wants_classroom(&self) -> bool {
        self.requested.iter().any(|(f, _)| *f == Format::Classroom)
    }

    /// Writes `report` in every format asked for (creating the files not
    /// yet created).
    ///
    /// # Errors
    /// When a report cannot be written.
    pub(crate) fn write(mut self, report: &Report) -> anyhow::Result<()> {
        self.create()?;
        if let Some(created) = self.created {
            created.write_all(report)?;
        }
        Ok(())
    }
}

impl ReportRequests {
    /// [`ReportRequests::write`], then the terminal summary: on stdout, or on
    /// stderr when a report took stdout.
    ///
    /// # Errors
    /// When a report or the summary cannot be written.
    pub(crate) fn write_with_summary(self, report: &Report) -> anyhow::Result<()> {
        use std::io::Write;
        let to_stdout = self.uses_stdout();
        self.write(report)?;
        if to_stdout {
            crate::report::formats::terminal::write_summary(report, &mut std::io::stderr().lock())?;
        } else {
            let mut out = std::io::stdout().lock();
            crate::report::formats::terminal::write_summary(report, &mut out)?;
            out.flush()?;
        }
        Ok(())
    }
}
