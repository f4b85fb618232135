//! Test cases (SPEC 3): the in-memory model, and reading it from the text
//! of TOML case files and of a folder's `grader.toml` (load.rs, config.rs,
//! with span.rs placing errors). Finding the files of a folder, and
//! writing case files, are the grader's (`src/case/`).

mod builtin;
mod config;
mod error;
pub mod listing;
mod load;
pub(crate) mod model;
mod span;

pub use builtin::{builtin, builtin_source};
pub use config::{CONFIG_FILE, parse_config};
pub use error::CaseError;
pub use listing::{LISTING_WALK_CAP, ListingCost};
pub use load::{
    Answers, FileCases, StoredAnswers, StoredListing, check_unique, completes, parse_file,
};
pub use model::{
    Case, CaseConfig, CaseSet, DEFAULT_MEMORY_LIMIT_MB, DEFAULT_TIME_LIMIT_FACTOR,
    DEFAULT_TIME_LIMIT_FLOOR_MS, DEFAULT_TIME_LIMIT_MS, EmptySelection, FindEmptyPolicy, Solutions,
};

#[cfg(test)]
use std::path::PathBuf;

/// Parses the cases of one case file's `text` as the grader's `case::load` does for each
/// file (the stored `solutions`/`solution` are checked against the puzzle),
/// without reading the disk or checking names across files; `file` names it
/// in errors. A public door for fuzzing and tools.
pub fn parse_case_file(file: &std::path::Path, text: &str) -> Result<Vec<Case>, CaseError> {
    parse_file(file, text, Answers::Check).map(|f| f.cases)
}

/// The cases of a folder of the source tree, as the grader's loader reads
/// them (its `.toml` files sorted by name, `grader.toml` the defaults),
/// for the judge's own tests, which may read files.
#[cfg(test)]
pub(crate) fn load_folder_for_tests(dir: &std::path::Path) -> CaseSet {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the folder is readable")
        .map(|entry| entry.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .filter(|p| p.file_name().is_some_and(|n| n != CONFIG_FILE))
        .collect();
    files.sort();
    let config_path = dir.join(CONFIG_FILE);
    let config = match std::fs::read_to_string(&config_path) {
        Ok(text) => parse_config(&config_path, &text).expect("grader.toml parses"),
        Err(_) => CaseConfig::default(),
    };
    let mut cases = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a case file is readable");
        cases.extend(
            parse_file(file, &text, Answers::Check)
                .expect("a case file parses")
                .cases,
        );
    }
    check_unique(&cases).expect("case names are unique");
    CaseSet { config, cases }
}
