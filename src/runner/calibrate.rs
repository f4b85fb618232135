//! Timing the lab's listing on this host, per language, before any student
//! code runs: [`calibrate`] builds the listing (built into the binary in
//! C, Rust and Python) in a box of its own, exactly as a student's code is
//! built, runs each test as a student's is run until its time is steady
//! (the median of 3 to 7 runs, see `MIN_RUNS`), and records the times in
//! the plan's `TimeLimits` (`super::limits`, which turns them into limits).
//! The C listing is always timed: its time sets the one multiple every
//! language gets.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::case::Case;
use crate::runner::grade_plan::GradePlan;
use crate::runner::limits::{Language, Timed};
use crate::runner::listing_cache::ListingCache;
use crate::runner::session::Session;
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

/// Runs of each test of the listing at least, and at most: its time is
/// the median of at least [`MIN_RUNS`], more while the runs spread wider
/// than [`STEADY_SPREAD`].
pub(crate) const MIN_RUNS: u32 = 3;
/// See [`MIN_RUNS`].
pub(crate) const MAX_RUNS: u32 = 7;
/// A listing's time is steady when its runs spread (slowest less fastest)
/// no wider than this share of their median, or than 1 ms.
pub(crate) const STEADY_SPREAD: f64 = 0.10;

/// Sets each test's time limit of `plan` for submissions of `kinds`: times
/// the lab's listing in every language among them, and in C always (the C
/// listing's time sets the multiple every language gets, see
/// `super::limits`), on every (case, function) whose limit `grader.toml`
/// or the case does not pin, and sets `plan.limits`.
///
/// # Errors
/// When a listing of a language graded cannot be built or run, or fails a
/// test.
pub fn calibrate(
    plan: &mut GradePlan,
    kinds: impl IntoIterator<Item = SubmissionKind>,
) -> Result<(), CalibrationError> {
    let mut graded: Vec<Language> = kinds.into_iter().map(Language::of).collect();
    graded.sort();
    graded.dedup();
    let pinned = |case: &Case| {
        case.time_limit_ms
            .or(plan.cases.config.time_limit_ms)
            .is_some()
    };
    if graded.is_empty() || plan.cases.cases.iter().all(pinned) {
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
    let mut kept = BTreeSet::new();
    let mut result = Ok(());
    let mut languages = graded.clone();
    if !languages.contains(&Language::C) {
        languages.insert(0, Language::C);
    }
    for language in languages {
        match time_listing(plan, language) {
            Ok((times, all_kept)) => {
                if all_kept {
                    kept.insert(language);
                }
                measured.extend(times);
            }
            // The C listing only sets the multiple when no C is graded:
            // without a C compiler, the fastest listing timed sets it.
            Err(err) if !graded.contains(&language) => {
                crate::note!("note: {err}; the fastest listing timed sets the multiple instead");
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
    plan.limits.kept = kept;
    result
}

/// The listing's time per (language, case, function).
type ListingTimes = BTreeMap<(Language, String, Function), Timed>;

/// Builds `language`'s listing in a box of its own and times each of the
/// plan's tests until steady; a test timed on an earlier run under the
/// same key (`listing_cache`) is not timed again, and with every test kept
/// nothing is built. Also says whether every time was kept (none timed).
fn time_listing(
    plan: &GradePlan,
    language: Language,
) -> Result<(ListingTimes, bool), CalibrationError> {
    let grader = |message: String| CalibrationError::Grader {
        language: language.name(),
        message,
    };
    let mut cache = ListingCache::open(plan, language, listing_source(language));
    let mut times = BTreeMap::new();
    let mut untimed = Vec::new();
    for case in &plan.cases.cases {
        for &function in &case.tests {
            match cache.as_ref().and_then(|kept| kept.get(case, function)) {
                Some(timed) => {
                    times.insert((language, case.name.clone(), function), timed);
                }
                None => untimed.push((case, function)),
            }
        }
    }
    if untimed.is_empty() {
        return Ok((times, true));
    }
    let dir = tempfile::Builder::new()
        .prefix("grader-listing-")
        .tempdir()
        .map_err(|e| grader(format!("cannot make a folder for it: {e}")))?;
    let path = write_listing(dir.path(), language)
        .map_err(|e| grader(format!("cannot write it out: {e}")))?;
    let submission = classify(&path);
    let mut session = Session::open(&submission, plan).map_err(|report| grader(report.message))?;
    for (case, function) in untimed {
        let timed = time_test(&mut session, case, function, language)?;
        times.insert((language, case.name.clone(), function), timed);
        if let Some(kept) = cache.as_mut() {
            kept.put(case, function, timed);
        }
    }
    if let Some(kept) = &cache {
        kept.save();
    }
    Ok((times, false))
}

/// The source of `language`'s listing (its part of the cache's key).
fn listing_source(language: Language) -> &'static str {
    match language {
        Language::C => C_LISTING,
        Language::Python => PYTHON_LISTING,
        Language::Rust => RUST_LISTING_LIB,
    }
}

/// The listing's steady CPU time on one test: the median of
/// [`MIN_RUNS`] runs, or of more (up to [`MAX_RUNS`]) while they spread
/// wider than [`STEADY_SPREAD`] of it.
fn time_test(
    session: &mut Session<'_>,
    case: &Case,
    function: Function,
    language: Language,
) -> Result<Timed, CalibrationError> {
    let mut runs: Vec<u64> = Vec::new();
    loop {
        let judged = session.test(case, function, false);
        let test = &judged.report;
        if test.fault.is_some() {
            return Err(CalibrationError::Grader {
                language: language.name(),
                message: test.message.clone(),
            });
        }
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
        runs.push(test.time_ms.unwrap_or(0.0).ceil().max(1.0) as u64);
        let steady = steady(&runs);
        let enough = runs.len() as u32 >= MIN_RUNS && steady.is_some();
        if enough || runs.len() as u32 >= MAX_RUNS {
            let mut sorted = runs.clone();
            sorted.sort_unstable();
            return Ok(Timed {
                ms: sorted[sorted.len() / 2],
                runs: runs.len() as u32,
                spread_ms: sorted[sorted.len() - 1] - sorted[0],
            });
        }
    }
}

/// The median of `runs` when they are steady: spread no wider than
/// [`STEADY_SPREAD`] of the median, or than 1 ms.
fn steady(runs: &[u64]) -> Option<u64> {
    let mut sorted = runs.to_vec();
    sorted.sort_unstable();
    let median = *sorted.get(sorted.len() / 2)?;
    let spread = sorted[sorted.len() - 1] - sorted[0];
    let bound = (median as f64 * STEADY_SPREAD).max(1.0);
    (spread as f64 <= bound).then_some(median)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_is_steady_within_a_tenth_of_its_median_or_a_millisecond() {
        assert_eq!(steady(&[1, 2, 1]), Some(1), "1 ms apart");
        assert_eq!(steady(&[100, 108, 104]), Some(104));
        assert_eq!(steady(&[100, 115, 104]), None, "15% apart");
        assert_eq!(steady(&[5, 8, 5]), None);
        assert_eq!(steady(&[]), None);
    }
}
