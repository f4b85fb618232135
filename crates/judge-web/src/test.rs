//! One test: its request for the Python harness (the plan) and what its
//! run came to (the judgement), for a case of the loaded set or a smaller
//! board of one (a shrink's try).
//!
//! How a run ended is told by the engine, which saw it: the harness
//! returned (its protocol lines decide, as the native outcome's do), the
//! wall-clock limit stopped it (interrupt, or the worker terminated), or
//! the interpreter was lost (Pyodide's fatal error, the worker died). The
//! harness's lines are read as the grader reads them: a `done` counts
//! only after `loaded`, alone.

use grader_judge::case::Case;
use grader_judge::check::{self, Failure, Judgement, Probe, Response, TraceSource, WriteTrace};
use grader_judge::shrink::smaller_case;
use grader_judge::verdict::{Fault, FaultKind, Function, Verdict};
use serde::{Deserialize, Serialize};
use sudoku_lab::Board;

use grader_judge::board_view::BoardView;
use grader_judge::finding::Finding;
use grader_judge::report::TestReport;
use grader_judge::words::legal_swap::{self, LegalSwap, Observed};

use crate::cases;
use crate::report::{fail, passing};

/// Which test: a case's function, or `solve` on a smaller board of it.
#[derive(Deserialize)]
pub(crate) struct Which {
    case: String,
    function: Function,
    /// A shrink's board (row-major cells), in place of the case's puzzle.
    #[serde(default)]
    puzzle: Option<Vec<u8>>,
}

impl Which {
    /// The case the test runs on: the loaded one, or a smaller one.
    fn case(&self) -> Result<(Case, u64), String> {
        cases::with(|set| {
            let case = cases::find(set, &self.case)?;
            let planned = cases::planned_ms(set, case);
            match &self.puzzle {
                None => Ok((case.clone(), planned)),
                Some(cells) => {
                    let board = Board::from_cells(case.puzzle.n(), cells.clone())
                        .map_err(|e| format!("a shrink's board is not a board: {e}"))?;
                    Ok((smaller_case(case, &board), planned))
                }
            }
        })
    }
}

/// What the harness is asked ([`request`]): everything but the student's
/// source and file name, which the engine adds.
#[derive(Serialize)]
pub(crate) struct HarnessRequest {
    probe: Probe,
    trace: bool,
    trace_cap: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    deep_stop: bool,
    /// The planned limit, in ms, that the engine's wall-clock limit is a
    /// multiple of.
    planned_ms: u64,
    /// That multiple (`grader.toml`'s `time_limit_factor`).
    factor: u64,
}

/// [`request`]'s input.
#[derive(Deserialize)]
pub(crate) struct AskRequest {
    #[serde(flatten)]
    which: Which,
    /// Stop a `solve` that nests deeper than a search needs, with its trace.
    #[serde(default)]
    deep_stop: bool,
}

/// The harness request of a test: its probe, traced as every Python test is.
pub(crate) fn request(input: AskRequest) -> Result<HarnessRequest, String> {
    let (case, planned_ms) = input.which.case()?;
    let factor = cases::with(|set| Ok(cases::factor(set)))?;
    Ok(HarnessRequest {
        factor,
        probe: check::plan(&case, input.which.function),
        trace: true,
        trace_cap: check::trace::TRACE_CAP,
        deep_stop: input.deep_stop,
        planned_ms,
    })
}

/// How the engine saw a run end.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum Ended {
    /// The harness returned; its lines tell the rest.
    Returned,
    /// The wall-clock limit stopped it.
    Timeout,
    /// The interpreter was lost (a fatal error, the worker died).
    Lost,
}

/// A protocol line of the harness, as far as the judge reads it.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Line {
    Loading,
    Loaded,
    LoadError {
        message: String,
        #[serde(default)]
        missing_module: Option<String>,
    },
    Trace {
        trace: WriteTrace,
    },
    Exception {
        name: String,
        message: String,
    },
    Done {
        response: Response,
    },
    LegalSwap(LegalSwap),
    #[serde(other)]
    Other,
}

/// [`judge`]'s input: the test, and how its run went.
#[derive(Deserialize)]
pub(crate) struct Ran {
    #[serde(flatten)]
    which: Which,
    ended: Ended,
    /// The harness's protocol lines, in order.
    #[serde(default)]
    messages: Vec<serde_json::Value>,
    /// What the student's code printed.
    #[serde(default)]
    output: String,
    /// Wall-clock ms the run took.
    wall_ms: f64,
    /// The wall-clock limit it had, in ms.
    limit_ms: u64,
    /// For `lost`: what the engine saw (Pyodide's or the worker's error).
    #[serde(default)]
    why: String,
}

/// The failed check of a `wrong` test, for a shrink's comparison and the
/// first step a trace shows.
#[derive(Serialize)]
pub(crate) struct FailureView {
    check: check::Check,
    explained_by: Option<check::Check>,
    /// The trace's check words it (`solve.trace.*`): a first step.
    trace_finding: bool,
    finding: Option<Finding>,
    message: String,
    board: Option<BoardView>,
}

/// What a test came to.
#[derive(Serialize)]
pub(crate) struct Judged {
    /// The test's report, as in `grader check --json`.
    pub(crate) report: TestReport,
    /// The code got as far as being loaded.
    pub(crate) loaded: bool,
    /// For `wrong`: the failed check.
    pub(crate) failure: Option<FailureView>,
    /// Who recorded the trace the test was judged with.
    pub(crate) trace_source: Option<TraceSource>,
    /// For a run with the grader's `legal` in place of the student's
    /// (`reference_legal`): what it showed, if anything.
    pub(crate) legal_swap: Option<Observed>,
    /// For an import of a module Python cannot find: its name (the
    /// harness's finding, for the load error's hint).
    pub(crate) missing_module: Option<String>,
}

/// The longest message kept from the harness, as the native outcome cuts.
const MESSAGE_CAP: usize = 4000;

/// Judges a run: its outcome from how it ended and the harness's lines,
/// then, when `solve`, `legal` or `find_empty` answered, the answers
/// against the rule and the reference with the write trace.
pub(crate) fn judge(ran: Ran) -> Result<Judged, String> {
    let (case, _) = ran.which.case()?;
    let function = ran.which.function;
    let policy = cases::with(|set| Ok(set.config.find_empty_policy))?;
    let lines: Vec<Line> = ran
        .messages
        .iter()
        .map(|m| serde_json::from_value(m.clone()).unwrap_or(Line::Other))
        .collect();
    let loaded = lines.iter().any(|l| matches!(l, Line::Loaded));
    let started = lines.iter().any(|l| matches!(l, Line::Loading));
    let mut report = passing(&case, function);
    report.output = ran.output.clone();
    report.wall_ms = Some(ran.wall_ms.round());
    let mut judged = Judged {
        report,
        loaded,
        failure: None,
        trace_source: None,
        legal_swap: None,
        missing_module: None,
    };
    let load_error = lines.iter().find_map(|l| match l {
        Line::LoadError { message, .. } if !loaded => Some(message.as_str()),
        _ => None,
    });
    judged.missing_module = lines.iter().find_map(|l| match l {
        Line::LoadError { missing_module, .. } if !loaded => missing_module.clone(),
        _ => None,
    });
    let exception = lines.iter().find_map(|l| match l {
        Line::Exception { name, message } => Some((name.as_str(), message.as_str())),
        _ => None,
    });
    let seconds = ran.limit_ms as f64 / 1000.0;
    match ran.ended {
        _ if load_error.is_some() => {
            fail(
                &mut judged.report,
                Verdict::Error,
                cut(load_error.unwrap_or_default()),
            );
        }
        Ended::Timeout if !loaded => fail(
            &mut judged.report,
            Verdict::Timeout,
            format!(
                "your file did not finish being imported within {seconds:.0} s of wall-clock time (a loop at the top level?); \
                 in the browser this limit is advisory: `grader check` on Linux measures CPU time"
            ),
        ),
        Ended::Timeout => fail(
            &mut judged.report,
            Verdict::Timeout,
            format!(
                "did not finish within {seconds:.0} s of wall-clock time (an endless loop, or too slow?); \
                 in the browser this limit is advisory, a generous multiple of what the lab's listing needs: \
                 `grader check` on Linux measures CPU time"
            ),
        ),
        Ended::Returned | Ended::Lost if exception.is_some() => {
            let (name, message) = exception.unwrap_or_default();
            let verdict = if name == "MemoryError" {
                Verdict::Memory
            } else {
                Verdict::Crash
            };
            fail(&mut judged.report, verdict, cut(message));
            if name == "RecursionError" {
                judged.report.finding = Some(Finding::RecursionLimit);
            }
        }
        Ended::Lost => fail(
            &mut judged.report,
            lost_verdict(&ran.why),
            lost_message(&ran.why, started),
        ),
        Ended::Returned => {
            let mut dones = lines
                .iter()
                .skip_while(|l| !matches!(l, Line::Loaded))
                .filter_map(|l| match l {
                    Line::Done { response } => Some(response),
                    _ => None,
                });
            match (dones.next(), dones.next()) {
                (Some(response), None) => {
                    judge_answers(&mut judged, &case, policy, response, &lines)
                }
                _ => fail(
                    &mut judged.report,
                    Verdict::Crash,
                    "ended before returning an answer (exit called in your code?)".to_string(),
                ),
            }
            judged.report.time_ms = Some(ran.wall_ms);
        }
    }
    // The run with the grader's legal: its last line after loading.
    let said = lines
        .iter()
        .skip_while(|l| !matches!(l, Line::Loaded))
        .filter_map(|l| match l {
            Line::LegalSwap(said) => Some(said),
            _ => None,
        })
        .last();
    judged.legal_swap =
        legal_swap::observed(judged.report.verdict, judged.report.fault.is_some(), said);
    Ok(judged)
}

/// The answers judged, with the trace when there is one.
fn judge_answers(
    judged: &mut Judged,
    case: &Case,
    policy: grader_judge::case::FindEmptyPolicy,
    response: &Response,
    lines: &[Line],
) {
    let probe = check::plan(case, judged.report.function);
    let trace = lines.iter().rev().find_map(|l| match l {
        Line::Trace { trace } => Some(trace),
        _ => None,
    });
    judged.trace_source = trace.map(|t| t.source);
    let (judgement, summary) = check::judge_traced(case, policy, &probe, response, trace);
    match judgement {
        Judgement::Pass => {
            judged.report.message = summary.map(|s| s.to_string()).unwrap_or_default();
        }
        Judgement::Wrong(failure) => {
            fail(&mut judged.report, Verdict::Wrong, failure.message.clone());
            judged.report.check = Some(failure.check);
            judged.report.finding = failure.finding.as_deref().cloned();
            judged.report.board = failure
                .board
                .as_ref()
                .map(|b| BoardView::of(b, failure.cell));
            judged.failure = Some(failure_view(&failure));
        }
        Judgement::BadProbe(error) => {
            fail(
                &mut judged.report,
                Verdict::Error,
                format!("{error}; please report it"),
            );
            judged.report.fault = Some(Fault::grader(FaultKind::BadProbe));
        }
    }
}

fn failure_view(failure: &Failure) -> FailureView {
    FailureView {
        check: failure.check,
        explained_by: failure.explained_by,
        trace_finding: failure.explained_by.is_some_and(|c| c.is_trace_finding()),
        finding: failure.finding.as_deref().cloned(),
        message: failure.message.clone(),
        board: failure
            .board
            .as_ref()
            .map(|b| BoardView::of(b, failure.cell)),
    }
}

/// The verdict of a lost interpreter: what the engine saw says which.
fn lost_verdict(why: &str) -> Verdict {
    if why.to_ascii_lowercase().contains("out of memory") {
        Verdict::Memory
    } else {
        Verdict::Crash
    }
}

/// The message of a lost interpreter, with what the engine saw.
fn lost_message(why: &str, started: bool) -> String {
    let when = if started {
        "while running your code"
    } else {
        "before your code ran"
    };
    let lower = why.to_ascii_lowercase();
    if lower.contains("maximum call stack") {
        return format!(
            "recursed too deep: the browser's stack ran out {when} (RangeError: Maximum call stack size exceeded)"
        );
    }
    if lower.contains("out of memory") {
        return format!("ran out of memory: the browser's Python ran out of memory {when}");
    }
    let why = why.lines().next().unwrap_or("").trim();
    format!("the browser's Python stopped {when}: {}", cut(why))
}

/// `message` cut to [`MESSAGE_CAP`] bytes, at a character boundary.
fn cut(message: &str) -> String {
    let mut end = message.len().min(MESSAGE_CAP);
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    message[..end].to_string()
}
