//! The case model (SPEC 3): a case, its answers, a folder's defaults and
//! the default limits. Read from text by `load.rs` and `config.rs`.

use std::path::PathBuf;
use sudoku_lab::Board;

use crate::verdict::Function;

/// The per-test time limit SPEC 3 names as the default, in milliseconds:
/// what a test gets when neither a pinned limit nor a timing of the lab's
/// listing applies (the default is a multiple of the listing's time).
pub const DEFAULT_TIME_LIMIT_MS: u64 = 1000;

/// How many times the lab's listing's CPU time a test may use, unless
/// `grader.toml` says otherwise (`time_limit_factor`).
pub const DEFAULT_TIME_LIMIT_FACTOR: u64 = 20;

/// The least limit such a multiple gives the C listing, in milliseconds
/// (`time_limit_floor_ms`; the multiple that gives it holds in every
/// language, see the grader's `runner::limits`): far enough above a test's start-up (a fork and
/// a `dlopen`, or an interpreter) that a memory bomb meets the memory
/// limit before it, and that no bundled bug fixture's search ends near it.
pub const DEFAULT_TIME_LIMIT_FLOOR_MS: u64 = 500;

/// Default per-test memory limit, in MiB (SPEC 3).
pub const DEFAULT_MEMORY_LIMIT_MB: u64 = 256;

/// Which empty cell `find_empty` must report (`grader.toml`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindEmptyPolicy {
    /// Any empty cell is right.
    #[default]
    Any,
    /// The first empty cell in reading order, as in the seed's listing.
    First,
    /// A cell with the fewest legal digits.
    Fewest,
}

/// Defaults for the cases of one folder, from its `grader.toml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseConfig {
    /// Per-test time limit pinned for every case that does not set its
    /// own; `None`: each test's limit is a multiple of the lab's listing's
    /// time on the host (the grader's `runner::limits`).
    pub time_limit_ms: Option<u64>,
    /// That multiple: a test may use this many times the CPU time the
    /// listing needs for it, in the submission's language.
    pub time_limit_factor: u64,
    /// The least limit a multiple gives, in ms.
    pub time_limit_floor_ms: u64,
    /// Per-test memory limit.
    pub memory_limit_mb: u64,
    /// What `find_empty` must return.
    pub find_empty_policy: FindEmptyPolicy,
    /// Modules beyond the standard library that Python submissions may
    /// import (`python_modules = ["numpy"]`): top-level names, each
    /// installed for the grading host's `python3`, added read-only to the
    /// Python box's view (the grader's `worker::python::allow_modules`).
    pub python_modules: Vec<String>,
}

impl Default for CaseConfig {
    fn default() -> Self {
        CaseConfig {
            time_limit_ms: None,
            time_limit_factor: DEFAULT_TIME_LIMIT_FACTOR,
            time_limit_floor_ms: DEFAULT_TIME_LIMIT_FLOOR_MS,
            memory_limit_mb: DEFAULT_MEMORY_LIMIT_MB,
            find_empty_policy: FindEmptyPolicy::Any,
            python_modules: Vec::new(),
        }
    }
}

/// How many solutions the reference found: 0, 1, or 2 meaning "two or more".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Solutions {
    /// No solution.
    None,
    /// Exactly one.
    Unique,
    /// Two or more.
    Many,
}

impl Solutions {
    /// From a count capped at 2.
    pub fn from_count(count: u32) -> Solutions {
        match count {
            0 => Solutions::None,
            1 => Solutions::Unique,
            _ => Solutions::Many,
        }
    }

    /// As written in case files: 0, 1 or 2.
    pub fn as_number(self) -> u8 {
        match self {
            Solutions::None => 0,
            Solutions::Unique => 1,
            Solutions::Many => 2,
        }
    }
}

/// One test case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Unique within its folder.
    pub name: String,
    /// One line a student sees about it, if the author wrote one.
    pub description: Option<String>,
    /// The start board.
    pub puzzle: Board,
    /// Points per test.
    pub points: u32,
    /// Graded, but never shown by `grader check`.
    pub hidden: bool,
    /// The functions tested, in the order given.
    pub tests: Vec<Function>,
    /// The case's own time limit, overriding `grader.toml`.
    pub time_limit_ms: Option<u64>,
    /// Written by `grader reference`; `None` until it has run.
    pub solutions: Option<Solutions>,
    /// Written by `grader reference` iff `solutions` is at least one.
    pub solution: Option<Board>,
    /// The file the case came from.
    pub file: PathBuf,
    /// The 1-based line of its `[[case]]` header in that file.
    pub line: usize,
}

/// All the cases of one folder (or list of files), with their defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseSet {
    /// From `grader.toml`, or the defaults.
    pub config: CaseConfig,
    /// In file order, files sorted by name.
    pub cases: Vec<Case>,
}

/// Why a selection of the cases ([`CaseSet::select`]) left none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmptySelection {
    /// No case has the name asked for; these are the names there are.
    NoCaseNamed {
        /// Every case's name, in order.
        names: Vec<String>,
    },
    /// No case (of those kept) tests the function asked for.
    NoCaseTests(Function),
}

impl CaseSet {
    /// Keeps the case named `case`, when given, and of each case the test
    /// of `function`, when given, dropping the cases left with none: what
    /// `grader check --case NAME --function F` checks.
    ///
    /// # Errors
    /// When no case is left, saying why.
    pub fn select(
        &mut self,
        case: Option<&str>,
        function: Option<Function>,
    ) -> Result<(), EmptySelection> {
        if let Some(name) = case {
            let names: Vec<String> = self.cases.iter().map(|c| c.name.clone()).collect();
            self.cases.retain(|c| c.name == name);
            if self.cases.is_empty() {
                return Err(EmptySelection::NoCaseNamed { names });
            }
        }
        if let Some(function) = function {
            for case in &mut self.cases {
                case.tests.retain(|&f| f == function);
            }
            self.cases.retain(|c| !c.tests.is_empty());
            if self.cases.is_empty() {
                return Err(EmptySelection::NoCaseTests(function));
            }
        }
        Ok(())
    }
}
