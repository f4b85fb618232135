//! The CSV gradebook (`--csv`): one row per student, for a spreadsheet or
//! an LMS grade import.
//!
//! Layout (RFC 4180, comma-separated, a header row, `\n` line ends):
//!
//! | column | holds |
//! |---|---|
//! | `id` | the student id (the submission's name) |
//! | `kind` | `rust`, `c`, `python` or `library`; empty when not recognised |
//! | `status` | `ok`, `build_error` or `load_error` |
//! | `score` | points earned |
//! | `max_score` | points possible |
//! | `<case>/<function>` ... | one column per test: the points earned on it |
//!
//! The test columns come in the order tests first appear in the report
//! (case order, then `legal`, `find_empty`, `solve`) and are the same for
//! every row. A test a student has no result for leaves its cell empty; a
//! build or load error gives 0 on every test, as it earns nothing.

use std::collections::HashSet;
use std::io::{self, Write};

use super::Report;
use super::junit::{status_name, test_name};

/// The fixed columns before the per-test ones.
pub const FIXED_COLUMNS: [&str; 5] = ["id", "kind", "status", "score", "max_score"];

/// Writes `report` as a CSV gradebook (layout in the module doc).
pub fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let columns = test_columns(report);
    let mut csv = ::csv::Writer::from_writer(&mut *out);
    let header = FIXED_COLUMNS
        .iter()
        .copied()
        .chain(columns.iter().map(String::as_str));
    csv.write_record(header).map_err(into_io)?;
    for sub in &report.submissions {
        let mut row = vec![
            sub.id.clone(),
            sub.kind.clone().unwrap_or_default(),
            status_name(sub.status).to_string(),
            sub.score.to_string(),
            sub.max_score.to_string(),
        ];
        for column in &columns {
            let cell = sub
                .tests
                .iter()
                .find(|t| test_name(t) == *column)
                .map(|t| t.points.to_string())
                .unwrap_or_default();
            row.push(cell);
        }
        csv.write_record(&row).map_err(into_io)?;
    }
    csv.flush()?;
    drop(csv);
    out.flush()
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
    use crate::report::fixture;
    use crate::verdict::{Function, Verdict};

    fn rows(report: &Report) -> (Vec<String>, Vec<Vec<String>>) {
        let mut out = Vec::new();
        write(report, &mut out).unwrap();
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
        let (header, rows) = rows(&fixture::sample());
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
        let (_, rows) = rows(&fixture::sample());
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
        let (header, rows) = rows(&report);
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
        let (_, rows) = rows(&report);
        assert_eq!(rows[0][0], "o'neil, \"al\"");
    }
}
