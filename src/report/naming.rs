//! Names every report format shares: a test's name, a submission status's
//! name, the headline of a compiler's message. One place, so the JUnit,
//! CSV, HTML and terminal views call a thing the same.

use grader_judge::report::{Status, TestReport};

/// A test's name in the JUnit, CSV and HTML reports: `<case>/<function>`.
pub(crate) fn test_name(test: &TestReport) -> String {
    format!("{}/{}", test.case, test.function)
}

/// A submission's status as the JSON report writes it: `ok`,
/// `build_error`, `load_error` or `grader_error`.
pub(crate) fn status_name(status: Status) -> &'static str {
    match status {
        Status::Ok => "ok",
        Status::BuildError => "build_error",
        Status::LoadError => "load_error",
        Status::GraderError => "grader_error",
    }
}

/// The line of a compiler's or loader's message that says what went wrong:
/// the first that mentions an error, else the first that is not blank.
pub(crate) fn headline(text: &str) -> &str {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    text.lines()
        .map(str::trim)
        .find(|l| l.to_ascii_lowercase().contains("error"))
        .or_else(|| lines.next())
        .unwrap_or("")
}

/// The first line of `text` (all of it when it has no newline).
pub(crate) fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_headline_is_the_line_that_names_the_error() {
        assert_eq!(
            headline("cc failed:\nx.c: In function 'solve':\nx.c:5:1: error: expected ';'\n"),
            "x.c:5:1: error: expected ';'"
        );
        assert_eq!(
            headline("\n  missing symbol `legal`\n"),
            "missing symbol `legal`"
        );
        assert_eq!(headline(""), "");
    }
}
