//! The box around each submission, end to end through the real `grader`
//! binary: compile-time reads of the answers are contained, two graders run
//! side by side (one in its own PID namespace) without harming each other,
//! a missing compiler is the grader's fault, and SIGTERM leaves nothing
//! behind. Every submission here is a real C program; the innocent
//! neighbours (`c-listing.c`, a prebuilt `.so`) must keep full marks.
#![cfg(target_os = "linux")]

use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One unique 4x4 case, public, with its answer.
const CASES: &str = r#"
[[case]]
name = "campus-4x4"
puzzle = """
1 . | . 4
. 4 | 1 .
----+----
2 . | . 3
. 3 | 2 .
"""
solutions = 1
solution = """
1 2 | 3 4
3 4 | 1 2
----+----
2 1 | 4 3
4 3 | 2 1
"""
"#;

use crate::util::{grader, root};

fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .map(|u| u.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// A temp folder with `cases/cases.toml` and an empty `subs/`.
fn workspace() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = dir.path().join("cases");
    let subs = dir.path().join("subs");
    fs::create_dir_all(&cases).expect("mkdir");
    fs::create_dir_all(&subs).expect("mkdir");
    fs::write(cases.join("cases.toml"), CASES).expect("write cases");
    (dir, cases, subs)
}

/// Copies the correct C fixture in as `name`.
fn add_listing(subs: &Path, name: &str) {
    fs::copy(root().join("submissions/c-listing.c"), subs.join(name)).expect("copy");
}

/// Grades `subs`, returns (exit code, id -> (score, max, message), stderr).
fn grade(
    subs: &Path,
    cases: &Path,
    path_env: Option<&str>,
) -> (i32, BTreeMap<String, (u64, u64, String)>, String) {
    let report = subs.parent().expect("parent").join("report.json");
    let mut cmd = grader();
    cmd.arg("grade")
        .arg(subs)
        .arg("--cases")
        .arg(cases)
        .arg("--json")
        .arg(&report)
        .stdout(Stdio::null());
    if let Some(path) = path_env {
        cmd.env("PATH", path);
    }
    let out = cmd.output().expect("grader runs");
    let code = out.status.code().unwrap_or(-1);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json: Value = serde_json::from_slice(&fs::read(&report).expect("a report"))
        .unwrap_or_else(|e| panic!("report: {e}\n{stderr}"));
    let mut by_id = BTreeMap::new();
    for sub in json["submissions"].as_array().expect("submissions") {
        let message = sub["message"].as_str().unwrap_or("").to_string()
            + &sub["tests"]
                .as_array()
                .map(|t| {
                    t.iter()
                        .map(|t| {
                            t["message"].as_str().unwrap_or("").to_string()
                                + "\n"
                                + t["output"].as_str().unwrap_or("")
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
        by_id.insert(
            sub["id"].as_str().expect("id").to_string(),
            (
                sub["score"].as_u64().expect("score"),
                sub["max_score"].as_u64().expect("max"),
                message,
            ),
        );
    }
    (code, by_id, stderr)
}

/// Two graders at once on the same host, one of them in its own PID
/// namespace (as a container or CI job would be): both finish with the
/// same, correct scores — neither removes the other's cgroups or kills the
/// other's boxes.
#[test]
fn two_graders_side_by_side_one_in_its_own_pid_namespace() {
    if !is_root() || Command::new("unshare").arg("--version").output().is_err() {
        eprintln!("needs root and unshare(1): skipped");
        return;
    }
    let (_dir, cases, subs) = workspace();
    for name in ["a.c", "b.c", "c.c", "d.c"] {
        add_listing(&subs, name);
    }
    fs::copy(
        root().join("submissions/bug-legal-no-column.c"),
        subs.join("e.c"),
    )
    .expect("copy");
    let start = |namespaced: bool, report: &Path| {
        let mut cmd = if namespaced {
            let mut c = Command::new("unshare");
            c.args(["--pid", "--fork", "--mount-proc"])
                .arg(env!("CARGO_BIN_EXE_grader"));
            c
        } else {
            grader()
        };
        cmd.arg("grade")
            .arg(&subs)
            .arg("--cases")
            .arg(&cases)
            .arg("--jobs")
            .arg("2")
            .arg("--json")
            .arg(report)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let dir = subs.parent().expect("parent");
    let (r1, r2) = (dir.join("one.json"), dir.join("two.json"));
    let one = start(false, &r1);
    let two = start(true, &r2);
    for (child, report) in [(one, &r1), (two, &r2)] {
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let json: Value = serde_json::from_slice(&fs::read(report).expect("report")).expect("json");
        for sub in json["submissions"].as_array().expect("subs") {
            let id = sub["id"].as_str().expect("id");
            let full = sub["score"] == sub["max_score"];
            assert_eq!(full, id != "e", "{id} in {}: {sub}", report.display());
        }
    }
}

/// SIGTERM in the middle of a run: the grader exits 130 and leaves no box
/// folder, no box process and no cgroup behind.
#[test]
fn sigterm_leaves_nothing_behind() {
    let (_dir, cases, subs) = workspace();
    let sleeper = root().join("submissions/hostile-sleep.c");
    for i in 0..4 {
        fs::copy(&sleeper, subs.join(format!("sleepy{i}.c"))).expect("copy");
    }
    let tmp = tempfile::tempdir().expect("tmp");
    // A private TMPDIR that every user may pass (the grader would pick
    // /tmp otherwise, shared with other tests).
    fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o711),
    )
    .expect("chmod");
    let mut child = grader()
        .arg("grade")
        .arg(&subs)
        .arg("--cases")
        .arg(&cases)
        .env("TMPDIR", tmp.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    // Wait until a box exists.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let boxes = fs::read_dir(tmp.path())
            .expect("list")
            .flatten()
            .filter_map(|e| fs::read_dir(e.path()).ok())
            .flatten()
            .count();
        if boxes > 0 || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY-free: kill(1) with the pid.
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(130));
    let left: Vec<_> = fs::read_dir(tmp.path())
        .expect("list")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    // No box process (`grader-worker worker` / `grader worker`) whose
    // parent was this grader survives: all had it as parent, and all die.
    std::thread::sleep(Duration::from_millis(200));
    for entry in fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        assert_ne!(
            fields.get(1).copied(),
            Some(pid.to_string().as_str()),
            "a child of the grader survived: {stat}"
        );
    }
    for hierarchy in [
        "/sys/fs/cgroup/memory",
        "/sys/fs/cgroup/pids",
        "/sys/fs/cgroup",
    ] {
        let prefix = format!("grader-{pid}-");
        let found = walk_named(Path::new(hierarchy), &prefix, 4);
        assert!(found.is_empty(), "cgroups left: {found:?}");
    }
}

/// Folders below `dir` (at most `depth` deep) whose name starts with
/// `prefix`.
fn walk_named(dir: &Path, prefix: &str, depth: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() || path.is_symlink() {
            continue;
        }
        if entry.file_name().to_string_lossy().starts_with(prefix) {
            found.push(path.clone());
        }
        if depth > 0 {
            found.extend(walk_named(&path, prefix, depth - 1));
        }
    }
    found
}

/// Names and sources that once reached the compiler as options or ate its
/// memory: each is contained, and ordinary POSIX C compiles.
#[test]
fn compiler_options_memory_and_dialect() {
    let (dir, cases, subs) = workspace();
    add_listing(&subs, "innocent.c");
    let listing = fs::read_to_string(root().join("submissions/c-listing.c")).expect("read");
    // `cc @x.c` would read options from the file `x.c`.
    let marker = dir.path().join("wrapper-ran");
    fs::write(subs.join("@x.c"), &listing).expect("write");
    fs::write(
        subs.join("x.c"),
        format!("-wrapper /usr/bin/touch,{}\n", marker.display()),
    )
    .expect("write");
    // POSIX C, which `-std=c11` used to refuse.
    fs::write(
        subs.join("posix.c"),
        format!(
            "#include <unistd.h>\n#include <sys/types.h>\nstatic pid_t unused_pid;\nstatic void nap(void) {{ (void)unused_pid; usleep(1); }}\n{listing}\nvoid (*keep_nap)(void) = nap;\n"
        ),
    )
    .expect("write");
    // A source that includes an endless file: the build's memory and time
    // limits stop it.
    fs::write(
        subs.join("zero.c"),
        format!("#include \"/dev/zero\"\n{listing}"),
    )
    .expect("write");
    let (code, by_id, stderr) = grade(&subs, &cases, None);
    assert_eq!(code, 1, "{stderr}");
    let full = |id: &str| by_id[id].0 == by_id[id].1;
    assert!(full("innocent"), "{by_id:?}");
    assert!(full("@x"), "{by_id:?}");
    assert!(full("posix"), "{by_id:?}");
    assert_eq!(by_id["x"].0, 0, "{by_id:?}");
    assert_eq!(by_id["zero"].0, 0, "{by_id:?}");
    assert!(!marker.exists(), "the option file was read");
}

/// A Rust crate that reads the answers at compile time (`include_str!` of
/// the case file, `#[path]` to a file outside the crate) does not build,
/// and nothing of the file reaches the report; the neighbour is unharmed.
#[test]
fn rust_compile_time_reads_are_contained() {
    let (dir, cases, subs) = workspace();
    add_listing(&subs, "innocent.c");
    let secret = dir.path().join("secret.rs");
    fs::write(&secret, "pub const S: &str = \"TOP-SECRET-ANSWER-42\";\n").expect("write");
    let trait_src =
        fs::read_to_string(root().join("submissions/rust-trait/src/lib.rs")).expect("read");
    let manifest = "[package]\nname = \"thief\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n\n[dependencies]\nsudoku-lab = { path = \"../lab\" }\n";
    for (name, head) in [
        (
            "include-str",
            format!(
                "pub const LEAK: &str = include_str!(\"{}\");\n",
                cases.join("cases.toml").display()
            ),
        ),
        (
            "path-attr",
            format!("#[path = \"{}\"]\nmod leak;\n", secret.display()),
        ),
    ] {
        let krate = subs.join(name);
        fs::create_dir_all(krate.join("src")).expect("mkdir");
        fs::write(krate.join("Cargo.toml"), manifest).expect("write");
        fs::write(krate.join("src/lib.rs"), format!("{head}{trait_src}")).expect("write");
    }
    let (code, by_id, stderr) = grade(&subs, &cases, None);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(by_id["innocent"].0, by_id["innocent"].1, "{by_id:?}");
    for id in ["include-str", "path-attr"] {
        let (score, _, message) = &by_id[id];
        assert_eq!(*score, 0, "{id}: {message}");
        assert!(
            !message.contains("TOP-SECRET") && !message.contains("solution ="),
            "{id} leaked: {message}"
        );
        // Refused by the text checks before cargo runs, or by the box.
        assert!(
            message.contains("cargo build failed") || message.contains("compile-time"),
            "{id}: {message}"
        );
    }
}

/// The box itself, below the text checks (which refuse `#include` of an
/// absolute path before any compiler runs): a "compiler" that tries to read
/// the cases, another student's file and `/etc/shadow`, to write outside
/// its folder, and to leave a process behind gets none of it.
#[test]
fn a_build_in_the_box_reads_and_leaves_nothing() {
    use grader::protocol::{Access, BuildJob, ViewEntry, ViewKind};
    use grader::runner::process::SandboxEnv;
    use grader::sandbox::SubmissionBox;
    use grader::submission::build::BuildContext;
    let (dir, cases, subs) = workspace();
    add_listing(&subs, "neighbour.c");
    let outside = dir.path().join("outside");
    let mut env = SandboxEnv::detect().with_worker(env!("CARGO_BIN_EXE_grader"));
    env.hide = vec![cases.clone(), subs.clone()];
    // A C build's view, with the shell and the tools of the script.
    let mut host = BuildContext::new()
        .expect("a build context")
        .host_view(ViewKind::CBuild)
        .expect("a C build view");
    for tool in ["/bin/sh", "/usr/bin/cat", "/usr/bin/sleep"] {
        host.entries.push(ViewEntry {
            path: tool.into(),
            access: Access::Exec,
        });
    }
    let mut sandbox = SubmissionBox::open(&env, &[host]).expect("a box");
    let view = sandbox.view(ViewKind::CBuild).expect("the view").clone();
    let work = sandbox.work_dir();
    let script = format!(
        "cat {cases}/cases.toml; cat {subs}/neighbour.c; cat /etc/shadow; echo x > {outside}; (sleep 30.4217 &); echo done",
        cases = cases.display(),
        subs = subs.display(),
        outside = outside.display()
    );
    let job = BuildJob {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script],
        cwd: work.clone(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        wall_limit_ms: 10_000,
        file_size_mb: 16,
        address_space_mb: None,
        landlock: sandbox.landlock(),
        view,
    };
    let run = sandbox.run_build(job).expect("the box runs it");
    assert!(run.output.contains("done"), "{}", run.output);
    assert!(
        !run.output.contains("solution"),
        "the cases leaked: {}",
        run.output
    );
    assert!(
        !run.output.contains("bool solve"),
        "a neighbour leaked: {}",
        run.output
    );
    assert!(
        !run.output.contains("root:"),
        "/etc/shadow leaked: {}",
        run.output
    );
    assert!(!outside.exists(), "wrote outside its folder");
    // The `sleep` it left behind died with the run, while the box lives on.
    let survivors: Vec<String> = fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains("sleep 30.4217"))
        .collect();
    assert!(
        survivors.is_empty(),
        "a process outlived its run: {survivors:?}"
    );
    drop(sandbox);
}
