//! Writing case files (SPEC 3), the one writer of the format: the answers
//! `grader reference` fills into existing `[[case]]` tables, the tables
//! `grader generate` appends, and the replacement of the file on disk.
//!
//! Edits go through `toml_edit`, so what an author wrote (comments, layout,
//! key order) stays byte for byte; boards are written as multi-line strings
//! in the grid form. A file is replaced atomically (a temporary file in the
//! same folder, then a rename), so an interrupted run leaves the old file or
//! the new one, never half of one.

use std::io::Write;
use std::path::Path;
use sudoku_lab::Board;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

use crate::board_text::format_grid;
use grader_judge::case::{CaseError, ListingCost, Solutions, StoredListing};

/// What the reference says about one case: the answers and the listing
/// keys a case file stores.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ReferenceAnswer {
    /// How many solutions (0, 1, or 2 for "two or more").
    pub solutions: Solutions,
    /// One solution, if there is any.
    pub solution: Option<Board>,
    /// The cost of the case for the seed's listing.
    pub listing: ListingCost,
}

/// How to fill in one existing `[[case]]` table.
pub(crate) struct Fill<'a> {
    /// The reference's answer for the case.
    pub answer: &'a ReferenceAnswer,
    /// Whether `solutions` / `solution` are rewritten (they differ from the
    /// answer); when not, they are left exactly as written.
    pub rewrite_answers: bool,
    /// The listing keys as the file stores them now: only those that
    /// differ from the answer's are touched.
    pub stored_listing: &'a StoredListing,
}

/// A case to append as a new `[[case]]` table.
pub(crate) struct NewCase<'a> {
    /// The comment line above the table (without `# `).
    pub comment: String,
    /// The case name.
    pub name: &'a str,
    /// The puzzle.
    pub puzzle: &'a Board,
    /// Whether the case is hidden (`hidden = true`).
    pub hidden: bool,
    /// The reference's answer.
    pub answer: &'a ReferenceAnswer,
}

/// The text of the case file `file` with each `[[case]]` table filled in
/// from `fills` (one per table, in order), comments and layout kept.
pub(crate) fn fill_answers(file: &Path, text: &str, fills: &[Fill]) -> Result<String, CaseError> {
    let mut doc: DocumentMut = text.parse().map_err(|e| CaseError::Edit {
        file: file.to_path_buf(),
        reason: format!("cannot parse for editing: {e}"),
    })?;
    let tables = doc
        .get_mut("case")
        .and_then(Item::as_array_of_tables_mut)
        .filter(|tables| tables.len() == fills.len())
        .ok_or_else(|| CaseError::Edit {
            file: file.to_path_buf(),
            reason:
                "write the cases as [[case]] tables so that `grader reference` can fill them in"
                    .to_string(),
        })?;
    for (table, fill) in tables.iter_mut().zip(fills) {
        if fill.rewrite_answers {
            set_answers(table, fill.answer);
        }
        set_listing(table, fill.stored_listing, &fill.answer.listing);
    }
    Ok(doc.to_string())
}

/// `text` with one `[[case]]` table per new case added at the end. The
/// existing text is kept byte for byte as the prefix (only a final newline
/// is added if it lacks one): the new tables are printed by `toml_edit` on
/// their own and appended, since a document edited in place may move a
/// trailing comment below the new tables. A blank line separates tables,
/// except before the first one of an empty file.
pub(crate) fn append_cases(text: &str, cases: &[NewCase]) -> String {
    let fresh = text.trim().is_empty();
    let mut tables = ArrayOfTables::new();
    for (i, case) in cases.iter().enumerate() {
        let mut table = Table::new();
        let blank = if i == 0 && fresh { "" } else { "\n" };
        table
            .decor_mut()
            .set_prefix(format!("{blank}# {}\n", case.comment));
        table.insert("name", Item::Value(Value::from(case.name)));
        table.insert("puzzle", Item::Value(board_value(case.puzzle)));
        if case.hidden {
            table.insert("hidden", Item::Value(Value::from(true)));
        }
        set_answers(&mut table, case.answer);
        set_listing(&mut table, &StoredListing::default(), &case.answer.listing);
        tables.push(table);
    }
    let mut doc = DocumentMut::new();
    doc.insert("case", Item::ArrayOfTables(tables));
    let mut out = if fresh {
        String::new()
    } else {
        text.to_string()
    };
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&doc.to_string());
    out
}

/// Replaces `path` with `text` through a temporary file beside it, so that
/// an interrupted run never leaves half a file. A replaced file keeps its
/// mode; a new one gets the usual 0644 rather than the temporary file's
/// 0600.
pub(crate) fn write_atomically(path: &Path, text: &str) -> Result<(), CaseError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let failed = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| CaseError::Write {
            action,
            path,
            source,
        }
    };
    let mut tmp =
        tempfile::NamedTempFile::new_in(dir).map_err(failed("create a temporary file in", dir))?;
    let permissions = match std::fs::metadata(path) {
        Ok(meta) => Some(meta.permissions()),
        Err(_) => new_file_permissions(),
    };
    if let Some(permissions) = permissions {
        std::fs::set_permissions(tmp.path(), permissions)
            .map_err(failed("set the mode of a temporary file in", dir))?;
    }
    tmp.write_all(text.as_bytes())
        .map_err(failed("write a temporary file in", dir))?;
    tmp.persist(path)
        .map_err(|e| failed("write", path)(e.error))?;
    Ok(())
}

/// The mode of a newly created case file.
fn new_file_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o644))
}

/// Stores `solutions`, and `solution` or its absence.
fn set_answers(table: &mut Table, answer: &ReferenceAnswer) {
    set(
        table,
        "solutions",
        Value::from(i64::from(answer.solutions.as_number())),
    );
    match &answer.solution {
        Some(board) => set(table, "solution", board_value(board)),
        None => {
            table.remove("solution");
        }
    }
}

/// Stores the listing keys of `cost`, touching only those that differ from
/// `stored`.
fn set_listing(table: &mut Table, stored: &StoredListing, cost: &ListingCost) {
    let count = |v: u64| Value::from(i64::try_from(v).unwrap_or(i64::MAX));
    if stored.writes != Some(cost.writes) {
        set(table, "listing_writes", count(cost.writes));
    }
    if stored.undos != Some(cost.undos) {
        set(table, "listing_undos", count(cost.undos));
    }
    match (cost.capped, stored.capped) {
        (true, Some(true)) | (false, None) => {}
        (true, _) => set(table, "listing_capped", Value::from(true)),
        (false, Some(_)) => {
            table.remove("listing_capped");
        }
    }
    if stored.suggested_time_limit_ms != Some(cost.suggested_time_limit_ms) {
        set(
            table,
            "suggested_time_limit_ms",
            count(cost.suggested_time_limit_ms),
        );
    }
}

/// Sets `key` to `value`, keeping the key's place and any comment beside
/// the old value.
fn set(table: &mut Table, key: &str, mut value: Value) {
    match table.get_mut(key) {
        Some(item) => {
            if let Some(old) = item.as_value() {
                *value.decor_mut() = old.decor().clone();
            }
            *item = Item::Value(value);
        }
        None => {
            table.insert(key, Item::Value(value));
        }
    }
}

/// A board as a TOML multi-line string in the grid form: `"""`, a newline,
/// the grid, `"""`.
fn board_value(board: &Board) -> Value {
    let grid = format_grid(board);
    // The grid is digits, letters, `.`, `|`, `-`, `+`, spaces and newlines,
    // which a basic multi-line string holds as they are. Should it ever not
    // parse, the same board as a one-line string with `\n` escapes.
    format!("\"\"\"\n{grid}\"\"\"")
        .parse::<Value>()
        .unwrap_or_else(|_| Value::from(grid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Answers, parse_file};

    fn answer(puzzle: &Board) -> ReferenceAnswer {
        let (count, solution) = sudoku_reference::count_and_solve(puzzle, 2);
        ReferenceAnswer {
            solutions: Solutions::from_count(count),
            solution,
            listing: ListingCost::measure(puzzle),
        }
    }

    fn board(text: &str) -> Board {
        crate::board_text::parse_board(text).unwrap()
    }

    #[test]
    fn appended_cases_to_an_empty_file_read_back() {
        let campus = board("1..4.41.2..3.32.");
        let clash = board("11..............");
        let (a, b) = (answer(&campus), answer(&clash));
        let cases = [
            NewCase {
                comment: "made by hand".to_string(),
                name: "campus",
                puzzle: &campus,
                hidden: false,
                answer: &a,
            },
            NewCase {
                comment: "a clash".to_string(),
                name: "clash",
                puzzle: &clash,
                hidden: true,
                answer: &b,
            },
        ];
        let text = append_cases("", &cases);
        assert_eq!(
            text,
            "# made by hand\n[[case]]\nname = \"campus\"\npuzzle = \"\"\"\n1 . | . 4\n. 4 | 1 .\n----+----\n2 . | . 3\n. 3 | 2 .\n\"\"\"\nsolutions = 1\nsolution = \"\"\"\n1 2 | 3 4\n3 4 | 1 2\n----+----\n2 1 | 4 3\n4 3 | 2 1\n\"\"\"\nlisting_writes = 8\nlisting_undos = 0\nsuggested_time_limit_ms = 1000\n\n# a clash\n[[case]]\nname = \"clash\"\npuzzle = \"\"\"\n1 1 | . .\n. . | . .\n----+----\n. . | . .\n. . | . .\n\"\"\"\nhidden = true\nsolutions = 0\nlisting_writes = 411\nlisting_undos = 411\nsuggested_time_limit_ms = 1000\n"
        );
        let read = parse_file(Path::new("x.toml"), &text, Answers::Check).unwrap();
        assert_eq!(read.cases[0].solution, a.solution);
        assert!(read.cases[1].hidden);
    }

    #[test]
    fn appending_keeps_the_text_before_byte_for_byte() {
        let campus = board("1..4.41.2..3.32.");
        let a = answer(&campus);
        let new = [NewCase {
            comment: "again".to_string(),
            name: "two",
            puzzle: &campus,
            hidden: false,
            answer: &a,
        }];
        let before =
            "# mine\n[[case]]\nname = \"one\" # kept\npuzzle = \"1..4.41.2..3.32.\"\n# trailing";
        let text = append_cases(before, &new);
        assert!(
            text.starts_with(&format!("{before}\n\n# again\n[[case]]\n")),
            "{text}"
        );
    }

    #[test]
    fn fill_refuses_a_file_without_case_tables() {
        let campus = board("1..4.41.2..3.32.");
        let a = answer(&campus);
        let stored = StoredListing::default();
        let fill = Fill {
            answer: &a,
            rewrite_answers: true,
            stored_listing: &stored,
        };
        let text = "case = [{ name = \"x\", puzzle = \"1..4.41.2..3.32.\" }]\n";
        let e = fill_answers(Path::new("x.toml"), text, &[fill]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.toml: write the cases as [[case]] tables so that `grader reference` can fill them in"
        );
    }

    #[test]
    fn writing_replaces_the_file_and_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.toml");
        write_atomically(&path, "one\n").unwrap();
        write_atomically(&path, "two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two\n");
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o644);
        }
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left behind");
        let e = write_atomically(&dir.path().join("no/such/dir/x.toml"), "x").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot create a temporary file in "),
            "{e}"
        );
    }
}
