//! `cargo bench --bench class`: what grading a whole class costs (issue 10,
//! "Performance"), through the real `grader` binary.
//!
//! 1. Generates a class of 200 C submissions in a temp dir: 140 correct
//!    copies of `submissions/c-listing.c` and 60 one-bug copies of the
//!    `bug-*.c` fixtures (in turn), each under its own student id.
//! 2. Times `grader grade CLASS --cases cases` (the bundled cases, public and
//!    hidden, all cores) [`RUNS`] times and prints the median and each run.
//! 3. Times a resume: `grade --results DIR` once to fill the folder, then
//!    again [`RUNS`] times with nothing changed (every result reused).
//! 4. Times `grader merge` of 100 shards: the class's report split by
//!    `--shard K/100`'s rule into 100 JSON reports.
//! 5. A Python class: 20 copies of `submissions/py-listing.py`, graded
//!    [`RUNS`] times, beside one plain interpreter asking the listing the
//!    same questions (`benches/in_process.py`) as often: CPU and wall time
//!    per student each way, and their ratio.
//!
//! Every grading run also reports the CPU the grader and its children used
//! against the cores' time (how busy `--jobs` keeps the machine).
//!
//! Set `CLASS_BENCH_RUNS` to change the number of runs. The machine may be
//! shared: the load average is printed at the start and the end.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Runs per figure (the median is reported).
const RUNS: usize = 3;

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("class bench failed: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let runs: usize = std::env::var("CLASS_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(RUNS)
        .max(1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let class = dir.path().join("class");
    std::fs::create_dir(&class).map_err(|e| e.to_string())?;
    let mut bugs: Vec<_> = std::fs::read_dir(root.join("submissions"))
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.starts_with("bug-") && name.ends_with(".c")
        })
        .collect();
    bugs.sort();
    let correct = root.join("submissions/c-listing.c");
    for i in 0..200 {
        let from = if i < 140 {
            &correct
        } else {
            &bugs[(i - 140) % bugs.len()]
        };
        std::fs::copy(from, class.join(format!("student-{i:03}.c"))).map_err(|e| e.to_string())?;
    }
    let cases = root.join("cases");
    println!("load average at start: {}", load_average());
    println!(
        "class: 140 correct + 60 one-bug C submissions ({} bug fixtures in turn), cases: bundled (public and hidden), cores: {}",
        bugs.len(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    let grade_with = |grader: &Path, extra: &[&str]| -> Result<(f64, String), String> {
        let cpu = children_cpu();
        let start = Instant::now();
        let out = Command::new(grader)
            .arg("grade")
            .arg(&class)
            .arg("--cases")
            .arg(&cases)
            .args(extra)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| e.to_string())?;
        let seconds = start.elapsed().as_secs_f64();
        // 1: some student failed a test, as 60 must.
        if out.status.code() != Some(1) {
            return Err(format!("grader grade {extra:?} exited with {}", out.status));
        }
        busy(children_cpu() - cpu, seconds);
        Ok((seconds, String::from_utf8_lossy(&out.stderr).into_owned()))
    };
    let this = Path::new(env!("CARGO_BIN_EXE_grader"));
    let grade = |extra: &[&str]| grade_with(this, extra).map(|(s, _)| s);
    let baseline = std::env::var_os("CLASS_BENCH_BASELINE").map(std::path::PathBuf::from);

    let mut full = Vec::new();
    let mut base = Vec::new();
    for _ in 0..runs {
        full.push(grade(&["--json", "report.json"])?);
        // Taking turns with the baseline, so both see the same load.
        if let Some(baseline) = &baseline {
            base.push(grade_with(baseline, &[])?.0);
        }
    }
    let ours = report("grade 200 C submissions", &mut full);
    if let Some(baseline) = &baseline {
        let theirs = report(&format!("the same with {}", baseline.display()), &mut base);
        println!("ratio this / baseline: {:.2}", ours / theirs);
    }
    timeouts(&dir.path().join("report.json"))?;

    let results = dir.path().join("results");
    let results_arg = results.to_string_lossy().into_owned();
    let fill = grade(&["--results", &results_arg])?;
    println!("grade with --results (filling the folder): {fill:.2} s");
    let mut resume = Vec::new();
    for _ in 0..runs {
        let (seconds, stderr) = grade_with(this, &["--results", &results_arg])?;
        if !stderr.contains("reusing 200 stored results") {
            return Err(format!("the resume graded again: {stderr}"));
        }
        resume.push(seconds);
    }
    report("resume a finished run (200 results reused)", &mut resume);

    // 100 shards of the class's report, split by the --shard rule.
    let text = std::fs::read(dir.path().join("report.json")).map_err(|e| e.to_string())?;
    let report_json: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| e.to_string())?;
    let shards_dir = dir.path().join("shards");
    std::fs::create_dir(&shards_dir).map_err(|e| e.to_string())?;
    let mut shards: Vec<Vec<serde_json::Value>> = vec![Vec::new(); 100];
    for sub in report_json["submissions"]
        .as_array()
        .ok_or("no submissions")?
    {
        let id = sub["id"].as_str().ok_or("no id")?;
        let k = grader::submission::shard::Shard::of(id, 100);
        shards[(k - 1) as usize].push(sub.clone());
    }
    let mut paths = Vec::new();
    for (i, subs) in shards.into_iter().enumerate() {
        let path = shards_dir.join(format!("shard-{:03}.json", i + 1));
        let shard = serde_json::json!({ "version": report_json["version"], "submissions": subs });
        std::fs::write(&path, shard.to_string()).map_err(|e| e.to_string())?;
        paths.push(path);
    }
    let mut merge = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_grader"))
            .arg("merge")
            .args(&paths)
            .arg("--cases")
            .arg(&cases)
            .args([
                "--json",
                "merged.json",
                "--csv",
                "merged.csv",
                "--html",
                "merged.html",
            ])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        merge.push(start.elapsed().as_secs_f64());
        if status.code() != Some(1) {
            return Err(format!("grader merge exited with {status}"));
        }
    }
    report("merge 100 shards (JSON, CSV, HTML out)", &mut merge);
    python_class(root, &cases, runs, dir.path())?;
    println!("load average at end: {}", load_average());
    Ok(())
}

/// Students in the Python class.
const PYTHON_CLASS: usize = 20;

/// Step 5: the Python class against one plain interpreter.
fn python_class(root: &Path, cases: &Path, runs: usize, dir: &Path) -> Result<(), String> {
    let class = dir.join("python-class");
    std::fs::create_dir(&class).map_err(|e| e.to_string())?;
    let listing = root.join("submissions/py-listing.py");
    for i in 0..PYTHON_CLASS {
        std::fs::copy(&listing, class.join(format!("student-{i:03}.py")))
            .map_err(|e| e.to_string())?;
    }
    let set = grader::case::load(&[cases.to_path_buf()]).map_err(|e| e.to_string())?;
    let probes: Vec<grader::check::Probe> = set
        .cases
        .iter()
        .flat_map(|case| {
            case.tests
                .iter()
                .map(move |&f| grader::check::plan(case, f))
        })
        .collect();
    let source = std::fs::read_to_string(&listing).map_err(|e| e.to_string())?;
    let request = serde_json::to_vec(&serde_json::json!({ "source": source, "probes": probes }))
        .map_err(|e| e.to_string())?;
    let (mut graded_wall, mut graded_cpu, mut plain_wall, mut plain_cpu) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let cpu = children_cpu();
        let start = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_grader"))
            .arg("grade")
            .arg(&class)
            .arg("--cases")
            .arg(cases)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        let wall = start.elapsed().as_secs_f64();
        let used = children_cpu() - cpu;
        if status.code() != Some(0) {
            return Err(format!("grading the Python class exited with {status}"));
        }
        busy(used, wall);
        graded_wall.push(wall);
        graded_cpu.push(used);
        // The same questions, once per student, in one plain interpreter
        // each (one after another: a CPU-time figure, and a wall figure
        // for one core).
        let cpu = children_cpu();
        let start = Instant::now();
        for _ in 0..PYTHON_CLASS {
            let mut child = Command::new("python3")
                .args(["-I", "-S", "-B", "-c", include_str!("in_process.py")])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .map_err(|e| e.to_string())?;
            use std::io::Write as _;
            child
                .stdin
                .take()
                .ok_or("no stdin")?
                .write_all(&request)
                .map_err(|e| e.to_string())?;
            let status = child.wait().map_err(|e| e.to_string())?;
            if !status.success() {
                return Err(format!("the plain interpreter exited with {status}"));
            }
        }
        plain_wall.push(start.elapsed().as_secs_f64());
        plain_cpu.push(children_cpu() - cpu);
    }
    let per = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2] / PYTHON_CLASS as f64
    };
    let (gw, gc, pw, pc) = (
        per(&mut graded_wall),
        per(&mut graded_cpu),
        per(&mut plain_wall),
        per(&mut plain_cpu),
    );
    println!(
        "python class ({PYTHON_CLASS} x py-listing.py, {} tests each, median of {runs}): per student, grader CPU {:.0} ms vs one plain interpreter {:.0} ms ({:.2}x) [target <= 1.15x]; wall {:.0} ms on all cores vs {:.0} ms on one",
        probes.len(),
        gc * 1000.0,
        pc * 1000.0,
        gc / pc,
        gw * 1000.0,
        pw * 1000.0,
    );
    Ok(())
}

/// CPU seconds (user + system) used so far by this process's reaped
/// children.
fn children_cpu() -> f64 {
    // SAFETY: a zeroed rusage is a valid out-value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is valid for writes.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Prints how much of the cores' time a run used.
fn busy(cpu: f64, wall: f64) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    println!(
        "  (the grader and its children used {cpu:.1} s of CPU in {wall:.1} s: {:.0}% of {cores} cores)",
        100.0 * cpu / (wall * cores)
    );
}

/// Prints the median and each run; returns the median.
fn report(what: &str, seconds: &mut [f64]) -> f64 {
    let runs: Vec<String> = seconds.iter().map(|s| format!("{s:.2}")).collect();
    seconds.sort_by(f64::total_cmp);
    let median = seconds[seconds.len() / 2];
    println!("{what}: median {median:.2} s (runs: {} s)", runs.join(", "));
    median
}

/// Prints how many tests of the class ran out of time: each costs its whole
/// time limit, whatever the sandbox costs.
fn timeouts(report: &Path) -> Result<(), String> {
    let text = std::fs::read(report).map_err(|e| e.to_string())?;
    let value: serde_json::Value = serde_json::from_slice(&text).map_err(|e| e.to_string())?;
    let mut count = 0;
    let mut tests = 0;
    let mut by_case: std::collections::BTreeMap<String, usize> = Default::default();
    for sub in value["submissions"].as_array().ok_or("no submissions")? {
        for test in sub["tests"].as_array().ok_or("no tests")? {
            tests += 1;
            if test["verdict"] == "timeout" {
                count += 1;
                *by_case
                    .entry(test["case"].as_str().unwrap_or("?").to_string())
                    .or_default() += 1;
            }
        }
    }
    println!("{count} of {tests} tests ran out of time (each costs its limit): {by_case:?}");
    Ok(())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_string())
}
