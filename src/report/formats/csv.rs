//! The CSV gradebook (`--csv`): one row per student, for a spreadsheet or
//! an LMS grade import. RFC 4180, comma-separated, a header row, `\n` line
//! ends, UTF-8. `--csv-for` picks the column layout:
//!
//! | layout | columns |
//! |---|---|
//! | `plain` (default) | `id`, `kind`, `status`, `score`, `max_score`, then one column per test `<case>/<function>` with its points |
//! | `canvas` | `Student`, `ID`, `SIS User ID`, `SIS Login ID`, `Section`, `<assignment>`; a `Points Possible` row after the header |
//! | `moodle` | `Username`, `Full name`, `<assignment>`, `Feedback` |
//! | `blackboard` | `Username`, `Last Name`, `First Name`, `<assignment> [Total Pts: <max> Score] \|<column id>`, every field quoted |
//!
//! Blackboard's Grade Center matches a column by the Column ID after the
//! `|` (its download writes the header so); a header without one makes a
//! new text column worth 0 points on every upload, so `grade` asks for
//! `--csv-column-id` with `--csv-for blackboard`.
//!
//! For the LMS layouts `--roster FILE` maps each submission id to the
//! LMS's identifier of the student (a CSV with a header naming `id` and
//! `lms_id`, and optionally `name` and `section`): Canvas reads it as the
//! SIS User ID, Moodle as the column mapped in "Identify user by",
//! Blackboard as the Username. Without a roster the submission id is the
//! identifier. `<assignment>` is `--csv-assignment` (default `Sudoku lab`);
//! an LMS creates a new grade column when the name matches none of its own.
//!
//! An LMS import must neither overwrite a grade it should keep nor
//! half-fail: Moodle stores a blank (or `-`) grade cell as "no grade" over
//! whatever the gradebook held (a grade typed by hand), and aborts the
//! whole import, applying nothing, on one identifier that matches no user.
//! So in the LMS layouts ([`write_with`]):
//!
//! - every row's grade cell holds a number: a student with no grade to
//!   give has no row, and keeps the grade the LMS has;
//! - a roster student without a submission has no row by default, and is
//!   named on stderr; `--roster-missing zero` ([`MissingRow::Zero`]) gives
//!   them a row with 0 (and `no submission` in Moodle's Feedback column),
//!   for a course whose rule is that missing work scores 0: that 0
//!   replaces the grade the LMS held (on a real Moodle 4.5, a hand-typed
//!   20 became 0);
//! - a submission the grader failed on (not graded) has no row either,
//!   and is named on stderr: grade it again;
//! - a submission whose id is not in the roster has no row: it is named
//!   on stderr, and with `--roster-strict` the CSV is refused
//!   ([`CsvError::NotInRoster`]).
//!
//! Identifiers (the roster's `lms_id`, or the submission id without a
//! roster) are matched as they are by the LMS (Moodle trims the cell and
//! ignores case in a username or email address, nothing else), so they
//! are written exactly as given, never rewritten by the formula guard
//! below (an escaped `'-carol` matches nobody, and in Moodle aborts the
//! import). The guard, per layout:
//!
//! | layout | identifiers | other text cells |
//! |---|---|---|
//! | `plain` | prefixed with `'` like every cell (a spreadsheet, not an import) | prefixed with `'` |
//! | `moodle` | written as they are; one that starts with `-` or `@` is kept only when it is made of letters, digits and `_ . @ -` alone (what a Moodle username is made of: such a cell can name no function, so a spreadsheet cannot run it); one that starts with `=` or `+` (never a Moodle username: Moodle refuses to create one; an ID number may, and a spreadsheet would run it) or is otherwise formula-like has no row | prefixed with `'` |
//! | `canvas` | as `moodle` (an SIS id of letters, digits and `_ . @ -`) | prefixed with `'` |
//! | `blackboard` | as `moodle` (a Username); every field is quoted | prefixed with `'` |
//!
//! A left-out identifier is named on stderr, with why; the rest of the
//! file is written (one odd id never refuses the whole file): enter that
//! student's grade by hand.
//!
//! Blackboard wants the last and first names apart: a roster `name`
//! written `Last, First` is split at its comma (`Liddell, Alice`: last
//! `Liddell`, first `Alice`), one written `First Last` at its last space,
//! and a single word is the last name.
//!
//! In `plain`, the test columns come in the order tests first appear in
//! the report and are the same for every row; a test a student has no
//! result for leaves its cell empty; a build or load error gives 0 on
//! every test; a submission that is not graded has an empty score cell.
//!
//! A text cell that a spreadsheet would run as a formula (one that starts
//! with `=`, `+`, `-`, `@`, a tab or a carriage return, OWASP's list) is
//! prefixed with `'`.

use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::Path;

use super::ReportFormat;
use crate::report::naming::{status_name, test_name};
use crate::report::{Report, SubmissionReport};

/// The fixed columns of the `plain` layout, before the per-test ones.
pub(crate) const FIXED_COLUMNS: [&str; 5] = ["id", "kind", "status", "score", "max_score"];

/// The grade column's name in the LMS layouts unless `--csv-assignment`
/// names it.
pub(crate) const DEFAULT_ASSIGNMENT: &str = "Sudoku lab";

/// Which system the CSV is for (`--csv-for`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum CsvLayout {
    /// A spreadsheet: every test a column.
    #[default]
    Plain,
    /// Canvas gradebook import.
    Canvas,
    /// Moodle grade import (CSV).
    Moodle,
    /// Blackboard Grade Center upload.
    Blackboard,
}

/// What an LMS file holds for a roster student without a submission
/// (`--roster-missing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MissingRow {
    /// No row: the import keeps the grade the LMS has.
    #[default]
    Omit,
    /// A row with the grade 0, which replaces the grade the LMS holds
    /// (one typed by hand too).
    Zero,
}

/// One student of a roster.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub(crate) struct RosterEntry {
    /// The submission id (the name of the submission's entry).
    pub id: String,
    /// The LMS's identifier of the student.
    pub lms_id: String,
    /// The student's name, as the LMS shows it.
    #[serde(default)]
    pub name: String,
    /// The course section (Canvas).
    #[serde(default)]
    pub section: String,
}

/// A roster: submission id -> the LMS's view of the student.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Roster {
    entries: HashMap<String, RosterEntry>,
}

/// Why a roster could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RosterError {
    /// The file could not be read.
    #[error("cannot read the roster {file}: {source}")]
    Read {
        /// The roster.
        file: String,
        /// Why.
        source: io::Error,
    },
    /// A row is not a roster row.
    #[error(
        "{file}:{line}: {what}: a roster is a CSV whose header names `id` and `lms_id` (optionally `name`, `section`), one student per row"
    )]
    Row {
        /// The roster.
        file: String,
        /// The 1-based line.
        line: u64,
        /// What is wrong.
        what: String,
    },
    /// An id appears twice.
    #[error(
        "{file}:{line}: the id `{id}` is already on line {first}: give each submission id one row"
    )]
    Duplicate {
        /// The roster.
        file: String,
        /// The line of the repeat.
        line: u64,
        /// The line of the first.
        first: u64,
        /// The id, control characters shown.
        id: String,
    },
}

impl Roster {
    /// Reads a roster CSV.
    ///
    /// # Errors
    /// [`RosterError`], naming the file and line.
    pub(crate) fn load(path: &Path) -> Result<Roster, RosterError> {
        let file = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| RosterError::Read {
            file: file.clone(),
            source,
        })?;
        Roster::parse(&file, &bytes)
    }

    /// Parses roster CSV text; `file` names it in errors.
    ///
    /// # Errors
    /// [`RosterError`], naming the file and line.
    pub(crate) fn parse(file: &str, bytes: &[u8]) -> Result<Roster, RosterError> {
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        let mut reader = ::csv::ReaderBuilder::new()
            .trim(::csv::Trim::All)
            .from_reader(bytes);
        let row_error = |line: u64, what: String| RosterError::Row {
            file: file.to_string(),
            line,
            what,
        };
        let headers = reader
            .headers()
            .map_err(|e| row_error(1, e.to_string()))?
            .clone();
        for needed in ["id", "lms_id"] {
            if !headers.iter().any(|h| h == needed) {
                return Err(row_error(1, format!("the header has no `{needed}` column")));
            }
        }
        let mut entries = HashMap::new();
        let mut lines: HashMap<String, u64> = HashMap::new();
        for record in reader.records() {
            let record = record.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                row_error(line, e.to_string())
            })?;
            let line = record.position().map_or(0, |p| p.line());
            let entry: RosterEntry = record
                .deserialize(Some(&headers))
                .map_err(|e| row_error(line, e.to_string()))?;
            if entry.id.is_empty() || entry.lms_id.is_empty() {
                return Err(row_error(line, "`id` and `lms_id` may not be empty".into()));
            }
            if let Some(first) = lines.get(&entry.id) {
                return Err(RosterError::Duplicate {
                    file: file.to_string(),
                    line,
                    first: *first,
                    id: crate::visible::visible_line(&entry.id).into_owned(),
                });
            }
            lines.insert(entry.id.clone(), line);
            entries.insert(entry.id.clone(), entry);
        }
        Ok(Roster { entries })
    }

    /// The entry of submission `id`.
    pub(crate) fn get(&self, id: &str) -> Option<&RosterEntry> {
        self.entries.get(id)
    }
}

/// The CSV format for the dispatcher.
pub(crate) struct Csv<'a> {
    /// How to make it.
    pub options: CsvOptions<'a>,
}

impl ReportFormat for Csv<'_> {
    fn write(&self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
        Ok(write_with(report, &self.options, out)?)
    }
}

/// How a CSV is to be made: the layout and what shapes the LMS layouts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CsvOptions<'a> {
    /// The column layout.
    pub layout: CsvLayout,
    /// The roster, if given.
    pub roster: Option<&'a Roster>,
    /// The grade column's name in the LMS layouts.
    pub assignment: &'a str,
    /// `--roster-strict`: a submission not in the roster refuses the CSV.
    pub roster_strict: bool,
    /// `--roster-missing`: a roster student without a submission.
    pub missing: MissingRow,
    /// Blackboard's Column ID of the grade column.
    pub column_id: Option<&'a str>,
}

/// Why a CSV was refused (nothing of it is written).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CsvError {
    /// Submissions the roster does not list, under `--roster-strict`.
    #[error(
        "the CSV is not written: {} submission(s) are not in the roster ({}): add them to the roster, or drop --roster-strict to leave them out of the import",
        .0.len(),
        .0.join(", ")
    )]
    NotInRoster(Vec<String>),
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Writes `report` in `layout` (see the module doc), with no roster
/// checks beyond [`write_with`]'s defaults (the tests' shorthand).
///
/// # Errors
/// As [`write_with`].
#[cfg(test)]
pub(crate) fn write_layout(
    report: &Report,
    layout: CsvLayout,
    roster: Option<&Roster>,
    assignment: &str,
    out: &mut dyn Write,
) -> Result<(), CsvError> {
    let options = CsvOptions {
        layout,
        roster,
        assignment,
        roster_strict: false,
        missing: MissingRow::Omit,
        column_id: None,
    };
    write_with(report, &options, out)
}

/// Writes `report` as `options` say (see the module doc); the rows are
/// made first, so a refused CSV writes nothing.
///
/// # Errors
/// [`CsvError`]: a refusal, naming what to fix, or a failed write.
pub(crate) fn write_with(
    report: &Report,
    options: &CsvOptions<'_>,
    out: &mut dyn Write,
) -> Result<(), CsvError> {
    let CsvOptions {
        layout, assignment, ..
    } = *options;
    let mut builder = ::csv::WriterBuilder::new();
    if layout == CsvLayout::Blackboard {
        builder.quote_style(::csv::QuoteStyle::Always);
    }
    let mut csv = builder.from_writer(&mut *out);
    let mut rows: Vec<Vec<String>> = Vec::new();
    let max_score = report
        .submissions
        .iter()
        .map(|s| s.max_score)
        .max()
        .unwrap_or(0);
    let assignment = safe(assignment);
    match layout {
        CsvLayout::Plain => {
            let columns = test_columns(report);
            rows.push(
                FIXED_COLUMNS
                    .iter()
                    .map(|c| c.to_string())
                    .chain(columns.iter().map(|c| safe(c)))
                    .collect(),
            );
            let ids = crate::report::ids::of_report(report);
            for sub in &report.submissions {
                let mut row = vec![
                    safe(&ids.shown(&sub.id)),
                    safe(sub.kind.as_deref().unwrap_or_default()),
                    status_name(sub.status).to_string(),
                    // Not graded: no number in the score cell.
                    sub.grade().map(|s| s.to_string()).unwrap_or_default(),
                    sub.max_score.to_string(),
                ];
                let points: HashMap<String, u32> =
                    sub.tests.iter().map(|t| (test_name(t), t.points)).collect();
                for column in &columns {
                    row.push(points.get(column).map(u32::to_string).unwrap_or_default());
                }
                rows.push(row);
            }
        }
        lms => {
            let students = lms_students(report, options)?;
            lms_rows(lms, &students, max_score, &assignment, options, &mut rows);
        }
    }
    for row in rows {
        csv.write_record(&row).map_err(into_io)?;
    }
    csv.flush()?;
    drop(csv);
    out.flush()?;
    Ok(())
}

/// One row of an LMS layout: a graded submission, or a roster student
/// without one.
struct LmsStudent<'a> {
    who: Student,
    graded: Option<&'a SubmissionReport>,
}

/// The students of an LMS layout, in order (the graded ones, then the
/// roster's students without a submission, by id), after the roster
/// checks of the module doc; what they find is said on stderr.
fn lms_students<'a>(
    report: &'a Report,
    options: &CsvOptions<'_>,
) -> Result<Vec<LmsStudent<'a>>, CsvError> {
    let shown = |id: &str| crate::visible::visible_line(id).into_owned();
    let mut students = Vec::new();
    let mut unknown = Vec::new();
    let not_graded: Vec<String> = report
        .submissions
        .iter()
        .filter(|s| !s.graded())
        .map(|s| shown(&s.id))
        .collect();
    if !not_graded.is_empty() {
        eprintln!(
            "warning: {} submission(s) are not graded (the grader failed on them) and have no row in the CSV, so an import keeps their grade as it is: {}; grade them again",
            not_graded.len(),
            not_graded.join(", ")
        );
    }
    for sub in report.submissions.iter().filter(|s| s.graded()) {
        match options.roster {
            Some(roster) => match roster.get(&sub.id) {
                Some(entry) => students.push(LmsStudent {
                    who: Student::of(&entry.lms_id, &entry.name, &entry.section),
                    graded: Some(sub),
                }),
                None => unknown.push(shown(&sub.id)),
            },
            None => students.push(LmsStudent {
                who: Student::of(&sub.id, "", ""),
                graded: Some(sub),
            }),
        }
    }
    if !unknown.is_empty() {
        if options.roster_strict {
            return Err(CsvError::NotInRoster(unknown));
        }
        eprintln!(
            "warning: {} submission(s) are not in the roster and have no row in the CSV (an LMS refuses an unknown student): {}",
            unknown.len(),
            unknown.join(", ")
        );
    }
    if let Some(roster) = options.roster {
        let graded: HashSet<&str> = report.submissions.iter().map(|s| s.id.as_str()).collect();
        let mut missing: Vec<&RosterEntry> = roster
            .entries
            .values()
            .filter(|e| !graded.contains(e.id.as_str()))
            .collect();
        missing.sort_by(|a, b| a.id.cmp(&b.id));
        if !missing.is_empty() {
            let ids: Vec<String> = missing.iter().map(|e| shown(&e.id)).collect();
            let what = match options.missing {
                MissingRow::Omit => {
                    "they have no row, so an import keeps the grade the LMS has (--roster-missing zero gives them 0)"
                }
                MissingRow::Zero => {
                    "their rows give 0 (--roster-missing zero), over any grade the LMS holds for them, one typed by hand too"
                }
            };
            crate::note!(
                "note: {} roster student(s) have no submission: {}; {what}",
                ids.len(),
                ids.join(", ")
            );
        }
        if options.missing == MissingRow::Zero {
            students.extend(missing.into_iter().map(|e| LmsStudent {
                who: Student::of(&e.lms_id, &e.name, &e.section),
                graded: None,
            }));
        }
    }
    let mut left_out = Vec::new();
    students.retain(
        |s| match identifier_problem(options.layout, &s.who.lms_id) {
            None => true,
            Some(why) => {
                left_out.push(format!("{} ({why})", shown(&s.who.lms_id)));
                false
            }
        },
    );
    if !left_out.is_empty() {
        eprintln!(
            "warning: {} identifier(s) have no row in the CSV, the rest is written; enter their grades by hand: {}",
            left_out.len(),
            left_out.join("; ")
        );
    }
    Ok(students)
}

/// Why the identifier `id` cannot be written exactly in `layout` (see the
/// module doc's table), or `None` when it is written as it is.
fn identifier_problem(layout: CsvLayout, id: &str) -> Option<&'static str> {
    if safe(id) == id {
        return None;
    }
    let inert = id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_.@-".contains(c));
    if id.starts_with(['-', '@']) && inert {
        return None;
    }
    Some(match layout {
        CsvLayout::Moodle if id.starts_with(['=', '+']) => {
            "never a Moodle username, which Moodle refuses to start with = or +; an ID number may, but a spreadsheet would run it as a formula and Moodle matches it only as it is"
        }
        _ => "a spreadsheet would run it as a formula, and the LMS matches it only as it is",
    })
}

/// The rows of the LMS layout `layout`, header first.
fn lms_rows(
    layout: CsvLayout,
    students: &[LmsStudent<'_>],
    max_score: u32,
    assignment: &str,
    options: &CsvOptions<'_>,
    rows: &mut Vec<Vec<String>>,
) {
    // Every row holds a number: a graded submission's score, or 0 for a
    // roster student without one (--roster-missing zero); the students
    // with no grade to give have no row.
    let score = |s: &LmsStudent<'_>| {
        s.graded
            .and_then(SubmissionReport::grade)
            .unwrap_or(0)
            .to_string()
    };
    match layout {
        CsvLayout::Plain => {}
        CsvLayout::Canvas => {
            rows.push(
                ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
                    .map(String::from)
                    .into_iter()
                    .chain([assignment.to_string()])
                    .collect(),
            );
            let mut possible = vec![safe("    Points Possible")];
            possible.extend(["", "", "", ""].map(String::from));
            possible.push(max_score.to_string());
            rows.push(possible);
            for s in students {
                rows.push(vec![
                    s.who.name.clone(),
                    String::new(),
                    s.who.lms_id.clone(),
                    String::new(),
                    s.who.section.clone(),
                    score(s),
                ]);
            }
        }
        CsvLayout::Moodle => {
            rows.push(vec![
                "Username".into(),
                "Full name".into(),
                assignment.to_string(),
                "Feedback".into(),
            ]);
            for s in students {
                rows.push(vec![
                    s.who.lms_id.clone(),
                    s.who.name.clone(),
                    score(s),
                    s.graded.map_or_else(|| NO_SUBMISSION.to_string(), feedback),
                ]);
            }
        }
        CsvLayout::Blackboard => {
            let column_id = options
                .column_id
                .map(|id| format!(" |{id}"))
                .unwrap_or_default();
            rows.push(vec![
                "Username".into(),
                "Last Name".into(),
                "First Name".into(),
                format!("{assignment} [Total Pts: {max_score} Score]{column_id}"),
            ]);
            for s in students {
                let (first, last) = first_and_last(&s.who.raw_name);
                rows.push(vec![
                    s.who.lms_id.clone(),
                    safe(last),
                    safe(first),
                    score(s),
                ]);
            }
        }
    }
}

/// A name's first and last names (see the module doc): `Last, First` at
/// its comma, `First Last` at its last space, one word a last name.
fn first_and_last(name: &str) -> (&str, &str) {
    let name = name.trim();
    if let Some((last, first)) = name.split_once(',') {
        return (first.trim(), last.trim());
    }
    match name.rsplit_once(' ') {
        Some((first, last)) => (first.trim(), last.trim()),
        None => ("", name),
    }
}

/// What a roster student's row says when they handed in nothing (Moodle's
/// Feedback column).
pub(crate) const NO_SUBMISSION: &str = "no submission";

/// A student as the LMS layouts show them: the identifier as it is
/// (checked, never rewritten), the other cells made safe.
struct Student {
    lms_id: String,
    name: String,
    raw_name: String,
    section: String,
}

impl Student {
    fn of(lms_id: &str, name: &str, section: &str) -> Student {
        Student {
            lms_id: lms_id.to_string(),
            name: safe(name),
            raw_name: name.to_string(),
            section: safe(section),
        }
    }
}

/// A one-line summary for Moodle's feedback column.
fn feedback(sub: &SubmissionReport) -> String {
    let line = match sub.status {
        crate::report::Status::Ok => {
            let failed = sub
                .tests
                .iter()
                .filter(|t| t.verdict != crate::verdict::Verdict::Pass)
                .count();
            format!(
                "{} of {} tests passed",
                sub.tests.len() - failed,
                sub.tests.len()
            )
        }
        status => format!(
            "{}: {}",
            status_name(status).replace('_', " "),
            crate::report::naming::headline(&sub.shown_message())
        ),
    };
    safe(&crate::visible::visible_line(&line))
}

/// `cell` made safe for a spreadsheet: one that starts with a character a
/// spreadsheet reads as a formula (`=`, `+`, `-`, `@`, tab, CR) gets a `'`
/// in front, which spreadsheets show as text and do not evaluate.
pub(crate) fn safe(cell: &str) -> String {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{cell}")
    } else {
        cell.to_string()
    }
}

/// Every test's column name, each once, in the order of first appearance.
fn test_columns(report: &Report) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut columns = Vec::new();
    for test in report.submissions.iter().flat_map(|s| &s.tests) {
        let name = test_name(test);
        if seen.insert(name.clone()) {
            columns.push(name);
        }
    }
    columns
}

fn into_io(err: ::csv::Error) -> io::Error {
    match err.into_kind() {
        ::csv::ErrorKind::Io(err) => err,
        other => io::Error::other(format!("{other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;
    use crate::report::fixture;
    use crate::verdict::{Function, Verdict};

    fn rows_of(report: &Report) -> (Vec<String>, Vec<Vec<String>>) {
        let mut out = Vec::new();
        write_layout(report, CsvLayout::Plain, None, DEFAULT_ASSIGNMENT, &mut out).unwrap();
        let mut reader = ::csv::Reader::from_reader(out.as_slice());
        let header = reader
            .headers()
            .unwrap()
            .iter()
            .map(str::to_string)
            .collect();
        let rows = reader
            .records()
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect();
        (header, rows)
    }

    #[test]
    fn one_row_per_student_with_points_per_test() {
        let (header, rows) = rows_of(&fixture::sample());
        assert_eq!(
            header,
            [
                "id",
                "kind",
                "status",
                "score",
                "max_score",
                "campus-4x4/legal",
                "campus-4x4/solve",
                "deep-9x9/solve"
            ]
        );
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0], ["alice", "c", "ok", "1", "7", "1", "0", "0"]);
        assert_eq!(
            rows[1],
            ["bob", "c", "build_error", "0", "7", "0", "0", "0"]
        );
    }

    #[test]
    fn the_score_is_the_sum_of_the_test_columns() {
        let (_, rows) = rows_of(&fixture::sample());
        for row in rows {
            let score: u32 = row[3].parse().unwrap();
            let sum: u32 = row[5..].iter().map(|c| c.parse::<u32>().unwrap()).sum();
            assert_eq!(score, sum, "{row:?}");
        }
    }

    #[test]
    fn a_missing_test_is_an_empty_cell_and_columns_stay_aligned() {
        let mut report = fixture::sample();
        // Bob lacks campus-4x4/solve; alice lacks a find_empty test bob has.
        let bob = &mut report.submissions[1];
        bob.tests.remove(1);
        let mut extra = bob.tests[0].clone();
        extra.function = Function::FindEmpty;
        extra.verdict = Verdict::Pass;
        extra.points = 1;
        bob.tests.push(extra);
        bob.kind = None;
        let (header, rows) = rows_of(&report);
        assert_eq!(header.len(), 9);
        assert_eq!(header[8], "campus-4x4/find_empty");
        assert_eq!(rows[0][8], "", "alice has no find_empty test");
        assert_eq!(rows[1][6], "", "bob has no campus-4x4/solve");
        assert_eq!(rows[1][8], "1");
        assert_eq!(rows[1][1], "", "an unrecognised kind is empty");
        assert!(rows.iter().all(|r| r.len() == header.len()));
    }

    #[test]
    fn ids_with_commas_and_quotes_survive() {
        let mut report = fixture::sample();
        report.submissions[0].id = "o'neil, \"al\"".into();
        let (_, rows) = rows_of(&report);
        assert_eq!(rows[0][0], "o'neil, \"al\"");
    }

    fn layout(report: &Report, layout: CsvLayout, roster: Option<&Roster>) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        write_layout(report, layout, roster, DEFAULT_ASSIGNMENT, &mut out).unwrap();
        let mut reader = ::csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(out.as_slice());
        reader
            .records()
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect()
    }

    fn roster() -> Roster {
        Roster::parse(
            "roster.csv",
            b"id,lms_id,name,section\nalice,a.smith,Alice Smith,L01\nbob,b.jones,=cmd|' /C calc'!A0 Jones,L02\n",
        )
        .unwrap()
    }

    #[test]
    fn formula_cells_are_neutralised() {
        for cell in ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert_eq!(safe(cell), format!("'{cell}"));
        }
        assert_eq!(safe("alice"), "alice");
        let mut report = fixture::sample();
        report.submissions[0].id = "=HYPERLINK(\"http://x\",\"click\")".into();
        let (_, rows) = rows_of(&report);
        assert_eq!(rows[0][0], "'=HYPERLINK(\"http://x\",\"click\")");
        // A name is made safe; the identifier beside it is kept as it is.
        let rows = layout(&fixture::sample(), CsvLayout::Moodle, Some(&roster()));
        assert_eq!(rows[2][..2], ["b.jones", "'=cmd|' /C calc'!A0 Jones"]);
    }

    #[test]
    fn identifiers_are_kept_exactly_and_an_odd_one_leaves_out_its_row_alone() {
        // Valid Moodle usernames that start with - or @ are written as the
        // LMS knows them, never escaped.
        let roster = Roster::parse("roster.csv", b"id,lms_id\nalice,-jdoe\nbob,@bob\n").unwrap();
        for lms in [CsvLayout::Canvas, CsvLayout::Moodle, CsvLayout::Blackboard] {
            let rows = layout(&fixture::sample(), lms, Some(&roster));
            let column = usize::from(lms == CsvLayout::Canvas) * 2;
            let start = 1 + usize::from(lms == CsvLayout::Canvas);
            let ids: Vec<&str> = rows[start..].iter().map(|r| r[column].as_str()).collect();
            assert_eq!(ids, ["-jdoe", "@bob"], "{lms:?}: {rows:?}");
        }
        // = and + (never a Moodle username), and a - id that could call a
        // function, leave out their own row; the file is still written.
        let mut report = fixture::sample();
        let mut carol = report.submissions[0].clone();
        carol.id = "carol".into();
        report.submissions.push(carol);
        let roster = Roster::parse(
            "roster.csv",
            b"id,lms_id\nalice,=eq01\nbob,-2+cmd|' /C calc'!A0\ncarol,-carol\n",
        )
        .unwrap();
        let rows = layout(&report, CsvLayout::Moodle, Some(&roster));
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[1][..3], ["-carol", "", "1"]);
        assert_eq!(
            identifier_problem(CsvLayout::Moodle, "=eq01"),
            Some(
                "never a Moodle username, which Moodle refuses to start with = or +; an ID number may, but a spreadsheet would run it as a formula and Moodle matches it only as it is"
            )
        );
        assert_eq!(identifier_problem(CsvLayout::Canvas, "alice"), None);
        assert!(identifier_problem(CsvLayout::Canvas, "@SUM(A1)").is_some());
        // Without a roster, the submission id is the identifier.
        let mut report = fixture::sample();
        report.submissions[0].id = "=1+1".into();
        let rows = layout(&report, CsvLayout::Moodle, None);
        assert_eq!(rows.len(), 2, "only bob: {rows:?}");
        // A spreadsheet (plain) keeps the guard on the id.
        let (_, rows) = rows_of(&report);
        assert_eq!(rows[0][0], "'=1+1");
    }

    #[test]
    fn roster_students_without_a_submission_are_left_out_unless_zero_is_asked() {
        let roster = Roster::parse(
            "roster.csv",
            b"id,lms_id,name\nalice,a.smith,Alice Smith\nzoe,z.z,Zoe Zed\nyan,y.y,Yan Yi\n",
        )
        .unwrap();
        // bob is not in the roster: no row; zoe and yan have no submission:
        // no row either (an import keeps their grades).
        let rows = layout(&fixture::sample(), CsvLayout::Moodle, Some(&roster));
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[1][..3], ["a.smith", "Alice Smith", "1"]);
        let mut options = CsvOptions {
            layout: CsvLayout::Moodle,
            roster: Some(&roster),
            assignment: "Lab",
            roster_strict: false,
            missing: MissingRow::Zero,
            column_id: None,
        };
        let mut out = Vec::new();
        write_with(&fixture::sample(), &options, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.ends_with("y.y,Yan Yi,0,no submission\nz.z,Zoe Zed,0,no submission\n"),
            "{text}"
        );
        options.roster_strict = true;
        let mut out = Vec::new();
        let err = write_with(&fixture::sample(), &options, &mut out).unwrap_err();
        assert!(
            matches!(&err, CsvError::NotInRoster(ids) if ids == &["bob"]),
            "{err}"
        );
        assert!(out.is_empty());
    }

    #[test]
    fn blackboard_splits_last_comma_first_and_first_last() {
        assert_eq!(first_and_last("Liddell, Alice"), ("Alice", "Liddell"));
        assert_eq!(first_and_last("Alice Liddell"), ("Alice", "Liddell"));
        assert_eq!(first_and_last("Mary Ann Evans"), ("Mary Ann", "Evans"));
        assert_eq!(first_and_last("Plato"), ("", "Plato"));
        let roster = Roster::parse(
            "roster.csv",
            b"id,lms_id,name\nalice,a1,\"Liddell, Alice\"\n",
        )
        .unwrap();
        let rows = layout(&fixture::sample(), CsvLayout::Blackboard, Some(&roster));
        assert_eq!(rows[1], ["a1", "Liddell", "Alice", "1"]);
    }

    #[test]
    fn blackboard_names_its_column_by_the_column_id() {
        let options = CsvOptions {
            layout: CsvLayout::Blackboard,
            roster: Some(&roster()),
            assignment: "Lab 3",
            roster_strict: false,
            missing: MissingRow::Omit,
            column_id: Some("12345"),
        };
        let mut out = Vec::new();
        write_with(&fixture::sample(), &options, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with(
                "\"Username\",\"Last Name\",\"First Name\",\"Lab 3 [Total Pts: 7 Score] |12345\"\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn canvas_has_its_identifier_columns_and_a_points_possible_row() {
        let rows = layout(&fixture::sample(), CsvLayout::Canvas, Some(&roster()));
        assert_eq!(
            rows[0],
            [
                "Student",
                "ID",
                "SIS User ID",
                "SIS Login ID",
                "Section",
                "Sudoku lab"
            ]
        );
        assert_eq!(rows[1][0].trim(), "Points Possible");
        assert_eq!(rows[1][5], "7");
        assert_eq!(rows[2], ["Alice Smith", "", "a.smith", "", "L01", "1"]);
        assert_eq!(rows.len(), 4);
    }

    #[test]
    fn moodle_and_blackboard_name_the_student_by_the_roster() {
        let rows = layout(&fixture::sample(), CsvLayout::Moodle, Some(&roster()));
        assert_eq!(rows[0], ["Username", "Full name", "Sudoku lab", "Feedback"]);
        assert_eq!(rows[1][..3], ["a.smith", "Alice Smith", "1"]);
        assert_eq!(rows[1][3], "1 of 3 tests passed");
        assert!(
            rows[2][3].starts_with("build error: bob.c:3:1: error"),
            "{:?}",
            rows[2]
        );
        let mut out = Vec::new();
        write_layout(
            &fixture::sample(),
            CsvLayout::Blackboard,
            Some(&roster()),
            "Lab 3",
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("\"Username\",\"Last Name\",\"First Name\",\"Lab 3 [Total Pts: 7 Score]\"\n\"a.smith\",\"Smith\",\"Alice\",\"1\"\n"),
            "{text}"
        );
    }

    #[test]
    fn without_a_roster_entry_the_submission_id_is_the_identifier() {
        let rows = layout(&fixture::sample(), CsvLayout::Moodle, None);
        assert_eq!(rows[1][..3], ["alice", "", "1"]);
    }

    #[test]
    fn roster_errors_name_the_file_and_line() {
        let err = Roster::parse("r.csv", b"id,name\nalice,A\n").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("r.csv:1: the header has no `lms_id` column"),
            "{err}"
        );
        let err = Roster::parse("r.csv", b"id,lms_id\nalice,a\nbob,b\nalice,c\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "r.csv:4: the id `alice` is already on line 2: give each submission id one row"
        );
        let err = Roster::parse("r.csv", b"id,lms_id\nalice,\n").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("r.csv:2: `id` and `lms_id` may not be empty"),
            "{err}"
        );
        let err = Roster::parse("r.csv", b"id,lms_id\nalice,a,extra\n").unwrap_err();
        assert!(err.to_string().starts_with("r.csv:2:"), "{err}");
        let ok = Roster::parse("r.csv", b"\xef\xbb\xbfid,lms_id\nalice,a\n").unwrap();
        assert_eq!(ok.get("alice").map(|e| e.lms_id.as_str()), Some("a"));
        let _ = Status::Ok;
    }
}
