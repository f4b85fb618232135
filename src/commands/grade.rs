//! `grader grade SUBMISSIONS`: an instructor grades a folder of submissions.
//!
//! Results leave as soon as each student is graded: a line on the summary
//! stream (when it is not a terminal; a terminal gets a progress bar and the
//! table at the end), a JSON line (`--jsonl`), a result file (`--results`).
//! The reports (`--json`, ...) are written at the end, from every result.

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeSet;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::sync::Mutex;
use std::time::Duration;

use crate::cli::GradeArgs;
use crate::commands::outputs::{Outputs, exit_code, is_stdout};
use crate::commands::plan::{load_cases, prepare};
use crate::commands::results::ResultsDir;
use crate::report::text::visible_line;
use crate::report::{Report, Status, SubmissionReport, gradescope, headline, terminal};
use crate::runner::grade::{Progress, grade_all};
use crate::submission::discover::{self, Submission};
use crate::verdict::Verdict;

/// How many characters of the running students' ids the progress bar shows.
const RUNNING_SHOWN: usize = 60;

/// Runs `grader grade`; the exit code is 0 iff every test of every
/// submission passed (or, with `--fail-under`, every score reached it).
pub fn run(args: &GradeArgs) -> anyhow::Result<u8> {
    let mut outputs = Outputs::plan(&args.outputs)?;
    let jsonl_to_stdout = args.jsonl.as_deref().is_some_and(is_stdout);
    if jsonl_to_stdout && outputs.uses_stdout() {
        bail!(
            "--jsonl - and another report both ask for stdout, which can hold only one: write one of them to a file"
        );
    }
    let cases = load_cases(args.cases.as_deref(), true)?;
    let mut submissions = if args.single {
        single_upload(&args.submissions)?
    } else {
        discover::discover(&args.submissions).with_context(|| {
            format!(
                "cannot read the submissions in {}",
                args.submissions.display()
            )
        })?
    };
    if submissions.is_empty() {
        bail!(
            "{} holds no submissions: put one entry per student in it (a folder with Cargo.toml, a .c, a .py, a .ipynb or a .so)",
            args.submissions.display()
        );
    }
    if let Some(shard) = args.shard {
        let total = submissions.len();
        submissions.retain(|s| shard.holds(&s.id));
        eprintln!(
            "shard {shard}: {} of {total} submissions",
            submissions.len()
        );
    }
    if outputs.wants_gradescope() {
        gradescope::check_submission_count(submissions.len())?;
    }
    if outputs.wants_classroom() && submissions.len() != 1 {
        bail!(
            "--classroom needs exactly one submission, and there are {}: a Classroom repository is one student's; grade it with --single",
            submissions.len()
        );
    }
    outputs.create()?;
    let jsonl: Option<Mutex<Box<dyn Write + Send>>> = match &args.jsonl {
        None => None,
        Some(path) if is_stdout(path) => Some(Mutex::new(Box::new(io::stdout()))),
        Some(path) => {
            let file = File::create(path).with_context(|| {
                format!(
                    "cannot create the JSON Lines file {}: check that its folder exists and is writable",
                    path.display()
                )
            })?;
            Some(Mutex::new(Box::new(BufWriter::new(file))))
        }
    };
    let results = match &args.results {
        Some(dir) => Some(ResultsDir::open(dir, &cases)?),
        None => None,
    };

    // What is already graded (same contents, cases and grader) is reused.
    let mut reused: Vec<Option<SubmissionReport>> = vec![None; submissions.len()];
    let mut keys: Vec<Option<(String, String)>> = vec![None; submissions.len()];
    if let Some(results) = &results {
        for (i, submission) in submissions.iter().enumerate() {
            keys[i] = results.key(submission);
            match &keys[i] {
                Some((key, _)) => reused[i] = results.reusable(submission, key),
                None => eprintln!(
                    "note: `{}` is too big to fingerprint (over {} MiB or {} files): it is graded on every run",
                    visible_line(&submission.id),
                    crate::commands::results::MAX_HASHED_BYTES >> 20,
                    crate::commands::results::MAX_HASHED_FILES
                ),
            }
        }
        let count = reused.iter().flatten().count();
        if count > 0 {
            eprintln!(
                "reusing {count} stored results from {} (unchanged submissions, cases and grader)",
                args.results
                    .as_deref()
                    .unwrap_or(std::path::Path::new(""))
                    .display()
            );
        }
    }
    let (to_grade, to_grade_keys): (Vec<Submission>, Vec<Option<(String, String)>>) = submissions
        .iter()
        .zip(keys)
        .zip(&reused)
        .filter(|(_, r)| r.is_none())
        .map(|((s, k), _)| (s.clone(), k))
        .unzip();

    let mut plan = prepare(cases, args.jobs, &args.submissions)?;
    eprintln!("sandbox: {}", plan.sandbox.active().join(", "));
    let timing = std::time::Instant::now();
    crate::runner::limits::calibrate(
        &mut plan,
        to_grade
            .iter()
            .filter_map(|s| s.kind.as_ref().ok().copied()),
    )?;
    eprintln!(
        "time limits: {} (timed in {:.1} s)",
        plan.limits.describe(&plan.cases),
        timing.elapsed().as_secs_f64()
    );

    // The summary goes to stdout, unless a report already does.
    let summary_to_stderr = outputs.uses_stdout() || jsonl_to_stdout;
    let summary_is_terminal = if summary_to_stderr {
        io::stderr().is_terminal()
    } else {
        io::stdout().is_terminal()
    };
    let stream_lines = !summary_is_terminal;
    let bar = progress_bar(to_grade.len());
    let running: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let fail = |err: anyhow::Error| {
        let mut slot = failure.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(err);
        }
    };
    let finished = |sub: &SubmissionReport, stored: bool| {
        if let Some(jsonl) = &jsonl {
            let mut out = jsonl.lock().unwrap_or_else(|e| e.into_inner());
            let written = serde_json::to_writer(&mut *out, sub)
                .map_err(io::Error::from)
                .and_then(|()| out.write_all(b"\n"))
                .and_then(|()| out.flush());
            if let Err(err) = written {
                fail(anyhow::Error::from(err).context("cannot write the JSON Lines stream"));
            }
        }
        if stream_lines {
            let line = summary_line(sub, stored);
            bar.suspend(|| {
                let written = if summary_to_stderr {
                    writeln!(io::stderr(), "{line}")
                } else {
                    let mut out = io::stdout().lock();
                    writeln!(out, "{line}").and_then(|()| out.flush())
                };
                if let Err(err) = written {
                    fail(anyhow::Error::from(err).context("cannot write the summary"));
                }
            });
        }
    };
    for sub in reused.iter().flatten() {
        finished(sub, true);
    }
    let key_of = |submission: &Submission| {
        to_grade
            .iter()
            .position(|s| std::ptr::eq(s, submission))
            .and_then(|i| to_grade_keys[i].clone())
    };
    let started = std::time::SystemTime::now();
    let clock = std::time::Instant::now();
    let fresh = grade_all(&to_grade, &plan, &|event| match event {
        Progress::Started(submission) => {
            let mut now = running.lock().unwrap_or_else(|e| e.into_inner());
            now.insert(visible_line(&submission.id).into_owned());
            bar.set_message(running_message(&now));
        }
        Progress::Finished(submission, report) => {
            if let (Some(results), Some((key, contents))) = (&results, key_of(submission)) {
                // A grader fault is stored too (the report is readable),
                // but never reused: the rerun grades it again.
                if let Err(err) = results.store(report, &key, &contents) {
                    fail(err);
                }
            }
            finished(report, false);
            let mut now = running.lock().unwrap_or_else(|e| e.into_inner());
            now.remove(visible_line(&submission.id).as_ref());
            bar.set_message(running_message(&now));
            bar.inc(1);
        }
    });
    bar.finish_and_clear();

    // Every result, in the order of the submissions.
    let version = fresh.version;
    let mut fresh = fresh.submissions.into_iter();
    let report = Report {
        version,
        run: Some(crate::report::RunInfo::new(
            &plan.cases,
            plan.limits.applied(&plan.cases),
            &plan.sandbox.active(),
            started,
            clock.elapsed(),
        )),
        submissions: reused
            .into_iter()
            .filter_map(|stored| stored.or_else(|| fresh.next()))
            .collect(),
    };
    outputs.write(&report)?;
    if args.single {
        // What the student's own result says about how the upload was
        // read, in the log too (Gradescope's, a Classroom job's).
        for note in report.submissions.iter().flat_map(|s| &s.notes) {
            eprintln!("note: {}", visible_line(note));
        }
    }
    let reruns: u32 = report
        .submissions
        .iter()
        .flat_map(|s| &s.tests)
        .map(|t| t.reruns)
        .sum();
    if reruns > 0 {
        eprintln!(
            "note: {reruns} test run(s) were repeated because the host was too busy to time them (each test's `reruns` in the JSON report); the verdicts are the repeated runs'"
        );
    }
    let tests: Vec<&crate::report::TestReport> =
        report.submissions.iter().flat_map(|s| &s.tests).collect();
    let all_ms: f64 = tests.iter().filter_map(|t| t.wall_ms).sum();
    let timeouts: Vec<f64> = tests
        .iter()
        .filter(|t| t.verdict == Verdict::Timeout)
        .filter_map(|t| t.wall_ms)
        .collect();
    if !timeouts.is_empty() && all_ms > 0.0 {
        let spent: f64 = timeouts.iter().sum();
        eprintln!(
            "note: {} test(s) ran to a time limit: {:.1} s, {:.0}% of the {:.1} s spent in tests",
            timeouts.len(),
            spent / 1000.0,
            100.0 * spent / all_ms,
            all_ms / 1000.0
        );
    }
    if let Some(err) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(err);
    }
    if stream_lines {
        let totals = totals_line(&report);
        if summary_to_stderr {
            eprintln!("{totals}");
        } else {
            println!("{totals}");
        }
    } else if summary_to_stderr {
        terminal::write_summary(&report, &mut io::stderr().lock())?;
    } else {
        let mut out = io::stdout().lock();
        terminal::write_summary(&report, &mut out)?;
        out.flush()?;
    }
    Ok(exit_code(&report, args.fail_under))
}

/// The one submission of the upload folder `dir` (`--single`); the files
/// ignored beside it are in its notes (named on stderr after grading).
fn single_upload(dir: &std::path::Path) -> anyhow::Result<Vec<Submission>> {
    if !dir.is_dir() {
        bail!(
            "{} is not a folder: --single grades the folder a student uploaded",
            dir.display()
        );
    }
    Ok(vec![discover::classify_upload(dir).submission])
}

/// A progress bar on stderr when it is a terminal (hidden otherwise):
/// done/total, elapsed, ETA, and the students being graded now.
fn progress_bar(total: usize) -> ProgressBar {
    if !io::stderr().is_terminal() || total == 0 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} graded, {elapsed} elapsed, ETA {eta}  now: {wide_msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

/// The ids being graded now, shortened to fit.
fn running_message(running: &BTreeSet<String>) -> String {
    let all = running.iter().cloned().collect::<Vec<_>>().join(", ");
    if all.chars().count() <= RUNNING_SHOWN {
        all
    } else {
        let short: String = all.chars().take(RUNNING_SHOWN).collect();
        format!("{short}...")
    }
}

/// One student's summary line, as soon as they are graded.
pub fn summary_line(sub: &SubmissionReport, stored: bool) -> String {
    let result = match sub.status {
        Status::BuildError => format!("build error: {}", visible_line(headline(&sub.message))),
        Status::LoadError => format!("load error: {}", visible_line(headline(&sub.message))),
        Status::Ok => {
            let failed: Vec<String> = sub
                .tests
                .iter()
                .filter(|t| t.verdict != Verdict::Pass)
                .map(|t| format!("{}/{} {}", visible_line(&t.case), t.function, t.verdict))
                .collect();
            match failed.len() {
                0 => "all passed".to_string(),
                1..=3 => failed.join(", "),
                n => format!("{}, and {} more", failed[..3].join(", "), n - 3),
            }
        }
    };
    format!(
        "{}  {}  {}/{}  {result}{}",
        visible_line(&sub.id),
        sub.kind.as_deref().unwrap_or("?"),
        sub.score,
        sub.max_score,
        if stored { "  (stored result)" } else { "" }
    )
}

/// The last line of a streamed summary.
fn totals_line(report: &Report) -> String {
    let passed = report.submissions.iter().filter(|s| s.all_passed()).count();
    format!(
        "{} submissions, {passed} passed every test",
        report.submissions.len()
    )
}
