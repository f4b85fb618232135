//! The public cases of the bundled `cases/` folder, embedded in the binary:
//! what `grader check` (and `grader grade` without `--cases`) runs.
//!
//! Only files without a hidden case are embedded: students run this binary,
//! and anything in it can be read out of it (`strings grader`), so a hidden
//! case must never be compiled in. Hidden cases are graded from a folder
//! (`--cases DIR`).

use std::path::PathBuf;

use super::config::parse_config;
use super::load::{Answers, check_unique, parse_file};
use super::model::CaseSet;

/// `cases/grader.toml`, as bundled.
const CONFIG: &str = include_str!("../../../../cases/grader.toml");

/// The case files of `cases/` that hold no hidden case, sorted by name, as
/// bundled. A unit test checks that this list is exactly those files.
const FILES: &[(&str, &str)] = &[
    ("big.toml", include_str!("../../../../cases/big.toml")),
    ("campus.toml", include_str!("../../../../cases/campus.toml")),
    (
        "newspaper.toml",
        include_str!("../../../../cases/newspaper.toml"),
    ),
];

/// How a bundled file is named in messages and reports.
fn builtin_path(name: &str) -> PathBuf {
    PathBuf::from(format!("builtin:cases/{name}"))
}

/// The text of the bundled file `path` names (as [`builtin()`] names it in
/// its cases: `builtin:cases/<file>`); `None` for any other path. Reports
/// hash it to say which cases a run used.
pub fn builtin_source(path: &std::path::Path) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(name, _)| builtin_path(name) == path)
        .map(|(_, text)| *text)
}

/// The bundled public cases with their `grader.toml`.
///
/// # Panics
/// Never in a released binary: the bundled files are checked by the unit
/// tests of this module and by `grader reference --check cases`.
pub fn builtin() -> CaseSet {
    let config = parse_config(&builtin_path("grader.toml"), CONFIG)
        .unwrap_or_else(|e| panic!("the bundled cases/grader.toml is broken: {e}"));
    let mut cases = Vec::new();
    for (name, text) in FILES {
        let file = parse_file(&builtin_path(name), text, Answers::Check)
            .unwrap_or_else(|e| panic!("a bundled case file is broken: {e}"));
        cases.extend(file.cases);
    }
    if let Err(e) = check_unique(&cases) {
        panic!("the bundled cases are broken: {e}");
    }
    CaseSet { config, cases }
}

/// Where the bundled files live in the source tree (for tests).
#[cfg(test)]
fn source_dir() -> &'static std::path::Path {
    std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../cases"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_every_file_without_a_hidden_case() {
        let loaded = super::super::load_folder_for_tests(source_dir());
        let mut on_disk: Vec<String> = std::fs::read_dir(source_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml") && n != "grader.toml")
            .collect();
        on_disk.sort();
        let public: Vec<&str> = on_disk
            .iter()
            .map(String::as_str)
            .filter(|name| {
                !loaded
                    .cases
                    .iter()
                    .any(|c| c.hidden && c.file.file_name().is_some_and(|f| f == *name))
            })
            .collect();
        let listed: Vec<&str> = FILES.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            public, listed,
            "update FILES in crates/judge/src/case/builtin.rs"
        );
        assert!(
            public.len() < on_disk.len(),
            "the folder has hidden cases to leave out"
        );
    }

    #[test]
    fn builtin_equals_loading_the_public_cases_of_the_folder() {
        let bundled = builtin();
        let mut loaded = super::super::load_folder_for_tests(source_dir());
        loaded.cases.retain(|c| !c.hidden);
        assert_eq!(bundled.config, loaded.config);
        assert_eq!(bundled.cases.len(), loaded.cases.len());
        for (b, l) in bundled.cases.iter().zip(&loaded.cases) {
            assert_eq!(
                (&b.name, &b.puzzle, &b.solution, b.line),
                (&l.name, &l.puzzle, &l.solution, l.line)
            );
            assert!(
                b.solutions.is_some(),
                "{}: run `grader reference cases`",
                b.name
            );
        }
        assert!(bundled.cases.iter().all(|c| !c.hidden));
        assert!(!bundled.cases.is_empty());
    }
}
