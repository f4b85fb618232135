//! The student's view (`grader check`) on a terminal. What it says is the
//! judge's ([`crate::words::student`]: lines of styled spans and boards as
//! data, the same a browser page gets through WebAssembly); this module
//! gathers the check's data into a [`CheckView`], colours the spans,
//! draws the boards as labelled pictures with the marked cell in bold red,
//! and writes the JSON of `grader check --json`.
//!
//! Everything the student's code or compiler wrote goes through
//! [`visible_line`]: control characters are shown, never interpreted by
//! the terminal.

use colored::{ColoredString, Colorize};
use serde::Serialize;
use std::io::{self, Write};

use super::{Status, SubmissionReport};
use crate::exit;
use crate::finding::Lang;
use crate::submission::build::warnings::CompilerWarning;
use crate::visible::visible_line;
use crate::words::legal_swap::LegalSwapView;
use crate::words::student::{
    self as words, CheckView, Colour, Line, Span, Style, SwapNote, Warning,
};

pub(crate) use crate::words::student::{FirstStepView, Recorder, ShrunkView};

/// What `grader check` found, ready to show.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct CheckRun {
    /// The submission's report (the tests that ran, in the order they ran).
    pub submission: SubmissionReport,
    /// Shrunk boards for failing `solve` tests.
    pub shrunk: Vec<ShrunkView>,
    /// The first rule-breaking step of failing `solve` tests of libraries
    /// (Python's own messages already quote their steps).
    pub first_steps: Vec<FirstStepView>,
    /// What the first failing `solve` test's run with the grader's own
    /// `legal` showed, when it showed anything.
    pub legal_swap: Option<LegalSwapView>,
    /// Tests not run because of `--fail-fast`.
    pub not_run: usize,
    /// The source checked, as given.
    pub path: String,
    /// A board size the code was written for, when the tests prove it
    /// (see [`crate::words::across::fixed_board_size`]): shown before any
    /// failure.
    pub size_note: Option<String>,
    /// The compiler's warnings about the student's own files, shown
    /// beside the first failure of the function each is in.
    pub warnings: Vec<CompilerWarning>,
    /// `--watch`: the next run starts on a save, not on a command.
    #[serde(skip)]
    pub watching: bool,
}

impl CheckRun {
    /// The view of a session that ran no test of the plan (not built, not
    /// loaded): its report as the session made it, nothing shrunk.
    pub(crate) fn new(submission: SubmissionReport, path: String) -> CheckRun {
        CheckRun {
            submission,
            shrunk: Vec::new(),
            first_steps: Vec::new(),
            legal_swap: None,
            not_run: 0,
            path,
            size_note: None,
            warnings: Vec::new(),
            watching: false,
        }
    }

    /// The exit code (see [`crate::exit`]): a grader fault 2, code that did
    /// not build or load 3, a failing test 1, else 0.
    pub(crate) fn exit_code(&self) -> u8 {
        let sub = &self.submission;
        if sub.grader_fault() {
            exit::USAGE_OR_INPUT
        } else if sub.status != Status::Ok {
            exit::BUILD_OR_LOAD_ERROR
        } else if sub.all_passed() {
            exit::SUCCESS
        } else {
            exit::FAILURE
        }
    }

    /// The check's data as the judge's student view takes it.
    pub(crate) fn view(&self) -> CheckView {
        let sub = &self.submission;
        let message = match sub.status {
            Status::GraderError => sub.shown_message().into_owned(),
            _ => sub.message.clone(),
        };
        CheckView {
            path: self.path.clone(),
            lang: sub.kind.as_deref().and_then(Lang::of_kind),
            status: sub.status,
            grader_fault: sub.grader_fault(),
            message,
            hint: sub.hint.clone(),
            notes: sub.notes.clone(),
            tests: sub.tests.clone(),
            shrunk: self.shrunk.clone(),
            first_steps: self.first_steps.clone(),
            legal_swap: self.legal_swap.as_ref().map(|s| SwapNote {
                case: s.case.clone(),
                says: s.says.clone(),
                blames_legal: s.blames_legal(),
            }),
            not_run: self.not_run,
            size_note: self.size_note.clone(),
            warnings: self
                .warnings
                .iter()
                .map(|w| Warning {
                    function: w.function,
                    text: w.text(),
                })
                .collect(),
            watching: self.watching,
        }
    }
}

/// Writes `run` for a person; `verbose` shows every test in full.
pub(crate) fn write_check(run: &CheckRun, verbose: bool, out: &mut dyn Write) -> io::Result<()> {
    for line in words::view(&run.view(), verbose) {
        write_line(&line, out)?;
    }
    Ok(())
}

/// One line of the view, coloured, student text escaped.
fn write_line(line: &Line, out: &mut dyn Write) -> io::Result<()> {
    match line {
        Line::Text { spans } => {
            for span in spans {
                write!(out, "{}", styled(span))?;
            }
            writeln!(out)
        }
        Line::Board { indent, board } => {
            for picture in board.labelled() {
                let (before, mark, after) = picture.parts();
                writeln!(out, "{:indent$}{before}{}{after}", "", mark.red().bold())?;
            }
            Ok(())
        }
        Line::Boards { .. } => {
            for text in words::line_texts(line) {
                writeln!(out, "{text}")?;
            }
            Ok(())
        }
    }
}

/// A span as the terminal shows it.
fn styled(span: &Span) -> ColoredString {
    let text = if span.untrusted {
        visible_line(&span.text).into_owned()
    } else {
        span.text.clone()
    };
    let Style { colour, bold, dim } = span.style;
    let mut shown: ColoredString = text.as_str().into();
    shown = match colour {
        Some(Colour::Green) => shown.green(),
        Some(Colour::Red) => shown.red(),
        Some(Colour::Yellow) => shown.yellow(),
        None => shown,
    };
    if bold {
        shown = shown.bold();
    }
    if dim {
        shown = shown.dimmed();
    }
    shown
}

/// Writes `run` as one JSON document, for editors and scripts.
pub(crate) fn write_json(run: &CheckRun, out: &mut dyn Write) -> io::Result<()> {
    #[derive(Serialize)]
    struct Json<'a> {
        version: u32,
        path: &'a str,
        exit_code: u8,
        hidden_tests_also_count: bool,
        not_run: usize,
        submission: &'a SubmissionReport,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        warnings: &'a [CompilerWarning],
        shrunk: &'a [ShrunkView],
        first_steps: &'a [FirstStepView],
        legal_swap: Option<&'a LegalSwapView>,
        size_note: Option<&'a str>,
    }
    let doc = Json {
        version: 1,
        path: &run.path,
        exit_code: run.exit_code(),
        hidden_tests_also_count: true,
        not_run: run.not_run,
        submission: &run.submission,
        warnings: &run.warnings,
        shrunk: &run.shrunk,
        first_steps: &run.first_steps,
        legal_swap: run.legal_swap.as_ref(),
        size_note: run.size_note.as_deref(),
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_errors_exit_3_and_say_what_to_do() {
        colored::control::set_override(false);
        let mut r = CheckRun::new(
            SubmissionReport {
                id: "me".into(),
                kind: Some("c".into()),
                status: Status::BuildError,
                message: "sudoku.c:3: error: expected ';'\x1b[2J".into(),
                hint: None,
                score: 0,
                max_score: 0,
                notes: Vec::new(),
                fixed_size: None,
                fault: None,
                tests: Vec::new(),
            },
            "sudoku.c".into(),
        );
        let mut out = Vec::new();
        write_check(&r, false, &mut out).unwrap();
        let shown = String::from_utf8(out).unwrap();
        assert!(shown.contains("sudoku.c did not build"), "{shown}");
        assert!(shown.contains("expected ';'\\e[2J"), "{shown}");
        assert_eq!(r.exit_code(), exit::BUILD_OR_LOAD_ERROR);
        r.submission.fault = Some(crate::verdict::Fault::grader(
            crate::verdict::FaultKind::WorkerFailed,
        ));
        assert_eq!(r.exit_code(), exit::USAGE_OR_INPUT);
    }
}
