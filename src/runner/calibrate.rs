//! Timing the lab's listing on this host, per language, before any student
//! code runs: [`calibrate`] grades the listing (built into the binary in
//! C, Rust and Python) in a box of its own, exactly as a student is graded,
//! and records each test's CPU time in the plan's `TimeLimits`
//! (`super::limits`, which turns them into limits).

use std::collections::BTreeMap;
use std::path::Path;

use crate::case::Case;
use crate::report::{Status, SubmissionReport};
use crate::runner::class::grade_one;
use crate::runner::limits::Language;
use crate::runner::plan::GradePlan;
use crate::submission::discover::{SubmissionKind, classify};
use crate::verdict::{Function, Verdict};

/// Why the limits could not be set: the grader's fault (exit 2), never a
/// student's.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    /// The listing could not be written or graded.
    #[error("cannot time the lab's listing in {language}: {message}")]
    Grader {
        /// `c`, `rust` or `python`.
        language: &'static str,
        /// What went wrong.
        message: String,
    },
    /// The lab's own listing does not pass a test.
    #[error(
        "the lab's listing in {language} does not pass {case}/{function} on this host ({verdict}: {message}); the limits are a multiple of its time, so nothing can be graded: fix the case, or pin its `time_limit_ms`"
    )]
    ListingFails {
        /// `c`, `rust` or `python`.
        language: &'static str,
        /// The case.
        case: String,
        /// The function.
        function: Function,
        /// Its verdict.
        verdict: Verdict,
        /// Its message.
        message: String,
    },
}

/// The listing of each language, as a student would hand it in.
const C_LISTING: &str = include_str!("../../submissions/c-listing.c");
const PYTHON_LISTING: &str = include_str!("../../submissions/py-listing.py");
const RUST_LISTING_MANIFEST: &str = include_str!("../../submissions/rust-trait/Cargo.toml");
const RUST_LISTING_LIB: &str = include_str!("../../submissions/rust-trait/src/lib.rs");

/// Sets each test's time limit of `plan` for submissions of `kinds`: times
/// the lab's listing for every language among them, on every (case,
/// function) whose limit `grader.toml` or the case does not pin, and sets
/// `plan.limits`. Each language's listing is built and graded once, in a
/// box of its own, exactly as a submission of that language is.
///
/// # Errors
/// When a listing cannot be built or run, or fails a test.
pub fn calibrate(
    plan: &mut GradePlan,
    kinds: impl IntoIterator<Item = SubmissionKind>,
) -> Result<(), CalibrationError> {
    let mut languages: Vec<Language> = kinds.into_iter().map(Language::of).collect();
    languages.sort();
    languages.dedup();
    let pinned = |case: &Case| {
        case.time_limit_ms
            .or(plan.cases.config.time_limit_ms)
            .is_some()
    };
    if plan.cases.cases.iter().all(pinned) {
        return Ok(());
    }
    // Only the cases whose limit is not pinned are timed.
    let timed: Vec<Case> = plan
        .cases
        .cases
        .iter()
        .filter(|c| !pinned(c))
        .cloned()
        .collect();
    let all = std::mem::replace(&mut plan.cases.cases, timed);
    plan.limits.calibrating = true;
    let mut measured = BTreeMap::new();
    let mut result = Ok(());
    for language in languages {
        match time_listing(plan, language) {
            Ok(report) => {
                if let Err(err) = record(&report, language, &mut measured) {
                    result = Err(err);
                    break;
                }
            }
            Err(err) => {
                result = Err(err);
                break;
            }
        }
    }
    plan.cases.cases = all;
    plan.limits.calibrating = false;
    plan.limits.listing = measured;
    result
}

/// Builds and grades `language`'s listing in a box of its own.
fn time_listing(
    plan: &GradePlan,
    language: Language,
) -> Result<SubmissionReport, CalibrationError> {
    let grader = |message: String| CalibrationError::Grader {
        language: language.name(),
        message,
    };
    let dir = tempfile::Builder::new()
        .prefix("grader-listing-")
        .tempdir()
        .map_err(|e| grader(format!("cannot make a folder for it: {e}")))?;
    let path = write_listing(dir.path(), language)
        .map_err(|e| grader(format!("cannot write it out: {e}")))?;
    let report = grade_one(&classify(&path), plan);
    if report.status != Status::Ok || report.grader_fault() {
        return Err(grader(report.message.clone()));
    }
    Ok(report)
}

/// Writes `language`'s listing into `dir` as a student would hand it in;
/// returns its path.
fn write_listing(dir: &Path, language: Language) -> std::io::Result<std::path::PathBuf> {
    let path = match language {
        Language::C => {
            let path = dir.join("listing.c");
            std::fs::write(&path, C_LISTING)?;
            path
        }
        Language::Python => {
            let path = dir.join("listing.py");
            std::fs::write(&path, PYTHON_LISTING)?;
            path
        }
        Language::Rust => {
            let path = dir.join("listing");
            std::fs::create_dir_all(path.join("src"))?;
            std::fs::write(path.join("Cargo.toml"), RUST_LISTING_MANIFEST)?;
            std::fs::write(path.join("src").join("lib.rs"), RUST_LISTING_LIB)?;
            path
        }
    };
    Ok(path)
}

/// Records the CPU time of every test of the listing's `report`.
fn record(
    report: &SubmissionReport,
    language: Language,
    measured: &mut BTreeMap<(Language, String, Function), u64>,
) -> Result<(), CalibrationError> {
    for test in &report.tests {
        if test.verdict != Verdict::Pass {
            return Err(CalibrationError::ListingFails {
                language: language.name(),
                case: test.case.clone(),
                function: test.function,
                verdict: test.verdict,
                message: test.message.clone(),
            });
        }
        // At least 1 ms: a multiple of a time measured as 0 is no limit.
        let cpu = test.time_ms.unwrap_or(0.0).ceil().max(1.0) as u64;
        measured.insert((language, test.case.clone(), test.function), cpu);
    }
    Ok(())
}
