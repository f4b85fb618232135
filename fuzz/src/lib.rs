//! The checks behind the grader's fuzz targets, one function per target.
//!
//! Each takes the raw fuzz input, feeds it to one of the grader's front
//! doors (the board text parser, the case-file loader, the worker protocol
//! decoder) and asserts what must hold for any input: no panic, errors that
//! point at a real place, and values that print and read back unchanged.
//! A failed assertion is a crash for libFuzzer.
//!
//! The same file is compiled into the grader's `tests/integration/fuzz_seeds.rs`
//! (through `#[path]`), which runs every seed under `fuzz/seeds/` through
//! these functions as a plain `cargo test`.

use std::path::Path;

use grader::board_text::{BoardTextError, format_grid, format_line, parse_board, parse_line};
use grader::case::{Case, CaseError, Solutions, parse_case_file};
use grader::protocol::{WorkerMessage, decode_messages};
use sudoku_lab::Board;
use sudoku_reference::BoardRules;

/// The name fuzzed case files are parsed under.
pub const CASE_FILE: &str = "fuzz.toml";

/// Fuzz target `board_text`: [`parse_board`] and [`parse_line`] on the input
/// (invalid UTF-8 replaced). A board read back from [`format_grid`] and
/// [`format_line`] must be the same board; an error must name a line and
/// column inside the text (or just past its end).
pub fn board_text(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match parse_board(&text) {
        Ok(board) => check_board(&board),
        Err(e) => check_text_error(&text, &e),
    }
    match parse_line(&text) {
        Ok(board) => {
            check_board(&board);
            assert_eq!(
                parse_board(&text).ok().as_ref(),
                Some(&board),
                "a one-line board parse_line reads must read the same through parse_board"
            );
        }
        Err(e) => {
            assert_eq!(e.line, 1, "parse_line errors say line 1: {e}");
            // parse_line reads the whole text as one line.
            let one_line = text.replace(['\n', '\r'], " ");
            check_text_error(&one_line, &e);
        }
    }
}

/// A parsed board is a real board, and both printed forms read back as it.
fn check_board(board: &Board) {
    let (n, side) = (board.n(), board.side());
    assert!((2..=5).contains(&n), "box size {n}");
    assert_eq!(side, n * n);
    assert_eq!(board.cells().len(), side * side);
    assert!(board.cells().iter().all(|&v| usize::from(v) <= side));
    let grid = format_grid(board);
    assert_eq!(
        parse_board(&grid).as_ref(),
        Ok(board),
        "format_grid output must read back:\n{grid}"
    );
    let line = format_line(board);
    assert_eq!(line.chars().count(), side * side);
    assert_eq!(parse_line(&line).as_ref(), Ok(board), "format_line: {line}");
    assert_eq!(
        parse_board(&line).as_ref(),
        Ok(board),
        "format_line: {line}"
    );
}

/// Asserts that a board text error names a line of `text` (or the one after
/// the last) and a column inside that line (or just past its end), with a
/// message.
pub fn check_text_error(text: &str, e: &BoardTextError) {
    let lines: Vec<&str> = text.lines().collect();
    assert!(e.line >= 1 && e.column >= 1, "{e:?}");
    assert!(!e.message.trim().is_empty(), "{e:?}");
    assert!(e.line <= lines.len() + 1, "{e:?} in {} lines", lines.len());
    let width = lines.get(e.line - 1).map_or(0, |l| l.chars().count());
    assert!(
        e.column <= width + 1,
        "{e:?}: column past the end of a line of {width} characters"
    );
    assert!(!e.to_string().is_empty());
}

/// Fuzz target `case_file`: [`parse_case_file`] on the input (invalid UTF-8
/// replaced). Cases read must obey SPEC 3 (names, tests, limits, answers
/// that complete the puzzle) and read back unchanged when written again;
/// an error must be an `Invalid` at a place in the file.
pub fn case_file(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match parse_case_file(Path::new(CASE_FILE), &text) {
        Ok(cases) => {
            assert!(!cases.is_empty(), "a file read without error has a case");
            let lines: Vec<&str> = text.lines().collect();
            for case in &cases {
                check_case(case, &lines);
            }
            let again = write_cases(&cases);
            let reread = match parse_case_file(Path::new(CASE_FILE), &again) {
                Ok(c) => c,
                Err(e) => panic!("the cases written again do not read: {e}\n{again}"),
            };
            assert_eq!(reread.len(), cases.len());
            for (a, b) in cases.iter().zip(&reread) {
                let strip = |c: &Case| Case {
                    line: 0,
                    ..c.clone()
                };
                assert_eq!(strip(a), strip(b), "written again as\n{again}");
            }
        }
        Err(CaseError::Invalid {
            file,
            line,
            column,
            message,
            ..
        }) => {
            assert_eq!(file, Path::new(CASE_FILE));
            assert!(line >= 1 && column >= 1);
            assert!(!message.trim().is_empty());
            let lines: Vec<&str> = text.lines().collect();
            let count = lines.len();
            assert!(line <= count + 1, "line {line} of {count}: {message}");
            let width = lines.get(line - 1).map_or(0, |l| l.chars().count());
            assert!(
                column <= width + 1,
                "line {line}, column {column} of a line of {width} characters: {message}"
            );
        }
        Err(other) => panic!("parsing text never reads the disk: {other}"),
    }
}

/// One case read without error obeys SPEC 3.
fn check_case(case: &Case, lines: &[&str]) {
    assert!(!case.name.is_empty() && case.name.trim() == case.name);
    if let Some(d) = &case.description {
        assert_eq!(d.trim(), d);
    }
    assert!(!case.tests.is_empty());
    for (i, f) in case.tests.iter().enumerate() {
        assert!(!case.tests[..i].contains(f), "{f} twice");
    }
    assert_ne!(case.time_limit_ms, Some(0));
    assert!(
        case.line >= 1 && case.line <= lines.len(),
        "line {}",
        case.line
    );
    check_board(&case.puzzle);
    match (case.solutions, &case.solution) {
        (Some(Solutions::Unique | Solutions::Many), Some(sol)) => {
            check_board(sol);
            assert_eq!(sol.n(), case.puzzle.n());
            assert!(sol.is_full());
            let side = sol.side();
            for r in 0..side {
                for c in 0..side {
                    let given = case.puzzle.get(r, c);
                    assert!(given == 0 || given == sol.get(r, c), "r{r}c{c} changed");
                    assert!(!sol.conflicts(r, c, sol.get(r, c)), "r{r}c{c} clashes");
                }
            }
        }
        (Some(Solutions::None) | None, None) => {}
        (solutions, solution) => {
            panic!("answers that cannot go together: {solutions:?} with {solution:?}")
        }
    }
}

/// The cases as a case file, every key written out.
fn write_cases(cases: &[Case]) -> String {
    let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
    let mut out = String::new();
    for case in cases {
        out.push_str("[[case]]\n");
        out.push_str(&format!("name = {}\n", quote(&case.name)));
        if let Some(d) = &case.description {
            out.push_str(&format!("description = {}\n", quote(d)));
        }
        out.push_str(&format!(
            "puzzle = \"\"\"\n{}\"\"\"\n",
            format_grid(&case.puzzle)
        ));
        out.push_str(&format!("points = {}\n", case.points));
        out.push_str(&format!("hidden = {}\n", case.hidden));
        let tests: Vec<String> = case.tests.iter().map(|f| quote(f.name())).collect();
        out.push_str(&format!("tests = [{}]\n", tests.join(", ")));
        if let Some(t) = case.time_limit_ms {
            out.push_str(&format!("time_limit_ms = {t}\n"));
        }
        if let Some(s) = case.solutions {
            out.push_str(&format!("solutions = {}\n", s.as_number()));
        }
        if let Some(sol) = &case.solution {
            out.push_str(&format!("solution = {}\n", quote(&format_line(sol))));
        }
        out.push('\n');
    }
    out
}

/// Fuzz target `protocol`: [`decode_messages`] on the raw bytes a worker
/// (or the student's code) could write to the protocol fd. The garbage line
/// it keeps is one line of at most 200 bytes; every message encodes and
/// decodes back to itself, alone and all together.
pub fn protocol(data: &[u8]) {
    let (messages, garbage) = decode_messages(data);
    let lines = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count();
    assert!(
        messages.len() <= lines,
        "{} messages from {lines} lines",
        messages.len()
    );
    if let Some(g) = &garbage {
        assert!(g.len() <= 200, "garbage of {} bytes", g.len());
        assert!(!g.contains('\n'));
    }
    if messages.len() < lines {
        assert!(garbage.is_some(), "a line that is no message is kept");
    }
    let mut all = Vec::new();
    for message in &messages {
        let json = serde_json::to_string(message).expect("a message encodes");
        assert!(!json.contains('\n'), "one message is one line: {json}");
        let (back, junk) = decode_messages(json.as_bytes());
        assert_eq!(junk, None, "{json}");
        assert_eq!(back.len(), 1, "{json}");
        assert_same(message, &back[0]);
        all.extend_from_slice(json.as_bytes());
        all.push(b'\n');
    }
    let (back, junk) = decode_messages(&all);
    assert_eq!(junk, None);
    assert_eq!(back.len(), messages.len());
    for (a, b) in messages.iter().zip(&back) {
        assert_same(a, b);
    }
}

/// Equal messages, but a `time_ms` may move by a few units in the last
/// place: serde_json parses floats fast, not always to the nearest double.
fn assert_same(a: &WorkerMessage, b: &WorkerMessage) {
    match (a, b) {
        (
            WorkerMessage::Done {
                response: ra,
                time_ms: ta,
            },
            WorkerMessage::Done {
                response: rb,
                time_ms: tb,
            },
        ) => {
            assert_eq!(ra, rb);
            let close = ta.is_sign_negative() == tb.is_sign_negative()
                && ta.to_bits().abs_diff(tb.to_bits()) <= 4;
            assert!(ta == tb || close, "time_ms {ta} came back as {tb}");
        }
        _ => assert_eq!(a, b),
    }
}
