//! How a report was made: the grader's version, each case file with its
//! SHA-256, the limits, the host safeguards in force, when the run started
//! and how long it took — enough to reproduce a grade or to see that two
//! reports were not made alike. Every format carries it: JSON (`run`),
//! JUnit (suite properties), HTML (the header), Gradescope (top-level
//! output).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::case::CaseSet;
use crate::verdict::Function;

/// The `run` section of a report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunInfo {
    /// `grader` and its version, e.g. `grader 0.1.0`.
    pub grader: String,
    /// When grading started, RFC 3339 in UTC (`2026-11-30T21:45:00Z`).
    pub started: String,
    /// How long grading took, in seconds.
    pub duration_s: f64,
    /// Every case file graded, in case order, each once.
    pub case_files: Vec<CaseFile>,
    /// The limits and policy the cases were graded under.
    pub limits: RunLimits,
    /// The host safeguards in force (the sandbox's own list).
    pub safeguards: Vec<String>,
}

/// A case file and the hash of its bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaseFile {
    /// The file as it was named on the command line (or `builtin:...`).
    pub name: String,
    /// Lowercase hex SHA-256 of its contents; `None` when it could not be
    /// read again after loading (moved or deleted during the run).
    pub sha256: Option<String>,
}

/// The limits of a run (`grader.toml`; a case may set its own time limit,
/// which its case file, hashed above, records).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunLimits {
    /// The per-test time limit `grader.toml` pinned; absent when each
    /// test's limit is a multiple of the lab's listing's time on the host.
    #[serde(default)]
    pub time_limit_ms: Option<u64>,
    /// That multiple (`grader.toml`'s `time_limit_factor`).
    #[serde(default)]
    pub time_limit_factor: u64,
    /// The least limit the multiple gives the C listing, in ms: the
    /// multiple that gives it holds in every language.
    #[serde(default)]
    pub time_limit_floor_ms: u64,
    /// Every test's limit as applied: per case and function, and for a
    /// limit timed on the host, per language with the listing's time.
    #[serde(default)]
    pub time_limits: Vec<AppliedLimit>,
    /// Per-test memory limit.
    pub memory_limit_mb: u64,
    /// What `find_empty` had to return: `any`, `first` or `fewest`.
    pub find_empty_policy: String,
}

/// One test's limit, as a report's `run` section lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AppliedLimit {
    /// The case.
    pub case: String,
    /// The function.
    pub function: Function,
    /// The language whose listing was timed (`c`, `rust`, `python`);
    /// absent for a pinned limit, which holds for every language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The listing's CPU time on this host, in ms (the median of its
    /// runs); absent when pinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listing_ms: Option<u64>,
    /// The multiple of the listing's time allowed, the same for this test
    /// in every language (to two decimals); absent when pinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiple: Option<f64>,
    /// How many runs of the listing `listing_ms` is the median of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listing_runs: Option<u32>,
    /// The slowest of those runs less the fastest, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listing_spread_ms: Option<u64>,
    /// The limit applied, in ms of CPU time.
    pub limit_ms: u64,
}

// `multiple` is a finite number, never NaN: equality is reflexive.
impl Eq for AppliedLimit {}

impl RunLimits {
    /// The time limit policy in words: `1000 ms`, or `20 x the lab's
    /// listing's CPU time on this host, or the larger multiple that gives
    /// the C listing 500 ms; one multiple in every language`.
    pub fn time_policy(&self) -> String {
        match self.time_limit_ms {
            Some(ms) => format!("{ms} ms"),
            None => format!(
                "{} x the lab's listing's CPU time on this host, or the larger multiple that gives the C listing {} ms; one multiple in every language",
                self.time_limit_factor, self.time_limit_floor_ms
            ),
        }
    }
}

impl RunInfo {
    /// The run section for grading `cases` with `safeguards` in force,
    /// started at `started` and lasting `duration`. Case files are read
    /// again to be hashed (the bundled ones from the binary).
    pub fn new(
        cases: &CaseSet,
        time_limits: Vec<AppliedLimit>,
        safeguards: &[&str],
        started: SystemTime,
        duration: Duration,
    ) -> RunInfo {
        let mut seen = BTreeSet::new();
        let case_files = cases
            .cases
            .iter()
            .filter(|case| seen.insert(case.file.clone()))
            .map(|case| CaseFile {
                name: case.file.display().to_string(),
                sha256: file_bytes(&case.file).map(|bytes| sha256_hex(&bytes)),
            })
            .collect();
        let policy = serde_json::to_value(cases.config.find_empty_policy)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        RunInfo {
            grader: format!("grader {}", env!("CARGO_PKG_VERSION")),
            started: chrono::DateTime::<chrono::Utc>::from(started)
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            duration_s: duration.as_secs_f64(),
            case_files,
            limits: RunLimits {
                time_limit_ms: cases.config.time_limit_ms,
                time_limit_factor: cases.config.time_limit_factor,
                time_limit_floor_ms: cases.config.time_limit_floor_ms,
                time_limits,
                memory_limit_mb: cases.config.memory_limit_mb,
                find_empty_policy: policy,
            },
            safeguards: safeguards.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// The run as `name: value` lines, for text views (Gradescope's
    /// top-level output, the HTML header).
    pub fn lines(&self) -> Vec<(&'static str, String)> {
        let files = self
            .case_files
            .iter()
            .map(|f| format!("{} ({})", f.name, short_hash(f.sha256.as_deref())))
            .collect::<Vec<_>>()
            .join(", ");
        vec![
            ("grader", self.grader.clone()),
            ("started", self.started.clone()),
            ("duration", format!("{:.1} s", finite(self.duration_s))),
            ("case files", files),
            (
                "limits",
                format!(
                    "{} per test, {} MB, find_empty policy {}",
                    self.limits.time_policy(),
                    self.limits.memory_limit_mb,
                    self.limits.find_empty_policy
                ),
            ),
            ("safeguards", self.safeguards.join(", ")),
        ]
    }
}

/// The first 12 hex digits of a hash, or `unreadable`.
pub(crate) fn short_hash(hash: Option<&str>) -> &str {
    match hash {
        Some(hash) => hash.get(..12).unwrap_or(hash),
        None => "unreadable",
    }
}

fn finite(x: f64) -> f64 {
    if x.is_finite() { x } else { 0.0 }
}

/// A case file's bytes: from the binary for a bundled one, else the disk.
fn file_bytes(path: &Path) -> Option<Vec<u8>> {
    crate::case::builtin_source(path)
        .map(|text| text.as_bytes().to_vec())
        .or_else(|| std::fs::read(path).ok())
}

/// Lowercase hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_each_case_file_once_and_names_the_version() {
        let cases = crate::case::builtin();
        let run = RunInfo::new(
            &cases,
            Vec::new(),
            &["rlimits"],
            SystemTime::UNIX_EPOCH + Duration::from_secs(86_400),
            Duration::from_millis(1500),
        );
        assert_eq!(run.grader, format!("grader {}", env!("CARGO_PKG_VERSION")));
        assert_eq!(run.started, "1970-01-02T00:00:00Z");
        assert_eq!(run.duration_s, 1.5);
        let names: Vec<&str> = run.case_files.iter().map(|f| f.name.as_str()).collect();
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(names, unique, "each file once");
        assert!(names.contains(&"builtin:cases/campus.toml"), "{names:?}");
        let campus = &run.case_files[names
            .iter()
            .position(|n| n.ends_with("campus.toml"))
            .unwrap()];
        let on_disk =
            std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/cases/campus.toml")).unwrap();
        assert_eq!(
            campus.sha256.as_deref(),
            Some(sha256_hex(&on_disk).as_str())
        );
        assert_eq!(run.limits.find_empty_policy, "any");
        assert_eq!(run.safeguards, ["rlimits"]);
    }

    #[test]
    fn sha256_of_a_known_string() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
