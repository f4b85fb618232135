//! The student's view (`grader check`): reads like a lab partner.
//!
//! By default one compact block per failing function, in the lab's order
//! (`legal`, `find_empty`, `solve`): the first failing case in full (what
//! went wrong, the board, the smallest board that still fails, what the
//! code printed), the other failing cases one line each. Each function's
//! failure stands alone: a later function's failure is never blamed on an
//! earlier one's (`find_empty` never calls `legal`, and a `solve` may not
//! call either), so no message is cut short for a cause that was not seen;
//! the one exception rests on a run: a `solve` that passed with the
//! grader's own `legal` in place of the student's is told so, and `legal`
//! is named as the likely cause unless the test's own trace shows a step of
//! `solve`'s own (`runner::legal_swap`).
//! `-v` shows every test and every failure in full. The closing line says
//! how many public tests passed and that hidden tests also count.
//!
//! Everything the student's code or compiler wrote goes through
//! [`visible`]: control characters are shown, never
//! interpreted by the terminal.

use colored::Colorize;
use serde::Serialize;
use std::io::{self, Write};

use super::text::{visible, visible_line};
use super::{Status, SubmissionReport, TestReport};
use crate::check::{Check, DIGIT_LOOP_ANY, digit_loop};
use crate::exit;
use crate::submission::build::warnings::CompilerWarning;
use crate::submission::discover::SubmissionKind;
use crate::verdict::{Function, Verdict};

/// How much of a failing test's output is shown.
const OUTPUT_LINES_SHOWN: usize = 10;

/// Lines the grader's own runtime prints when the student's code overflows
/// its stack: shown as the grader's diagnosis instead, never as if the
/// student's code had printed them.
const RUNTIME_NOISE: [&str; 3] = [
    "has overflowed its stack",
    "fatal runtime error: stack overflow",
    "fatal runtime error: stack overflow, aborting",
];

/// The trace's findings that are hints, not broken rules (see
/// `check::trace`).
const HINT_FINDINGS: [&str; 3] = [
    "solve.trace.untried",
    "solve.trace.unwritten",
    "solve.trace.cleared_solution",
];

/// How a `legal` or `find_empty` message names a board other than the
/// case's puzzle (see `check::judge`).
const TEST_BOARD: &str = "on a test board (not the case's puzzle)";

/// Lines the Rust runtime prints around a panic, never the student's.
const RUST_PANIC_NOISE: [&str; 2] = [
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
    "thread caused non-unwinding panic. aborting.",
];

/// The smallest board on which a failing `solve` still fails, for showing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct ShrunkView {
    /// The case it was shrunk from.
    pub case: String,
    /// A picture of the case's puzzle.
    pub full_board: String,
    /// A picture of the small puzzle.
    pub small_board: String,
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
    /// What the small board proves, when its shape leaves one cause.
    pub diagnosis: Option<String>,
    /// The verdict on the small board (the same as on the case).
    pub verdict: Verdict,
    /// What went wrong on the small board.
    pub message: String,
    /// The board the small run left, with the cell in question marked.
    pub small_after: Option<String>,
    /// True when `small_after` is the board at the step the small run's
    /// trace quotes, not the board its `solve` left.
    pub after_is_step: bool,
}

/// The first write of a failing `solve` that breaks a rule the lab
/// teaches, found by replaying its write trace (see
/// [`crate::check::trace`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct FirstStepView {
    /// The case whose `solve` failed.
    pub case: String,
    /// True when the trace was taken on the shrunk board.
    pub on_small_board: bool,
    /// Who recorded the writes: `python`, `rust_board` or `write_watch`.
    pub source: crate::check::TraceSource,
    /// The trace's check that found it (`solve.trace.leftover`, ...).
    pub finding: &'static str,
    /// The step and the rule, in the lab's words.
    pub message: String,
    /// The board at that step, the cell in question marked.
    pub board: Option<String>,
}

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
    pub legal_swap: Option<crate::runner::legal_swap::LegalSwapView>,
    /// Tests not run because of `--fail-fast`.
    pub not_run: usize,
    /// The source checked, as given.
    pub path: String,
    /// A board size the code was written for, when the tests prove it
    /// (see [`fixed_board_size`]): shown before any failure.
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
}

/// Writes `run` for a person; `verbose` shows every test in full.
pub(crate) fn write_check(run: &CheckRun, verbose: bool, out: &mut dyn Write) -> io::Result<()> {
    let sub = &run.submission;
    for note in &sub.notes {
        writeln!(out, "{} {}", "note:".bold(), visible_line(note))?;
    }
    if sub.status != Status::Ok {
        let what = match sub.status {
            Status::BuildError => "did not build",
            Status::GraderError => "could not be checked: the grader failed, not your code",
            _ => "could not be loaded",
        };
        writeln!(
            out,
            "{} {}",
            "✗".red().bold(),
            format!("{} {what}", visible_line(&run.path)).red().bold()
        )?;
        let message = match sub.status {
            Status::GraderError => sub.shown_message(),
            _ => sub.message.as_str().into(),
        };
        for line in visible(&message).lines() {
            writeln!(out, "  {line}")?;
        }
        if let Some(hint) = &sub.hint {
            writeln!(
                out,
                "  {} {}",
                "hint:".yellow().bold(),
                visible_line(hint).yellow()
            )?;
        }
        writeln!(out)?;
        let again = if run.watching {
            "save a source and the check runs again"
        } else {
            "then run `grader check` again"
        };
        if sub.status == Status::GraderError {
            writeln!(
                out,
                "No test ran, through no fault of your code's: {again}, and report it if it persists."
            )?;
        } else {
            writeln!(out, "No test ran: fix the message above, {again}.")?;
        }
        return Ok(());
    }
    if let Some(note) = &run.size_note {
        writeln!(out, "{} {}", "!".yellow().bold(), note.yellow().bold())?;
    }
    for function in Function::ALL {
        let tests: Vec<&TestReport> = sub
            .tests
            .iter()
            .filter(|t| t.function == function)
            .collect();
        if tests.is_empty() {
            continue;
        }
        let failing: Vec<&TestReport> = tests
            .iter()
            .copied()
            .filter(|t| t.verdict != Verdict::Pass)
            .collect();
        let name = format!("{:<10}", function.name());
        if failing.is_empty() {
            writeln!(
                out,
                "{} {name} {}",
                "✓".green().bold(),
                format!("{} of {} cases pass", tests.len(), tests.len()).green()
            )?;
            if verbose {
                for test in &tests {
                    writeln!(out, "    ✓ {}{}", test.case, time(test))?;
                }
            }
            continue;
        }
        writeln!(
            out,
            "{} {name} {}",
            "✗".red().bold(),
            format!("{} of {} cases fail", failing.len(), tests.len())
                .red()
                .bold()
        )?;
        for test in &tests {
            if test.verdict == Verdict::Pass {
                if verbose {
                    writeln!(out, "    ✓ {}{}", test.case, time(test))?;
                }
                continue;
            }
            let first = failing.first().is_some_and(|f| std::ptr::eq(*f, *test));
            if first || verbose {
                write_failure(run, test, out)?;
                if first {
                    write_warnings(run, function, out)?;
                }
            } else {
                writeln!(
                    out,
                    "    also fails: {} ({}): {}",
                    test.case,
                    verdict_colored(test.verdict),
                    visible_line(fact(&shown_message(test, sub.kind.as_deref())))
                )?;
            }
        }
    }
    let passed = sub
        .tests
        .iter()
        .filter(|t| t.verdict == Verdict::Pass)
        .count();
    writeln!(out)?;
    let mut line = format!("{passed} of {} public tests passed", sub.tests.len());
    if run.not_run > 0 {
        line.push_str(&format!(
            " ({} not run: --fail-fast stopped at the first failure)",
            run.not_run
        ));
    }
    if sub.grader_fault() {
        writeln!(out, "{}", line.red().bold())?;
        writeln!(
            out,
            "The grader itself failed on some test (see above): that is not your code's fault. Run again, and report it if it persists."
        )
    } else if passed == sub.tests.len() && run.not_run == 0 {
        writeln!(out, "{}", format!("All {line}.").green().bold())?;
        writeln!(
            out,
            "Your grade also counts hidden tests: other boards of every size, including puzzles with no solution."
        )
    } else {
        writeln!(out, "{}", format!("{line}.").red().bold())?;
        writeln!(
            out,
            "Fix the first failure above and run again; your grade also counts hidden tests on other boards."
        )
    }
}

/// The compiler's warnings to show beside `function`'s first failure: those
/// in that function, and, at the first failure of all, those in no lab
/// function; at most [`WARNINGS_SHOWN`] lines.
fn write_warnings(run: &CheckRun, function: Function, out: &mut dyn Write) -> io::Result<()> {
    let first_failure = run
        .submission
        .tests
        .iter()
        .filter(|t| t.verdict != Verdict::Pass)
        .map(|t| t.function)
        .min()
        == Some(function);
    let shown: Vec<&CompilerWarning> = run
        .warnings
        .iter()
        .filter(|w| w.function == Some(function) || (first_failure && w.function.is_none()))
        .collect();
    if shown.is_empty() {
        return Ok(());
    }
    let what = match shown.iter().all(|w| w.function == Some(function)) {
        true => format!("in your {function}"),
        false => "in your code".to_string(),
    };
    writeln!(
        out,
        "    {} {what} (one may name the bug):",
        "the compiler warned".yellow().bold()
    )?;
    for warning in shown.iter().take(WARNINGS_SHOWN) {
        writeln!(out, "      {}", visible_line(&warning.text()))?;
    }
    if shown.len() > WARNINGS_SHOWN {
        writeln!(out, "      and {} more", shown.len() - WARNINGS_SHOWN)?;
    }
    Ok(())
}

/// The most compiler warnings shown beside one failure.
const WARNINGS_SHOWN: usize = 3;

/// One failing test in full, the diagnosis first: the header and the
/// case, then what the trace's first step shows (the step, its depth, the
/// cell) with the end state in one line after it, or else the end state's
/// message; then the smallest failing board and the pictures.
fn write_failure(run: &CheckRun, test: &TestReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "    {} on {}: {}{}",
        test.function,
        test.case.bold(),
        verdict_colored(test.verdict),
        time(test)
    )?;
    if let Some(description) = &test.description {
        writeln!(out, "    {}", format!("the case: {description}").dimmed())?;
    }
    let kind = run.submission.kind.as_deref();
    let message = failure_message(run, test);
    // What the run with the grader's own legal showed comes first: it
    // names the function to fix.
    let swap = run.legal_swap.as_ref().filter(|s| s.case == test.case);
    if let Some(swap) = swap.filter(|_| test.function == Function::Solve) {
        writeln!(out, "    {}", swap.says.yellow().bold())?;
    }
    let shrunk = run.shrunk.iter().find(|s| s.case == test.case);
    let first = run
        .first_steps
        .iter()
        .find(|f| f.case == test.case && test.function == Function::Solve);
    match first {
        Some(first) => {
            write_step_text(first, out)?;
            writeln!(
                out,
                "    {} {}",
                "in the end:".dimmed(),
                visible_line(fact(&message))
            )?;
        }
        None => {
            for line in visible(&message).lines() {
                writeln!(out, "    {line}")?;
            }
        }
    }
    match (shrunk, &test.board) {
        (Some(shrunk), _) if test.function == Function::Solve => {
            write_shrunk(shrunk, first.filter(|f| f.on_small_board), kind, out)?
        }
        (_, Some(board)) => {
            writeln!(out)?;
            // The case's description above names its puzzle: a board of
            // the grader's own making is labelled as one.
            if message.contains(TEST_BOARD) {
                writeln!(
                    out,
                    "    {}",
                    "the test board it was asked about (not the case's puzzle):".dimmed()
                )?;
            }
            for line in labelled(board).lines() {
                writeln!(out, "      {}", super::picture::paint(line))?;
            }
            writeln!(out)?;
        }
        _ => {}
    }
    if let Some(first) = first.filter(|f| !f.on_small_board || shrunk.is_none()) {
        write_step_board(first, out)?;
    }
    let output = printed(&test.output);
    if !output.is_empty() {
        writeln!(out, "    {}", "your code printed:".dimmed())?;
        let lines: Vec<&str> = output.lines().collect();
        for line in lines.iter().take(OUTPUT_LINES_SHOWN) {
            writeln!(out, "    | {}", visible_line(line))?;
        }
        if lines.len() > OUTPUT_LINES_SHOWN {
            writeln!(
                out,
                "    | ... ({} more lines)",
                lines.len() - OUTPUT_LINES_SHOWN
            )?;
        }
    }
    Ok(())
}

/// The shrunk board beside the full one, and what went wrong on it: the
/// first step that breaks the lab's rules when the trace on the small
/// board shows one, else the failure as its end state shows it.
fn write_shrunk(
    shrunk: &ShrunkView,
    first: Option<&FirstStepView>,
    kind: Option<&str>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let cells = |k: usize| if k == 1 { "cell" } else { "cells" };
    writeln!(out)?;
    writeln!(
        out,
        "    {}",
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
        )
        .bold()
    )?;
    let (full, small) = (labelled(&shrunk.full_board), labelled(&shrunk.small_board));
    let left: Vec<&str> = full.lines().collect();
    let right: Vec<&str> = small.lines().collect();
    let width = left.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let width = width.max("the case".len());
    writeln!(
        out,
        "      {:<width$}    the smallest failing board",
        "the case"
    )?;
    for i in 0..left.len().max(right.len()) {
        let l = left.get(i).copied().unwrap_or("");
        let r = right.get(i).copied().unwrap_or("");
        writeln!(out, "      {l:<width$}    {r}")?;
    }
    writeln!(out, "    the small board as text: {}", shrunk.small_puzzle)?;
    if let Some(diagnosis) = &shrunk.diagnosis {
        writeln!(out, "    {}", diagnosis.yellow().bold())?;
    }
    if let Some(first) = first {
        return write_step_board(first, out);
    }
    // A full small board's diagnosis (the base case) is all it shows, and
    // the board it left is the one just drawn.
    if shrunk.diagnosis.is_some() && shrunk.empty == 0 {
        return writeln!(out);
    }
    writeln!(out, "    on the small board:")?;
    let message = in_lab_words(Function::Solve, shrunk.verdict, &shrunk.message, kind);
    for line in visible(&message).lines() {
        writeln!(out, "      {line}")?;
    }
    if let Some(after) = &shrunk.small_after {
        let title = if shrunk.after_is_step {
            "the board at that step:"
        } else {
            "the board your solve left:"
        };
        writeln!(out, "    {title}")?;
        for line in labelled(after).lines() {
            writeln!(out, "      {}", super::picture::paint(line))?;
        }
    }
    writeln!(out)
}

/// The first step that breaks the lab's rules (or, for a hint, what the
/// search did), headed by who recorded it.
fn write_step_text(first: &FirstStepView, out: &mut dyn Write) -> io::Result<()> {
    let watched = match first.source {
        crate::check::TraceSource::WriteWatch => "the grader watched every write to the board",
        crate::check::TraceSource::RustBoard => "the grader recorded every board.set",
        crate::check::TraceSource::Python => "the grader recorded every board[r][c] = v",
    };
    let board = if first.on_small_board {
        " on the smallest failing board, below"
    } else {
        ""
    };
    // A hint (what a search that prunes harder may also do) is not a
    // broken rule, and is not headed as one.
    let heading = if HINT_FINDINGS.contains(&first.finding) {
        "what the search did"
    } else {
        "the first step that breaks the lab's rules"
    };
    writeln!(
        out,
        "    {}",
        format!("{heading} ({watched}{board}):").bold()
    )?;
    for line in visible(&first.message).lines() {
        writeln!(out, "      {}", line.yellow())?;
    }
    Ok(())
}

/// The board at the step [`write_step_text`] quoted.
fn write_step_board(first: &FirstStepView, out: &mut dyn Write) -> io::Result<()> {
    if let Some(picture) = &first.board {
        writeln!(out, "    the board at that step:")?;
        for line in labelled(picture).lines() {
            writeln!(out, "      {}", super::picture::paint(line))?;
        }
    }
    writeln!(out)
}

/// The message shown for `test`: in the lab's words (see
/// [`shown_message`]); for a `solve` that gave up while `legal` or
/// `find_empty` fails its own tests, only the fact, since the end state's
/// advice (the digit loop) assumes the helpers are right.
fn failure_message(run: &CheckRun, test: &TestReport) -> String {
    let message = shown_message(test, run.submission.kind.as_deref());
    let helpers_fail = run
        .submission
        .tests
        .iter()
        .any(|t| t.function != Function::Solve && t.verdict != Verdict::Pass);
    let gave_up = test.function == Function::Solve
        && test.check == Some(Check::SolveGaveUp)
        && message.starts_with("solve returned false and left the board as it was passed in");
    // The run with the grader's legal names legal, and nothing in the
    // test's own trace says otherwise: the fact is enough.
    let legal_proven = run
        .legal_swap
        .as_ref()
        .is_some_and(|s| s.case == test.case && s.blames_legal());
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

/// `picture` (from [`super::picture::render`]) with the row numbers on the
/// left and the column numbers on top, counted from 0 as the messages
/// count them, so "(row 2, col 1)" can be found at a glance.
pub(crate) fn labelled(picture: &str) -> String {
    let lines: Vec<&str> = picture.lines().collect();
    let is_rule = |line: &str| !line.is_empty() && line.chars().all(|ch| ch == '-' || ch == '+');
    // Column positions from a row without a marked (and maybe coloured) cell:
    // the last character of each cell's token.
    let plain = lines.iter().find(|l| !is_rule(l) && !l.contains('['));
    let mut header = String::new();
    if let Some(row) = plain {
        let chars: Vec<char> = row.chars().collect();
        let ends = (0..chars.len()).filter(|&i| {
            let ch = chars[i];
            ch != ' ' && ch != '|' && chars.get(i + 1).is_none_or(|&next| next == ' ')
        });
        for (col, end) in ends.enumerate() {
            let label = col.to_string();
            let start = (end + 1).saturating_sub(label.len());
            while header.chars().count() < start {
                header.push(' ');
            }
            if header.chars().count() == start {
                header.push_str(&label);
            }
        }
    }
    let mut out = String::new();
    if !header.is_empty() {
        out.push_str(&format!("    {header}\n"));
    }
    let mut row = 0;
    for line in lines {
        if is_rule(line) {
            out.push_str(&format!("    {line}\n"));
        } else {
            out.push_str(&format!("{row:>3} {line}\n"));
            row += 1;
        }
    }
    out
}

/// The message shown for a test of a submission of `kind` (`c`, `rust`,
/// `python`, `library`): a crash from a stack overflow is told in the
/// lab's words.
fn shown_message(test: &TestReport, kind: Option<&str>) -> String {
    in_lab_words(test.function, test.verdict, &test.shown_message(), kind)
}

/// What endless recursion in `solve` most likely is, two causes at most: a
/// write at another cell than find_empty's (or none) sends find_empty back
/// to the same cell; a 0 written looks like no write.
const ENDLESS_RECURSION: &str = "Most likely solve recursed without writing a digit into the \
     cell find_empty returned (no write before the call, or a write at another cell: find_empty \
     then returns the same cell again and again), or wrote 0 (a digit loop that starts at 0); \
     write a digit from 1 to N into that cell before the recursive call";

/// `message` for a test of `function` that ended with `verdict`, with a
/// stack overflow told as the recursion bug it almost always is (a Python
/// RecursionError keeps the harness's own line, the cause added after it), and
/// the digit loop spelled in `kind`'s language where the judge spelled
/// all three.
fn in_lab_words(function: Function, verdict: Verdict, message: &str, kind: Option<&str>) -> String {
    // A stack overflow the worker told for certain starts its message so;
    // a SIGSEGV only may be one (a null pointer or an index off the board
    // looks the same), and keeps its own message.
    if verdict == Verdict::Crash && message.starts_with("stack overflow") {
        return format!(
            "{function} crashed with a stack overflow: it called itself without end. {ENDLESS_RECURSION}"
        );
    }
    if verdict == Verdict::Crash
        && function == Function::Solve
        && message.starts_with("recursed too deep")
    {
        return format!(
            "{message}\nsolve called itself without end (RecursionError). {ENDLESS_RECURSION}"
        );
    }
    let spelled = match kind {
        Some("rust") => Some(digit_loop(SubmissionKind::Rust)),
        Some("python") => Some(digit_loop(SubmissionKind::Python)),
        Some("c") | Some("library") => Some(digit_loop(SubmissionKind::C)),
        _ => None,
    };
    match spelled {
        Some(one) => message.replace(DIGIT_LOOP_ANY, one),
        None => message.to_string(),
    }
}

/// The board size the code was written for, when the tests show it: every
/// test on boxes of one size `n` passes, on each of at least two other
/// sizes some test fails, and on at least one of them the failure has the
/// shape a fixed size predicts: a test of `legal` or `find_empty` fails
/// (those two take no search strategy, only the board's size), or, on a
/// smaller board, `solve` left a digit past its N (`solve.range`: a digit
/// loop to the fixed N). A `solve` that fails on bigger boards alone (an
/// early `return false`, a lost argument) does not fit, and is not told
/// it. The note says what fixed numbers do (a 4x4 read with rows of 9
/// raises IndexError, or reads off its end; a 16x16 is searched in its
/// top-left 9x9), in `kind`'s spelling. `size_of` gives a case's `n`.
pub(crate) fn fixed_board_size(
    tests: &[TestReport],
    size_of: impl Fn(&str) -> Option<usize>,
    kind: Option<&str>,
) -> Option<String> {
    /// One box size's tests.
    #[derive(Default)]
    struct Tally {
        n: usize,
        tests: usize,
        failing: usize,
        /// Failing tests of `legal` or `find_empty`.
        helpers_failing: usize,
        /// `solve` tests that left a digit past N.
        past_n: usize,
    }
    let mut sizes: Vec<Tally> = Vec::new();
    for test in tests {
        let n = size_of(&test.case)?;
        let at = match sizes.iter().position(|s| s.n == n) {
            Some(at) => at,
            None => {
                sizes.push(Tally {
                    n,
                    ..Tally::default()
                });
                sizes.len() - 1
            }
        };
        let tally = &mut sizes[at];
        let failing = test.verdict != Verdict::Pass;
        tally.tests += 1;
        tally.failing += usize::from(failing);
        tally.helpers_failing += usize::from(failing && test.function != Function::Solve);
        tally.past_n += usize::from(test.check == Some(Check::SolveRange));
    }
    sizes.sort_unstable_by_key(|s| s.n);
    let mut passing = sizes.iter().filter(|s| s.failing == 0);
    let n = passing.next()?.n;
    let others: Vec<&Tally> = sizes.iter().filter(|s| s.n != n).collect();
    // A digit past N shows the fixed size only on a smaller board.
    let shaped = |s: &&Tally| s.helpers_failing > 0 || (s.n < n && s.past_n > 0);
    if passing.next().is_some()
        || others.len() < 2
        || others.iter().any(|s| s.failing == 0)
        || !others.iter().any(shaped)
    {
        return None;
    }
    let side = n * n;
    let failed: Vec<String> = others
        .iter()
        .map(|s| {
            let side = s.n * s.n;
            format!("{} of {} tests on the {side}x{side}s", s.failing, s.tests)
        })
        .collect();
    let spelled = match kind {
        Some("python") => "range(N), n * (r // n)",
        Some("rust") => "0..board.side(), board.n() * (r / board.n())",
        _ => "i < N, n * (r / n)",
    };
    Some(format!(
        "your code assumes a {side}x{side} board (n = {n}): every {side}x{side} test passes, but tests \
         fail on every other size ({}). Use n and N = n*n instead of {side} and {n} ({spelled}): \
         a {side} or {n} written into the code reads or writes past a smaller board and misses cells \
         or digits of a bigger one",
        failed.join(", ")
    ))
}

/// What the student's code printed, without the grader's runtime noise:
/// the stack-overflow lines, and a Rust panic's report (its `thread '…'
/// panicked at` line and message, already in the test's message; the
/// second panic of a function that cannot unwind; the backtrace hint and
/// the backtrace's `<unknown>` frames), so what is left is what the
/// student printed.
fn printed(output: &str) -> String {
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

/// The fact of a message: the part before the advice (the first ": ").
fn fact(message: &str) -> &str {
    let first_line = message.lines().next().unwrap_or("");
    // The first ": " outside parentheses ("(RecursionError: ...)" is part
    // of the fact).
    let mut depth = 0usize;
    let cut = first_line.char_indices().find_map(|(i, ch)| {
        match ch {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ':' if depth == 0 && first_line[i..].starts_with(": ") => return Some(i),
            _ => {}
        }
        None
    });
    match cut {
        Some(i) => &first_line[..i],
        // "raised IndexError in legal:", the traceback on the next lines.
        None => first_line.strip_suffix(':').unwrap_or(first_line),
    }
}

fn time(test: &TestReport) -> String {
    test.time_ms
        .map(|t| format!(" ({t:.1} ms)").dimmed().to_string())
        .unwrap_or_default()
}

fn verdict_colored(verdict: Verdict) -> String {
    match verdict {
        Verdict::Pass => verdict.name().green().to_string(),
        Verdict::Timeout | Verdict::Memory => verdict.name().yellow().to_string(),
        _ => verdict.name().red().to_string(),
    }
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
        legal_swap: Option<&'a crate::runner::legal_swap::LegalSwapView>,
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

    fn test(case: &str, function: Function, verdict: Verdict, message: &str) -> TestReport {
        TestReport {
            case: case.into(),
            function,
            verdict,
            points: u32::from(verdict == Verdict::Pass),
            max_points: 1,
            time_ms: Some(1.0),
            wall_ms: None,
            reruns: 0,
            check: None,
            fault: None,
            message: message.into(),
            output: String::new(),
            board: None,
            hidden: false,
            description: None,
            side: None,
        }
    }

    fn run(tests: Vec<TestReport>) -> CheckRun {
        let score = tests.iter().map(|t| t.points).sum();
        CheckRun {
            submission: SubmissionReport {
                id: "me".into(),
                kind: Some("c".into()),
                status: Status::Ok,
                message: String::new(),
                hint: None,
                score,
                max_score: tests.len() as u32,
                notes: Vec::new(),
                fault: None,
                tests,
            },
            shrunk: Vec::new(),
            first_steps: Vec::new(),
            legal_swap: None,
            not_run: 0,
            path: "sudoku.c".into(),
            warnings: Vec::new(),
            size_note: None,
            watching: false,
        }
    }

    fn text(run: &CheckRun, verbose: bool) -> String {
        colored::control::set_override(false);
        let mut out = Vec::new();
        write_check(run, verbose, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn one_block_per_failing_function_each_standing_alone() {
        let r = run(vec![
            test(
                "a",
                Function::Legal,
                Verdict::Wrong,
                "legal(board, 0, 1, 2) returned true, but 2 is already in row 0: check every cell of the row",
            ),
            test(
                "b",
                Function::Legal,
                Verdict::Wrong,
                "legal(board, 1, 1, 3) returned true: check",
            ),
            test("a", Function::FindEmpty, Verdict::Pass, ""),
            test(
                "a",
                Function::Solve,
                Verdict::Wrong,
                "solve returned true, but 3 appears twice in row 0: every row",
            ),
        ]);
        let shown = text(&r, false);
        assert!(shown.contains("✗ legal      2 of 2 cases fail"), "{shown}");
        assert!(shown.contains("check every cell of the row"), "{shown}");
        assert!(
            shown.contains("also fails: b (wrong): legal(board, 1, 1, 3) returned true"),
            "{shown}"
        );
        assert!(shown.contains("✓ find_empty 1 of 1 cases pass"), "{shown}");
        // No failure is blamed on another function's without evidence:
        // solve's own message, advice and all, stands.
        assert!(!shown.contains("caused by"), "{shown}");
        assert!(shown.contains("every row"), "{shown}");
        assert!(shown.contains("1 of 4 public tests passed."), "{shown}");
        assert!(shown.contains("hidden tests"), "{shown}");
        assert_eq!(r.exit_code(), exit::FAILURE);
    }

    #[test]
    fn a_board_size_written_into_the_code_is_named() {
        let size = |case: &str| match case.as_bytes()[0] {
            b'a' => Some(2),
            b'b' => Some(3),
            _ => Some(4),
        };
        let tests = vec![
            test("a1", Function::Legal, Verdict::Crash, "IndexError"),
            test("a2", Function::Legal, Verdict::Pass, ""),
            test("b1", Function::Legal, Verdict::Pass, ""),
            test("c1", Function::FindEmpty, Verdict::Wrong, ""),
            test("c2", Function::Solve, Verdict::Wrong, ""),
        ];
        let note = fixed_board_size(&tests, size, Some("python")).expect("a note");
        assert!(
            note.starts_with("your code assumes a 9x9 board (n = 3): every 9x9 test passes"),
            "{note}"
        );
        assert!(
            note.contains("1 of 2 tests on the 4x4s, 2 of 2 tests on the 16x16s"),
            "{note}"
        );
        assert!(note.contains("range(N)"), "{note}");
        // One other size passing, or only one other size: no proof.
        let mut passing = tests.clone();
        passing[3].verdict = Verdict::Pass;
        passing[4].verdict = Verdict::Pass;
        assert_eq!(fixed_board_size(&passing, size, None), None);
        assert_eq!(fixed_board_size(&tests[..3], size, None), None);
        // Only solve failing on a size (a search bug that shows on bigger
        // boards): not what a fixed size predicts.
        let mut solve_only = tests.clone();
        solve_only[0].function = Function::Solve;
        solve_only[0].message = "solve returned false".into();
        solve_only[3].verdict = Verdict::Pass;
        assert_eq!(fixed_board_size(&solve_only, size, None), None);
        // ...unless it wrote a digit past a smaller board's N: a digit
        // loop to the fixed N.
        solve_only[0].check = Some(Check::SolveRange);
        assert!(fixed_board_size(&solve_only, size, None).is_some());
        // Every size failing: not a size bug.
        let mut all = tests.clone();
        all[2].verdict = Verdict::Wrong;
        assert_eq!(fixed_board_size(&all, size, None), None);
        let mut r = run(tests.clone());
        r.size_note = fixed_board_size(&tests, size, None);
        let shown = text(&r, false);
        assert!(
            shown.starts_with("! your code assumes a 9x9 board"),
            "{shown}"
        );
    }

    #[test]
    fn all_passed_says_hidden_tests_count() {
        let r = run(vec![test("a", Function::Solve, Verdict::Pass, "")]);
        let shown = text(&r, false);
        assert!(shown.contains("All 1 of 1 public tests passed."), "{shown}");
        assert!(shown.contains("also counts hidden tests"), "{shown}");
        assert_eq!(r.exit_code(), exit::SUCCESS);
    }

    #[test]
    fn stack_overflows_are_told_in_the_labs_words_and_escapes_are_shown() {
        let mut crash = test(
            "a",
            Function::Solve,
            Verdict::Crash,
            "stack overflow (recursion too deep?), ended by SIGABRT",
        );
        crash.output = "\x1b[2Jhello\nthread '<unknown>' has overflowed its stack\nfatal runtime error: stack overflow, aborting\n".into();
        let shown = text(&run(vec![crash]), false);
        assert!(
            shown.contains("recursed without writing a digit into the cell find_empty returned"),
            "{shown}"
        );
        assert!(!shown.contains("overflowed its stack"), "{shown}");
        assert!(!shown.contains("fatal runtime error"), "{shown}");
        assert!(shown.contains("| \\e[2Jhello"), "{shown}");
    }

    #[test]
    fn a_rust_panic_shows_what_the_student_printed_without_the_runtime() {
        let mut crash = test(
            "a",
            Function::Solve,
            Verdict::Crash,
            "panic: gave up (at src/lib.rs:25:9)",
        );
        crash.output = "mine\n\nthread '<unnamed>' (43) panicked at src/lib.rs:25:9:\ngave up\n\
            note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\
            thread '<unnamed>' (43) panicked at /rustc/abc/library/core/src/panicking.rs:225:5:\n\
            panic in a function that cannot unwind\nstack backtrace:\n   0:     0x7f1a608c400a - <unknown>\n\
              32:                0x0 - <unknown>\nthread caused non-unwinding panic. aborting.\n"
            .into();
        let shown = text(&run(vec![crash]), false);
        assert!(
            shown.contains("panic: gave up (at src/lib.rs:25:9)"),
            "{shown}"
        );
        assert!(shown.contains("| mine"), "{shown}");
        for noise in [
            "<unknown>",
            "RUST_BACKTRACE",
            "cannot unwind",
            "/rustc/",
            "aborting",
        ] {
            assert!(!shown.contains(noise), "{noise}: {shown}");
        }
        // Nothing the student printed is left: no "your code printed" at all.
        let mut quiet = test(
            "a",
            Function::Solve,
            Verdict::Crash,
            "panic: x (at src/lib.rs:1:1)",
        );
        quiet.output = "\nthread 'main' panicked at src/lib.rs:1:1:\nx\n".into();
        let shown = text(&run(vec![quiet]), false);
        assert!(!shown.contains("your code printed"), "{shown}");
    }

    #[test]
    fn the_digit_loop_is_spelled_in_the_submissions_language_and_tracebacks_stay() {
        let gave_up = format!("solve returned false: check the loop ({DIGIT_LOOP_ANY})");
        let mut r = run(vec![test("a", Function::Solve, Verdict::Wrong, &gave_up)]);
        r.submission.kind = Some("rust".into());
        let shown = text(&r, false);
        assert!(shown.contains("(for v in 1..=n*n, not 1..n*n)"), "{shown}");
        assert!(!shown.contains("in Python"), "{shown}");
        let traceback =
            "recursed too deep in solve (RecursionError: maximum recursion depth exceeded)";
        let mut r = run(vec![test("a", Function::Solve, Verdict::Crash, traceback)]);
        r.submission.kind = Some("python".into());
        let shown = text(&r, false);
        assert!(
            shown.contains(
                "recursed too deep in solve (RecursionError: maximum recursion depth exceeded)"
            ),
            "{shown}"
        );
        assert!(
            shown.contains("solve called itself without end (RecursionError)"),
            "{shown}"
        );
    }

    #[test]
    fn pictures_get_row_and_column_numbers() {
        let picture = " 1 . | . 4\n . 4 |[1].\n-----+----\n 2 . | . 3\n . 3 | 2 .\n";
        assert_eq!(
            labelled(picture),
            "     0 1   2 3\n  0  1 . | . 4\n  1  . 4 |[1].\n    -----+----\n  2  2 . | . 3\n  3  . 3 | 2 .\n"
        );
        let wide = " 16  .  .  . |  .  .  .  . |  .  .  .  . |  .  .  . 10\n";
        let header = labelled(wide).lines().next().unwrap().to_string();
        assert!(header.ends_with("14 15"), "{header:?}");
    }

    #[test]
    fn build_errors_exit_3() {
        let mut r = run(Vec::new());
        r.submission.status = Status::BuildError;
        r.submission.message = "sudoku.c:3: error: expected ';'".into();
        let shown = text(&r, false);
        assert!(shown.contains("sudoku.c did not build"), "{shown}");
        assert!(shown.contains("expected ';'"), "{shown}");
        assert!(shown.contains("run `grader check` again"), "{shown}");
        assert_eq!(r.exit_code(), exit::BUILD_OR_LOAD_ERROR);
        r.watching = true;
        let shown = text(&r, false);
        assert!(
            shown.contains("save a source and the check runs again"),
            "{shown}"
        );
        assert!(!shown.contains("run `grader check` again"), "{shown}");
        r.submission.fault = Some(crate::verdict::Fault::grader(
            crate::verdict::FaultKind::WorkerFailed,
        ));
        assert_eq!(r.exit_code(), exit::USAGE_OR_INPUT);
    }
}
