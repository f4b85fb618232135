//! The student's view of a check (`grader check`, and a browser page
//! through WebAssembly): reads like a lab partner. [`view`] takes the
//! check's data ([`CheckView`], serde-serialisable) and returns lines of
//! plain text in styled spans, and boards as data ([`Line`]); the terminal
//! colours the spans and draws the boards as labelled pictures, a page
//! draws them its own way. Nothing here reads a message: what decides a
//! line is the tests' verdicts, checks and findings.
//!
//! By default one compact block per failing function, in the lab's order
//! (`legal`, `find_empty`, `solve`): the first failing case in full (what
//! went wrong, the board, the smallest board that still fails, what the
//! code printed), the other failing cases one line each. Each function's
//! failure stands alone: a later function's failure is never blamed on an
//! earlier one's, but for what a run proved (a `solve` that passed with the
//! grader's own `legal`, told so by the grader). `-v` shows every test and
//! every failure in full. The closing line says how many public tests
//! passed and that hidden tests also count.
//!
//! Student text (the code's output, a compiler's message) is returned as
//! it came: the edge that prints it escapes control characters.

use serde::{Deserialize, Serialize};

use crate::board_view::BoardView;
use crate::check::catalog::Check;
use crate::finding::{Finding, Lang};
use crate::report::{Status, TestReport};
use crate::verdict::{Function, Verdict};

/// How much of a failing test's output is shown.
const OUTPUT_LINES_SHOWN: usize = 10;

/// Lines the grader's own runtime prints when the student's code overflows
/// its stack: never shown as if the student's code had printed them.
const RUNTIME_NOISE: [&str; 3] = [
    "has overflowed its stack",
    "fatal runtime error: stack overflow",
    "fatal runtime error: stack overflow, aborting",
];

/// Lines the Rust runtime prints around a panic, never the student's.
const RUST_PANIC_NOISE: [&str; 3] = [
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
    "thread caused non-unwinding panic. aborting.",
    // The unwind's search ended at the grader's call of the student's
    // function (`grader_watch::foreign`): the runtime then aborts.
    "fatal runtime error: failed to initiate panic",
];

/// The smallest board on which a failing `solve` still fails.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShrunkView {
    /// The case it was shrunk from.
    pub case: String,
    /// The case's puzzle.
    pub full_board: BoardView,
    /// The small puzzle.
    pub small_board: BoardView,
    /// The small puzzle as one line of text (SPEC 1), to paste into a test.
    pub small_puzzle: String,
    /// Empty cells of the small puzzle.
    pub empty: usize,
    /// Empty cells of the case's puzzle.
    pub original_empty: usize,
    /// Test runs the shrinking took.
    pub runs: usize,
    /// Milliseconds the shrinking took.
    pub ms: f64,
    /// True if the budget ran out before the board was known to be minimal.
    pub stopped_early: bool,
    /// The check the small board failed, when its verdict is `wrong`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
    /// What the small board proves, worded, when its shape leaves few
    /// causes and the rest of the check lets it stand (made by
    /// [`super::extra_runs::settle`]).
    pub diagnosis: Option<String>,
    /// The verdict on the small board (the same as on the case).
    pub verdict: Verdict,
    /// What went wrong on the small board, worded.
    pub message: String,
    /// What the small board's check observed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<Finding>,
    /// The board the small run left, with the cell in question marked.
    pub small_after: Option<BoardView>,
    /// True when `small_after` is the board at the step the small run's
    /// trace quotes, not the board its `solve` left.
    pub after_is_step: bool,
}

/// Who recorded a write trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recorder {
    /// The Python harness: every `board[r][c] = v`.
    Python,
    /// The Rust lab crate's `Board::set`.
    RustBoard,
    /// The write watch on a C library's board memory.
    WriteWatch,
}

/// The first write of a failing `solve` that breaks a rule the lab
/// teaches, found by replaying its write trace (or, for a hint, what the
/// search did).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstStepView {
    /// The case whose `solve` failed.
    pub case: String,
    /// True when the trace was taken on the shrunk board.
    pub on_small_board: bool,
    /// Who recorded the writes.
    pub source: Recorder,
    /// The trace's check that found it (`solve.trace.leftover`, ...).
    pub check: Check,
    /// What it observed, as data, when a later stage words it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<Finding>,
    /// The step and the rule, worded.
    pub message: String,
    /// The board at that step, the cell in question marked.
    pub board: Option<BoardView>,
}

/// What the run with the grader's own `legal` showed of one failing
/// `solve` test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapNote {
    /// The case whose `solve` test failed.
    pub case: String,
    /// The line shown.
    pub says: String,
    /// Whether it names `legal` as the cause (it passed with the grader's
    /// `legal`, and the test's own trace does not contradict it).
    pub blames_legal: bool,
}

/// Everything `grader check` found, ready to show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckView {
    /// The source checked, as given.
    pub path: String,
    /// The submission's language.
    pub lang: Option<Lang>,
    /// How far the check got.
    pub status: Status,
    /// The grader failed on it (on the submission or in a test).
    pub grader_fault: bool,
    /// Why it did not get further (the compiler's or loader's message, or
    /// the grader's fault), as shown.
    pub message: String,
    /// What to do about a build or load error.
    pub hint: Option<String>,
    /// What the student should know about how the upload was read.
    pub notes: Vec<String>,
    /// The tests that ran, in the order they ran, their messages worded.
    pub tests: Vec<TestReport>,
    /// Shrunk boards for failing `solve` tests.
    pub shrunk: Vec<ShrunkView>,
    /// The first rule-breaking steps of failing `solve` tests.
    pub first_steps: Vec<FirstStepView>,
    /// What the run with the grader's own `legal` showed.
    pub legal_swap: Option<SwapNote>,
    /// Tests not run because of `--fail-fast`.
    pub not_run: usize,
    /// A board size the code was written for, when the tests prove it.
    pub size_note: Option<String>,
    /// The compiler's warnings about the student's own files.
    #[serde(default)]
    pub warnings: Vec<Warning>,
    /// `--watch`: the next run starts on a save, not on a command.
    pub watching: bool,
}

/// A compiler's warning about the student's own files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// The lab function it is in, when known.
    pub function: Option<Function>,
    /// `src/lib.rs:10:13: unused variable: `bc``.
    pub text: String,
}

/// The most compiler warnings shown beside one failure.
const WARNINGS_SHOWN: usize = 3;

/// A colour of the lab's three.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    /// Passing.
    Green,
    /// Failing.
    Red,
    /// A diagnosis, a note, a timeout.
    Yellow,
}

/// How a span is shown: a colour, bold, dimmed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Style {
    /// Its colour, if any.
    pub colour: Option<Colour>,
    /// Bold.
    pub bold: bool,
    /// Dimmed (a secondary line).
    pub dim: bool,
}

impl Style {
    const PLAIN: Style = Style {
        colour: None,
        bold: false,
        dim: false,
    };
    const BOLD: Style = Style {
        bold: true,
        ..Style::PLAIN
    };
    const DIM: Style = Style {
        dim: true,
        ..Style::PLAIN
    };
    const fn colour(colour: Colour, bold: bool) -> Style {
        Style {
            colour: Some(colour),
            bold,
            dim: false,
        }
    }
}

/// A piece of a line, in one style.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// Its text (student text as it came: escape it where it is shown).
    pub text: String,
    /// How it is shown.
    pub style: Style,
    /// Whether the text is the student's or a tool's (output, compiler
    /// messages, names), which a terminal must escape.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub untrusted: bool,
}

/// One line of the view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "line", rename_all = "snake_case")]
pub enum Line {
    /// Text in spans (an empty list is a blank line).
    Text {
        /// The spans, in order.
        spans: Vec<Span>,
    },
    /// A board, drawn with row and column numbers, `indent` spaces in.
    Board {
        /// Spaces before each line.
        indent: usize,
        /// The board.
        board: BoardView,
    },
    /// Two boards side by side, each under its title.
    Boards {
        /// Spaces before each line.
        indent: usize,
        /// The left board and its title.
        left: (String, BoardView),
        /// The right board and its title.
        right: (String, BoardView),
    },
}

/// Builds lines.
struct Out(Vec<Line>);

impl Out {
    fn line(&mut self, spans: Vec<Span>) {
        self.0.push(Line::Text { spans });
    }
    fn blank(&mut self) {
        self.line(Vec::new());
    }
    fn board(&mut self, indent: usize, board: &BoardView) {
        self.0.push(Line::Board {
            indent,
            board: board.clone(),
        });
    }
}

fn span(text: impl Into<String>, style: Style) -> Span {
    Span {
        text: text.into(),
        style,
        untrusted: false,
    }
}

/// Text that came from the student's code or a tool.
fn theirs(text: impl Into<String>, style: Style) -> Span {
    Span {
        untrusted: true,
        ..span(text, style)
    }
}

fn plain(text: impl Into<String>) -> Span {
    span(text, Style::PLAIN)
}

/// The view of `run`; `verbose` shows every test in full.
pub fn view(run: &CheckView, verbose: bool) -> Vec<Line> {
    let mut out = Out(Vec::new());
    for note in &run.notes {
        out.line(vec![
            span("note:", Style::BOLD),
            plain(" "),
            theirs(note.clone(), Style::PLAIN),
        ]);
    }
    if run.status != Status::Ok {
        not_run(run, &mut out);
        return out.0;
    }
    if let Some(note) = &run.size_note {
        out.line(vec![
            span("!", Style::colour(Colour::Yellow, true)),
            plain(" "),
            span(note.clone(), Style::colour(Colour::Yellow, true)),
        ]);
    }
    // A failing solve goes under the first helper that fails its own
    // tests (legal, else find_empty).
    let fails = |function: Function| {
        run.tests
            .iter()
            .any(|t| t.function == function && t.verdict != Verdict::Pass)
    };
    let helper = [Function::Legal, Function::FindEmpty]
        .into_iter()
        .find(|&f| fails(f))
        .filter(|_| fails(Function::Solve));
    for function in Function::ALL {
        if function == Function::Solve && helper.is_some() {
            continue;
        }
        function_block(run, function, verbose, &mut out);
        if Some(function) == helper {
            solve_under(run, function, verbose, &mut out);
        }
    }
    closing(run, &mut out);
    out.0
}

/// A submission that did not build or load, or that the grader failed on.
fn not_run(run: &CheckView, out: &mut Out) {
    let what = match run.status {
        Status::BuildError => "did not build",
        Status::GraderError => "could not be checked: the grader failed, not your code",
        _ => "could not be loaded",
    };
    let red = Style::colour(Colour::Red, true);
    out.line(vec![
        span("✗", red),
        plain(" "),
        theirs(run.path.clone(), red),
        span(format!(" {what}"), red),
    ]);
    for line in run.message.lines() {
        out.line(vec![plain("  "), theirs(line, Style::PLAIN)]);
    }
    if let Some(hint) = &run.hint {
        out.line(vec![
            plain("  "),
            span("hint:", Style::colour(Colour::Yellow, true)),
            plain(" "),
            theirs(hint.clone(), Style::colour(Colour::Yellow, false)),
        ]);
    }
    out.blank();
    let again = if run.watching {
        "save a source and the check runs again"
    } else {
        "then run `grader check` again"
    };
    out.line(vec![plain(if run.status == Status::GraderError {
        format!(
            "No test ran, through no fault of your code's: {again}, and report it if it persists."
        )
    } else {
        format!("No test ran: fix the message above, {again}.")
    })]);
}

/// One function's block: a tick, or the first failure in full and the
/// others one line each.
fn function_block(run: &CheckView, function: Function, verbose: bool, out: &mut Out) {
    let tests: Vec<&TestReport> = run
        .tests
        .iter()
        .filter(|t| t.function == function)
        .collect();
    if tests.is_empty() {
        return;
    }
    let failing: Vec<&TestReport> = tests
        .iter()
        .copied()
        .filter(|t| t.verdict != Verdict::Pass)
        .collect();
    let name = format!("{:<10}", function.name());
    if failing.is_empty() {
        let green = Style::colour(Colour::Green, false);
        out.line(vec![
            span("✓", Style::colour(Colour::Green, true)),
            plain(format!(" {name} ")),
            span(
                format!("{} of {} cases pass", tests.len(), tests.len()),
                green,
            ),
        ]);
        if verbose {
            for test in &tests {
                passed_line(test, out);
            }
        }
        return;
    }
    let red = Style::colour(Colour::Red, true);
    out.line(vec![
        span("✗", red),
        plain(format!(" {name} ")),
        span(
            format!("{} of {} cases fail", failing.len(), tests.len()),
            red,
        ),
    ]);
    if verbose {
        for test in &tests {
            if test.verdict == Verdict::Pass {
                passed_line(test, out);
            } else {
                failure(run, test, out);
            }
        }
        return;
    }
    // Grouped by finding: the failures of one verdict and one check are
    // one diagnosis, told once with the cases it covers.
    let mut groups: Vec<Vec<&TestReport>> = Vec::new();
    for &test in &failing {
        match groups
            .iter_mut()
            .find(|g| g[0].verdict == test.verdict && g[0].check == test.check)
        {
            Some(group) => group.push(test),
            None => groups.push(vec![test]),
        }
    }
    for (i, group) in groups.iter().enumerate() {
        let first = group[0];
        let others: Vec<&str> = group[1..].iter().map(|t| t.case.as_str()).collect();
        if i == 0 {
            failure(run, first, out);
            warnings(run, function, out);
            if !others.is_empty() {
                out.line(vec![
                    plain("    the same on: "),
                    theirs(others.join(", "), Style::PLAIN),
                ]);
            }
        } else {
            let cases: Vec<&str> = group.iter().map(|t| t.case.as_str()).collect();
            out.line(vec![
                plain("    also fails: "),
                theirs(cases.join(", "), Style::PLAIN),
                plain(" ("),
                verdict_span(first.verdict),
                plain("): "),
                theirs(fact(&first.shown_message()), Style::PLAIN),
            ]);
        }
    }
}

/// `solve`'s block under the block of `helper` (`legal` or `find_empty`),
/// which failed its own tests: `solve` asks it, so its failures may
/// follow from the helper's (advice, not a cause: only a run with the
/// grader's own `legal` proves one, and says so).
fn solve_under(run: &CheckView, helper: Function, verbose: bool, out: &mut Out) {
    let mut block = Out(Vec::new());
    function_block(run, Function::Solve, verbose, &mut block);
    if block.0.is_empty() {
        return;
    }
    out.line(vec![
        plain("    "),
        span(
            format!(
                "solve asks {helper}, so these failures of solve may follow from {helper}'s: \
                 fix {helper} first"
            ),
            Style::DIM,
        ),
    ]);
    for line in block.0 {
        out.0.push(match line {
            Line::Text { mut spans } => {
                if !spans.is_empty() {
                    spans.insert(0, plain("  "));
                }
                Line::Text { spans }
            }
            Line::Board { indent, board } => Line::Board {
                indent: indent + 2,
                board,
            },
            Line::Boards {
                indent,
                left,
                right,
            } => Line::Boards {
                indent: indent + 2,
                left,
                right,
            },
        });
    }
}

/// The compiler's warnings to show beside `function`'s first failure:
/// those in that function, and, at the first failure of all, those in no
/// lab function; at most [`WARNINGS_SHOWN`] lines.
fn warnings(run: &CheckView, function: Function, out: &mut Out) {
    let first_failure = run
        .tests
        .iter()
        .filter(|t| t.verdict != Verdict::Pass)
        .map(|t| t.function)
        .min()
        == Some(function);
    let shown: Vec<&Warning> = run
        .warnings
        .iter()
        .filter(|w| w.function == Some(function) || (first_failure && w.function.is_none()))
        .collect();
    if shown.is_empty() {
        return;
    }
    let what = if shown.iter().all(|w| w.function == Some(function)) {
        format!("in your {function}")
    } else {
        "in your code".to_string()
    };
    out.line(vec![
        plain("    "),
        span("the compiler warned", Style::colour(Colour::Yellow, true)),
        plain(format!(" {what} (one may name the bug):")),
    ]);
    for warning in shown.iter().take(WARNINGS_SHOWN) {
        out.line(vec![
            plain("      "),
            theirs(warning.text.clone(), Style::PLAIN),
        ]);
    }
    if shown.len() > WARNINGS_SHOWN {
        out.line(vec![plain(format!(
            "      and {} more",
            shown.len() - WARNINGS_SHOWN
        ))]);
    }
}

fn passed_line(test: &TestReport, out: &mut Out) {
    let mut spans = vec![plain("    ✓ "), theirs(test.case.clone(), Style::PLAIN)];
    spans.extend(time(test));
    out.line(spans);
}

/// The closing lines: how many public tests passed, and what else counts.
fn closing(run: &CheckView, out: &mut Out) {
    let passed = run
        .tests
        .iter()
        .filter(|t| t.verdict == Verdict::Pass)
        .count();
    out.blank();
    let mut line = format!("{passed} of {} public tests passed", run.tests.len());
    if run.not_run > 0 {
        line.push_str(&format!(
            " ({} not run: --fail-fast stopped at the first failure)",
            run.not_run
        ));
    }
    let red = Style::colour(Colour::Red, true);
    if run.grader_fault {
        out.line(vec![span(line, red)]);
        out.line(vec![plain(
            "The grader itself failed on some test (see above): that is not your code's fault. \
             Run again, and report it if it persists.",
        )]);
    } else if passed == run.tests.len() && run.not_run == 0 {
        out.line(vec![span(
            format!("All {line}."),
            Style::colour(Colour::Green, true),
        )]);
        out.line(vec![plain(
            "Your grade also counts hidden tests: other boards of every size, including puzzles \
             with no solution.",
        )]);
    } else {
        out.line(vec![span(format!("{line}."), red)]);
        out.line(vec![plain(
            "Fix the first failure above and run again; your grade also counts hidden tests on \
             other boards.",
        )]);
    }
}

/// One failing test in full, the diagnosis first: the header and the
/// case, then what the trace's first step shows (the step, its depth, the
/// cell) with the end state in one line after it, or else the end state's
/// message; then the smallest failing board and the pictures.
fn failure(run: &CheckView, test: &TestReport, out: &mut Out) {
    let mut head = vec![
        plain(format!("    {} on ", test.function)),
        theirs(test.case.clone(), Style::BOLD),
        plain(": "),
        verdict_span(test.verdict),
    ];
    head.extend(time(test));
    out.line(head);
    if let Some(description) = &test.description {
        out.line(vec![
            plain("    "),
            theirs(format!("the case: {description}"), Style::DIM),
        ]);
    }
    let message = failure_message(run, test);
    // What the run with the grader's own legal showed comes first: it
    // names the function to fix.
    let swap = run.legal_swap.as_ref().filter(|s| s.case == test.case);
    if let Some(swap) = swap.filter(|_| test.function == Function::Solve) {
        out.line(vec![
            plain("    "),
            span(swap.says.clone(), Style::colour(Colour::Yellow, true)),
        ]);
    }
    let shrunk = run.shrunk.iter().find(|s| s.case == test.case);
    let first = run
        .first_steps
        .iter()
        .find(|f| f.case == test.case && test.function == Function::Solve);
    // The diagnosis first (the trace's first wrong step); then what is
    // about one board stays together, the case's and the smallest failing
    // board's apart: the two ends never interleave. A step found on the
    // small board comes with the small board's pictures, and the case's
    // own end follows them, named as the case's.
    let on_small = first.filter(|f| f.on_small_board && shrunk.is_some());
    let the_end = |label: &str, out: &mut Out| {
        out.line(vec![
            plain("    "),
            span(label, Style::DIM),
            plain(" "),
            theirs(fact(&message), Style::PLAIN),
        ]);
    };
    match first {
        Some(first) if on_small.is_some() => step_text(first, out),
        Some(first) => {
            step_text(first, out);
            the_end("in the end:", out);
            if shrunk.is_some() {
                step_board(first, out);
            }
        }
        None => {
            for line in message.lines() {
                out.line(vec![plain("    "), theirs(line, Style::PLAIN)]);
            }
        }
    }
    match (shrunk, &test.board) {
        (Some(shrunk), _) if test.function == Function::Solve => {
            small_board(shrunk, on_small, out);
            if on_small.is_some() {
                the_end(&format!("in the end, on {} itself:", test.case), out);
                out.blank();
            }
        }
        (_, Some(board)) => {
            out.blank();
            // The case's description above names its puzzle: a board of
            // the grader's own making is labelled as one.
            if test.finding.as_ref().is_some_and(Finding::on_test_board) {
                out.line(vec![
                    plain("    "),
                    span(
                        "the test board it was asked about (not the case's puzzle):",
                        Style::DIM,
                    ),
                ]);
            }
            out.board(6, board);
            out.blank();
        }
        _ => {}
    }
    if let Some(first) = first.filter(|_| on_small.is_none() && shrunk.is_none()) {
        step_board(first, out);
    }
    let output = printed(&test.output);
    if !output.is_empty() {
        out.line(vec![plain("    "), span("your code printed:", Style::DIM)]);
        let lines: Vec<&str> = output.lines().collect();
        for line in lines.iter().take(OUTPUT_LINES_SHOWN) {
            out.line(vec![plain("    | "), theirs(*line, Style::PLAIN)]);
        }
        if lines.len() > OUTPUT_LINES_SHOWN {
            out.line(vec![plain(format!(
                "    | ... ({} more lines)",
                lines.len() - OUTPUT_LINES_SHOWN
            ))]);
        }
    }
}

/// The shrunk board beside the full one, and what went wrong on it: the
/// first step that breaks the lab's rules when the trace on the small
/// board shows one, else the failure as its end state shows it.
fn small_board(shrunk: &ShrunkView, first: Option<&FirstStepView>, out: &mut Out) {
    let cells = |k: usize| if k == 1 { "cell" } else { "cells" };
    out.blank();
    out.line(vec![
        plain("    "),
        span(
            format!(
                "your solve fails the same way even here: {} empty {} instead of {} \
                 (found in {} runs, {:.0} ms{})",
                shrunk.empty,
                cells(shrunk.empty),
                shrunk.original_empty,
                shrunk.runs,
                shrunk.ms,
                if shrunk.stopped_early {
                    "; stopped at the budget, maybe not the smallest"
                } else {
                    ""
                }
            ),
            Style::BOLD,
        ),
    ]);
    out.0.push(Line::Boards {
        indent: 6,
        left: ("the case".to_string(), shrunk.full_board.clone()),
        right: (
            "the smallest failing board".to_string(),
            shrunk.small_board.clone(),
        ),
    });
    out.line(vec![plain(format!(
        "    the small board as text: {}",
        shrunk.small_puzzle
    ))]);
    if let Some(diagnosis) = &shrunk.diagnosis {
        out.line(vec![
            plain("    "),
            span(diagnosis.clone(), Style::colour(Colour::Yellow, true)),
        ]);
    }
    if let Some(first) = first {
        return step_board_tight(first, out);
    }
    // A full small board's diagnosis (the base case) is all it shows, and
    // the board it left is the one just drawn.
    if shrunk.diagnosis.is_some() && shrunk.empty == 0 {
        return out.blank();
    }
    out.line(vec![plain("    on the small board:")]);
    for line in shrunk.message.lines() {
        out.line(vec![plain("      "), theirs(line, Style::PLAIN)]);
    }
    if let Some(after) = &shrunk.small_after {
        let title = if shrunk.after_is_step {
            "the board at that step:"
        } else {
            "the board your solve left:"
        };
        out.line(vec![plain(format!("    {title}"))]);
        out.board(6, after);
    }
    out.blank();
}

/// The first step that breaks the lab's rules (or, for a hint, what the
/// search did), headed by who recorded it.
fn step_text(first: &FirstStepView, out: &mut Out) {
    let watched = match first.source {
        Recorder::WriteWatch => "the grader watched every write to the board",
        Recorder::RustBoard => "the grader recorded every board.set",
        Recorder::Python => "the grader recorded every board[r][c] = v",
    };
    let board = if first.on_small_board {
        " on the smallest failing board, below"
    } else {
        ""
    };
    // A hint (what a search that prunes harder may also do) is not a
    // broken rule, and is not headed as one.
    let heading = if first.check.is_trace_hint() {
        "what the search did"
    } else {
        "the first step that breaks the lab's rules"
    };
    out.line(vec![
        plain("    "),
        span(format!("{heading} ({watched}{board}):"), Style::BOLD),
    ]);
    for line in first.message.lines() {
        out.line(vec![
            plain("      "),
            theirs(line, Style::colour(Colour::Yellow, false)),
        ]);
    }
}

/// The board at the step [`step_text`] quoted, without the blank line
/// after it (what follows belongs to the same block).
fn step_board_tight(first: &FirstStepView, out: &mut Out) {
    if let Some(board) = &first.board {
        out.line(vec![plain("    the board at that step:")]);
        out.board(6, board);
    }
}

/// The board at the step [`step_text`] quoted.
fn step_board(first: &FirstStepView, out: &mut Out) {
    if let Some(board) = &first.board {
        out.line(vec![plain("    the board at that step:")]);
        out.board(6, board);
    }
    out.blank();
}

/// The message shown for `test`: for a `solve` that gave up while `legal`
/// or `find_empty` fails its own tests, only the fact, since the end
/// state's advice (the digit loop) assumes the helpers are right.
fn failure_message(run: &CheckView, test: &TestReport) -> String {
    let message = test.shown_message().into_owned();
    let helpers_fail = run
        .tests
        .iter()
        .any(|t| t.function != Function::Solve && t.verdict != Verdict::Pass);
    let gave_up = test.function == Function::Solve
        && matches!(
            test.finding,
            Some(Finding::SolveGaveUp { .. } | Finding::GaveUpAtOnce { .. })
        );
    // The run with the grader's legal names legal, and nothing in the
    // test's own trace says otherwise: the fact is enough.
    let legal_proven = run
        .legal_swap
        .as_ref()
        .is_some_and(|s| s.case == test.case && s.blames_legal);
    if gave_up && legal_proven {
        return fact(&message).to_string();
    }
    if gave_up && helpers_fail {
        return format!(
            "{}: your legal or find_empty fails its own tests above, and a solve that asks them \
             acts on their wrong answers: make those pass first",
            fact(&message)
        );
    }
    message
}

/// What the student's code printed, without the grader's runtime noise:
/// the stack-overflow lines, and a Rust panic's report (its `thread '…'
/// panicked at` line and message, already in the test's message; the
/// second panic of a function that cannot unwind; the backtrace hint and
/// the backtrace's `<unknown>` frames), so what is left is what the
/// student printed.
pub fn printed(output: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let mut lines = output.lines();
    let mut in_backtrace = false;
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if in_backtrace {
            let frame = trimmed
                .split_once(':')
                .is_some_and(|(i, _)| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()));
            if frame || trimmed.starts_with("at ") {
                continue;
            }
            in_backtrace = false;
        }
        if line.starts_with("thread '") && line.contains(" panicked at ") {
            lines.next(); // the panic's message
            continue;
        }
        if trimmed == "stack backtrace:" {
            in_backtrace = true;
            continue;
        }
        if RUNTIME_NOISE.iter().any(|noise| line.contains(noise))
            || RUST_PANIC_NOISE.iter().any(|noise| line.starts_with(noise))
        {
            continue;
        }
        kept.push(line);
    }
    while kept.last().is_some_and(|l| l.trim().is_empty()) {
        kept.pop();
    }
    while kept.first().is_some_and(|l| l.trim().is_empty()) {
        kept.remove(0);
    }
    kept.join("\n")
}

/// The fact of a message, for a one-line mention: its first line up to
/// the advice, which every message of the judge starts after `": "`
/// outside parentheses (a layout rule of the words, not a search for
/// meaning: nothing is decided by it).
fn fact(message: &str) -> String {
    let first_line = message.lines().next().unwrap_or("");
    let mut depth = 0usize;
    let mut previous = None;
    let mut cut = None;
    for (i, ch) in first_line.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ' ' if depth == 0 && previous == Some(':') => {
                cut = Some(i - 1);
                break;
            }
            _ => {}
        }
        previous = Some(ch);
    }
    match cut {
        Some(i) => first_line[..i].to_string(),
        // "raised IndexError in legal:", the traceback on the next lines.
        None => first_line
            .strip_suffix(':')
            .unwrap_or(first_line)
            .to_string(),
    }
}

fn time(test: &TestReport) -> Option<Span> {
    test.time_ms
        .map(|t| span(format!(" ({t:.1} ms)"), Style::DIM))
}

fn verdict_span(verdict: Verdict) -> Span {
    let colour = match verdict {
        Verdict::Pass => Colour::Green,
        Verdict::Timeout | Verdict::Memory => Colour::Yellow,
        _ => Colour::Red,
    };
    span(verdict.name(), Style::colour(colour, false))
}

/// The lines as plain text: spans joined, boards drawn with their row and
/// column numbers (what a terminal without colour shows, and what a test
/// reads).
pub fn plain_text(lines: &[Line]) -> String {
    let mut out = String::new();
    for line in lines {
        for text in line_texts(line) {
            out.push_str(&text);
            out.push('\n');
        }
    }
    out
}

/// One line of the view as text lines (a board is several).
pub fn line_texts(line: &Line) -> Vec<String> {
    match line {
        Line::Text { spans } => vec![spans.iter().map(|s| s.text.as_str()).collect()],
        Line::Board { indent, board } => board
            .labelled()
            .into_iter()
            .map(|l| format!("{:indent$}{}", "", l.text))
            .collect(),
        Line::Boards {
            indent,
            left: (left_title, left),
            right: (right_title, right),
        } => {
            let left: Vec<String> = left.labelled().into_iter().map(|l| l.text).collect();
            let right: Vec<String> = right.labelled().into_iter().map(|l| l.text).collect();
            let width = left.iter().map(|l| l.chars().count()).max().unwrap_or(0);
            let width = width.max(left_title.chars().count());
            let mut out = vec![format!(
                "{:indent$}{left_title:<width$}    {right_title}",
                ""
            )];
            for i in 0..left.len().max(right.len()) {
                let l = left.get(i).map_or("", String::as_str);
                let r = right.get(i).map_or("", String::as_str);
                out.push(format!("{:indent$}{l:<width$}    {r}", ""));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests;
