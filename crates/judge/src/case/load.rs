//! Loading case files (SPEC 3): TOML parsed with serde, then checked, with
//! every error placed at a file line through toml's spans.

use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;
use sudoku_lab::Board;
use sudoku_reference::BoardRules;
use toml::Spanned;

use super::error::CaseError;
use super::model::{Case, Solutions};
use super::span::{line_col, toml_error};
use crate::board_text::{BoardTextError, parse_board};
use crate::verdict::Function;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    case: Vec<Spanned<RawCase>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    name: Spanned<String>,
    description: Option<String>,
    puzzle: Spanned<String>,
    points: Option<u32>,
    hidden: Option<bool>,
    tests: Option<Spanned<Vec<Function>>>,
    time_limit_ms: Option<Spanned<u64>>,
    solutions: Option<Spanned<i64>>,
    solution: Option<Spanned<String>>,
    listing_writes: Option<Spanned<u64>>,
    listing_undos: Option<Spanned<u64>>,
    listing_capped: Option<Spanned<bool>>,
    suggested_time_limit_ms: Option<Spanned<u64>>,
}

/// Whether the stored answers (`solutions`, `solution`) are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answers {
    /// Check them and put them in the [`Case`] (for grading).
    Check,
    /// Leave them out of the [`Case`] and hand them back raw, unchecked
    /// beyond their TOML type (for `grader reference`, which rewrites them).
    Raw,
}

/// The answers a case file holds, as written.
#[derive(Clone, Debug)]
pub struct StoredAnswers {
    /// `solutions`, if present.
    pub solutions: Option<i64>,
    /// `solution`, if present: the board, or why it is not one.
    pub solution: Option<Result<Board, BoardTextError>>,
    /// The listing keys, as present.
    pub listing: StoredListing,
}

/// The listing keys of a case as written (see [`super::listing`]); all
/// `None` when `grader reference` has not stored them yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoredListing {
    /// `listing_writes`.
    pub writes: Option<u64>,
    /// `listing_undos`.
    pub undos: Option<u64>,
    /// `listing_capped`.
    pub capped: Option<bool>,
    /// `suggested_time_limit_ms`.
    pub suggested_time_limit_ms: Option<u64>,
}

impl StoredListing {
    /// True iff no listing key is present.
    pub fn is_empty(&self) -> bool {
        *self == StoredListing::default()
    }
}

/// The cases of one file.
#[derive(Debug)]
pub struct FileCases {
    /// In file order.
    pub cases: Vec<Case>,
    /// One per case, in the same order.
    pub stored: Vec<StoredAnswers>,
}

/// Refuses a case name used twice, naming both places.
pub fn check_unique(cases: &[Case]) -> Result<(), CaseError> {
    let mut seen: HashMap<&str, &Case> = HashMap::new();
    for case in cases {
        if let Some(first) = seen.insert(&case.name, case) {
            return Err(CaseError::Invalid {
                file: case.file.clone(),
                line: case.line,
                column: 1,
                case: Some(case.name.clone()),
                message: format!(
                    "the name is already used at {}:{}: give each case a unique name",
                    first.file.display(),
                    first.line
                ),
            });
        }
    }
    Ok(())
}

/// Whether a string value reads line for line as written between its
/// quotes (no escapes, no line-ending backslash), so that a place in the
/// value is the same place in the file.
fn written_as_is(text: &str, span: &std::ops::Range<usize>, value: &str) -> bool {
    let raw = text.get(span.clone()).unwrap_or("");
    let quotes = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        3
    } else {
        1
    };
    let inner = raw
        .get(quotes..raw.len().saturating_sub(quotes))
        .unwrap_or("");
    let inner = inner
        .strip_prefix("\r\n")
        .or_else(|| inner.strip_prefix('\n'))
        .unwrap_or(inner);
    inner.lines().eq(value.lines())
}

/// Where a string value's content starts in the file: its 1-based line and
/// column, skipping the quotes and the newline TOML trims after `"""`.
fn content_start(text: &str, span: &std::ops::Range<usize>) -> (usize, usize) {
    let raw = text.get(span.clone()).unwrap_or("");
    let mut start = span.start;
    if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        start += 3;
        let rest = text.get(start..).unwrap_or("");
        if rest.starts_with("\r\n") {
            start += 2;
        } else if rest.starts_with('\n') {
            start += 1;
        }
    } else {
        start += 1;
    }
    line_col(text, start)
}

/// Parses the cases of one file's text; `file` names it in errors.
pub fn parse_file(file: &Path, text: &str, answers: Answers) -> Result<FileCases, CaseError> {
    let raw: RawFile = toml::from_str(text).map_err(|e| toml_error(file, text, &e, None))?;
    if raw.case.is_empty() {
        return Err(CaseError::Invalid {
            file: file.to_path_buf(),
            line: 1,
            column: 1,
            case: None,
            message:
                "no [[case]] table in this file: add one, or move the file out of the cases folder"
                    .to_string(),
        });
    }
    let mut out = FileCases {
        cases: Vec::new(),
        stored: Vec::new(),
    };
    for spanned in raw.case {
        let header = case_header(
            text,
            spanned.span().start,
            spanned.get_ref().name.span().start,
        );
        let raw = spanned.into_inner();
        let (case, stored) = build_case(file, text, header, raw, answers)?;
        out.cases.push(case);
        out.stored.push(stored);
    }
    Ok(out)
}

/// The 1-based line of a case's `[[case]]` header: the last `[[` before its
/// `name` (the table's own span may start at its first key).
fn case_header(text: &str, table_start: usize, name_start: usize) -> usize {
    let upto = text.get(..name_start.max(table_start)).unwrap_or(text);
    let at = upto.rfind("[[").unwrap_or(table_start);
    line_col(text, at).0
}

fn build_case(
    file: &Path,
    text: &str,
    line: usize,
    raw: RawCase,
    answers: Answers,
) -> Result<(Case, StoredAnswers), CaseError> {
    let reader = CaseReader {
        file,
        text,
        name: raw.name.get_ref().trim().to_string(),
    };
    if reader.name.is_empty() {
        return Err(reader.fail(
            raw.name.span().start,
            "the case has an empty name: give it a unique name".to_string(),
        ));
    }
    let puzzle = reader.board(&raw.puzzle, "puzzle")?;
    let stored = StoredAnswers {
        solutions: raw.solutions.as_ref().map(|s| *s.get_ref()),
        solution: raw.solution.as_ref().map(|sol| reader.board_text(sol)),
        listing: StoredListing {
            writes: raw.listing_writes.as_ref().map(|v| *v.get_ref()),
            undos: raw.listing_undos.as_ref().map(|v| *v.get_ref()),
            capped: raw.listing_capped.as_ref().map(|v| *v.get_ref()),
            suggested_time_limit_ms: raw.suggested_time_limit_ms.as_ref().map(|v| *v.get_ref()),
        },
    };
    let mut case = Case {
        name: reader.name.clone(),
        description: raw.description.as_ref().map(|d| d.trim().to_string()),
        puzzle,
        points: raw.points.unwrap_or(1),
        hidden: raw.hidden.unwrap_or(false),
        tests: reader.tests(&raw)?,
        time_limit_ms: reader.time_limit(&raw)?,
        solutions: None,
        solution: None,
        file: file.to_path_buf(),
        line,
    };
    if answers == Answers::Raw {
        return Ok((case, stored));
    }
    reader.answers(&raw, &mut case)?;
    reader.listing(&raw, &stored.listing)?;
    Ok((case, stored))
}

/// One case of a file being read: where its errors are placed (the file,
/// its text, the case's name), and one check per group of keys.
struct CaseReader<'a> {
    file: &'a Path,
    text: &'a str,
    name: String,
}

impl CaseReader<'_> {
    /// An error at byte `offset` of the file.
    fn fail(&self, offset: usize, message: String) -> CaseError {
        let (line, column) = line_col(self.text, offset);
        CaseError::Invalid {
            file: self.file.to_path_buf(),
            line,
            column,
            case: (!self.name.is_empty()).then(|| self.name.clone()),
            message,
        }
    }

    /// The advice every error about the stored answers ends with.
    fn rerun(&self) -> String {
        format!(
            "run `grader reference {}` to rewrite the answers",
            self.file.display()
        )
    }

    /// The board written in `value`, its errors placed in the file.
    fn board_text(&self, value: &Spanned<String>) -> Result<Board, BoardTextError> {
        let (first_line, first_column) = content_start(self.text, &value.span());
        parse_board(value.get_ref()).map_err(|e| {
            if written_as_is(self.text, &value.span(), value.get_ref()) {
                e.relocated(first_line, first_column)
            } else {
                // Escapes: the value's lines are not the file's, so name
                // where the string starts.
                BoardTextError {
                    line: first_line,
                    column: first_column,
                    ..e
                }
            }
        })
    }

    /// The board of the key `key`, or the case's error naming the key.
    fn board(&self, value: &Spanned<String>, key: &str) -> Result<Board, CaseError> {
        self.board_text(value).map_err(|e| CaseError::Invalid {
            file: self.file.to_path_buf(),
            line: e.line,
            column: e.column,
            case: Some(self.name.clone()),
            message: format!("bad `{key}`: {}", e.message),
        })
    }

    /// `tests`: each function once; every function when the key is absent.
    fn tests(&self, raw: &RawCase) -> Result<Vec<Function>, CaseError> {
        let Some(tests) = &raw.tests else {
            return Ok(Function::ALL.to_vec());
        };
        let list = tests.get_ref();
        if list.is_empty() {
            return Err(self.fail(
                tests.span().start,
                "`tests` is empty: list some of \"legal\", \"find_empty\", \"solve\", or remove the line to test all three".to_string(),
            ));
        }
        for (i, f) in list.iter().enumerate() {
            if list[..i].contains(f) {
                return Err(self.fail(
                    tests.span().start,
                    format!("`tests` names \"{f}\" twice: list each function once"),
                ));
            }
        }
        Ok(list.clone())
    }

    /// `time_limit_ms`, when given: at least 1.
    fn time_limit(&self, raw: &RawCase) -> Result<Option<u64>, CaseError> {
        match &raw.time_limit_ms {
            Some(t) if *t.get_ref() == 0 => Err(self.fail(
                t.span().start,
                "`time_limit_ms` must be at least 1: set a positive number or remove the line"
                    .to_string(),
            )),
            t => Ok(t.as_ref().map(|t| *t.get_ref())),
        }
    }

    /// `solutions` and `solution`, checked against each other and the
    /// puzzle, into `case`.
    fn answers(&self, raw: &RawCase, case: &mut Case) -> Result<(), CaseError> {
        let rerun = self.rerun();
        let solutions = match &raw.solutions {
            None => None,
            Some(s) => match *s.get_ref() {
                n @ 0..=2 => Some(Solutions::from_count(n as u32)),
                n => {
                    return Err(self.fail(
                        s.span().start,
                        format!("`solutions = {n}` is not 0, 1 or 2 (two or more): {rerun}"),
                    ));
                }
            },
        };
        match (&raw.solutions, &raw.solution, solutions) {
            (None, Some(sol), _) => {
                return Err(self.fail(
                    sol.span().start,
                    format!("`solution` is given without `solutions`: {rerun}"),
                ));
            }
            (Some(s), None, Some(Solutions::Unique | Solutions::Many)) => {
                return Err(self.fail(
                    s.span().start,
                    format!("`solutions = {}` needs a `solution`: {rerun}", s.get_ref()),
                ));
            }
            (Some(_), Some(sol), Some(Solutions::None)) => {
                return Err(self.fail(
                    sol.span().start,
                    format!("`solution` is given but `solutions = 0`: {rerun}"),
                ));
            }
            (_, Some(sol), _) => {
                let board = self.board(sol, "solution")?;
                if let Err(why) = completes(&case.puzzle, &board) {
                    return Err(self.fail(
                        sol.span().start,
                        format!("`solution` does not complete the puzzle: {why}; {rerun}"),
                    ));
                }
                case.solution = Some(board);
            }
            _ => {}
        }
        case.solutions = solutions;
        Ok(())
    }

    /// The listing keys come as a set, and undos never outnumber writes.
    fn listing(&self, raw: &RawCase, listing: &StoredListing) -> Result<(), CaseError> {
        let rerun = self.rerun();
        let listing_keys = [
            (
                "listing_writes",
                raw.listing_writes.as_ref().map(Spanned::span),
            ),
            (
                "listing_undos",
                raw.listing_undos.as_ref().map(Spanned::span),
            ),
            (
                "listing_capped",
                raw.listing_capped.as_ref().map(Spanned::span),
            ),
            (
                "suggested_time_limit_ms",
                raw.suggested_time_limit_ms.as_ref().map(Spanned::span),
            ),
        ];
        let needed = [
            listing.writes,
            listing.undos,
            listing.suggested_time_limit_ms,
        ];
        if let Some((key, span)) = listing_keys
            .iter()
            .find_map(|(key, span)| span.clone().map(|s| (key, s)))
            && needed.iter().any(Option::is_none)
        {
            return Err(self.fail(
                span.start,
                format!(
                    "`{key}` is given without all of `listing_writes`, `listing_undos` and `suggested_time_limit_ms`, which go together: {rerun}"
                ),
            ));
        }
        if let (Some(writes), Some(undos), Some(span)) = (
            listing.writes,
            listing.undos,
            raw.listing_undos.as_ref().map(Spanned::span),
        ) && undos > writes
        {
            return Err(self.fail(
                span.start,
                format!(
                    "`listing_undos = {undos}` is more than `listing_writes = {writes}`: {rerun}"
                ),
            ));
        }
        Ok(())
    }
}

/// `Ok` iff `solution` is a full, valid board that keeps every given of
/// `puzzle`; else what is wrong with it.
pub fn completes(puzzle: &Board, solution: &Board) -> Result<(), String> {
    if solution.n() != puzzle.n() {
        return Err(format!(
            "it is {s}x{s} but the puzzle is {p}x{p}",
            s = solution.side(),
            p = puzzle.side()
        ));
    }
    let side = puzzle.side();
    let cells = || (0..side).flat_map(move |r| (0..side).map(move |c| (r, c)));
    // Changed givens first: the plainest sign of a hand edit.
    for (r, c) in cells() {
        let (given, v) = (puzzle.get(r, c), solution.get(r, c));
        if given != 0 && given != v {
            return Err(format!(
                "r{}c{} holds {v} but the puzzle gives {given}",
                r + 1,
                c + 1
            ));
        }
    }
    if let Some((r, c)) = solution.empty_cells().next() {
        return Err(format!("r{}c{} is empty", r + 1, c + 1));
    }
    for (r, c) in cells() {
        let v = solution.get(r, c);
        if solution.conflicts(r, c, v) {
            return Err(format!(
                "r{}c{} holds {v}, which its row, column or box already has",
                r + 1,
                c + 1
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAMPUS: &str = r#"# The seed's board.
[[case]]
name = "campus-4x4"
description = "the seed's campus board"
puzzle = """
1 . | . 4
. 4 | 1 .
----+----
2 . | . 3
. 3 | 2 .
"""
points = 2
tests = ["solve", "legal"]
time_limit_ms = 500
solutions = 1
solution = """
1 2 | 3 4
3 4 | 1 2
----+----
2 1 | 4 3
4 3 | 2 1
"""

[[case]]
name = "clash"
hidden = true
puzzle = "11.............."
solutions = 0
"#;

    fn parse(text: &str) -> Result<Vec<Case>, String> {
        parse_file(Path::new("cases/x.toml"), text, Answers::Check)
            .map(|f| f.cases)
            .map_err(|e| e.to_string())
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err()
    }

    #[test]
    fn reads_a_full_case_and_a_conflicting_one() {
        let cases = parse(CAMPUS).unwrap();
        let c = &cases[0];
        assert_eq!(c.name, "campus-4x4");
        assert_eq!(c.description.as_deref(), Some("the seed's campus board"));
        assert_eq!(c.line, 2);
        assert_eq!(c.points, 2);
        assert!(!c.hidden);
        assert_eq!(c.tests, vec![Function::Solve, Function::Legal]);
        assert_eq!(c.time_limit_ms, Some(500));
        assert_eq!(c.solutions, Some(Solutions::Unique));
        assert_eq!(c.solution.as_ref().unwrap().cells()[..4], [1, 2, 3, 4]);
        let clash = &cases[1];
        assert_eq!((clash.line, clash.hidden, clash.points), (24, true, 1));
        assert_eq!(clash.tests, Function::ALL.to_vec());
        assert_eq!(clash.solutions, Some(Solutions::None));
        assert_eq!(clash.solution, None);
        assert_eq!(cases[0].time_limit_ms, Some(500));
        assert_eq!(cases[1].time_limit_ms, None);
    }

    #[test]
    fn a_bad_cell_is_reported_at_its_file_line() {
        let text = CAMPUS.replace(". 4 | 1 .\n----", ". 4 | 9 .\n----");
        assert_eq!(
            err(&text),
            "cases/x.toml:7:7: case \"campus-4x4\": bad `puzzle`: digit 9 is above 4, the largest digit of a 4x4 board"
        );
        // A one-line string: the column counts from the file's line start.
        let text = CAMPUS.replace("\"11..............\"", "\"11.......x......\"");
        assert_eq!(
            err(&text),
            "cases/x.toml:27:20: case \"clash\": bad `puzzle`: unexpected 'x': expected 1-4, '.' or '0' for empty"
        );
        let text = CAMPUS.replace("4 3 | 2 1\n", "4 3 | 2\n");
        assert_eq!(
            err(&text),
            "cases/x.toml:21:8: case \"campus-4x4\": bad `solution`: this row has 3 cells, a 4x4 board has 4 per row"
        );
    }

    #[test]
    fn unknown_keys_and_wrong_types_name_line_and_case() {
        let text = CAMPUS.replace("points = 2", "point = 2");
        let e = err(&text);
        assert!(
            e.starts_with(
                "cases/x.toml:12:1: case \"campus-4x4\": unknown field `point`, expected one of"
            ),
            "{e}"
        );
        let e = err("[[case]]\nname = \"a\"\npuzzle = \"1..4.41.2..3.32.\"\nhidden = \"yes\"\n");
        assert!(
            e.starts_with(
                "cases/x.toml:4:10: case \"a\": invalid type: string \"yes\", expected a boolean"
            ),
            "{e}"
        );
        let e = err(
            "[[case]]\nname = \"a\"\npuzzle = \"1..4.41.2..3.32.\"\ntests = [\"solve\", \"sovle\"]\n",
        );
        assert!(
            e.starts_with("cases/x.toml:4:19: case \"a\": unknown variant `sovle`"),
            "{e}"
        );
        let e = err("[[case]]\nname = \"a\"\n");
        assert!(e.contains("missing field `puzzle`"), "{e}");
        let e = err("title = \"x\"\n[[case]]\nname = \"a\"\npuzzle = \"1..4.41.2..3.32.\"\n");
        assert!(
            e.starts_with("cases/x.toml:1:1: unknown field `title`, expected `case`"),
            "{e}"
        );
        let e = err("[[case]\nname = 1\n");
        assert!(e.starts_with("cases/x.toml:1:"), "{e}");
        assert_eq!(
            err("# nothing\n"),
            "cases/x.toml:1:1: no [[case]] table in this file: add one, or move the file out of the cases folder"
        );
    }

    #[test]
    fn refuses_bad_answers() {
        let rerun = "run `grader reference cases/x.toml` to rewrite the answers";
        let text = CAMPUS.replace("solutions = 1", "solutions = 3");
        assert_eq!(
            err(&text),
            format!(
                "cases/x.toml:15:13: case \"campus-4x4\": `solutions = 3` is not 0, 1 or 2 (two or more): {rerun}"
            )
        );
        let text = CAMPUS.replace("solutions = 1", "solutions = -1");
        assert!(err(&text).contains("`solutions = -1` is not 0, 1 or 2"));
        let text = CAMPUS.replace("solutions = 1", "solutions = 0");
        assert_eq!(
            err(&text),
            format!(
                "cases/x.toml:16:12: case \"campus-4x4\": `solution` is given but `solutions = 0`: {rerun}"
            )
        );
        let text = CAMPUS.replace("solutions = 1\n", "");
        assert_eq!(
            err(&text),
            format!(
                "cases/x.toml:15:12: case \"campus-4x4\": `solution` is given without `solutions`: {rerun}"
            )
        );
        let text = CAMPUS.replace("solutions = 0", "solutions = 2");
        assert_eq!(
            err(&text),
            format!(
                "cases/x.toml:28:13: case \"clash\": `solutions = 2` needs a `solution`: {rerun}"
            )
        );
        // A hand-edited solution: two cells swapped.
        let text = CAMPUS.replace("1 2 | 3 4\n3 4", "2 1 | 3 4\n3 4");
        assert_eq!(
            err(&text),
            format!(
                "cases/x.toml:16:12: case \"campus-4x4\": `solution` does not complete the puzzle: r1c1 holds 2 but the puzzle gives 1; {rerun}"
            )
        );
        let text = CAMPUS.replace("4 3 | 2 1\n\"\"\"", "4 3 | 2 .\n\"\"\"");
        assert!(err(&text).contains("does not complete the puzzle: r4c4 is empty"));
        let text = CAMPUS.replace("1 2 | 3 4\n3 4", "1 3 | 2 4\n3 4");
        assert!(
            err(&text).contains("r1c2 holds 3, which its row, column or box already has"),
            "{}",
            err(&text)
        );
        // Raw mode leaves the answers to `grader reference`.
        let f = parse_file(
            Path::new("x.toml"),
            &CAMPUS.replace("solutions = 1", "solutions = 7"),
            Answers::Raw,
        )
        .unwrap();
        assert_eq!(f.stored[0].solutions, Some(7));
        assert_eq!(f.cases[0].solutions, None);
        assert!(matches!(f.stored[0].solution, Some(Ok(_))));
    }

    #[test]
    fn refuses_other_bad_values() {
        let base = "[[case]]\nname = \"a\"\npuzzle = \"1..4.41.2..3.32.\"\n";
        assert_eq!(
            err(&format!("{base}tests = []\n")),
            "cases/x.toml:4:9: case \"a\": `tests` is empty: list some of \"legal\", \"find_empty\", \"solve\", or remove the line to test all three"
        );
        assert!(
            err(&format!("{base}tests = [\"solve\", \"solve\"]\n"))
                .contains("names \"solve\" twice")
        );
        assert!(
            err(&format!("{base}time_limit_ms = 0\n"))
                .starts_with("cases/x.toml:4:17: case \"a\": `time_limit_ms` must be at least 1")
        );
        assert!(
            err("[[case]]\nname = \" \"\npuzzle = \"1..4.41.2..3.32.\"\n").contains("empty name")
        );
        // A 36x36 board (n = 6) is not a board.
        let big = vec![". ".repeat(36); 36].join("\n");
        let e = err(&format!(
            "[[case]]\nname = \"six\"\npuzzle = \"\"\"\n{big}\n\"\"\"\n"
        ));
        assert!(
            e.starts_with("cases/x.toml:4:1: case \"six\": bad `puzzle`: found 36 rows"),
            "{e}"
        );
    }

    #[test]
    fn line_col_counts_characters() {
        assert_eq!(line_col("ab\ncé d", 7), (2, 4));
        assert_eq!(line_col("", 5), (1, 1));
        // Found by the case_file fuzz target: in a CRLF file, an error at a
        // line end said a column past it (the `\r` counted).
        assert_eq!(line_col("[[case]]\r\nname = \"\r\n", 19), (2, 9));
        assert_eq!(line_col("ab\rc", 3), (1, 4));
        let e = parse("[[case]]\r\nname = \"\r\npuzzle = \"\"\r\n").unwrap_err();
        assert!(e.starts_with("cases/x.toml:2:9: "), "{e}");
    }

    #[test]
    fn invalid_toml_that_panics_toml_edit_is_an_error() {
        // Found by the case_file fuzz target: toml_edit 0.23 panicked
        // ("all items have spans") on this while looking for the case.
        let e = err("==\n.=");
        assert!(e.starts_with("cases/x.toml:1:2: "), "{e}");
    }

    #[test]
    fn a_bad_cell_in_an_escaped_string_names_the_string() {
        // Found by the case_file fuzz target: `\n` escapes make the value's
        // lines differ from the file's, and the error named line 7 of a
        // file of 3.
        let text = "[[case]]\nname = \"e\"\npuzzle = \"1 . . 4\\n. 4 1 .\\n2 . . 3\\n. 3 2 .\\n. . . .\\n\"\n";
        assert_eq!(
            err(text),
            "cases/x.toml:3:11: case \"e\": bad `puzzle`: one row too many: a 4x4 board has 4 rows (found 5)"
        );
        // Written as is, the place is exact (the fifth row, line 8).
        let text = "[[case]]\nname = \"e\"\npuzzle = \"\"\"\n1 . . 4\n. 4 1 .\n2 . . 3\n. 3 2 .\n. . . .\n\"\"\"\n";
        assert!(err(text).starts_with("cases/x.toml:8:1: "), "{}", err(text));
    }

    #[test]
    fn listing_keys_load_as_a_set() {
        let base = "[[case]]\nname = \"a\"\npuzzle = \"1..4.41.2..3.32.\"\n";
        let full = format!(
            "{base}listing_writes = 8\nlisting_undos = 0\nsuggested_time_limit_ms = 1000\n"
        );
        assert!(parse(&full).is_ok());
        let f = parse_file(Path::new("x.toml"), &full, Answers::Check).unwrap();
        assert_eq!(
            f.stored[0].listing,
            StoredListing {
                writes: Some(8),
                undos: Some(0),
                capped: None,
                suggested_time_limit_ms: Some(1000),
            }
        );
        assert!(parse(&format!("{full}listing_capped = true\n")).is_ok());
        assert_eq!(
            err(&format!("{base}listing_writes = 8\n")),
            "cases/x.toml:4:18: case \"a\": `listing_writes` is given without all of `listing_writes`, `listing_undos` and `suggested_time_limit_ms`, which go together: run `grader reference cases/x.toml` to rewrite the answers"
        );
        assert!(
            err(&format!("{base}listing_capped = true\n"))
                .contains("`listing_capped` is given without all of `listing_writes`")
        );
        assert!(
            err(&full.replace("listing_undos = 0", "listing_undos = 9"))
                .contains("`listing_undos = 9` is more than `listing_writes = 8`")
        );
        assert!(
            err(&full.replace("listing_writes = 8", "listing_writes = -8"))
                .contains("cases/x.toml:4:")
        );
    }
}
