//! `cargo bench --bench load`: does a busy host cost a correct student a
//! point? Grades a class of correct submissions (copies of the lab's
//! listing in Python and in C) with the real `grader` binary, once on an
//! idle machine and then several times with CPU hogs running beside it
//! (four per core by default), and reports for each run the wall time, the
//! tests that did not pass (every one is a false verdict: the code is the
//! listing), the tests timed again because the host was too busy
//! (`reruns`), and the grader faults. The goal: no false verdict in any
//! loaded run.
//!
//! Settings (environment): `LOAD_BENCH_COPIES` (per language, default 20),
//! `LOAD_BENCH_RUNS` (loaded runs, default 5), `LOAD_BENCH_HOGS_PER_CORE`
//! (default 4), `LOAD_BENCH_CASES` (a cases folder; default the bundled
//! `cases/`, hidden ones included).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

fn main() {
    if let Err(err) = run() {
        eprintln!("load bench: {err}");
        std::process::exit(1);
    }
}

/// What one graded run came to.
struct Figures {
    wall_s: f64,
    tests: usize,
    not_passed: Vec<String>,
    reruns: u64,
    faults: usize,
}

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn run() -> Result<(), String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let copies = setting("LOAD_BENCH_COPIES", 20);
    let runs = setting("LOAD_BENCH_RUNS", 5);
    let per_core = setting("LOAD_BENCH_HOGS_PER_CORE", 4);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cases = std::env::var_os("LOAD_BENCH_CASES")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("cases"));
    let class = tempfile::tempdir().map_err(|e| e.to_string())?;
    for i in 0..copies {
        let copy = |from: &str, to: String| {
            std::fs::copy(root.join("submissions").join(from), class.path().join(to))
                .map(|_| ())
                .map_err(|e| format!("copy {from}: {e}"))
        };
        copy("py-listing.py", format!("py-{i:02}.py"))?;
        copy("c-listing.c", format!("c-{i:02}.c"))?;
    }
    println!(
        "load bench: {copies} Python and {copies} C copies of the lab's listing, cases {}, {cores} cores",
        cases.display()
    );
    let idle = grade(class.path(), &cases)?;
    let mut rows = vec![("idle".to_string(), idle)];
    for run in 1..=runs {
        let hogs = Hogs::start(cores * per_core)?;
        let figures = grade(class.path(), &cases);
        drop(hogs);
        rows.push((
            format!("loaded {run} ({} hogs)", cores * per_core),
            figures?,
        ));
    }
    println!();
    println!("| run | wall s | vs idle | tests | not passed | reruns | grader faults |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let idle_wall = rows[0].1.wall_s;
    let mut false_verdicts = 0;
    for (name, f) in &rows {
        println!(
            "| {name} | {:.1} | {:.2}x | {} | {} | {} | {} |",
            f.wall_s,
            f.wall_s / idle_wall,
            f.tests,
            f.not_passed.len(),
            f.reruns,
            f.faults
        );
        false_verdicts += f.not_passed.len();
    }
    for (name, f) in &rows {
        for test in &f.not_passed {
            println!("  {name}: {test}");
        }
    }
    println!();
    println!("false verdicts (tests of the listing that did not pass): {false_verdicts} (goal 0)");
    Ok(())
}

/// Grades `class` against `cases` with the real binary; the figures.
fn grade(class: &Path, cases: &Path) -> Result<Figures, String> {
    let report = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_grader"))
        .arg("grade")
        .arg(class)
        .arg("--cases")
        .arg(cases)
        .arg("--json")
        .arg(report.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run grader: {e}"))?;
    let wall_s = start.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(report.path()).map_err(|e| e.to_string())?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "no report ({e}); grader said: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let mut figures = Figures {
        wall_s,
        tests: 0,
        not_passed: Vec::new(),
        reruns: 0,
        faults: 0,
    };
    for sub in json["submissions"].as_array().into_iter().flatten() {
        if sub.get("fault").is_some() {
            figures.faults += 1;
        }
        for test in sub["tests"].as_array().into_iter().flatten() {
            figures.tests += 1;
            figures.reruns += test["reruns"].as_u64().unwrap_or(0);
            if test["verdict"] != "pass" {
                figures.not_passed.push(format!(
                    "{} {}/{}: {} ({})",
                    sub["id"].as_str().unwrap_or("?"),
                    test["case"].as_str().unwrap_or("?"),
                    test["function"].as_str().unwrap_or("?"),
                    test["verdict"].as_str().unwrap_or("?"),
                    test["message"].as_str().unwrap_or("")
                ));
            }
        }
    }
    Ok(figures)
}

/// Busy loops beside the grader, killed when dropped.
struct Hogs(Vec<Child>);

impl Hogs {
    fn start(count: usize) -> Result<Hogs, String> {
        let mut hogs = Vec::new();
        for _ in 0..count {
            let child = Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .stdout(Stdio::null())
                .spawn()
                .map_err(|e| format!("cannot start a CPU hog: {e}"))?;
            hogs.push(child);
        }
        Ok(Hogs(hogs))
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for hog in &mut self.0 {
            let _ = hog.kill();
            let _ = hog.wait();
        }
    }
}
