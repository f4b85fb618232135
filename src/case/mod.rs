//! Test cases (SPEC 3): the in-memory model; reading it from TOML case
//! files and a folder's `grader.toml` (load.rs, config.rs, with span.rs
//! placing errors), and writing case files (write.rs: the answers
//! `grader reference` fills in, the cases `grader generate` appends, each
//! file replaced atomically).

mod builtin;
mod config;
mod error;
pub mod listing;
mod load;
mod span;
mod write;

pub use builtin::{builtin, builtin_source};
pub use config::{CONFIG_FILE, parse_config};
pub use error::CaseError;
pub use listing::{LISTING_WALK_CAP, ListingCost};
pub use load::load;
pub(crate) use load::{
    Answers, StoredAnswers, StoredListing, case_files, check_unique, completes, parse_file,
};
pub(crate) use write::{
    Fill, NewCase, ReferenceAnswer, append_cases, fill_answers, write_atomically,
};

use std::path::PathBuf;
use sudoku_lab::Board;

use crate::verdict::Function;

/// Default per-test time limit, in milliseconds (SPEC 3).
pub const DEFAULT_TIME_LIMIT_MS: u64 = 1000;

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
    /// Per-test time limit, unless a case sets its own.
    pub time_limit_ms: u64,
    /// Per-test memory limit.
    pub memory_limit_mb: u64,
    /// What `find_empty` must return.
    pub find_empty_policy: FindEmptyPolicy,
}

impl Default for CaseConfig {
    fn default() -> Self {
        CaseConfig {
            time_limit_ms: DEFAULT_TIME_LIMIT_MS,
            memory_limit_mb: DEFAULT_MEMORY_LIMIT_MB,
            find_empty_policy: FindEmptyPolicy::Any,
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

/// Parses the cases of one case file's `text` as [`load`] does for each
/// file (the stored `solutions`/`solution` are checked against the puzzle),
/// without reading the disk or checking names across files; `file` names it
/// in errors. A public door for fuzzing and tools.
pub fn parse_case_file(file: &std::path::Path, text: &str) -> Result<Vec<Case>, CaseError> {
    parse_file(file, text, Answers::Check).map(|f| f.cases)
}

/// All the cases of one folder (or list of files), with their defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseSet {
    /// From `grader.toml`, or the defaults.
    pub config: CaseConfig,
    /// In file order, files sorted by name.
    pub cases: Vec<Case>,
}

impl CaseSet {
    /// The time limit of one test of `case`: its own, or the set's default.
    pub fn time_limit_ms(&self, case: &Case) -> u64 {
        case.time_limit_ms.unwrap_or(self.config.time_limit_ms)
    }
}
