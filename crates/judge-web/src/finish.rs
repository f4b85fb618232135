//! The end of a check: the tests the engine ran, judged, worded once as
//! `grader check` words them (the judge's `words`: in Python's spelling,
//! with what the tests proved together), the report `grader check
//! --json` writes, and the student's view (`words::student::view`) as
//! lines and as plain text.

use grader_judge::case::Solutions;
use grader_judge::finding::Lang;
use grader_judge::report::{Status, TestReport};
use grader_judge::words::across::FixedSize;
use grader_judge::words::extra_runs::{Found, Said};
use grader_judge::words::student::{self, CheckView, FirstStepView, Line, ShrunkView, SwapNote};
use grader_judge::words::{self, Context};
use serde::{Deserialize, Serialize};

use crate::cases;
use crate::report::{CheckReport, SubmissionReport, not_run};

/// [`finish`]'s input.
#[derive(Deserialize)]
pub(crate) struct Finish {
    /// The file checked, as named.
    path: String,
    /// The reports of the tests that ran, in order, as `judge` made them.
    #[serde(default)]
    tests: Vec<TestReport>,
    /// Smallest failing boards, their messages as the judge said them.
    #[serde(default)]
    shrunk: Vec<ShrunkView>,
    /// The first step that breaks the lab's rules, of a failing `solve`
    /// whose trace shows one (an endless recursion run again with the
    /// deep stop).
    #[serde(default)]
    first_steps: Vec<FirstStepView>,
    /// The code could not be loaded: why.
    #[serde(default)]
    load_error: Option<String>,
    /// The load error was an import of a module Python cannot find: its
    /// name (the harness's finding).
    #[serde(default)]
    missing_module: Option<String>,
    /// The file could not be made into a program (a notebook that cannot
    /// be read): why.
    #[serde(default)]
    build_error: Option<String>,
    /// What the student should know about how the file was read (a
    /// notebook's cells).
    #[serde(default)]
    notes: Vec<String>,
    /// Every failing test in full (`grader check -v`).
    #[serde(default)]
    verbose: bool,
}

/// The check's report, its view and exit code.
#[derive(Serialize)]
pub(crate) struct Finished {
    report: CheckReport,
    /// The student's view: styled spans and boards as data.
    view: Vec<Line>,
    /// The same, as the plain lines `grader check` prints.
    lines: Vec<String>,
    exit_code: u8,
}

/// The language of every submission the engine checks.
const LANG: Option<Lang> = Some(Lang::Python);

/// How far the check got, its message, its tests and a load error's hint
/// (as `grader check` words it).
fn status_of(
    build_error: Option<String>,
    load_error: Option<String>,
    missing_module: Option<&str>,
    tests: Vec<TestReport>,
) -> Result<(Status, String, Vec<TestReport>, Option<String>), String> {
    let (status, message, tests) = match (build_error, load_error) {
        (Some(message), _) => (
            Status::BuildError,
            message,
            cases::with(|set| Ok(not_run(&set.cases, "built")))?,
        ),
        (None, Some(message)) => (
            Status::LoadError,
            message,
            cases::with(|set| Ok(not_run(&set.cases, "loaded")))?,
        ),
        (None, None) => (Status::Ok, String::new(), tests),
    };
    // A load error's hint, as `grader check` words it.
    let hint = match (status, missing_module) {
        (Status::LoadError, Some(name)) => cases::with(|set| {
            Ok(words::load_hints::missing_module(
                name,
                &set.config.python_modules,
            ))
        })?,
        _ => None,
    };
    Ok((status, message, tests, hint))
}

/// What the finish needs of the loaded cases.
struct CaseFacts {
    /// The tests planned.
    planned: usize,
    /// The cases whose puzzle has no solution.
    unsolvable: Vec<String>,
    /// Each case's name, box size and description.
    sizes: Vec<(String, usize, Option<String>)>,
}

/// [`CaseFacts`] of the loaded cases.
fn case_facts() -> Result<CaseFacts, String> {
    cases::with(|set| {
        let planned: usize = set.cases.iter().map(|c| c.tests.len()).sum();
        let unsolvable: Vec<String> = set
            .cases
            .iter()
            .filter(|c| c.solutions == Some(Solutions::None))
            .map(|c| c.name.clone())
            .collect();
        let sizes: Vec<(String, usize, Option<String>)> = set
            .cases
            .iter()
            .map(|c| (c.name.clone(), c.puzzle.n(), c.description.clone()))
            .collect();
        Ok(CaseFacts {
            planned,
            unsolvable,
            sizes,
        })
    })
}

/// Puts the check together.
pub(crate) fn finish(input: Finish) -> Result<Finished, String> {
    let id = std::path::Path::new(&input.path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (status, message, mut tests, hint) = status_of(
        input.build_error,
        input.load_error,
        input.missing_module.as_deref(),
        input.tests,
    )?;
    let CaseFacts {
        planned,
        unsolvable,
        sizes,
    } = case_facts()?;
    // What the JSON leaves out, from the cases: the description and side.
    for test in &mut tests {
        if let Some((_, n, description)) = sizes.iter().find(|(name, _, _)| *name == test.case) {
            test.description = description.clone();
            test.side = Some(n * n);
        }
    }
    let not_run_count = planned.saturating_sub(tests.len());
    let mut size_note = None;
    let mut said = Said::default();
    if status == Status::Ok {
        // Worded once, as the session and `grader check` word them.
        let cx = Context::of(&tests, not_run_count == 0, LANG, |name| {
            unsolvable.iter().any(|u| u == name)
        });
        words::word_tests(&mut tests, &cx);
        // The extra runs worded and settled, as `grader check` does.
        let found = Found {
            shrunk: input.shrunk,
            first_steps: input.first_steps,
            legal_swap: crate::swap::seen(),
        };
        said = cases::with(|set| {
            let solution_of = |name: &str| {
                let case = set.cases.iter().find(|c| c.name == name)?;
                case.solution.as_ref()
            };
            Ok(found.said(&tests, &cx, solution_of))
        })?;
        let size_of = |name: &str| sizes.iter().find(|(c, _, _)| c == name).map(|(_, n, _)| *n);
        size_note = FixedSize::of(&tests, size_of).map(|size| size.words(LANG));
    }
    let mut report = CheckReport {
        version: 1,
        path: input.path,
        exit_code: 0,
        hidden_tests_also_count: true,
        not_run: not_run_count,
        submission: SubmissionReport {
            id,
            kind: Some("python".to_string()),
            status,
            message,
            hint: hint.clone(),
            notes: input.notes,
            score: tests.iter().map(|t| t.points).sum(),
            max_score: tests.iter().map(|t| t.max_points).sum(),
            tests,
        },
        shrunk: said.shrunk,
        first_steps: said.first_steps,
        legal_swap: said.legal_swap,
        size_note,
        engine: "pyodide: time limits are wall-clock and advisory",
    };
    report.exit_code = report.exit_code();
    let check = CheckView {
        path: report.path.clone(),
        lang: LANG,
        status: report.submission.status,
        grader_fault: report.grader_fault(),
        message: report.submission.message.clone(),
        hint,
        notes: report.submission.notes.clone(),
        tests: report.submission.tests.clone(),
        shrunk: report.shrunk.clone(),
        first_steps: report.first_steps.clone(),
        legal_swap: report.legal_swap.as_ref().map(|s| SwapNote {
            case: s.case.clone(),
            says: s.says.clone(),
            blames_legal: s.blames_legal(),
        }),
        not_run: report.not_run,
        size_note: report.size_note.clone(),
        // Python has no compiler to warn.
        warnings: Vec::new(),
        watching: false,
    };
    let view = student::view(&check, input.verbose);
    let lines = student::plain_text(&view)
        .lines()
        .map(str::to_string)
        .collect();
    Ok(Finished {
        exit_code: report.exit_code,
        report,
        view,
        lines,
    })
}
