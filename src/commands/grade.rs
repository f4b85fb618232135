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
use crate::report::formats::{gradescope, terminal};
use crate::report::requests::{ReportRequests, is_stdout};
use crate::report::{Report, SubmissionReport};
use crate::runner::calibrate::calibrate;
use crate::runner::class::{Progress, grade_all};
use crate::runner::grade_plan::{GradePlan, load_cases};
use crate::state::results_dir::ResultsDir;
use crate::submission::discover::{self, Submission};
use crate::verdict::Verdict;
use crate::visible::visible_line;

/// How many characters of the running students' ids the progress bar shows.
const RUNNING_SHOWN: usize = 60;

/// Runs `grader grade`; the exit code is 0 iff every test of every
/// submission passed (or, with `--fail-under`, every score reached it).
/// The steps, in order: everything the flags ask for checked and opened
/// before any grading; the submissions found; what is already graded
/// reused; the plan made and its time limits timed; the rest graded, each
/// result leaving as soon as it is final; the reports written; the notes
/// and the summary.
pub fn run(args: &GradeArgs) -> anyhow::Result<u8> {
    let mut sinks = Sinks::check(args)?;
    let cases = load_cases(args.cases.as_deref(), true)?;
    let submissions = find_submissions(args)?;
    sinks.id_width = terminal::id_width(submissions.iter().map(|s| s.id.as_str()));
    if sinks.reports.wants_gradescope() {
        gradescope::check_submission_count(submissions.len())?;
    }
    if sinks.reports.wants_classroom() && submissions.len() != 1 {
        bail!(
            "--classroom needs exactly one submission, and there are {}: a Classroom repository is one student's; grade it with --single",
            submissions.len()
        );
    }
    sinks.create(args)?;
    let results = match &args.results {
        Some(dir) => Some(ResultsDir::open(dir, &cases)?),
        None => None,
    };
    let stored = Stored::find(results.as_ref(), &submissions, args.results.as_deref());
    let to_grade = stored.to_grade(&submissions);
    let mut plan = GradePlan::prepare(cases, args.jobs, &args.submissions, true)?;
    crate::note!("sandbox: {}", plan.sandbox.active().join(", "));
    let timing = std::time::Instant::now();
    calibrate(
        &mut plan,
        to_grade
            .iter()
            .filter_map(|(s, _)| s.kind.as_ref().ok().copied()),
    )?;
    crate::note!(
        "time limits: {} (took {:.1} s)",
        plan.limits.describe(&plan.cases),
        timing.elapsed().as_secs_f64()
    );
    let (report, failed) = grade(&plan, &sinks, results.as_ref(), stored, to_grade);
    let Sinks {
        reports,
        summary_to_stderr,
        stream_lines,
        ..
    } = sinks;
    // The reports are written even when a result could not be streamed
    // or stored: that error is returned after them.
    reports.write(&report)?;
    if args.single {
        // What the student's own result says about how the upload was
        // read, in the log too (Gradescope's, a Classroom job's).
        for note in report.submissions.iter().flat_map(|s| &s.notes) {
            crate::note!("note: {}", visible_line(note));
        }
    }
    say_what_the_run_cost(&report);
    if let Some(err) = failed {
        return Err(err);
    }
    write_summary(&report, summary_to_stderr, stream_lines)?;
    Ok(crate::exit::of_report(&report, args.fail_under))
}

/// Where results go: the reports asked for (created before grading), the
/// JSON Lines stream, and the summary (stdout, unless a report takes it;
/// a line per student when it is not a terminal).
struct Sinks {
    reports: ReportRequests,
    jsonl: Option<Mutex<Box<dyn Write + Send>>>,
    summary_to_stderr: bool,
    stream_lines: bool,
    /// The width of the streamed lines' first column (every id's).
    id_width: usize,
    /// The streamed lines' header, written once, above the first line.
    header: std::sync::Once,
}

impl Sinks {
    /// Checks the output flags (one stdout, the report flags), before
    /// any work; nothing is created until [`Sinks::create`].
    ///
    /// # Errors
    /// Two outputs on stdout, a bad report flag.
    fn check(args: &GradeArgs) -> anyhow::Result<Sinks> {
        let reports = ReportRequests::plan(&args.outputs)?;
        let jsonl_to_stdout = args.jsonl.as_deref().is_some_and(is_stdout);
        if jsonl_to_stdout && reports.uses_stdout() {
            bail!(
                "--jsonl - and another report both ask for stdout, which can hold only one: write one of them to a file"
            );
        }
        let summary_to_stderr = reports.uses_stdout() || jsonl_to_stdout;
        let summary_is_terminal = if summary_to_stderr {
            io::stderr().is_terminal()
        } else {
            io::stdout().is_terminal()
        };
        Ok(Sinks {
            reports,
            jsonl: None,
            summary_to_stderr,
            stream_lines: !summary_is_terminal,
            id_width: 0,
            header: std::sync::Once::new(),
        })
    }

    /// Creates the report files and opens the JSON Lines stream, before
    /// grading (a path that cannot be written is found now).
    ///
    /// # Errors
    /// A file that cannot be created.
    fn create(&mut self, args: &GradeArgs) -> anyhow::Result<()> {
        self.reports.create()?;
        self.jsonl = match &args.jsonl {
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
        Ok(())
    }

    /// Sends one final result on its way: a JSON line, a summary line.
    fn finished(
        &self,
        sub: &SubmissionReport,
        stored: bool,
        bar: &ProgressBar,
    ) -> anyhow::Result<()> {
        if let Some(jsonl) = &self.jsonl {
            let mut out = jsonl.lock().unwrap_or_else(|e| e.into_inner());
            serde_json::to_writer(&mut *out, sub)
                .map_err(io::Error::from)
                .and_then(|()| out.write_all(b"\n"))
                .and_then(|()| out.flush())
                .context("cannot write the JSON Lines stream")?;
        }
        if self.stream_lines && !crate::quiet::is_quiet() {
            let mut lines = String::new();
            self.header.call_once(|| {
                lines = terminal::header(self.id_width) + "\n";
            });
            lines += &terminal::row(sub, self.id_width, stored);
            bar.suspend(|| {
                if self.summary_to_stderr {
                    writeln!(io::stderr(), "{lines}")
                } else {
                    let mut out = io::stdout().lock();
                    writeln!(out, "{lines}").and_then(|()| out.flush())
                }
            })
            .context("cannot write the summary")?;
        }
        Ok(())
    }
}

/// The submissions to grade: the folder's entries (or `--single`'s one
/// upload), then `--shard`'s part of them.
///
/// # Errors
/// A folder that cannot be read, or holds no submission.
fn find_submissions(args: &GradeArgs) -> anyhow::Result<Vec<Submission>> {
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
        crate::note!(
            "shard {shard}: {} of {total} submissions",
            submissions.len()
        );
    }
    Ok(submissions)
}

/// A submission's key in the results folder, and the hash of its contents.
type Key = (String, String);

/// What the results folder already holds: per submission, its stored
/// result when it is reusable (same contents, cases and grader), and the
/// key it is graded and stored under.
struct Stored {
    reused: Vec<Option<SubmissionReport>>,
    keys: Vec<Option<Key>>,
}

impl Stored {
    /// Looks up every submission in `results` (nothing without one).
    fn find(
        results: Option<&ResultsDir>,
        submissions: &[Submission],
        dir: Option<&std::path::Path>,
    ) -> Stored {
        let mut stored = Stored {
            reused: vec![None; submissions.len()],
            keys: vec![None; submissions.len()],
        };
        let Some(results) = results else {
            return stored;
        };
        for (i, submission) in submissions.iter().enumerate() {
            stored.keys[i] = results.key(submission);
            match &stored.keys[i] {
                Some((key, _)) => stored.reused[i] = results.reusable(submission, key),
                None => crate::note!(
                    "note: `{}` is too big to fingerprint (over {} MiB or {} files): it is graded on every run",
                    visible_line(&submission.id),
                    crate::state::results_dir::MAX_HASHED_BYTES >> 20,
                    crate::state::results_dir::MAX_HASHED_FILES
                ),
            }
        }
        let count = stored.reused.iter().flatten().count();
        if count > 0 {
            crate::note!(
                "reusing {count} stored results from {} (unchanged submissions, cases and grader)",
                dir.unwrap_or(std::path::Path::new("")).display()
            );
        }
        stored
    }

    /// The submissions still to grade, each with its key.
    fn to_grade(&self, submissions: &[Submission]) -> Vec<(Submission, Option<Key>)> {
        submissions
            .iter()
            .zip(&self.keys)
            .zip(&self.reused)
            .filter(|(_, reused)| reused.is_none())
            .map(|((s, key), _)| (s.clone(), key.clone()))
            .collect()
    }
}

/// Grades `to_grade` (the stored results are sent on first), storing and
/// sending each result as it is final, and returns the report of every
/// submission, in order, with the run's section, and the first result
/// that could not be stored or sent (grading goes on past it).
fn grade(
    plan: &GradePlan,
    sinks: &Sinks,
    results: Option<&ResultsDir>,
    stored: Stored,
    to_grade: Vec<(Submission, Option<Key>)>,
) -> (Report, Option<anyhow::Error>) {
    let (to_grade, keys): (Vec<Submission>, Vec<Option<Key>>) = to_grade.into_iter().unzip();
    let bar = progress_bar(to_grade.len());
    let running: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let fail = |err: anyhow::Error| {
        let mut slot = failure.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(err);
        }
    };
    for sub in stored.reused.iter().flatten() {
        if let Err(err) = sinks.finished(sub, true, &bar) {
            fail(err);
        }
    }
    let key_of = |submission: &Submission| {
        to_grade
            .iter()
            .position(|s| std::ptr::eq(s, submission))
            .and_then(|i| keys[i].clone())
    };
    let started = std::time::SystemTime::now();
    let clock = std::time::Instant::now();
    let fresh = grade_all(&to_grade, plan, &|event| match event {
        Progress::Started(submission) => {
            let mut now = running.lock().unwrap_or_else(|e| e.into_inner());
            now.insert(visible_line(&submission.id).into_owned());
            bar.set_message(running_message(&now));
        }
        Progress::Finished(submission, report) => {
            // Its derived fields settled (a fault in any test: not graded)
            // before any report sees it.
            let mut report = report.clone();
            report.settle();
            let report = &report;
            if let (Some(results), Some((key, contents))) = (results, key_of(submission)) {
                // A grader fault is stored too (the report is readable),
                // but never reused: the rerun grades it again.
                if let Err(err) = results.store(report, &key, &contents) {
                    fail(err);
                }
            }
            if let Err(err) = sinks.finished(report, false, &bar) {
                fail(err);
            }
            let mut now = running.lock().unwrap_or_else(|e| e.into_inner());
            now.remove(visible_line(&submission.id).as_ref());
            bar.set_message(running_message(&now));
            bar.inc(1);
        }
    });
    bar.finish_and_clear();
    // Every result, in the order of the submissions.
    let version = fresh.version;
    let mut fresh = fresh.submissions.into_iter().map(|mut sub| {
        sub.settle();
        sub
    });
    let report = Report {
        version,
        run: Some(crate::report::RunInfo::new(
            &plan.cases,
            plan.limits.applied(&plan.cases),
            &plan.sandbox.active(),
            started,
            clock.elapsed(),
        )),
        submissions: stored
            .reused
            .into_iter()
            .filter_map(|reused| reused.or_else(|| fresh.next()))
            .collect(),
    };
    (
        report,
        failure.into_inner().unwrap_or_else(|e| e.into_inner()),
    )
}

/// Notes on what the host cost the run: tests timed again because it was
/// too busy, and the share of the time spent in tests that ran to a limit.
fn say_what_the_run_cost(report: &Report) {
    let reruns: u32 = report
        .submissions
        .iter()
        .flat_map(|s| &s.tests)
        .map(|t| t.reruns)
        .sum();
    if reruns > 0 {
        crate::note!(
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
        crate::note!(
            "note: {} test(s) ran to a time limit: {:.1} s, {:.0}% of the {:.1} s spent in tests",
            timeouts.len(),
            spent / 1000.0,
            100.0 * spent / all_ms,
            all_ms / 1000.0
        );
    }
}

/// The end of the summary: the totals after streamed lines, or the whole
/// table on a terminal.
///
/// # Errors
/// When the summary cannot be written.
fn write_summary(report: &Report, to_stderr: bool, streamed: bool) -> anyhow::Result<()> {
    if streamed {
        // The escaped ids' notes, then the totals, where the lines went.
        let notes = crate::report::ids::of_report(report).notes();
        let mut err;
        let mut std_out;
        let out: &mut dyn Write = if to_stderr {
            err = io::stderr().lock();
            &mut err
        } else {
            std_out = io::stdout().lock();
            &mut std_out
        };
        for note in notes {
            writeln!(out, "note: {note}")?;
        }
        terminal::closing_line(report, out)?;
        out.flush()?;
    } else if to_stderr {
        terminal::write_summary(report, &mut io::stderr().lock())?;
    } else {
        let mut out = io::stdout().lock();
        terminal::write_summary(report, &mut out)?;
        out.flush()?;
    }
    Ok(())
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

/// A progress bar on stderr when it is a terminal (hidden otherwise, and
/// with `-q`): done/total, elapsed, ETA, and the students being graded now.
fn progress_bar(total: usize) -> ProgressBar {
    if !io::stderr().is_terminal() || total == 0 || crate::quiet::is_quiet() {
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
