//! The compiler's warnings about the student's own files, kept from a
//! build that succeeded (`grader check` compiles C with `-Wall`; rustc
//! warns by default): a warning such as rustc's "unused variable: `bc`"
//! can name a bug exactly (a box loop that starts at `br`).
//!
//! Only warnings with a place in one of the student's files are kept
//! (never the lab crate's, never the grader's paths), each with the lab
//! function it is in when the compiler or the source says so: gcc's own
//! "In function 'legal':" line, or for Rust the nearest `fn` line above
//! it in the student's file.

use std::path::Path;

use serde::Serialize;

use crate::verdict::Function;

/// The most warnings kept from one build.
const MAX_WARNINGS: usize = 20;

/// The longest warning text kept.
const MAX_TEXT: usize = 160;

/// One warning about the student's code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CompilerWarning {
    /// The file, as the student names it (`sudoku.c`, `src/lib.rs`).
    pub file: String,
    /// Its line and column.
    pub line: usize,
    /// Its column.
    pub column: usize,
    /// What the compiler said, on one line.
    pub message: String,
    /// The lab function the warning is in, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<Function>,
}

impl CompilerWarning {
    /// `src/lib.rs:10:13: unused variable: `bc``.
    pub fn text(&self) -> String {
        format!(
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

/// The warnings in `output` (a build's output, the build's folders
/// already removed from its paths) about files `own` accepts; `source`
/// reads one of those files (for the `fn` line above a Rust warning).
pub(super) fn student_warnings(
    output: &str,
    own: impl Fn(&str) -> bool,
    source: impl Fn(&str) -> Option<String>,
) -> Vec<CompilerWarning> {
    let mut found: Vec<CompilerWarning> = Vec::new();
    let mut in_function: Option<Function> = None;
    for line in output.lines() {
        // gcc: `sudoku.c: In function 'legal':`.
        if let Some((_, rest)) = line.split_once(": In function ") {
            let name = rest.trim_end_matches(':').trim_matches(['\'', '‘', '’']);
            in_function = Function::ALL.into_iter().find(|f| f.name() == name);
            continue;
        }
        let Some((place, message)) = line.split_once(": warning: ") else {
            continue;
        };
        let mut parts = place.rsplitn(3, ':');
        let (Some(column), Some(number), Some(file)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (Ok(column), Ok(number)) = (column.parse::<usize>(), number.parse::<usize>()) else {
            continue;
        };
        if !own(file) {
            continue;
        }
        let message: String = message.trim().chars().take(MAX_TEXT).collect();
        let function = match file.ends_with(".rs") {
            true => source(file).and_then(|text| rust_function_at(&text, number)),
            false => in_function,
        };
        let warning = CompilerWarning {
            file: file.to_string(),
            line: number,
            column,
            message,
            function,
        };
        if !found.contains(&warning) && found.len() < MAX_WARNINGS {
            found.push(warning);
        }
    }
    found
}

/// The lab function whose `fn` line is the nearest above line `number`
/// (from 1) of `text`, if that `fn` is one of the lab's.
fn rust_function_at(text: &str, number: usize) -> Option<Function> {
    let above = text.lines().take(number).collect::<Vec<_>>();
    let name = above.iter().rev().find_map(|line| {
        let (_, rest) = line.split_once("fn ")?;
        let before = &line[..line.len() - rest.len() - 3];
        let word_start = before.is_empty() || before.ends_with([' ', '\t']);
        word_start.then(|| {
            rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")
        })
    })?;
    Function::ALL.into_iter().find(|f| f.name() == name)
}

/// Whether `file` (a path from a Rust build's output, relative to the
/// crate) is the student's: relative, inside the crate, not the lab's.
pub(super) fn is_student_rust_file(file: &str, lab_folder: &str) -> bool {
    let path = Path::new(file);
    path.is_relative()
        && file.ends_with(".rs")
        && !path.starts_with(lab_folder)
        && path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcc_warnings_are_kept_with_their_function() {
        let output = "sudoku.c: In function 'legal':\nsudoku.c:12:16: warning: unused variable 'bc' [-Wunused-variable]\n   12 |     size_t br, bc;\n      |                ^~\nsudoku_lab.h:3:1: warning: something of the lab's\n";
        let found = student_warnings(output, |f| f == "sudoku.c", |_| None);
        assert_eq!(
            found,
            vec![CompilerWarning {
                file: "sudoku.c".to_string(),
                line: 12,
                column: 16,
                message: "unused variable 'bc' [-Wunused-variable]".to_string(),
                function: Some(Function::Legal),
            }]
        );
        assert_eq!(
            found[0].text(),
            "sudoku.c:12:16: unused variable 'bc' [-Wunused-variable]"
        );
    }

    #[test]
    fn rust_warnings_find_their_fn_in_the_source() {
        let source = "use x;\nimpl Sudoku for S {\n    fn legal(b: &Board) -> bool {\n        let bc = 1;\n    }\n    fn solve() {}\n}\nfn helper() {\n    let y = 2;\n}\n";
        let output = "src/lib.rs:4:13: warning: unused variable: `bc`: help: prefix it\n.grader-lab/src/lib.rs:1:1: warning: lab\nsrc/lib.rs:9:9: warning: unused variable: `y`\nwarning: `s` (lib) generated 2 warnings\n";
        let found = student_warnings(
            output,
            |f| is_student_rust_file(f, ".grader-lab"),
            |f| (f == "src/lib.rs").then(|| source.to_string()),
        );
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].function, Some(Function::Legal));
        assert_eq!(found[0].line, 4);
        assert_eq!(found[1].function, None);
        assert!(!is_student_rust_file("/abs/src/lib.rs", ".grader-lab"));
        assert!(!is_student_rust_file("../x.rs", ".grader-lab"));
    }
}
