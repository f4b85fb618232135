//! The results folder of `grader grade --results DIR`: one file per student,
//! written atomically as soon as the student is graded, so that a run that
//! is killed keeps every finished result, and a rerun grades only what
//! changed.
//!
//! Each file (`<id>-<hash of id>.result.json`) holds the student's result
//! (the JSON report's submission object, plus each test's `hidden` and
//! `description`) and the key it
//! was graded under: a SHA-256 of the grader's version and build identity,
//! the case set, and the submission's contents (every file under it, sorted
//! by path, with its bytes; `target/` and hidden entries are left out, as
//! the build leaves them out). A rerun reuses a result whose key is
//! unchanged and whose score, points and status agree with its tests; a
//! grader fault is never reused.
//!
//! The folder is state the grader trusts, opened as such
//! ([`TrustedDir`]): refused when another user owns it or can write to
//! it or to a folder on its path, never a link, every result read from a
//! regular file of the grader's own user of at most
//! [`MAX_RESULT_BYTES`], every result written relative to the open folder.

use anyhow::{anyhow, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::case::CaseSet;
use crate::report::SubmissionReport;
use crate::state::trusted_dir::{Refusal, TrustedDir};
use crate::submission::discover::Submission;
use crate::visible::visible_line;

/// The biggest result file read (a result holds each test's output,
/// capped, and message): a bigger file is refused unread.
pub(crate) const MAX_RESULT_BYTES: u64 = 64 << 20;

/// A submission bigger than this (in bytes) is not hashed: it is graded on
/// every run.
pub(crate) const MAX_HASHED_BYTES: u64 = 64 << 20;

/// A submission with more files than this is not hashed either.
pub(crate) const MAX_HASHED_FILES: usize = 10_000;

/// The name every result file ends with.
const SUFFIX: &str = ".result.json";

/// The format tag of a result file.
const FORMAT: &str = "grader-result-1";

/// The grader's version as results and keys name it: the package version
/// and the worker's build identity (which changes with the code that runs
/// and judges the tests).
pub(crate) fn grader_version() -> String {
    format!(
        "{} {}",
        env!("CARGO_PKG_VERSION"),
        crate::worker::BUILD_IDENTITY
    )
}

/// A SHA-256 of everything in `cases` a grade depends on: the settings and
/// each case's contents (not where its file lives).
pub(crate) fn cases_hash(cases: &CaseSet) -> String {
    let mut hash = Sha256::new();
    hash.update(format!("{:?}\n", cases.config));
    for case in &cases.cases {
        let file = case.file.file_name().map(|n| n.to_string_lossy());
        let contents = format!(
            "{:?}",
            (
                &case.name,
                &case.description,
                &case.puzzle,
                case.points,
                case.hidden,
                &case.tests,
                case.time_limit_ms,
                case.solutions,
                &case.solution,
                file,
            )
        );
        hash.update((contents.len() as u64).to_le_bytes());
        hash.update(contents);
    }
    hex(&hash.finalize())
}

/// A SHA-256 of the submission's id and contents; `None` when it is too big
/// to hash (then it is always graded).
pub(crate) fn submission_hash(submission: &Submission) -> Option<String> {
    let mut hash = Sha256::new();
    hash.update(b"id\0");
    hash.update(submission.id.as_bytes());
    hash.update(b"\0");
    let mut budget = (MAX_HASHED_BYTES, MAX_HASHED_FILES);
    hash_tree(&submission.path, Path::new(""), &mut hash, &mut budget)?;
    Some(hex(&hash.finalize()))
}

/// Hashes `path` (a file, a folder or a symlink) as `relative`: its type,
/// its relative path, and its bytes, its entries sorted, or its target.
fn hash_tree(
    path: &Path,
    relative: &Path,
    hash: &mut Sha256,
    budget: &mut (u64, usize),
) -> Option<()> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let name = relative.as_os_str().as_encoded_bytes();
    budget.1 = budget.1.checked_sub(1)?;
    if meta.is_dir() {
        hash.update(b"d");
        hash.update((name.len() as u64).to_le_bytes());
        hash.update(name);
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .filter(|n| {
                let n = n.to_string_lossy();
                !n.starts_with('.') && n != "target"
            })
            .collect();
        entries.sort();
        for entry in entries {
            hash_tree(&path.join(&entry), &relative.join(&entry), hash, budget)?;
        }
    } else if meta.is_file() {
        budget.0 = budget.0.checked_sub(meta.len())?;
        let bytes = std::fs::read(path).ok()?;
        hash.update(b"f");
        hash.update((name.len() as u64).to_le_bytes());
        hash.update(name);
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(&bytes);
    } else if meta.is_symlink() {
        let target = std::fs::read_link(path).ok()?;
        let target = target.as_os_str().as_encoded_bytes();
        hash.update(b"l");
        hash.update((name.len() as u64).to_le_bytes());
        hash.update(name);
        hash.update((target.len() as u64).to_le_bytes());
        hash.update(target);
    }
    Some(())
}

/// `bytes` as lowercase hexadecimal (a hash's name).
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One result file.
#[derive(Serialize, Deserialize)]
struct ResultFile<R> {
    format: String,
    grader: String,
    cases: String,
    submission: String,
    key: String,
    result: R,
}

/// A results folder, for one run: the grader and case set it grades with.
pub(crate) struct ResultsDir {
    dir: TrustedDir,
    grader: String,
    cases: String,
}

/// A stored result, as read back.
pub(crate) struct StoredResult {
    /// The file it came from.
    pub path: PathBuf,
    /// [`grader_version`] of the run that wrote it.
    pub grader: String,
    /// [`cases_hash`] of the cases it was graded on.
    pub cases: String,
    /// The result.
    pub report: SubmissionReport,
}

impl ResultsDir {
    /// Opens (creating it if needed) the results folder `dir` for a run on
    /// `cases`.
    ///
    /// # Errors
    /// When the folder cannot be created, or is refused (see
    /// [`TrustedDir::open`]).
    pub(crate) fn open(dir: &Path, cases: &CaseSet) -> anyhow::Result<ResultsDir> {
        let dir = TrustedDir::open(dir, true)
            .map_err(|why| anyhow!("the results folder is refused: {why}"))?;
        Ok(ResultsDir {
            dir,
            grader: grader_version(),
            cases: cases_hash(cases),
        })
    }

    /// The key `submission` is graded under (`None`: too big to hash).
    pub(crate) fn key(&self, submission: &Submission) -> Option<(String, String)> {
        let contents = submission_hash(submission)?;
        let mut hash = Sha256::new();
        for part in [&self.grader, &self.cases, &contents] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part.as_bytes());
        }
        Some((hex(&hash.finalize()), contents))
    }

    /// The stored result of `submission` if it was graded under `key`, and
    /// was a grade (not a grader fault). A result file that cannot be
    /// trusted (not a regular file of ours, too big, derived fields that
    /// disagree with its tests) is not reused, and said so on stderr: the
    /// submission is graded again and its file replaced.
    pub(crate) fn reusable(&self, submission: &Submission, key: &str) -> Option<SubmissionReport> {
        let name = file_name(&submission.id);
        let shown = self.dir.path().join(&name);
        let text = match self.dir.read(OsStr::new(&name), MAX_RESULT_BYTES) {
            Ok(text) => text,
            Err(Refusal::Missing) => return None,
            Err(why) => {
                crate::note!(
                    "note: {} is not reused ({why}); `{}` is graded again",
                    shown.display(),
                    visible_line(&submission.id)
                );
                return None;
            }
        };
        let file: ResultFile<serde_json::Value> = serde_json::from_slice(&text).ok()?;
        if file.format != FORMAT || file.key != key {
            return None;
        }
        let report = match stored_report(file.result) {
            Ok(report) => report,
            Err(why) => {
                crate::note!(
                    "note: {} is not reused ({why}); `{}` is graded again",
                    shown.display(),
                    visible_line(&submission.id)
                );
                return None;
            }
        };
        (report.id == submission.id && !report.grader_fault()).then_some(report)
    }

    /// Writes `report` as `submission`'s result under `key` (tempfile then
    /// rename: a reader sees the old file or the new one, never half).
    ///
    /// # Errors
    /// When the file cannot be written.
    pub(crate) fn store(
        &self,
        report: &SubmissionReport,
        key: &str,
        contents: &str,
    ) -> anyhow::Result<()> {
        let mut result = serde_json::to_value(report)?;
        // What the JSON report leaves out, and other formats need.
        if let Some(tests) = result["tests"].as_array_mut() {
            for (value, test) in tests.iter_mut().zip(&report.tests) {
                value["hidden"] = test.hidden.into();
                value["description"] = test.description.clone().into();
                value["side"] = test.side.into();
            }
        }
        let file = ResultFile {
            format: FORMAT.to_string(),
            grader: self.grader.clone(),
            cases: self.cases.clone(),
            submission: contents.to_string(),
            key: key.to_string(),
            result,
        };
        let name = file_name(&report.id);
        let mut bytes = serde_json::to_vec_pretty(&file)?;
        bytes.push(b'\n');
        self.dir.write_atomic(&name, &bytes).map_err(|e| {
            anyhow!(
                "cannot write the result {}: {e}",
                self.dir.path().join(&name).display()
            )
        })
    }
}

/// The file name of the student `id`'s result: a readable form of the id
/// (at most 80 characters of `[A-Za-z0-9._-]`) and a hash of the whole id,
/// so that two ids never share a file and any id makes a valid name.
fn file_name(id: &str) -> String {
    let readable: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    let id_hash = hex(&Sha256::digest(id.as_bytes())[..6]);
    format!("{}-{id_hash}{SUFFIX}", readable.trim_start_matches('.'))
}

/// A stored result as the model again, with each test's `hidden`,
/// `description` and board `side`, which the JSON report leaves out (see
/// [`ResultsDir::store`]).
///
/// # Errors
/// When it is not a submission's result, or its score, points or status
/// disagree with its tests (the error names the student).
fn stored_report(result: serde_json::Value) -> Result<SubmissionReport, serde_json::Error> {
    let mut report: SubmissionReport = serde_json::from_value(result.clone())?;
    let stored = result["tests"].as_array().map_or(&[][..], Vec::as_slice);
    for (test, value) in report.tests.iter_mut().zip(stored) {
        test.hidden = value["hidden"].as_bool().unwrap_or(false);
        test.description = value["description"].as_str().map(str::to_string);
        test.side = value["side"]
            .as_u64()
            .and_then(|side| usize::try_from(side).ok());
    }
    Ok(report)
}

/// Every result stored in `dir`, sorted by id.
///
/// # Errors
/// When the folder is refused ([`TrustedDir::open`]) or cannot be listed,
/// or a result file cannot be trusted (not a regular file of the
/// grader's user, too big), is not a result, or holds a score, points or
/// status that disagree with its tests: each names the file (and the
/// student) and what to do.
pub(crate) fn read_all(dir: &Path) -> anyhow::Result<Vec<StoredResult>> {
    let trusted = TrustedDir::open(dir, false)
        .map_err(|why| anyhow!("the results folder is refused: {why}"))?;
    let names = trusted.names().map_err(|e| {
        anyhow!(
            "cannot list the results folder {} (written by `grader grade --results {}`): {e}",
            dir.display(),
            dir.display()
        )
    })?;
    let mut results = Vec::new();
    for name in names {
        let shown = name.to_string_lossy().into_owned();
        if !shown.ends_with(SUFFIX) || shown.starts_with('.') {
            continue;
        }
        let path = trusted.path().join(&name);
        let text = trusted
            .read(&name, MAX_RESULT_BYTES)
            .map_err(|why| anyhow!("{} is refused: {why}", path.display()))?;
        let not_ours = || {
            anyhow!(
                "{} is not a result written by this grader: delete it, or regrade with --results",
                path.display()
            )
        };
        let file: ResultFile<serde_json::Value> =
            serde_json::from_slice(&text).map_err(|_| not_ours())?;
        if file.format != FORMAT {
            return Err(not_ours());
        }
        let report = stored_report(file.result)
            .map_err(|why| anyhow!("{} is refused: {why}", path.display()))?;
        results.push(StoredResult {
            path,
            grader: file.grader,
            cases: file.cases,
            report,
        });
    }
    results.sort_by(|a, b| a.report.id.cmp(&b.report.id));
    Ok(results)
}

/// Checks that all `results` come from one grader and one case set, naming
/// the first that does not.
///
/// # Errors
/// When they are mixed.
pub(crate) fn check_same_run(results: &[StoredResult]) -> anyhow::Result<()> {
    let Some(first) = results.first() else {
        return Ok(());
    };
    for other in results {
        let what = if other.grader != first.grader {
            "another grader version"
        } else if other.cases != first.cases {
            "other cases"
        } else {
            continue;
        };
        bail!(
            "{} (`{}`) was graded with {what} than {} (`{}`): delete the stale results, or regrade them with `grader grade --results`",
            other.path.display(),
            visible_line(&other.report.id),
            first.path.display(),
            visible_line(&first.report.id)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::submission::discover::classify;
    use std::fs;

    fn crate_at(dir: &Path, lib: &str) -> Submission {
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::write(dir.join("Cargo.toml"), "[package]\nname = \"s\"\n").unwrap();
        fs::write(dir.join("src/lib.rs"), lib).unwrap();
        classify(dir)
    }

    #[test]
    fn the_submission_hash_follows_the_contents_not_the_place_or_the_build_output() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let first = crate_at(&a.path().join("alice"), "fn a() {}");
        let same = crate_at(&b.path().join("alice"), "fn a() {}");
        let hash = submission_hash(&first).unwrap();
        assert_eq!(
            submission_hash(&same).unwrap(),
            hash,
            "same id and bytes elsewhere"
        );

        // What the build leaves out does not count.
        fs::create_dir_all(a.path().join("alice/target/debug")).unwrap();
        fs::write(a.path().join("alice/target/debug/x"), "built").unwrap();
        fs::write(a.path().join("alice/.DS_Store"), "x").unwrap();
        assert_eq!(submission_hash(&first).unwrap(), hash);

        // One byte, a new file, a renamed file, another id: another hash.
        fs::write(a.path().join("alice/src/lib.rs"), "fn b() {}").unwrap();
        let changed = submission_hash(&first).unwrap();
        assert_ne!(changed, hash);
        fs::write(a.path().join("alice/src/extra.rs"), "").unwrap();
        assert_ne!(submission_hash(&first).unwrap(), changed);
        let bob = crate_at(&b.path().join("bob"), "fn a() {}");
        assert_ne!(submission_hash(&bob).unwrap(), hash);
    }

    #[test]
    fn a_result_is_reused_only_under_the_same_key_and_never_after_a_grader_fault() {
        let dir = tempfile::tempdir().unwrap();
        let cases = crate::case::builtin();
        let results = ResultsDir::open(&dir.path().join("results"), &cases).unwrap();
        let sub = crate_at(&dir.path().join("a/b c"), "fn a() {}");
        let (key, contents) = results.key(&sub).unwrap();
        let mut report = crate::report::SubmissionReport {
            id: sub.id.clone(),
            kind: Some("rust".into()),
            status: crate::report::Status::Ok,
            message: String::new(),
            hint: None,
            score: 0,
            max_score: 0,
            notes: Vec::new(),
            fixed_size: None,
            fault: None,
            tests: Vec::new(),
        };
        results.store(&report, &key, &contents).unwrap();
        assert_eq!(results.reusable(&sub, &key), Some(report.clone()));
        assert_eq!(results.reusable(&sub, "another key"), None);
        report.fault = Some(crate::verdict::Fault::grader(
            crate::verdict::FaultKind::Panic,
        ));
        results.store(&report, &key, &contents).unwrap();
        assert_eq!(results.reusable(&sub, &key), None);
        let all = read_all(&dir.path().join("results")).unwrap();
        assert_eq!(all.len(), 1, "one file per student, rewritten");
        assert!(all[0].report.grader_fault());
    }

    #[test]
    fn the_cases_hash_follows_what_is_graded() {
        let cases = crate::case::builtin();
        let hash = cases_hash(&cases);
        assert_eq!(cases_hash(&crate::case::builtin()), hash);
        let mut other = cases.clone();
        other.cases[0].points += 1;
        assert_ne!(cases_hash(&other), hash);
        let mut other = cases.clone();
        other.config.time_limit_factor += 1;
        assert_ne!(cases_hash(&other), hash);
        let mut moved = cases.clone();
        for case in &mut moved.cases {
            case.file = Path::new("elsewhere").join(case.file.file_name().unwrap());
        }
        assert_eq!(
            cases_hash(&moved),
            hash,
            "where the files live does not count"
        );
    }
}
