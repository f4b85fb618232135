//! `grader merge REPORT.json...`: joins the JSON reports of `grade --shard`
//! runs into one, the report a single run over the whole class writes
//! (submissions sorted by id), in any format.
//!
//! The case set is `--cases`, or else the one the shards record: each
//! shard's `run` section lists its case files with their SHA-256; the
//! shards must list the same files with the same hashes, and each file
//! must still be there (the paths are as `grade` was given them, so merge
//! where grade ran) with those bytes. Shards without a `run` section fall
//! back on the built-in public cases, as `grade` without `--cases` does.
//!
//! Refused: a student in two reports (overlapping shards), a report graded
//! on other cases than `--cases` (its tests differ), shards that record
//! different case files, a recorded case file that is missing or changed,
//! and reports whose provenance (`run`, when the writer adds one) names
//! another grader or case set.

use anyhow::{Context, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cli::MergeArgs;
use crate::report::read::{read_report, restore_cases};
use crate::report::requests::ReportRequests;
use crate::report::{REPORT_VERSION, Report};
use crate::runner::grade_plan::load_cases;
use crate::visible::visible_line;

/// Keys of a report's `run` section that differ from shard to shard (when
/// and where it ran, which shard) and are left out of the comparison.
const PER_SHARD_KEYS: [&str; 10] = [
    "shard",
    "started",
    "finished",
    "time",
    "wall_ms",
    "duration",
    "duration_s",
    "host",
    "hostname",
    "jobs",
];

/// Runs `grader merge`; the exit code is as `grade` gives for the class.
pub fn run(args: &MergeArgs) -> anyhow::Result<u8> {
    let outputs = ReportRequests::plan(&args.outputs)?;
    let reads = args
        .reports
        .iter()
        .map(|path| read_report(path).map(|read| (path.as_path(), read)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let cases = match args.cases.as_deref() {
        Some(dir) => load_cases(Some(dir), true)?,
        None => recorded_cases(&reads)?,
    };
    let mut owner: BTreeMap<String, &Path> = BTreeMap::new();
    let mut provenance: Option<(serde_json::Value, &Path)> = None;
    let mut submissions = Vec::new();
    let mut runs: Vec<crate::report::RunInfo> = Vec::new();
    for (path, mut read) in reads {
        restore_cases(&mut read, &cases, &path.display().to_string())?;
        runs.extend(read.run.clone());
        let run = read.run.as_ref().map(serde_json::to_value).transpose()?;
        if let Some(run) = run.as_ref().map(comparable) {
            match &provenance {
                None => provenance = Some((run, path)),
                Some((first, first_path)) if *first != run => bail!(
                    "{} and {} come from different grading runs (another grader version or other cases: their `run` sections differ): merge only the shards of one run",
                    first_path.display(),
                    path.display()
                ),
                Some(_) => {}
            }
        }
        let mut ids_here = std::collections::BTreeSet::new();
        for sub in &read.submissions {
            if !ids_here.insert(sub.id.clone()) {
                continue; // the same id twice in one run: discover's own marking
            }
            if let Some(other) = owner.insert(sub.id.clone(), path) {
                bail!(
                    "`{}` is in both {} and {}: the shards overlap; merge the reports of one `--shard K/N` series (same N, each K once)",
                    visible_line(&sub.id),
                    other.display(),
                    path.display()
                );
            }
        }
        submissions.extend(read.submissions);
    }
    // The order of a single run: by id (a stable sort keeps a report's own
    // order among equal ids).
    submissions.sort_by(|a, b| a.id.cmp(&b.id));
    let report = Report {
        run: merged_run(&runs),
        version: REPORT_VERSION,
        submissions,
    };
    if outputs.wants_gradescope() {
        crate::report::formats::gradescope::check_submission_count(report.submissions.len())?;
    }
    crate::note!(
        "merged {} reports: {} submissions",
        args.reports.len(),
        report.submissions.len()
    );
    outputs.write_with_summary(&report)?;
    Ok(crate::exit::of_report(&report, args.fail_under))
}

/// A case file as a shard's `run` section records it: its name (as
/// `grade` was given it, or `builtin:...`) and SHA-256.
type RecordedFile = (String, Option<String>);

/// The case files `read`'s `run` section records, if it has one.
fn recorded_files(read: &Report) -> Option<Vec<RecordedFile>> {
    let run = read.run.as_ref()?;
    Some(
        run.case_files
            .iter()
            .map(|f| (f.name.clone(), f.sha256.clone()))
            .collect(),
    )
}

/// The case set the shards `reads` were graded on, from their `run`
/// sections (see the module doc).
///
/// # Errors
/// Shards that disagree, or record no case files while others do; a
/// recorded file that is missing, unreadable or changed since.
fn recorded_cases(reads: &[(&Path, Report)]) -> anyhow::Result<crate::case::CaseSet> {
    let recorded: Vec<(&Path, Option<Vec<RecordedFile>>)> = reads
        .iter()
        .map(|(path, read)| (*path, recorded_files(read)))
        .collect();
    let Some((first_path, Some(first))) = recorded.iter().find(|(_, r)| r.is_some()) else {
        return load_cases(None, true);
    };
    for (path, files) in &recorded {
        let Some(files) = files else {
            bail!(
                "{} records its case files and {} does not (no `run` section): merge the shards of one run, or give --cases DIR",
                first_path.display(),
                path.display()
            );
        };
        if files != first {
            let shown = |list: &[RecordedFile]| {
                list.iter()
                    .map(|(name, hash)| {
                        format!(
                            "{} ({})",
                            visible_line(name),
                            crate::report::run_info::short_hash(hash.as_deref())
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            bail!(
                "{} and {} were graded on different cases ({} against {}): merge the shards of one run, graded on one case set",
                first_path.display(),
                path.display(),
                shown(first),
                shown(files)
            );
        }
    }
    if first.is_empty() {
        bail!(
            "{} records no case files: give --cases DIR",
            first_path.display()
        );
    }
    let fix = "run merge in the folder grade ran in, with the same case files, or give --cases DIR";
    let mut paths = Vec::new();
    for (name, hash) in first {
        let path = PathBuf::from(name);
        let bytes = match crate::case::builtin_source(&path) {
            Some(text) => text.as_bytes().to_vec(),
            None => std::fs::read(&path).with_context(|| {
                format!(
                    "cannot read {}, a case file the shards were graded on: {fix}",
                    visible_line(name)
                )
            })?,
        };
        let now = crate::report::run_info::sha256_hex(&bytes);
        match hash {
            Some(hash) if *hash == now => {}
            Some(hash) => bail!(
                "{} has changed since the shards were graded (its SHA-256 is {}, the shards record {}): {fix}",
                visible_line(name),
                crate::report::run_info::short_hash(Some(&now)),
                crate::report::run_info::short_hash(Some(hash))
            ),
            None => bail!(
                "the shards record no SHA-256 for {} (it could not be read again when they were graded): give --cases DIR",
                visible_line(name)
            ),
        }
        paths.push(path);
    }
    let cases = if paths
        .iter()
        .all(|p| crate::case::builtin_source(p).is_some())
    {
        crate::case::builtin()
    } else {
        crate::case::load(&paths)?
    };
    crate::note!(
        "cases: the {} case file(s) the shards record, SHA-256 checked",
        paths.len()
    );
    Ok(cases)
}

/// The merged report's `run` section: the shards' (which agree, checked
/// above), the first one's where they may differ (the limits each shard
/// timed on its host, the safeguards of its host), starting when the
/// earliest shard started and lasting as long as all of them together
/// (the grading time spent, whether the shards ran side by side or not).
/// `None` when no shard has one.
fn merged_run(runs: &[crate::report::RunInfo]) -> Option<crate::report::RunInfo> {
    let mut merged = runs.first()?.clone();
    merged.started = runs.iter().map(|r| r.started.clone()).min()?;
    merged.duration_s = runs.iter().map(|r| r.duration_s).sum();
    Some(merged)
}

/// A `run` section without what differs from shard to shard: the times,
/// and in `limits` the limits each shard timed on its own host (the policy
/// that made them must agree).
fn comparable(run: &serde_json::Value) -> serde_json::Value {
    match run {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .filter(|(key, _)| {
                    !PER_SHARD_KEYS
                        .iter()
                        .any(|k| key.as_str() == *k || key.ends_with("_at") || key.ends_with("_ms"))
                })
                .map(|(key, value)| {
                    let mut value = value.clone();
                    if key == "limits" {
                        if let Some(limits) = value.as_object_mut() {
                            limits.remove("time_limits");
                        }
                    }
                    (key.clone(), value)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}
