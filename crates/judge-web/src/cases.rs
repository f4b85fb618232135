//! The public cases a site holds, read from their TOML text by the judge's
//! own case parser, kept for the rest of the check; and the tests to run,
//! in `grader check`'s order.

use std::cell::RefCell;
use std::path::Path;

use grader_judge::case::{
    Answers, CONFIG_FILE, CaseConfig, CaseSet, EmptySelection, check_unique, parse_config,
    parse_file,
};
use grader_judge::case::{Case, ListingCost};
use grader_judge::verdict::Function;
use serde::{Deserialize, Serialize};

thread_local! {
    /// The cases [`load`] read (the module runs on one thread).
    static CASES: RefCell<Option<CaseSet>> = const { RefCell::new(None) };
}

/// One case file as the site serves it.
#[derive(Deserialize)]
pub(crate) struct CaseFile {
    /// Its name (`grader.toml`, `campus.toml`).
    name: String,
    /// Its text.
    text: String,
}

/// What [`load`] reads.
#[derive(Deserialize)]
pub(crate) struct LoadCases {
    files: Vec<CaseFile>,
}

/// One case, as the engine sees it.
#[derive(Serialize)]
pub(crate) struct CaseInfo {
    name: String,
    n: usize,
    description: Option<String>,
    tests: Vec<Function>,
}

/// Reads the case files (`grader.toml` the defaults, the others sorted by
/// name as the grader's loader sorts them), refusing a hidden case: a
/// site is public, and `grader check` never shows a hidden case either.
pub(crate) fn load(input: LoadCases) -> Result<Vec<CaseInfo>, String> {
    let mut config = CaseConfig::default();
    let mut files: Vec<&CaseFile> = Vec::new();
    for file in &input.files {
        if file.name == CONFIG_FILE {
            config = parse_config(Path::new(&file.name), &file.text).map_err(|e| e.to_string())?;
        } else {
            files.push(file);
        }
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    let mut cases = Vec::new();
    for file in files {
        let parsed = parse_file(Path::new(&file.name), &file.text, Answers::Check)
            .map_err(|e| e.to_string())?;
        cases.extend(parsed.cases);
    }
    check_unique(&cases).map_err(|e| e.to_string())?;
    if let Some(case) = cases.iter().find(|c| c.hidden) {
        return Err(format!(
            "{}:{}: case `{}` is hidden: a page or a runner anyone can read holds public cases only; \
             leave hidden cases out of the folder (`grader package web` does)",
            case.file.display(),
            case.line,
            case.name
        ));
    }
    if let Some(case) = cases.iter().find(|c| c.solutions.is_none()) {
        return Err(format!(
            "{}:{}: case `{}` has no reference answer yet: run `grader reference` on the cases first",
            case.file.display(),
            case.line,
            case.name
        ));
    }
    if cases.is_empty() {
        return Err("there are no public cases to check against".to_string());
    }
    // `grader check`'s order: smallest boards first, file order within a size.
    cases.sort_by_key(|case| case.puzzle.n());
    let info = cases
        .iter()
        .map(|case| CaseInfo {
            name: case.name.clone(),
            n: case.puzzle.n(),
            description: case.description.clone(),
            tests: case.tests.clone(),
        })
        .collect();
    CASES.with(|cell| *cell.borrow_mut() = Some(CaseSet { config, cases }));
    Ok(info)
}

/// [`select`]'s input: `grader check`'s `--case` and `--function`.
#[derive(Deserialize)]
pub(crate) struct Select {
    #[serde(default)]
    case: Option<String>,
    #[serde(default)]
    function: Option<Function>,
}

/// Keeps, of the loaded cases, those a check with `--case` and
/// `--function` runs (for a runner that checks once: the cases stay
/// narrowed); returns how many tests are left.
pub(crate) fn select(input: Select) -> Result<usize, String> {
    CASES.with(|cell| match cell.borrow_mut().as_mut() {
        Some(set) => match set.select(input.case.as_deref(), input.function) {
            Ok(()) => Ok(set.cases.iter().map(|c| c.tests.len()).sum()),
            Err(EmptySelection::NoCaseNamed { names }) => Err(format!(
                "there is no public case named `{}`: the cases are {}",
                input.case.unwrap_or_default(),
                names.join(", ")
            )),
            Err(EmptySelection::NoCaseTests(function)) => {
                Err(format!("no public case tests {}", function.name()))
            }
        },
        None => Err("no cases are loaded: call load_cases first".to_string()),
    })
}

/// Calls `f` with the loaded cases, or says to load them first.
pub(crate) fn with<T>(f: impl FnOnce(&CaseSet) -> Result<T, String>) -> Result<T, String> {
    CASES.with(|cell| match cell.borrow().as_ref() {
        Some(set) => f(set),
        None => Err("no cases are loaded: call load_cases first".to_string()),
    })
}

/// The case named `name`.
pub(crate) fn find<'a>(set: &'a CaseSet, name: &str) -> Result<&'a Case, String> {
    set.cases
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| format!("there is no public case named `{name}`"))
}

/// One test to run.
#[derive(Serialize)]
pub(crate) struct PlannedTest {
    case: String,
    function: Function,
    /// The limit the engine turns into its wall-clock limit, in ms.
    planned_ms: u64,
}

/// The multiple of a test's planned time that is its limit:
/// `grader.toml`'s `time_limit_factor`, as native limits are that
/// multiple of the listing's time.
pub(crate) fn factor(set: &CaseSet) -> u64 {
    set.config.time_limit_factor.max(1)
}

/// Every test, in `grader check`'s order: the cases smallest boards first
/// (as loaded), each case's functions in the order it lists them.
pub(crate) fn tests(_: serde_json::Value) -> Result<Vec<PlannedTest>, String> {
    // A new check: the run with the grader's legal not yet seen.
    crate::swap::start();
    with(|set| {
        Ok(set
            .cases
            .iter()
            .flat_map(|case| {
                case.tests.iter().map(|&function| PlannedTest {
                    case: case.name.clone(),
                    function,
                    planned_ms: planned_ms(set, case),
                })
            })
            .collect())
    })
}

/// What one write of the lab's Python listing costs in Pyodide, traced as
/// every Python test is, in microseconds, by box size 2 to 5 (a bigger
/// board's `legal` scans more cells): measured under Node 20 on a shared
/// 2-core host at load 15 (`docs/guide/performance.md`), rounded up.
const PYODIDE_WRITE_US: [u64; 4] = [50, 110, 250, 450];

/// The least planned time of a test, in ms.
const LEAST_PLANNED_MS: u64 = 100;

/// A test's planned time: the case's or `grader.toml`'s pinned limit, or
/// what the lab's Python listing needs for the puzzle in Pyodide, from the
/// writes it makes (the listing walked here; a browser has no CPU clock to
/// time it by, and timing it would double a check). The engine's
/// wall-clock limit is a multiple of it.
pub(crate) fn planned_ms(set: &CaseSet, case: &Case) -> u64 {
    case.time_limit_ms
        .or(set.config.time_limit_ms)
        .unwrap_or_else(|| {
            let writes = ListingCost::measure(&case.puzzle).writes;
            let per_write = PYODIDE_WRITE_US[case.puzzle.n().clamp(2, 5) - 2];
            (writes.saturating_mul(per_write) / 1000).max(LEAST_PLANNED_MS)
        })
}
