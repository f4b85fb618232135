//! The time limit of every test: pinned by the case or by `grader.toml`,
//! or else a multiple of what the lab's own listing costs **on this host,
//! in this run, in the submission's language**.
//!
//! Before any student code runs, `super::calibrate` grades the listing
//! (the seed's reading-order backtracker, built into the binary in C, Rust
//! and Python) in a box of its own, exactly as a student is graded: the
//! same compiler flags, the same interpreter, the same harness and trace.
//! Each (case, function) then gets the limit
//!
//! ```text
//! max(time_limit_floor_ms, time_limit_factor x the listing's CPU time)
//! ```
//!
//! for that case, that function and that language: fair on a slow VM
//! (the listing is slow there too), tight enough that an endless search
//! stops early on a fast one, and the same algorithm is allowed the same
//! multiple of the listing in C, Rust and Python. A `.so` is timed by the
//! C listing. The limits applied go into every report's `run` section.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::case::{Case, CaseSet};
use crate::submission::discover::SubmissionKind;
use crate::verdict::Function;

/// The CPU time the listing may use while it is being timed: a case on
/// which the lab's own listing needs more needs a pinned limit.
pub(crate) const CALIBRATION_LIMIT_MS: u64 = 30_000;

/// The limit of a test whose case was never timed (a board `grader check`
/// derived from a case is timed by its case; this is the fallback when
/// nothing was measured at all).
const UNTIMED_LIMIT_MS: u64 = crate::case::DEFAULT_TIME_LIMIT_MS;

/// The language whose listing times a kind of submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Language {
    /// C files, and prebuilt `.so` libraries with the C ABI.
    C,
    /// Rust crates.
    Rust,
    /// Python files.
    Python,
}

impl Language {
    /// The listing that times `kind`.
    pub(crate) fn of(kind: SubmissionKind) -> Language {
        match kind {
            SubmissionKind::C | SubmissionKind::Library => Language::C,
            SubmissionKind::Rust => Language::Rust,
            SubmissionKind::Python => Language::Python,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Language::C => "c",
            Language::Rust => "rust",
            Language::Python => "python",
        }
    }
}

/// The time limits of a run.
#[derive(Clone, Debug, Default)]
pub struct TimeLimits {
    /// The listing's CPU time per (language, case, function), in ms.
    pub(crate) listing: BTreeMap<(Language, String, Function), u64>,
    /// The listing itself is being timed.
    pub(crate) calibrating: bool,
}

impl TimeLimits {
    /// The limit of one test of `case`'s `function` for a submission of
    /// `kind`, in milliseconds of CPU time.
    pub fn limit_ms(
        &self,
        cases: &CaseSet,
        case: &Case,
        function: Function,
        kind: SubmissionKind,
    ) -> u64 {
        if self.calibrating {
            return CALIBRATION_LIMIT_MS;
        }
        self.limit_for(cases, case, function, Language::of(kind))
    }

    /// The limit of one test of `case`'s `function` timed by `language`'s
    /// listing: pinned, a multiple of the listing's time, or the untimed
    /// default.
    fn limit_for(
        &self,
        cases: &CaseSet,
        case: &Case,
        function: Function,
        language: Language,
    ) -> u64 {
        if let Some(pinned) = case.time_limit_ms.or(cases.config.time_limit_ms) {
            return pinned;
        }
        match self.listing.get(&(language, case.name.clone(), function)) {
            Some(&listing) => cases
                .config
                .time_limit_floor_ms
                .max(listing.saturating_mul(cases.config.time_limit_factor)),
            None => UNTIMED_LIMIT_MS,
        }
    }

    /// The policy in a line, for the terminal: `20 x the lab's listing's
    /// CPU time on this host, at least 500 ms (listing timed in c, python)`.
    pub fn describe(&self, cases: &CaseSet) -> String {
        let pinned = cases
            .cases
            .iter()
            .filter(|c| c.time_limit_ms.or(cases.config.time_limit_ms).is_some())
            .count();
        if let Some(ms) = cases.config.time_limit_ms {
            if cases.cases.iter().all(|c| c.time_limit_ms.is_none()) {
                return format!("{ms} ms per test (pinned in grader.toml)");
            }
        }
        let mut languages: Vec<&str> = self.listing.keys().map(|(l, _, _)| l.name()).collect();
        languages.dedup();
        let mut line = format!(
            "{} x the lab's listing's CPU time on this host, at least {} ms",
            cases.config.time_limit_factor, cases.config.time_limit_floor_ms
        );
        if !languages.is_empty() {
            line.push_str(&format!(" (listing timed in {})", languages.join(", ")));
        }
        if pinned > 0 {
            line.push_str(&format!("; {pinned} case(s) pin their own"));
        }
        line
    }

    /// Every limit that was applied, for the report's `run` section.
    pub fn applied(&self, cases: &CaseSet) -> Vec<AppliedLimit> {
        let mut applied = Vec::new();
        for case in &cases.cases {
            for &function in &case.tests {
                if let Some(pinned) = case.time_limit_ms.or(cases.config.time_limit_ms) {
                    applied.push(AppliedLimit {
                        case: case.name.clone(),
                        function,
                        language: None,
                        listing_ms: None,
                        limit_ms: pinned,
                    });
                    continue;
                }
                for (&(language, ref name, f), &listing) in &self.listing {
                    if *name == case.name && f == function {
                        applied.push(AppliedLimit {
                            case: case.name.clone(),
                            function,
                            language: Some(language.name().to_string()),
                            listing_ms: Some(listing),
                            limit_ms: self.limit_for(cases, case, function, language),
                        });
                    }
                }
            }
        }
        applied
    }
}

/// One test's limit, as a report's `run` section lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedLimit {
    /// The case.
    pub case: String,
    /// The function.
    pub function: Function,
    /// The language whose listing was timed (`c`, `rust`, `python`);
    /// absent for a pinned limit, which holds for every language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The listing's CPU time on this host, in ms; absent when pinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listing_ms: Option<u64>,
    /// The limit applied, in ms of CPU time.
    pub limit_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(factor: u64, floor: u64) -> CaseSet {
        let mut cases = crate::case::builtin();
        cases.config.time_limit_ms = None;
        cases.config.time_limit_factor = factor;
        cases.config.time_limit_floor_ms = floor;
        for case in &mut cases.cases {
            case.time_limit_ms = None;
        }
        cases
    }

    #[test]
    fn a_limit_is_a_multiple_of_the_listing_above_the_floor() {
        let cases = set(20, 250);
        let case = &cases.cases[0];
        let mut limits = TimeLimits::default();
        limits
            .listing
            .insert((Language::Python, case.name.clone(), Function::Solve), 40);
        limits
            .listing
            .insert((Language::C, case.name.clone(), Function::Solve), 2);
        assert_eq!(
            limits.limit_ms(&cases, case, Function::Solve, SubmissionKind::Python),
            800
        );
        assert_eq!(
            limits.limit_ms(&cases, case, Function::Solve, SubmissionKind::C),
            250,
            "the floor"
        );
        assert_eq!(
            limits.limit_ms(&cases, case, Function::Solve, SubmissionKind::Library),
            250,
            "a .so is timed by the C listing"
        );
        assert_eq!(
            limits.limit_ms(&cases, case, Function::Solve, SubmissionKind::Rust),
            UNTIMED_LIMIT_MS,
            "nothing measured for Rust"
        );
    }

    #[test]
    fn a_pinned_limit_wins_case_first() {
        let mut cases = set(20, 250);
        let mut limits = TimeLimits::default();
        let name = cases.cases[0].name.clone();
        limits
            .listing
            .insert((Language::C, name, Function::Solve), 100);
        cases.config.time_limit_ms = Some(700);
        let case = cases.cases[0].clone();
        assert_eq!(
            limits.limit_ms(&cases, &case, Function::Solve, SubmissionKind::C),
            700
        );
        let mut own = case.clone();
        own.time_limit_ms = Some(1234);
        assert_eq!(
            limits.limit_ms(&cases, &own, Function::Solve, SubmissionKind::C),
            1234
        );
    }
}
