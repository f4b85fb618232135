//! The time limit of every test: pinned by the case or by `grader.toml`,
//! or else a multiple of what the lab's own listing costs **on this host,
//! in the submission's language**, the **same multiple in every
//! language**.
//!
//! Before any student code runs, `super::calibrate` times the listing (the
//! seed's reading-order backtracker, built into the binary in C, Rust and
//! Python) in a box of its own, exactly as a student is graded: the same
//! compiler flags, the same interpreter, the same harness and trace; each
//! test is run until its time is steady (a median of 3 to 7 runs). Each
//! (case, function) then gets one multiple for every language,
//!
//! ```text
//! multiple = max(time_limit_factor, time_limit_floor_ms / the C listing's CPU time)
//! limit    = multiple x the listing's CPU time in the submission's language
//! ```
//!
//! The floor holds for the C listing, the fastest (a multiple of a
//! millisecond is no limit), and the multiple it sets holds in Rust and
//! Python too, so an algorithm that needs k times the listing's time gets
//! the same verdict in every language (with the floor applied per language
//! instead, a search 500x the listing passed in C and timed out in Python).
//! When the C listing cannot be timed (no C compiler, and no C graded),
//! the fastest listing timed sets the multiple. A `.so` is timed by the C
//! listing. The limits applied, each with its multiple, go into every
//! report's `run` section.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::case::{Case, CaseSet};
use crate::report::run_info::AppliedLimit;
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

/// The listing's steady CPU time on one test: the median of its runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Timed {
    /// The median CPU time, in ms (at least 1).
    pub(crate) ms: u64,
    /// The runs it is the median of.
    pub(crate) runs: u32,
    /// The slowest run less the fastest, in ms.
    pub(crate) spread_ms: u64,
}

/// The time limits of a run.
#[derive(Clone, Debug, Default)]
pub struct TimeLimits {
    /// The listing's CPU time per (language, case, function).
    pub(crate) listing: BTreeMap<(Language, String, Function), Timed>,
    /// The listing itself is being timed.
    pub(crate) calibrating: bool,
    /// The languages whose every time was kept from an earlier run on this
    /// host (`listing_cache`), none of them timed by this run.
    pub(crate) kept: BTreeSet<Language>,
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
    /// listing: pinned, the multiple of the listing's time, or the untimed
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
        match (
            self.listing.get(&(language, case.name.clone(), function)),
            self.multiple(cases, case, function),
        ) {
            (Some(timed), Some(multiple)) => (multiple * timed.ms as f64).ceil() as u64,
            _ => UNTIMED_LIMIT_MS,
        }
    }

    /// The multiple of its language's listing that one test of `case`'s
    /// `function` may use, the same in every language: the factor, or
    /// more where the floor asks more of the C listing (of the fastest
    /// listing timed, without C). `None` when nothing was timed.
    fn multiple(&self, cases: &CaseSet, case: &Case, function: Function) -> Option<f64> {
        let timed = |language: Language| {
            self.listing
                .get(&(language, case.name.clone(), function))
                .map(|t| t.ms)
        };
        let reference = timed(Language::C).or_else(|| {
            [Language::Rust, Language::Python]
                .into_iter()
                .filter_map(timed)
                .min()
        })?;
        let factor = cases.config.time_limit_factor as f64;
        let floor = cases.config.time_limit_floor_ms as f64;
        Some(factor.max(floor / reference.max(1) as f64))
    }

    /// The policy in a line, for the terminal: `20 x the lab's listing's
    /// CPU time on this host, ... (listing timed now in c; times of python kept ...)`.
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
        let mut languages: Vec<Language> = self.listing.keys().map(|(l, _, _)| *l).collect();
        languages.dedup();
        let (kept, timed): (Vec<Language>, Vec<Language>) =
            languages.into_iter().partition(|l| self.kept.contains(l));
        let names =
            |list: &[Language]| list.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ");
        let mut line = format!(
            "{} x the lab's listing's CPU time on this host, or the larger multiple that gives the C listing {} ms; one multiple in every language",
            cases.config.time_limit_factor, cases.config.time_limit_floor_ms
        );
        let mut sources = Vec::new();
        if !timed.is_empty() {
            sources.push(format!("listing timed now in {}", names(&timed)));
        }
        if !kept.is_empty() {
            sources.push(format!(
                "times of {} kept from an earlier run on this host",
                names(&kept)
            ));
        }
        if !sources.is_empty() {
            line.push_str(&format!(" ({})", sources.join("; ")));
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
                        multiple: None,
                        listing_runs: None,
                        listing_spread_ms: None,
                        limit_ms: pinned,
                    });
                    continue;
                }
                let multiple = self.multiple(cases, case, function);
                for (&(language, ref name, f), timed) in &self.listing {
                    if *name == case.name && f == function {
                        applied.push(AppliedLimit {
                            case: case.name.clone(),
                            function,
                            language: Some(language.name().to_string()),
                            listing_ms: Some(timed.ms),
                            multiple: multiple.map(|m| (m * 100.0).round() / 100.0),
                            listing_runs: Some(timed.runs),
                            listing_spread_ms: Some(timed.spread_ms),
                            limit_ms: self.limit_for(cases, case, function, language),
                        });
                    }
                }
            }
        }
        applied
    }
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

    fn timed(ms: u64) -> Timed {
        Timed {
            ms,
            runs: 3,
            spread_ms: 0,
        }
    }

    fn limits(case: &Case, times: &[(Language, u64)]) -> TimeLimits {
        let mut limits = TimeLimits::default();
        for &(language, ms) in times {
            limits
                .listing
                .insert((language, case.name.clone(), Function::Solve), timed(ms));
        }
        limits
    }

    #[test]
    fn the_floor_of_the_c_listing_sets_one_multiple_for_every_language() {
        let cases = set(20, 250);
        let case = &cases.cases[0];
        // The C listing needs 2 ms: the floor asks 125 x of it, so every
        // language gets 125 x its own listing.
        let limits = limits(
            case,
            &[
                (Language::C, 2),
                (Language::Rust, 3),
                (Language::Python, 40),
            ],
        );
        let limit = |kind| limits.limit_ms(&cases, case, Function::Solve, kind);
        assert_eq!(limit(SubmissionKind::C), 250, "the floor, for C");
        assert_eq!(limit(SubmissionKind::Library), 250, "a .so is timed as C");
        assert_eq!(limit(SubmissionKind::Rust), 375, "125 x 3 ms");
        assert_eq!(
            limit(SubmissionKind::Python),
            5000,
            "125 x 40 ms, not the floor"
        );
        let applied = limits.applied(&cases);
        let solve: Vec<_> = applied
            .iter()
            .filter(|a| a.case == case.name && a.function == Function::Solve)
            .collect();
        assert_eq!(solve.len(), 3, "{applied:?}");
        assert!(solve.iter().all(|a| a.multiple == Some(125.0)), "{solve:?}");
    }

    #[test]
    fn above_the_floor_the_factor_is_the_multiple() {
        let cases = set(20, 250);
        let case = &cases.cases[0];
        let limits = limits(case, &[(Language::C, 50), (Language::Python, 900)]);
        let limit = |kind| limits.limit_ms(&cases, case, Function::Solve, kind);
        assert_eq!(limit(SubmissionKind::C), 1000);
        assert_eq!(limit(SubmissionKind::Python), 18_000);
        assert_eq!(
            limit(SubmissionKind::Rust),
            UNTIMED_LIMIT_MS,
            "nothing measured for Rust"
        );
    }

    #[test]
    fn without_the_c_listing_the_fastest_timed_sets_the_multiple() {
        let cases = set(20, 250);
        let case = &cases.cases[0];
        let limits = limits(case, &[(Language::Rust, 5), (Language::Python, 40)]);
        let limit = |kind| limits.limit_ms(&cases, case, Function::Solve, kind);
        assert_eq!(limit(SubmissionKind::Rust), 250);
        assert_eq!(limit(SubmissionKind::Python), 2000, "50 x 40 ms");
    }

    #[test]
    fn a_pinned_limit_wins_case_first() {
        let mut cases = set(20, 250);
        let name = cases.cases[0].name.clone();
        let limits = limits(&cases.cases[0], &[(Language::C, 100)]);
        assert_eq!(limits.listing.len(), 1, "{name}");
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
