//! The lab's listing's timing, kept between runs, so that `grader check`
//! (and `--watch`, and `grade`) does not time the listing again on every
//! run: timing it until steady takes 3 to 7 runs of every test, which made
//! a Python check three times slower than one that times each test once.
//!
//! What the times depend on is the key, and a time is reused only under
//! the same key: the grader's build (its version and the worker's build
//! identity), the listing's source, the host (its CPU model, how many CPUs
//! it has, its name), the safeguards the boxes apply (a test child forked
//! from a zygote costs less than one that starts an interpreter), the
//! language's toolchain (the C compiler's and `rustc`'s `--version`, the
//! Python interpreter and its version), and, per test, the case's board
//! and the function. Change any of them and the listing is timed anew.
//!
//! The times live in the user's cache folder (`$XDG_CACHE_HOME/grader`, or
//! `~/.cache/grader`), opened as trusted state (`state::trusted_dir`):
//! a folder another user could write to is refused, said once, and the
//! listing is then timed as if there were no cache. A file that cannot be
//! read or parsed is a miss, never an error.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::process::Command;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::case::Case;
use crate::runner::grade_plan::GradePlan;
use crate::runner::limits::{Language, Timed};
use crate::state::results_dir::hex;
use crate::state::trusted_dir::TrustedDir;
use crate::verdict::Function;

/// The format tag of a cache file.
const FORMAT: &str = "grader-listing-times-1";

/// The largest cache file read.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// One language's kept times under one key.
pub(crate) struct ListingCache {
    dir: TrustedDir,
    file: String,
    key: String,
    times: BTreeMap<String, Timed>,
}

/// A cache file: its format, the key it was written under, the times by
/// test.
#[derive(Serialize, Deserialize)]
struct Stored {
    format: String,
    key: String,
    times: BTreeMap<String, Timed>,
}

impl ListingCache {
    /// The kept times of `language`'s listing (`source`) for `plan`, or
    /// `None` when there is no cache folder to use (said once on stderr
    /// when one is refused).
    pub(crate) fn open(plan: &GradePlan, language: Language, source: &str) -> Option<Self> {
        let folder = crate::state::trusted_dir::cache_folder()?;
        let dir = match TrustedDir::open(&folder, true) {
            Ok(dir) => dir,
            Err(why) => {
                plan.sandbox.say_once(&format!(
                    "the lab's listing is timed on every run: its cache folder is refused: {why}"
                ));
                return None;
            }
        };
        let key = environment_key(plan, language, source);
        let file = format!("listing-{}.json", language.name());
        let times = dir
            .read(OsStr::new(&file), MAX_FILE_BYTES)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Stored>(&bytes).ok())
            .filter(|stored| stored.format == FORMAT && stored.key == key)
            .map(|stored| stored.times)
            .unwrap_or_default();
        Some(ListingCache {
            dir,
            file,
            key,
            times,
        })
    }

    /// The kept time of `function` on `case`, if any.
    pub(crate) fn get(&self, case: &Case, function: Function) -> Option<Timed> {
        self.times.get(&test_key(case, function)).copied()
    }

    /// Keeps `timed` for `function` on `case` (written by [`Self::save`]).
    pub(crate) fn put(&mut self, case: &Case, function: Function, timed: Timed) {
        self.times.insert(test_key(case, function), timed);
    }

    /// Writes the kept times; a failure to write costs only a timing next
    /// time, so it is not an error.
    pub(crate) fn save(&self) {
        let stored = Stored {
            format: FORMAT.to_string(),
            key: self.key.clone(),
            times: self.times.clone(),
        };
        if let Ok(bytes) = serde_json::to_vec(&stored) {
            let _ = self.dir.write_atomic(&self.file, &bytes);
        }
    }
}

/// What every kept time of `language` depends on but the test, hashed.
fn environment_key(plan: &GradePlan, language: Language, source: &str) -> String {
    let parts = [
        crate::state::results_dir::grader_version(),
        language.name().to_string(),
        source.to_string(),
        host(),
        plan.sandbox.active().join(", "),
        toolchain(plan, language),
    ];
    let mut hash = Sha256::new();
    for part in &parts {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    hex(&hash.finalize())
}

/// The test's part of a key: the case's board and the function (not the
/// case's name: a renamed case times the same).
fn test_key(case: &Case, function: Function) -> String {
    let mut hash = Sha256::new();
    hash.update(format!("{} {:?}", function.name(), case.puzzle.cells()));
    hex(&hash.finalize())
}

/// The host as far as it changes a CPU time: its CPU model, how many CPUs,
/// its name.
fn host() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .map(str::to_string)
        })
        .unwrap_or_default();
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    format!("{model} | {cpus} | {}", name.trim())
}

/// The language's toolchain as far as it changes the listing's time (an
/// empty part when it cannot be told: the listing is then timed, and kept,
/// under that).
fn toolchain(plan: &GradePlan, language: Language) -> String {
    let version = |program: &std::path::Path| {
        Command::new(program)
            .arg("--version")
            .output()
            .ok()
            .map(|out| {
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .unwrap_or_default()
    };
    match language {
        Language::C => plan
            .build
            .c_compiler()
            .map(|cc| format!("{} {}", cc.display(), version(&cc)))
            .unwrap_or_default(),
        Language::Rust => plan
            .build
            .rust_toolchain()
            .map(|rust| format!("{} {}", rust.rustc.display(), version(&rust.rustc)))
            .unwrap_or_default(),
        Language::Python => crate::worker::python::interpreter()
            .map(|python| format!("{} {}", python.executable.display(), python.version))
            .unwrap_or_default(),
    }
}
