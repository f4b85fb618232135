//! The box around each submission, end to end through the real `grader`
//! binary: compile-time reads of the answers are contained, two graders run
//! side by side (one in its own PID namespace) without harming each other,
//! a missing compiler is the grader's fault, and SIGTERM leaves nothing
//! behind. Every submission here is a real C program; the innocent
//! neighbours (`c-listing.c`, a prebuilt `.so`) must keep full marks.
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

use crate::util::{Grader, grader, is_root, needs, root, text};

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
    let mut run = Grader::new()
        .arg("grade")
        .arg(subs)
        .arg("--cases")
        .arg(cases);
    if let Some(path) = path_env {
        run = run.env("PATH", path);
    }
    let graded = run.graded(subs.parent().expect("parent").join("report.json"));
    let mut by_id = BTreeMap::new();
    for (id, sub) in graded.by_id() {
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
            id,
            (
                sub["score"].as_u64().expect("score"),
                sub["max_score"].as_u64().expect("max"),
                message,
            ),
        );
    }
    (graded.code(), by_id, text(&graded.output.stderr))
}

/// Two graders at once on the same host, one of them in its own PID
/// namespace (as a container or CI job would be): both finish with the
/// same, correct scores — neither removes the other's cgroups or kills the
/// other's boxes.
#[test]
fn two_graders_side_by_side_one_in_its_own_pid_namespace() {
    let able = is_root() && Command::new("unshare").arg("--version").output().is_ok();
    if !needs("root and unshare(1)", able) {
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
#[ignore = "slow: cargo in a box: Rust crates that read the answers at compile time"]
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
    use grader::sandbox::SandboxEnv;
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
        deadlines: grader::protocol::Deadlines::for_build(std::time::Duration::from_secs(10)),
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

// ---------------------------------------------------------------- plants

/// What every planted file holds.
const PLANTED: &str = "GRADER-PLANTED-SECRET";

/// Where courses keep hidden cases outside every folder the grader hides,
/// one per fixture that reaches for them.
const PLANT_DIRS: [&str; 3] = ["/opt", "/usr/local/share", "/home"];

/// A workspace outside `/tmp` (the tests mount a tmpfs over it), that
/// every user may read: `cases/`, `subs/`, and `out/` every user may
/// write.
fn open_workspace() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("boxes-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("tempdir");
    let (cases, subs, out) = (
        dir.path().join("cases"),
        dir.path().join("subs"),
        dir.path().join("out"),
    );
    for d in [dir.path(), &cases, &subs, &out] {
        fs::create_dir_all(d).expect("mkdir");
        fs::set_permissions(d, fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    fs::set_permissions(&out, fs::Permissions::from_mode(0o777)).expect("chmod");
    fs::write(cases.join("cases.toml"), CASES).expect("write cases");
    (dir, cases, subs, out)
}

/// Copies `from` (a file or a folder) to `to`, readable by every user.
fn copy_tree(from: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if from.is_file() {
        fs::copy(from, to).expect("copy");
        fs::set_permissions(to, fs::Permissions::from_mode(0o644)).expect("chmod");
        return;
    }
    fs::create_dir_all(to).expect("mkdir");
    fs::set_permissions(to, fs::Permissions::from_mode(0o755)).expect("chmod");
    for entry in fs::read_dir(from).expect("read") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if name == "target" || name == "Cargo.lock" {
            continue;
        }
        copy_tree(&entry.path(), &to.join(&name));
    }
}

/// The shell function `cover_tmp`: a fresh tmpfs over `/tmp` that keeps
/// this build's target folder (the binary, the workspaces) in place when
/// the checkout lies under `/tmp` (CI clones anywhere).
fn cover_tmp() -> String {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .to_path_buf();
    if target.starts_with("/tmp") {
        format!(
            "cover_tmp() {{\n  mount -t tmpfs -o mode=755 tmpfs /mnt\n  mkdir /mnt/keep\n  mount --rbind {keep} /mnt/keep\n  mount -t tmpfs -o mode=1777 tmpfs /tmp\n  mkdir -p {keep}\n  mount --move /mnt/keep {keep}\n  umount /mnt\n}}\n",
            keep = target.display()
        )
    } else {
        "cover_tmp() {\n  mount -t tmpfs -o mode=1777 tmpfs /tmp\n}\n".to_string()
    }
}

/// Runs `script` (sh) in a private mount namespace as root, then `grader
/// ARGS` (as `exec "$@"` at its end, with `$GRADER` the binary); returns
/// the exit code and stderr.
///
/// The script may call `cover_tmp` ([`cover_tmp`]).
fn in_private_mounts(script: &str, args: &[&str]) -> (i32, String) {
    let out = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "--", "sh", "-ec"])
        .arg(format!("{}{script}", cover_tmp()))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_grader"))
        .args(args)
        .env("GRADER", env!("CARGO_BIN_EXE_grader"))
        .stdout(Stdio::null())
        .output()
        .expect("unshare runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The shell lines that plant the secret, readable by every user, where
/// courses keep cases (each place first covered by a tmpfs: the host is
/// never touched).
fn plant_secret() -> String {
    let mut script = String::new();
    for dir in PLANT_DIRS {
        script.push_str(&format!(
            "mount -t tmpfs -o mode=755 tmpfs {dir}\nmkdir -p {dir}/grader-course\necho '{PLANTED} solution = \"534678912\"' > {dir}/grader-course/secret-cases.toml\nchmod 644 {dir}/grader-course/secret-cases.toml\n"
        ));
    }
    script
}

/// A report's submissions by id: (status, score, max score).
fn scores(report: &Path) -> BTreeMap<String, (String, u64, u64)> {
    let json: Value = serde_json::from_slice(&fs::read(report).expect("a report")).expect("json");
    json["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .map(|s| {
            (
                s["id"].as_str().expect("id").to_string(),
                (
                    s["status"].as_str().unwrap_or("").to_string(),
                    s["score"].as_u64().expect("score"),
                    s["max_score"].as_u64().expect("max"),
                ),
            )
        })
        .collect()
}

/// The innocent neighbours and the fixtures that reach for files outside
/// every hidden folder (`attacks/`), laid out in `subs`.
fn lay_out_planted(subs: &Path) {
    for (from, name) in [
        ("submissions/c-listing.c", "c-listing.c"),
        ("submissions/rust-trait", "rust-trait"),
        ("submissions/py-listing.py", "py-listing.py"),
        ("attacks/incbin-planted.c", "incbin-planted.c"),
        ("attacks/rust-macro-include", "rust-macro-include"),
        ("attacks/rust-mountinfo", "rust-mountinfo"),
        ("attacks/py-read-planted.py", "py-read-planted.py"),
    ] {
        copy_tree(&root().join(from), &subs.join(name));
    }
}

/// The planted fixtures' outcomes and the neighbours' scores against a
/// clean run; nothing planted and no mount of the host in the report.
fn check_planted(report: &Path, clean: &BTreeMap<String, (String, u64, u64)>, stderr: &str) {
    let got = scores(report);
    for id in ["c-listing", "rust-trait", "py-listing"] {
        assert_eq!(
            got.get(id),
            clean.get(id),
            "{id} beside the plants\n{stderr}"
        );
        assert_eq!(
            got[id].1, got[id].2,
            "{id} has full marks: {got:?}\n{stderr}"
        );
    }
    for id in ["incbin-planted", "rust-macro-include", "rust-mountinfo"] {
        assert_eq!(got[id].0, "build_error", "{id}: {got:?}\n{stderr}");
    }
    let py = &got["py-read-planted"];
    assert_eq!((py.0.as_str(), py.1), ("ok", py.2), "{got:?}\n{stderr}");
    let text = fs::read_to_string(report).expect("report");
    assert!(!text.contains(PLANTED), "the planted file leaked:\n{text}");
    assert!(
        !text.contains("rw,relatime") && !text.contains(" - tmpfs "),
        "a mount table leaked:\n{text}"
    );
    assert!(!stderr.contains(PLANTED), "{stderr}");
}

/// Files planted where courses keep hidden cases (`/opt`,
/// `/usr/local/share`, a home folder; none of them hidden, all readable by
/// every user): a compile-time read in C (`.incbin` pasted from pieces)
/// and in Rust (a macro taking `include_str` as an identifier), a Python
/// read at run time and a build-time read of `/proc/self/mountinfo` get
/// nothing, and the innocent neighbours score as in a clean run.
#[test]
#[ignore = "slow: cargo in a box: planted files read at compile and run time"]
fn files_planted_outside_the_hidden_folders_stay_out() {
    let able = is_root() && Command::new("unshare").arg("--version").output().is_ok();
    if !needs(
        "root and unshare(1), to plant files in a private mount namespace",
        able,
    ) {
        return;
    }
    let (_dir, cases, subs, out) = open_workspace();
    lay_out_planted(&subs);
    let clean_subs = out.join("clean");
    copy_tree(&cases, &clean_subs);
    fs::remove_file(clean_subs.join("cases.toml")).expect("an empty folder");
    for name in ["c-listing.c", "rust-trait", "py-listing.py"] {
        copy_tree(&subs.join(name), &clean_subs.join(name));
    }
    let clean_report = out.join("clean.json");
    let status = grader()
        .arg("grade")
        .arg(&clean_subs)
        .arg("--cases")
        .arg(&cases)
        .arg("--json")
        .arg(&clean_report)
        .stdout(Stdio::null())
        .status()
        .expect("grader runs");
    assert_eq!(status.code(), Some(0));
    let clean = scores(&clean_report);

    let report = out.join("planted.json");
    let (subs_s, cases_s, report_s) = (
        subs.display().to_string(),
        cases.display().to_string(),
        report.display().to_string(),
    );
    let script = format!("{}exec \"$@\"", plant_secret());
    let (code, stderr) = in_private_mounts(
        &script,
        &["grade", &subs_s, "--cases", &cases_s, "--json", &report_s],
    );
    assert_eq!(code, 1, "{stderr}");
    check_planted(&report, &clean, &stderr);
}

/// The same as a non-root grader (Landlock alone, no mount namespace):
/// `grader grade` and `grader check` as `nobody`, with the Rust toolchain
/// made reachable for that user and a `.cargo/config.toml` planted in
/// `/tmp` by a local user.
#[test]
#[ignore = "slow: cargo in a box: the same as a user without root, grade and check"]
fn files_planted_outside_the_hidden_folders_stay_out_without_root() {
    let able = is_root() && Command::new("setpriv").arg("--version").output().is_ok();
    if !needs("root (to plant and to become nobody) and setpriv(1)", able) {
        return;
    }
    let sysroot = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .expect("rustc runs");
    let (dir, cases, subs, out) = open_workspace();
    lay_out_planted(&subs);
    let clean_subs = out.join("clean");
    copy_tree(&cases, &clean_subs);
    fs::remove_file(clean_subs.join("cases.toml")).expect("an empty folder");
    for name in ["c-listing.c", "rust-trait", "py-listing.py"] {
        copy_tree(&subs.join(name), &clean_subs.join(name));
    }
    let stage = dir.path().join("stage");
    fs::create_dir_all(&stage).expect("mkdir");
    // The toolchain under root's 0700 home, made reachable in the private
    // mount namespace only; then a tmpfs /tmp with a hostile
    // .cargo/config.toml made by nobody; then the plants.
    let nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all";
    let setup = format!(
        "mount --bind {sysroot} {stage}\nmount -t tmpfs -o mode=755 tmpfs /root\nmkdir -p {sysroot}\nmount --move {stage} {sysroot}\ncover_tmp\n{nobody} sh -c 'mkdir /tmp/.cargo && printf \"[build\\nnot toml\\n\" > /tmp/.cargo/config.toml'\n",
        stage = stage.display()
    );
    let as_nobody = |report: &Path, subs: &Path, planted: bool| {
        let script = format!(
            "{setup}{}exec {nobody} env -i PATH={sysroot}/bin:/usr/bin:/bin HOME=/tmp LANG=C \"$@\"",
            if planted {
                plant_secret()
            } else {
                String::new()
            }
        );
        let (subs_s, cases_s, report_s) = (
            subs.display().to_string(),
            cases.display().to_string(),
            report.display().to_string(),
        );
        in_private_mounts(
            &script,
            &["grade", &subs_s, "--cases", &cases_s, "--json", &report_s],
        )
    };
    let clean_report = out.join("clean.json");
    let (code, stderr) = as_nobody(&clean_report, &clean_subs, false);
    assert_eq!(code, 0, "the neighbours alone, as nobody: {stderr}");
    let clean = scores(&clean_report);
    let report = out.join("planted.json");
    let (code, stderr) = as_nobody(&report, &subs, true);
    assert_eq!(code, 1, "{stderr}");
    check_planted(&report, &clean, &stderr);
    assert_eq!(
        stderr.matches("enforced by Landlock alone").count(),
        1,
        "the grader says once what it cannot hide: {stderr}"
    );

    // `grader check` of the Python thief, as nobody: it passes, and says
    // nothing of the file.
    let script = format!(
        "{setup}{}cd {}\nexec {nobody} env -i PATH=/usr/bin:/bin HOME=/tmp LANG=C NO_COLOR=1 \"$@\"",
        plant_secret(),
        subs.display()
    );
    let out = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "--", "sh", "-ec"])
        .arg(format!("{}{script}", cover_tmp()))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_grader"))
        .args(["check", "py-read-planted.py"])
        .output()
        .expect("unshare runs");
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{shown}");
    assert!(!shown.contains(PLANTED), "{shown}");
}

/// What a hostile local user (here `nobody`) can plant on the host, each
/// in a private mount namespace (tmpfs over `/tmp`, `/run`, `/var/lib`):
/// a `.cargo/config.toml` in a parent of every box folder, the old uid
/// lock folder squatted or a link, the new one a link; and every uid lock
/// held for a while. Grading goes on, the neighbours score as in a clean
/// run, and the grader says who held the locks.
#[test]
#[ignore = "slow: cargo in a box: a Rust crate graded under four hostile local setups"]
fn a_hostile_local_users_plants_change_nothing() {
    let able = is_root() && Command::new("setpriv").arg("--version").output().is_ok();
    if !needs("root, unshare(1) and setpriv(1)", able) {
        return;
    }
    let (_dir, cases, subs, out) = open_workspace();
    for (from, name) in [
        ("submissions/c-listing.c", "c-listing.c"),
        ("submissions/rust-trait", "rust-trait"),
    ] {
        copy_tree(&root().join(from), &subs.join(name));
    }
    let nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all";
    let base = format!(
        "cover_tmp\nmount -t tmpfs -o mode=755 tmpfs /run\nmount -t tmpfs -o mode=755 tmpfs /var/lib\nmkdir -m 1777 /run/lock\n{nobody} sh -c 'mkdir /tmp/.cargo && printf \"[build\\nnot toml\\n\" > /tmp/.cargo/config.toml'\n"
    );
    let holder = out.join("hold.py");
    fs::write(
        &holder,
        "import fcntl, os, sys, time\nd = sys.argv[1]\nos.makedirs(d, mode=0o700, exist_ok=True)\nfds = []\nfor uid in range(61000, 62000):\n    fd = os.open(f'{d}/{uid}.lock', os.O_RDWR | os.O_CREAT, 0o600)\n    fcntl.flock(fd, fcntl.LOCK_EX)\n    fds.append(fd)\nopen(sys.argv[2], 'w').write('held')\ntime.sleep(float(sys.argv[3]))\n",
    )
    .expect("write");
    let held = out.join("held");
    let scenarios = [
        (
            "a squatted old lock folder",
            format!("{nobody} mkdir /run/lock/grader-uids\n"),
        ),
        (
            "links for the old and the new lock folder",
            format!(
                "{nobody} sh -c 'mkdir /tmp/evil && ln -s /tmp/evil /run/lock/grader-uids'\nln -s /tmp/evil /run/grader\n"
            ),
        ),
        (
            "every lock held for 3 s",
            format!(
                "/usr/bin/python3 {} /run/grader/uids {} 3 &\nwhile [ ! -e {} ]; do sleep 0.05; done\n",
                holder.display(),
                held.display(),
                held.display()
            ),
        ),
    ];
    let clean_report = out.join("clean.json");
    let (subs_s, cases_s) = (subs.display().to_string(), cases.display().to_string());
    let clean_s = clean_report.display().to_string();
    let (code, stderr) = in_private_mounts(
        &format!("{base}exec \"$@\""),
        &["grade", &subs_s, "--cases", &cases_s, "--json", &clean_s],
    );
    assert_eq!(code, 0, "{stderr}");
    let clean = scores(&clean_report);
    assert!(clean.values().all(|(_, s, m)| s == m), "{clean:?}");
    for (i, (what, plant)) in scenarios.iter().enumerate() {
        let report = out.join(format!("plant-{i}.json"));
        let report_s = report.display().to_string();
        let (code, stderr) = in_private_mounts(
            &format!("{base}{plant}exec \"$@\""),
            &["grade", &subs_s, "--cases", &cases_s, "--json", &report_s],
        );
        assert_eq!(code, 0, "{what}: {stderr}");
        assert_eq!(scores(&report), clean, "{what}: {stderr}");
        if what.starts_with("every lock") {
            assert!(
                stderr.contains("waiting") && stderr.contains("(python3) holds 1000"),
                "{what}: the grader says who holds the uids: {stderr}"
            );
        }
        if what.starts_with("links") {
            assert!(stderr.contains("is a symbolic link"), "{what}: {stderr}");
        }
    }
}
