//! `grader check [PATH]`: a student checks their own submission against the
//! public cases, in the lab's order (the campus 4x4, then 9x9, then the big
//! boards), and reads what went wrong like a lab partner would say it
//! (`report::student`): one block per failing function, the smallest board on
//! which a failing `solve` still fails, what a run with the grader's own
//! `legal` proved (`runner::legal_swap`), a closing line that says hidden
//! tests also count.
//!
//! Exit codes ([`exit`]): 0 every test passed, 1 some test failed, 2 bad
//! usage or a grader fault, 3 the code did not build or load. A closed
//! stdout (`grader check | head`) ends quietly with 0. `--watch` re-runs
//! on every change of the project's sources.

use anyhow::{Context, bail};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::board_text::format_line;
use crate::board_view::BoardView;
use crate::case::{Case, CaseSet, EmptySelection};
use crate::cli::{CheckArgs, FunctionArg};
use crate::exit;
use crate::finding::Finding;
use crate::report::student::{self, CheckRun, FirstStepView, Recorder, ShrunkView};
use crate::report::{Status, TestReport};
use crate::runner::calibrate::calibrate;
use crate::runner::grade_plan::{GradePlan, load_cases};
use crate::runner::legal_swap::LegalSwap;
use crate::runner::session::{Next, Session, lang_of, tests_left_out, words_context};
use crate::runner::shrink::{FailureClass, ShrinkBudget, Shrunk, shrink_solve, smaller_case};
use crate::runner::test_run::{Asks, JudgedTest};
use crate::submission::discover::{self, SubmissionKind};
use crate::verdict::{Function, Verdict};
use crate::visible::visible_line;
use crate::words::extra_runs::{Found, Said};

/// Runs `grader check`; see the module docs for the exit codes.
pub fn run(args: &CheckArgs) -> anyhow::Result<u8> {
    if !args.path.exists() {
        bail!(
            "{} does not exist: run `grader check` in your project folder, or name it (a folder with Cargo.toml, a .c, a .py, a .ipynb or a .so file)",
            visible_line(&args.path.to_string_lossy())
        );
    }
    if !discover::is_project(&args.path) {
        // The wrong folder is bad usage (exit 2), not a build error: say
        // what is there (discovery's own words) and name the projects
        // below it.
        let absolute = std::path::absolute(&args.path).unwrap_or_else(|_| args.path.clone());
        let what = match discover::classify(&absolute).kind {
            Err(message) => message,
            Ok(_) => format!(
                "{} is not a lab project",
                visible_line(&args.path.to_string_lossy())
            ),
        };
        let below = discover::projects_below(&args.path);
        let suggestion = match below.as_slice() {
            [] => String::new(),
            found => format!(
                "; did you mean {}?",
                found
                    .iter()
                    .map(|p| {
                        let p = p.strip_prefix(".").unwrap_or(p).to_string_lossy();
                        format!("`grader check {}`", visible_line(&p))
                    })
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        };
        bail!("{what}{suggestion}");
    }
    if args.watch {
        return watch(args);
    }
    check_once(args)
}

/// One check: select the cases, build, run, show.
fn check_once(args: &CheckArgs) -> anyhow::Result<u8> {
    let (plan, _) = prepared(args)?;
    check_with(args, &plan)
}

/// The plan of a check: the cases selected, the tools found, the limits
/// set from the lab's listing in the submission's language (its kind, also
/// returned: a plan serves only a submission of that kind).
fn prepared(args: &CheckArgs) -> anyhow::Result<(GradePlan, Option<SubmissionKind>)> {
    let cases = select_cases(args)?;
    // The sandbox's notices are the instructor's (what the grader's own
    // box lacks on this host); a student is told only what changes a
    // verdict they see.
    let mut plan = GradePlan::prepare(cases, Some(1), &args.path, false)?;
    if args.verbose {
        if let Some(note) = plan.sandbox.student_note() {
            crate::note!("note: {note}");
        }
    }
    // The limits are a multiple of the lab's listing's time in this
    // submission's language, timed here, now.
    let kind = kind_of(args);
    calibrate(&mut plan, kind)?;
    // A student's check keeps their Rust build (the lab crate compiled)
    // for the next one (not the listing's, timed once: it would only
    // leave a file behind); `grade` never does.
    plan.build.rust_cache = true;
    // ... and shows the compiler's warnings about the student's files.
    plan.build.warnings = true;
    Ok((plan, kind))
}

/// The kind of the submission at `args.path`, as discovery tells it now.
fn kind_of(args: &CheckArgs) -> Option<SubmissionKind> {
    let absolute = std::path::absolute(&args.path).unwrap_or_else(|_| args.path.clone());
    discover::classify(&absolute).kind.ok()
}

/// Builds, runs and shows one check under `plan`.
fn check_with(args: &CheckArgs, plan: &GradePlan) -> anyhow::Result<u8> {
    let mut run = run_checks(args, plan);
    run.watching = args.watch;
    let mut out = std::io::stdout().lock();
    if args.json {
        student::write_json(&run, &mut out)?;
    } else {
        student::write_check(&run, args.verbose, &mut out)?;
    }
    out.flush()?;
    Ok(run.exit_code())
}

/// The public cases in the lab's order (smallest boards first, file order
/// within a size), narrowed by `--case` and `--function`.
fn select_cases(args: &CheckArgs) -> anyhow::Result<CaseSet> {
    let mut cases = load_cases(args.cases.as_deref(), false)?;
    if cases.cases.is_empty() {
        bail!("there are no public cases to check against");
    }
    cases.cases.sort_by_key(|case| case.puzzle.n());
    let function = args.function.map(|function| match function {
        FunctionArg::Legal => Function::Legal,
        FunctionArg::FindEmpty => Function::FindEmpty,
        FunctionArg::Solve => Function::Solve,
    });
    match cases.select(args.case.as_deref(), function) {
        Ok(()) => {}
        Err(EmptySelection::NoCaseNamed { names }) => bail!(
            "there is no public case named `{}`: the cases are {}",
            visible_line(args.case.as_deref().unwrap_or_default()),
            names.join(", ")
        ),
        Err(EmptySelection::NoCaseTests(function)) => {
            bail!("no public case tests {}", function.name())
        }
    }
    Ok(cases)
}

/// Builds the submission and runs its tests; never fails: what goes wrong
/// is in the result.
fn run_checks(args: &CheckArgs, plan: &GradePlan) -> CheckRun {
    // An absolute path: a bare `sudoku.c` has an empty parent folder, which
    // a compiler cannot be started in.
    let absolute = std::path::absolute(&args.path).unwrap_or_else(|_| args.path.clone());
    let submission = discover::classify(&absolute);
    let path = args.path.to_string_lossy().into_owned();
    let session = match Session::open(&submission, plan) {
        Ok(session) => session,
        Err(report) => return CheckRun::new(*report, path),
    };
    let kind = session.kind();
    let warnings = session.warnings().to_vec();
    let mut extras = ExtraRuns::new(plan, kind);
    let report = session.run(|session, case, function, judged| {
        extras.after(session, case, function, judged, args);
        if judged.report.verdict != Verdict::Pass && args.fail_fast {
            Next::Stop
        } else {
            Next::Go
        }
    });
    if report.status != Status::Ok {
        return CheckRun::new(report, path);
    }
    let not_run = tests_left_out(plan, &report);
    let submission = report;
    let found = Found {
        shrunk: extras.shrunk,
        first_steps: extras.first_steps,
        legal_swap: extras.legal_swap.seen(),
    };
    // The extra runs' findings worded as the session worded the tests'
    // (`words`): in the language, with what the tests proved together;
    // settled against the tests by the judge.
    let cx = words_context(&submission.tests, not_run == 0, kind, plan);
    let solution_of = |name: &str| {
        let case = plan.cases.cases.iter().find(|c| c.name == name)?;
        case.solution.as_ref()
    };
    let Said {
        shrunk,
        first_steps,
        legal_swap,
    } = found.said(&submission.tests, &cx, solution_of);
    let size_note = submission
        .fixed_size
        .as_ref()
        .map(|size| size.words(lang_of(kind)));
    CheckRun {
        submission,
        shrunk,
        first_steps,
        legal_swap,
        not_run,
        path,
        size_note,
        warnings,
        watching: false,
    }
}

/// The runs `grader check` makes beside the tests, in the same box, none
/// of which changes a verdict: for the first failing `solve` test, its
/// smallest failing board and a traced run's first wrong step; once
/// `legal` fails too, the run with the grader's `legal`.
struct ExtraRuns<'p> {
    shrunk: Vec<ShrunkView>,
    first_steps: Vec<FirstStepView>,
    solve_failed: bool,
    legal_swap: LegalSwap<'p>,
}

impl<'p> ExtraRuns<'p> {
    fn new(plan: &'p GradePlan, kind: SubmissionKind) -> ExtraRuns<'p> {
        ExtraRuns {
            shrunk: Vec::new(),
            first_steps: Vec::new(),
            solve_failed: false,
            legal_swap: LegalSwap::new(plan, kind),
        }
    }

    /// Takes note of one test of the session and makes the runs it calls
    /// for.
    fn after(
        &mut self,
        session: &mut Session<'p>,
        case: &Case,
        function: Function,
        judged: &JudgedTest,
        args: &CheckArgs,
    ) {
        self.legal_swap.after(session, case, function, judged);
        let test = &judged.report;
        let first_solve_failure = function == Function::Solve
            && matches!(test.verdict, Verdict::Wrong | Verdict::Crash)
            && !self.solve_failed;
        if function == Function::Solve && test.verdict != Verdict::Pass {
            self.solve_failed = true;
        }
        if !first_solve_failure || test.fault.is_some() {
            return;
        }
        let small = if args.no_shrink {
            None
        } else {
            let class = FailureClass::of(test.verdict, judged.failure.as_ref());
            shrink_solve(session, case, &class, ShrinkBudget::default())
        };
        if let Some(small) = &small {
            self.shrunk.push(shrunk_view(case, small, test.verdict));
        }
        let traced = small.as_ref().map(|s| smaller_case(case, &s.puzzle));
        self.first_steps
            .extend(first_steps_of(session, case, traced.as_ref(), test));
    }
}

/// The view of `small`, the smallest board found for `case`'s failing
/// `solve` test (whose verdict was `verdict`).
fn shrunk_view(case: &Case, small: &Shrunk, verdict: Verdict) -> ShrunkView {
    let after = small
        .failure
        .as_ref()
        .and_then(|f| f.board.as_ref().map(|b| BoardView::of(b, f.cell)));
    ShrunkView {
        case: case.name.clone(),
        full_board: BoardView::of(&case.puzzle, None),
        small_board: BoardView::of(&small.puzzle, None),
        small_puzzle: format_line(&small.puzzle),
        empty: small.empty,
        original_empty: small.original_empty,
        runs: small.runs,
        ms: small.elapsed.as_secs_f64() * 1000.0,
        stopped_early: small.stopped_early,
        check: small.failure.as_ref().map(|f| f.check),
        // Worded once the whole check is known (`extra_runs::settle`).
        diagnosis: None,
        verdict,
        message: small.message.clone(),
        finding: small.finding.clone(),
        small_after: after,
        after_is_step: small
            .failure
            .as_ref()
            .is_some_and(|f| f.explained_by.is_some_and(|c| c.is_trace_finding())),
    }
}

/// The first wrong step of `case`'s failing `solve` test (`test`), from a
/// traced run on `traced` (its small board) or the case itself. A Python
/// solve's trace words its own failure, except when the recursion ran into
/// Python's limit: its run again, stopped before the limit, keeps the
/// trace.
fn first_steps_of(
    session: &mut Session<'_>,
    case: &Case,
    traced: Option<&Case>,
    test: &TestReport,
) -> Option<FirstStepView> {
    if session.kind() == SubmissionKind::Python {
        let endless =
            test.verdict == Verdict::Crash && test.finding == Some(Finding::RecursionLimit);
        let asks = Asks {
            trace: true,
            deep_stop: true,
            ..Asks::default()
        };
        return endless
            .then(|| first_step_asking(session, traced.unwrap_or(case), case, asks))
            .flatten();
    }
    let mut step = first_step(session, traced.unwrap_or(case), case);
    // A small board can leave the search nothing to do (one cell whose
    // digit is never tried: no write at all); the case's own search then
    // shows which digits were tried, which tells a loop's bound from a
    // return inside it.
    if step.is_none() && traced.is_some() {
        step = first_step(session, case, case);
    }
    // A recursion that changed no cell of the small board (its one write
    // may have hit a cell holding that digit) can show its misplaced
    // writes on the case itself.
    let no_change = |s: &FirstStepView| s.finding == Some(Finding::TooDeepNoChange);
    if traced.is_some() && step.as_ref().is_some_and(no_change) {
        if let Some(on_case) = first_step(session, case, case).filter(|s| !no_change(s)) {
            step = Some(on_case);
        }
    }
    step
}

/// Runs a failing library `solve` once more on `traced` (the shrunk board,
/// or the case itself) with its writes recorded, and returns the first
/// step that breaks the lab's rules, if the trace shows one.
fn first_step(session: &mut Session<'_>, traced: &Case, case: &Case) -> Option<FirstStepView> {
    let asks = Asks {
        trace: true,
        ..Asks::default()
    };
    first_step_asking(session, traced, case, asks)
}

/// [`first_step`] with `asks` for the run (a Python deep stop).
fn first_step_asking(
    session: &mut Session<'_>,
    traced: &Case,
    case: &Case,
    asks: Asks,
) -> Option<FirstStepView> {
    let judged = session.test_asking(traced, Function::Solve, asks);
    let failure = judged.failure?;
    let source = judged.trace_source?;
    let finding = failure.explained_by?;
    let source = match source {
        crate::check::TraceSource::Python => Recorder::Python,
        crate::check::TraceSource::RustBoard => Recorder::RustBoard,
        crate::check::TraceSource::WriteWatch => Recorder::WriteWatch,
    };
    finding.names_a_step().then(|| FirstStepView {
        case: case.name.clone(),
        on_small_board: traced.puzzle != case.puzzle,
        source,
        check: finding,
        finding: failure.finding.as_deref().cloned(),
        message: failure.message.clone(),
        board: failure
            .board
            .as_ref()
            .map(|b| BoardView::of(b, failure.cell)),
    })
}

/// How long the watcher waits for a burst of saves to settle (an editor's
/// save is a write and a rename within a few milliseconds; a longer burst
/// only runs the check once more). Part of every save-to-result time.
const SETTLE: Duration = Duration::from_millis(50);

/// `--watch`: check, then again after every change of a source file under
/// the project (not its build products), clearing the screen between runs.
fn watch(args: &CheckArgs) -> anyhow::Result<u8> {
    use notify::{RecursiveMode, Watcher};
    // Absolute, so that event paths can be made relative to it (and a
    // hidden folder above the project does not hide every change).
    let root = watched_root(&args.path);
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            let _ = tx.send(event);
        }
    })
    .context("cannot watch the project for changes")?;
    watcher
        .watch(&root, RecursiveMode::Recursive)
        .with_context(|| format!("cannot watch {}", visible_line(&root.to_string_lossy())))?;
    let clear = std::io::stdout().is_terminal();
    let mut plan: Option<(GradePlan, Option<SubmissionKind>)> = None;
    loop {
        if clear {
            // Clear the screen and move home: a fresh page per run.
            if write!(std::io::stdout(), "\x1b[2J\x1b[H").is_err() {
                return Ok(exit::SUCCESS);
            }
        }
        // The plan (tools found, limits set) serves every save of a
        // submission of the same kind; a new kind gets its own.
        let kind = kind_of(args);
        if plan.as_ref().is_none_or(|(_, k)| *k != kind) {
            plan = None;
            match prepared(args) {
                Ok(made) => plan = Some(made),
                Err(err) if exit::is_broken_pipe(&err) => return Ok(exit::SUCCESS),
                Err(err) => eprintln!("error: {err:#}"),
            }
        }
        let checked = match &plan {
            Some((plan, _)) => check_with(args, plan),
            None => Ok(exit::USAGE_OR_INPUT),
        };
        let code = match checked {
            Ok(code) => code,
            Err(err) if exit::is_broken_pipe(&err) => return Ok(exit::SUCCESS),
            Err(err) => {
                eprintln!("error: {err:#}");
                exit::USAGE_OR_INPUT
            }
        };
        let footer = writeln!(
            std::io::stdout(),
            "\n[watching {} for changes; exit code would be {code}; Ctrl-C to stop]",
            visible_line(&root.to_string_lossy())
        );
        if footer.is_err() {
            // Nobody reads any more (`grader check --watch | head`).
            return Ok(exit::SUCCESS);
        }
        // Wait for a change to a source, then let the burst settle.
        loop {
            let event = rx.recv().context("the file watcher stopped")?;
            // Reads (the compiler opening a source) are not changes; a
            // file closed after writing is (some copies emit nothing else).
            use notify::event::{AccessKind, AccessMode, EventKind};
            let changed = matches!(
                event.kind,
                EventKind::Create(_)
                    | EventKind::Modify(_)
                    | EventKind::Remove(_)
                    | EventKind::Access(AccessKind::Close(AccessMode::Write))
            );
            if changed && event.paths.iter().any(|p| is_source(&root, p)) {
                break;
            }
        }
        let settle_until = Instant::now() + SETTLE;
        while let Some(left) = settle_until.checked_duration_since(Instant::now()) {
            if rx.recv_timeout(left).is_err() {
                break;
            }
        }
    }
}

/// The folder to watch: the project folder, or a single file's folder.
fn watched_root(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    }
}

/// True for a change worth a re-run: a source or manifest, not a build
/// product (`target/`, `build/`, `__pycache__/`, hidden files).
fn is_source(root: &Path, path: &Path) -> bool {
    let Ok(relative) = path.strip_prefix(root) else {
        return false;
    };
    let skipped = relative.components().any(|part| {
        let part = part.as_os_str().to_string_lossy();
        part == "target" || part == "build" || part == "__pycache__" || part.starts_with('.')
    });
    if skipped {
        return false;
    }
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("c" | "h" | "rs" | "py" | "ipynb" | "toml" | "so")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sources_trigger_a_rerun() {
        let root = Path::new("proj");
        assert!(is_source(root, Path::new("proj/sudoku.c")));
        assert!(is_source(root, Path::new("proj/sudoku.ipynb")));
        assert!(is_source(root, Path::new("proj/src/lib.rs")));
        assert!(is_source(root, Path::new("proj/Cargo.toml")));
        assert!(!is_source(root, Path::new("proj/target/debug/x.rs")));
        assert!(!is_source(root, Path::new("proj/build/libsudoku.so")));
        assert!(!is_source(root, Path::new("proj/.sudoku.c.swp")));
        assert!(!is_source(root, Path::new("proj/README.md")));
        assert!(!is_source(root, Path::new("elsewhere/sudoku.c")));
        let hidden_above = Path::new("/tmp/.tmp123/proj");
        assert!(is_source(
            hidden_above,
            Path::new("/tmp/.tmp123/proj/sudoku.c")
        ));
    }

    #[test]
    fn the_watched_folder_of_a_file_is_its_parent() {
        assert_eq!(watched_root(Path::new("sudoku.c")), PathBuf::from("."));
        assert_eq!(watched_root(Path::new("a/sudoku.c")), PathBuf::from("a"));
    }
}
