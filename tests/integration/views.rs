//! What each kind of box can see (`grader::sandbox::view`): a box holding
//! all four views (C build, Rust build, library test, Python test) is
//! made, and inside it
//!
//! - with a mount namespace, a lister walks the whole file tree of the
//!   box's root (Landlock off): every path it finds must be a view entry,
//!   on the way to one (a folder or a recreated link) or the box's frame
//!   (its `/proc`, `/dev/null`, ...); anything else of the host fails the
//!   test;
//! - with and without a mount namespace, each kind of process (a build
//!   tool, a library's load-time constructor, a Python module) tries to
//!   open every entry of every view and a list of host paths that no view
//!   holds (`/etc/passwd`, `/opt`, `/root`, the hidden cases, a header for
//!   a test, ...): what opens must be exactly what its own view covers.
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use grader::check::Probe;
use grader::protocol::{BuildJob, CodeKind, Limits, View, ViewKind, WorkerRequest};
use grader::sandbox::SandboxEnv;
use grader::sandbox::SubmissionBox;
use grader::sandbox::view::{self, FRAME, HostView};
use grader::submission::build::BuildContext;

use crate::util::needs;

/// Walks the tree from `/` (`walk LIST`: the paths in LIST are not
/// entered) or opens each path of LIST (`probe LIST`), printing one line
/// per path. Built as a program (for builds) and as a library whose
/// constructor probes (for library tests).
const LISTER: &str = r#"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *stops[4096];
static int nstops;

static int load(const char *list) {
    FILE *f = fopen(list, "r");
    if (!f) { printf("cannot open the list %s\n", list); return 1; }
    char line[4096];
    while (nstops < 4096 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0]) stops[nstops++] = strdup(line);
    }
    fclose(f);
    return 0;
}

static int is_stop(const char *p) {
    for (int i = 0; i < nstops; i++) if (!strcmp(stops[i], p)) return 1;
    return 0;
}

static void walk(const char *path, int depth) {
    struct stat st;
    if (lstat(path, &st)) { printf("? %s\n", path); return; }
    if (S_ISLNK(st.st_mode)) { printf("l %s\n", path); return; }
    if (!S_ISDIR(st.st_mode)) { printf("f %s\n", path); return; }
    if (is_stop(path) || depth > 20) { printf("e %s\n", path); return; }
    printf("d %s\n", path);
    DIR *d = opendir(path);
    if (!d) { printf("! %s\n", path); return; }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", strcmp(path, "/") ? path : "", e->d_name);
        walk(child, depth + 1);
    }
    closedir(d);
}

static int run(const char *mode, const char *list) {
    if (load(list)) return 1;
    if (!strcmp(mode, "walk")) {
        walk("/", 0);
    } else {
        for (int i = 0; i < nstops; i++) {
            int fd = open(stops[i], O_RDONLY | O_CLOEXEC);
            printf("%s %s\n", fd >= 0 ? "ok" : "no", stops[i]);
            if (fd >= 0) close(fd);
        }
    }
    fflush(stdout);
    return 0;
}

#ifdef LIST
__attribute__((constructor)) static void probe_at_load(void) { run("probe", LIST); }
#else
int main(int argc, char **argv) { return argc == 3 ? run(argv[1], argv[2]) : 2; }
#endif
"#;

/// The same probe in Python, at import.
const PY_LISTER: &str = r#"
import os
for path in open(LIST).read().split("\n"):
    if not path:
        continue
    try:
        fd = os.open(path, os.O_RDONLY)
        os.close(fd)
        print("ok", path)
    except OSError:
        print("no", path)
"#;

/// Host paths no view holds: each must stay closed to every kind.
const OUTSIDE: &[&str] = &[
    "/etc/passwd",
    "/etc/hostname",
    "/etc",
    "/opt",
    "/home",
    "/root",
    "/srv",
    "/usr/local/share",
    "/usr/share",
    "/usr/bin",
    "/usr",
    "/",
    "/proc/self/mountinfo",
    "/proc/1/status",
    "/sys/fs/cgroup",
    "/dev/tty",
    "/var",
];

/// Compiles the lister, as a program or (with `list`) a library.
fn compile(out: &Path, list: Option<&Path>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("lister.c");
    fs::write(&src, LISTER).expect("write");
    let mut cc = Command::new("cc");
    cc.arg("-O1").arg("-o").arg(out).arg(&src);
    if let Some(list) = list {
        cc.args(["-shared", "-fPIC"])
            .arg(format!("-DLIST=\"{}\"", list.display()));
    }
    assert!(cc.status().expect("cc runs").success(), "cc failed");
    fs::set_permissions(out, fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// The host's part of all four views (a kind whose tool this user cannot
/// run, say a Rust toolchain under root's home, is left out, and said).
fn all_views() -> Vec<HostView> {
    let ctx = BuildContext::new().expect("a build context");
    [
        ViewKind::CBuild,
        ViewKind::RustBuild,
        ViewKind::LibraryTest,
        ViewKind::PythonTest,
    ]
    .into_iter()
    .filter_map(|kind| match ctx.host_view(kind) {
        Ok(view) => Some(view),
        Err(e) if kind == ViewKind::RustBuild => {
            eprintln!("no {kind:?} view here ({e}): left out");
            None
        }
        Err(e) => panic!("the {kind:?} view: {e}"),
    })
    .collect()
}

/// This process's user, when it is not root.
fn own_uid() -> Option<u32> {
    // SAFETY-free: the uid from /proc.
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    let uid: u32 = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|u| u.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0);
    (uid != 0).then_some(uid)
}

/// Whether `path` opens for a process of `view` (the probe's answer, as
/// the definition says it must be).
fn opens(view: &View, path: &Path) -> bool {
    if path.starts_with("/proc") {
        return false;
    }
    let real = |p: &Path| view::chain(p).map_or_else(|_| p.to_path_buf(), |c| c.real);
    view.entries
        .iter()
        .any(|e| real(path).starts_with(real(&e.path)))
}

/// Runs a build-kind process (the lister program) in `sandbox`.
fn build_run(
    sandbox: &mut SubmissionBox<'_>,
    kind: ViewKind,
    mode: &str,
    list: &Path,
    landlock: bool,
) -> String {
    let work = sandbox.work_dir();
    let program = work.join("lister");
    let view = sandbox.view(kind).expect("the view").clone();
    let job = BuildJob {
        program,
        args: vec![mode.into(), list.display().to_string()],
        cwd: work,
        env: vec![("PATH".into(), view::BUILD_PATH.into())],
        deadlines: grader::protocol::Deadlines::for_build(std::time::Duration::from_secs(20)),
        file_size_mb: 16,
        address_space_mb: None,
        landlock,
        view,
    };
    let run = sandbox.run_build(job).expect("the box runs it");
    assert!(run.success, "the lister failed: {}", run.output);
    run.output
}

/// Runs a test of `kind` whose code probes `list` when it loads.
fn test_run(sandbox: &mut SubmissionBox<'_>, kind: CodeKind, code: &Path) -> String {
    let request = WorkerRequest {
        kind,
        code: code.to_path_buf(),
        probe: Probe::Solve {
            n: 2,
            board: vec![0; 16],
        },
        limits: Limits {
            time_limit_ms: 5000,
            memory_limit_mb: 256,
        },
        python: grader::worker::python::interpreter().ok().cloned(),
        trace: false,
        reference_legal: false,
        deep_stop: false,
    };
    let run = sandbox.run_test(&request).expect("the box runs it");
    run.output
}

/// Whether a process of `uid` (and the group of the same number) may
/// open `path` by the file permissions alone (`None`: the grader's own
/// user, which may).
fn permitted(path: &Path, uid: Option<u32>) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Some(uid) = uid else {
        return true;
    };
    let Ok(real) = path.canonicalize() else {
        return false;
    };
    let bits = |meta: &fs::Metadata| {
        let mode = meta.mode();
        if meta.uid() == uid {
            (mode >> 6) & 7
        } else if meta.gid() == uid {
            (mode >> 3) & 7
        } else {
            mode & 7
        }
    };
    let dirs_ok = real
        .ancestors()
        .skip(1)
        .all(|dir| fs::metadata(dir).is_ok_and(|m| bits(&m) & 1 != 0));
    dirs_ok && fs::metadata(&real).is_ok_and(|m| bits(&m) & 4 != 0)
}

/// Checks one probe's answers against the kind's view. `uid`: the box's
/// user whose file permissions still apply (without namespaces; with
/// them, the box's root makes every view entry reachable).
fn check_probe(output: &str, view: &View, uid: Option<u32>, problems: &mut Vec<String>) {
    let mut answered = 0;
    for line in output.lines() {
        let (verdict, path) = match line.split_once(' ') {
            Some((v @ ("ok" | "no"), path)) => (v == "ok", Path::new(path)),
            _ => continue,
        };
        answered += 1;
        let expected = opens(view, path) && permitted(path, uid);
        if verdict != expected {
            problems.push(format!(
                "{:?}: {} {}, but its view says {}",
                view.kind,
                path.display(),
                if verdict { "opens" } else { "does not open" },
                if expected { "it should" } else { "it must not" }
            ));
        }
    }
    if answered == 0 {
        problems.push(format!("{:?}: the probe said nothing: {output}", view.kind));
    }
}

/// Every path a box holds: what each view lists, the links on the way and
/// the frame.
fn anchors(views: &[View]) -> BTreeSet<PathBuf> {
    let mut anchors: BTreeSet<PathBuf> = FRAME.iter().map(PathBuf::from).collect();
    for entry in view::union(views) {
        let Ok(chain) = view::chain(&entry.path) else {
            continue;
        };
        anchors.extend(chain.links.into_iter().map(|(link, _)| link));
        anchors.insert(chain.real);
    }
    anchors
}

/// The list every probe opens: every entry of every view, the hidden
/// cases and the host paths no view holds.
fn probe_list(views: &[View], hidden: &Path) -> String {
    let mut paths: BTreeSet<PathBuf> = view::union(views).into_iter().map(|e| e.path).collect();
    paths.extend(OUTSIDE.iter().map(PathBuf::from));
    paths.insert(hidden.to_path_buf());
    paths.insert(hidden.join("cases.toml"));
    paths.iter().map(|p| format!("{}\n", p.display())).collect()
}

/// Lists and probes the box of `env`.
fn each_kind_sees_its_view(env: &SandboxEnv, namespaces: bool) {
    let cases = tempfile::tempdir().expect("tempdir");
    fs::set_permissions(cases.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    fs::write(cases.path().join("cases.toml"), "solution = \"secret\"\n").expect("write");
    let mut env_hidden = SandboxEnv::detect().with_worker(env!("CARGO_BIN_EXE_grader"));
    if !namespaces {
        env_hidden = env_hidden.without_namespaces();
    }
    let _ = env;
    env_hidden.hide = vec![cases.path().to_path_buf()];
    let mut sandbox = SubmissionBox::open(&env_hidden, &all_views()).expect("a box");
    let views = sandbox.views().to_vec();

    // The lister and its lists, in the box's own folders.
    let work = sandbox.work_dir();
    compile(&work.join("lister"), None);
    let probes = work.join("probe.txt");
    fs::write(&probes, probe_list(&views, cases.path())).expect("write");
    let code = sandbox.code_dir();
    let code_probes = code.join("probe.txt");
    fs::copy(&probes, &code_probes).expect("copy");
    compile(&code.join("lib.so"), Some(&code_probes));
    fs::write(
        code.join("probe.py"),
        format!(
            "LIST = {:?}\n{PY_LISTER}",
            code_probes.display().to_string()
        ),
    )
    .expect("write");
    if let Some(uid) = sandbox.uid() {
        for path in [&work, &work.join("lister"), &probes] {
            std::os::unix::fs::chown(path, Some(uid), Some(uid)).expect("chown");
        }
    }
    for path in ["probe.txt", "lib.so", "probe.py"] {
        let mode = if path == "lib.so" { 0o755 } else { 0o644 };
        fs::set_permissions(code.join(path), fs::Permissions::from_mode(mode)).expect("chmod");
    }
    let mut problems = Vec::new();

    if namespaces {
        // The whole root, Landlock off: nothing but the views and the frame.
        let anchors = anchors(&views);
        let stops = work.join("stops.txt");
        let mut stop_list: String = anchors
            .iter()
            .map(|p| format!("{}\n", p.display()))
            .collect();
        stop_list.push_str("/proc\n");
        fs::write(&stops, stop_list).expect("write");
        let walked = build_run(&mut sandbox, ViewKind::CBuild, "walk", &stops, false);
        if std::env::var_os("GRADER_TEST_SHOW_ROOT").is_some() {
            eprintln!("{walked}");
        }
        let mut seen = 0;
        for line in walked.lines() {
            let Some((_, path)) = line.split_once(' ') else {
                continue;
            };
            let path = Path::new(path);
            seen += 1;
            let known = anchors.iter().any(|a| a.starts_with(path));
            if !known {
                problems.push(format!("the box's root holds {line}, which no view lists"));
            }
        }
        assert!(seen > 10, "the walk saw nothing: {walked}");
        for anchor in &anchors {
            if anchor.starts_with("/tmp") && anchor != Path::new("/tmp") {
                continue;
            }
            let reached = walked.lines().any(|l| {
                l.strip_prefix("e ")
                    .is_some_and(|stop| anchor.starts_with(stop))
                    || l.ends_with(&format!(" {}", anchor.display()))
            });
            if !reached {
                problems.push(format!("the box's root lacks {}", anchor.display()));
            }
        }
    }

    // Each kind, Landlock on: what opens is what its view covers.
    let uid = if namespaces {
        None
    } else {
        sandbox.uid().or_else(own_uid)
    };
    for kind in [ViewKind::CBuild, ViewKind::RustBuild] {
        if sandbox.view(kind).is_none() {
            continue;
        }
        let output = build_run(&mut sandbox, kind, "probe", &probes, true);
        let view = sandbox.view(kind).expect("view");
        check_probe(&output, view, uid, &mut problems);
    }
    let output = test_run(&mut sandbox, CodeKind::Library, &code.join("lib.so"));
    check_probe(
        &output,
        sandbox.view(ViewKind::LibraryTest).expect("view"),
        uid,
        &mut problems,
    );
    let output = test_run(&mut sandbox, CodeKind::Python, &code.join("probe.py"));
    check_probe(
        &output,
        sandbox.view(ViewKind::PythonTest).expect("view"),
        uid,
        &mut problems,
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

/// With a mount namespace (a root grader): the root holds only the views,
/// and each kind opens only its own.
#[test]
fn each_kind_of_box_sees_only_its_view() {
    let env = SandboxEnv::detect().with_worker(env!("CARGO_BIN_EXE_grader"));
    if !needs("namespaces (a root grader)", env.namespaces()) {
        return;
    }
    each_kind_sees_its_view(&env, true);
}

/// Without a mount namespace (a container without CAP_SYS_ADMIN; the same
/// as a non-root `grader check` for what a box sees): Landlock alone holds
/// each kind to its view, and the grader says what it cannot hide.
#[test]
fn without_a_mount_namespace_landlock_holds_each_kind_to_its_view() {
    let env = SandboxEnv::detect()
        .with_worker(env!("CARGO_BIN_EXE_grader"))
        .without_namespaces();
    if !needs("Landlock", env.landlock()) {
        return;
    }
    assert!(
        env.notices()
            .iter()
            .any(|n| n.contains("enforced by Landlock alone")),
        "{:?}",
        env.notices()
    );
    each_kind_sees_its_view(&env, false);
}
