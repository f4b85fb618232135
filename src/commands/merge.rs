//! `grader merge REPORT.json...`: joins the JSON reports of `grade --shard`
//! runs into one, the report a single run over the whole class writes
//! (submissions sorted by id), in any format.
//!
//! Refused: a student in two reports (overlapping shards), a report graded
//! on other cases than `--cases` (its tests differ), and reports whose
//! provenance (`run`, when the writer adds one) names another grader or
//! case set.

use anyhow::bail;
use std::collections::BTreeMap;
use std::path::Path;

use crate::cli::MergeArgs;
use crate::report::read::{read_report, restore_cases};
use crate::report::requests::ReportRequests;
use crate::report::text::visible_line;
use crate::report::{REPORT_VERSION, Report};
use crate::runner::plan::load_cases;

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
    let cases = load_cases(args.cases.as_deref(), true)?;
    let mut owner: BTreeMap<String, &Path> = BTreeMap::new();
    let mut provenance: Option<(serde_json::Value, &Path)> = None;
    let mut submissions = Vec::new();
    let mut runs: Vec<crate::report::RunInfo> = Vec::new();
    for path in &args.reports {
        let mut read = read_report(path)?;
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
        crate::report::gradescope::check_submission_count(report.submissions.len())?;
    }
    crate::note!(
        "merged {} reports: {} submissions",
        args.reports.len(),
        report.submissions.len()
    );
    outputs.write_with_summary(&report)?;
    Ok(crate::exit::of_report(&report, args.fail_under))
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
