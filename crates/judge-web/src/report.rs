//! The check's report in the shape of `grader check --json`, the board
//! pictures as data, and the closing: the submission's status, score and
//! exit code (`grader check`'s: 0 all pass, 1 a test failed, 2 the
//! checker failed, 3 the code did not load).

use grader_judge::board_text::format_line;
use grader_judge::case::Case;
use grader_judge::check::Check;
use grader_judge::verdict::{Fault, Function, Verdict};
use serde::{Deserialize, Serialize};
use sudoku_lab::Board;

/// One test's result, as the grader's report writes it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct TestReport {
    pub(crate) case: String,
    pub(crate) function: Function,
    pub(crate) verdict: Verdict,
    pub(crate) points: u32,
    pub(crate) max_points: u32,
    pub(crate) time_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) wall_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) check: Option<Check>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fault: Option<Fault>,
    pub(crate) message: String,
    pub(crate) output: String,
    /// The case's description (for the view; not in the native JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
}

impl TestReport {
    /// A passing test of `case`'s `function`, until told otherwise.
    pub(crate) fn new(case: &Case, function: Function) -> TestReport {
        TestReport {
            case: case.name.clone(),
            function,
            verdict: Verdict::Pass,
            points: case.points,
            max_points: case.points,
            time_ms: None,
            wall_ms: None,
            check: None,
            fault: None,
            message: String::new(),
            output: String::new(),
            description: case.description.clone(),
        }
    }

    /// The test failed with `verdict`: no points, `message`.
    pub(crate) fn fail(&mut self, verdict: Verdict, message: String) {
        self.verdict = verdict;
        self.points = 0;
        self.message = message;
    }
}

/// A board for a person to see: its cells and the cell in question.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct BoardView {
    /// Box size.
    pub(crate) n: usize,
    /// Row-major cells, 0 for empty.
    pub(crate) cells: Vec<u8>,
    /// The marked cell, `[row, col]` from 0.
    pub(crate) marked: Option<[usize; 2]>,
}

impl BoardView {
    pub(crate) fn of(board: &Board, cell: Option<(usize, usize)>) -> BoardView {
        BoardView {
            n: board.n(),
            cells: board.cells().to_vec(),
            marked: cell.map(|(r, c)| [r, c]),
        }
    }
}

/// The smallest board a failing `solve` still fails on, as the engine's
/// shrink found it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ShrunkView {
    pub(crate) case: String,
    pub(crate) full_board: BoardView,
    pub(crate) small_board: BoardView,
    #[serde(default)]
    pub(crate) small_puzzle: String,
    pub(crate) empty: usize,
    pub(crate) original_empty: usize,
    pub(crate) runs: usize,
    pub(crate) ms: f64,
    pub(crate) stopped_early: bool,
    pub(crate) verdict: Verdict,
    pub(crate) message: String,
    pub(crate) small_after: Option<BoardView>,
    #[serde(default)]
    pub(crate) after_is_step: bool,
}

impl ShrunkView {
    /// Fills in what the engine need not send: the small puzzle as text.
    pub(crate) fn complete(&mut self) {
        if let Ok(board) = Board::from_cells(self.small_board.n, self.small_board.cells.clone()) {
            self.small_puzzle = format_line(&board);
        }
    }
}

/// How far the check got.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Ok,
    BuildError,
    LoadError,
    GraderError,
}

/// The submission, as `grader check --json` has it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct SubmissionReport {
    pub(crate) id: String,
    pub(crate) kind: Option<String>,
    pub(crate) status: Status,
    pub(crate) message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) notes: Vec<String>,
    pub(crate) score: u32,
    pub(crate) max_score: u32,
    pub(crate) tests: Vec<TestReport>,
}

/// The whole check, as `grader check --json` has it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct CheckReport {
    pub(crate) version: u32,
    pub(crate) path: String,
    pub(crate) exit_code: u8,
    pub(crate) hidden_tests_also_count: bool,
    pub(crate) not_run: usize,
    pub(crate) submission: SubmissionReport,
    pub(crate) shrunk: Vec<ShrunkView>,
    pub(crate) first_steps: Vec<serde_json::Value>,
    pub(crate) legal_swap: Option<serde_json::Value>,
    pub(crate) size_note: Option<String>,
    /// Where the check ran, and that its time limits were wall-clock.
    pub(crate) engine: &'static str,
}

impl CheckReport {
    /// `grader check`'s exit code for this report.
    pub(crate) fn exit_code(&self) -> u8 {
        let sub = &self.submission;
        let fault =
            sub.status == Status::GraderError || sub.tests.iter().any(|t| t.fault.is_some());
        if fault {
            2
        } else if sub.status != Status::Ok {
            3
        } else if sub.tests.iter().all(|t| t.verdict == Verdict::Pass) {
            0
        } else {
            1
        }
    }
}

/// What the engine says when no test ran past loading: every planned test
/// `error`, as `grader check` lists them.
pub(crate) fn not_run(cases: &[Case], could_not_be: &str) -> Vec<TestReport> {
    cases
        .iter()
        .flat_map(|case| {
            case.tests.iter().map(move |&function| {
                let mut test = TestReport::new(case, function);
                test.fail(
                    Verdict::Error,
                    format!("not run: the submission could not be {could_not_be}"),
                );
                test
            })
        })
        .collect()
}
