//! Where in a TOML text: the line and column of a byte offset, and a toml
//! error placed there with the `[[case]]` it falls in. Used by both readers
//! (case files and `grader.toml`), so neither imports the other.

use std::path::Path;

use super::error::CaseError;

/// The 1-based line and column (in characters) of byte `offset` in `text`.
/// The `\r` of a `\r\n` line end is not a column: an offset at its `\n`
/// is just past the line's last character.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let mut column = before[start..].chars().count() + 1;
    if before.ends_with('\r')
        && text
            .get(offset..)
            .is_some_and(|rest| rest.starts_with('\n'))
    {
        column -= 1;
    }
    (line, column)
}

/// A toml (syntax or schema) error, placed at its span and, when it falls
/// inside a `[[case]]` table, naming that case.
pub(crate) fn toml_error(
    file: &Path,
    text: &str,
    err: &toml::de::Error,
    case: Option<String>,
) -> CaseError {
    let offset = err.span().map_or(0, |s| s.start);
    let (line, column) = line_col(text, offset);
    let case = case.or_else(|| case_at(text, offset));
    CaseError::Invalid {
        file: file.to_path_buf(),
        line,
        column,
        case,
        message: err.message().trim().replace('\n', "; "),
    }
}

/// The name of the `[[case]]` whose table holds byte `offset`, if the file
/// parses as TOML at all.
fn case_at(text: &str, offset: usize) -> Option<String> {
    // toml_edit 0.23 panicked on some invalid TOML (e.g. "==\n.="; 0.25,
    // in use, does not), so it still only gets text that toml already read
    // as TOML: a guard against the next such bug.
    text.parse::<toml::Table>().ok()?;
    let doc = toml_edit::Document::parse(text).ok()?;
    let tables = doc.get("case")?.as_array_of_tables()?;
    let mut found = None;
    for table in tables.iter() {
        let start = table.span().map(|s| s.start)?;
        if start <= offset {
            found = table
                .get("name")
                .and_then(|n| n.as_str())
                .map(str::to_string);
        }
    }
    found
}
