//! Terminal conventions through the real binary: `-q` keeps errors, the
//! reports and the summary's closing line and drops the rest; the summary
//! table lines up students named in CJK, with accents precomposed or
//! combining (a snapshot, and each row's columns measured by display width).

use std::fs;
use std::path::Path;
use std::process::Output;
use unicode_width::UnicodeWidthStr;

use crate::util::{Grader, grader, root, text};

/// Student names that a character count would misalign: two columns per
/// CJK character, a precomposed accent, a combining one (no column).
const NAMES: [&str; 5] = ["ascii-student", "张伟", "José", "Zoe\u{308}", "佐藤-さくら"];

/// A folder of copies of the lab's C listing under [`NAMES`].
fn class(dir: &Path) -> std::path::PathBuf {
    let subs = dir.join("subs");
    fs::create_dir_all(&subs).unwrap();
    for name in NAMES {
        fs::copy(
            root().join("submissions/c-listing.c"),
            subs.join(format!("{name}.c")),
        )
        .unwrap();
    }
    subs
}

/// [`class`] graded with `ARGS`, its output on pipes.
fn grade_class(dir: &Path, args: &[&str]) -> Output {
    Grader::new()
        .current_dir(root())
        .args(["--color", "never", "grade"])
        .arg(class(dir))
        .args(["--cases", "cases"])
        .args(args)
        .output()
}

/// Runs `command` (a shell line) in a fresh tmux server on a 160x50
/// terminal and returns the screen once it is done, as tmux drew it.
fn on_tmux_screen(command: &str) -> String {
    let socket = format!("grader-test-{}", std::process::id());
    let tmux = |args: &[&str]| {
        std::process::Command::new("tmux")
            .args(["-L", &socket])
            .args(args)
            .env("TERM", "xterm-256color")
            .output()
            .expect("tmux is needed (Debian: apt-get install tmux)")
    };
    let line = format!("{command}; echo __done__; sleep 120");
    let started = tmux(&[
        "new-session",
        "-d",
        "-x",
        "160",
        "-y",
        "50",
        "-s",
        "t",
        &line,
    ]);
    assert!(started.status.success(), "tmux: {}", text(&started.stderr));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let screen = loop {
        let shown = text(&tmux(&["capture-pane", "-p", "-t", "t"]).stdout);
        if shown.contains("__done__") || std::time::Instant::now() > deadline {
            break shown;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    tmux(&["kill-server"]);
    assert!(screen.contains("__done__"), "not done in 120 s:\n{screen}");
    screen[..screen.find("__done__").unwrap()]
        .trim_end()
        .to_string()
        + "\n"
}

#[test]
fn the_summary_lines_up_wide_and_combining_names_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let subs = class(dir.path());
    let command = format!(
        "cd '{}' && '{}' --color never grade '{}' --cases cases 2>/dev/null",
        root().display(),
        crate::util::grader_exe(),
        subs.display()
    );
    let table = on_tmux_screen(&command);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(
        rows.len(),
        NAMES.len() + 2,
        "header, a row each, closing line: {table}"
    );
    // Where the kind column starts, in terminal columns: the same for the
    // header and every student's row.
    let kind_column = |row: &str| {
        let at = row
            .find("  ")
            .unwrap_or_else(|| panic!("no column gap in {row:?}"));
        let rest = &row[at..];
        row[..at].width() + (rest.len() - rest.trim_start().len())
    };
    let header = kind_column(rows[0]);
    for row in &rows[1..=NAMES.len()] {
        assert_eq!(kind_column(row), header, "misaligned: {row:?}\n{table}");
        assert!(row.ends_with("all passed"), "{row}");
    }
    insta::assert_snapshot!("summary-wide-names", table);
}

#[test]
fn quiet_keeps_errors_and_the_closing_line() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let loud = grade_class(dir.path(), &["--json", json.to_str().unwrap()]);
    let loud_err = text(&loud.stderr);
    assert!(loud_err.contains("sandbox: "), "{loud_err}");
    assert!(loud_err.contains("time limits: "), "{loud_err}");

    let quiet = grade_class(dir.path(), &["-q", "--json", json.to_str().unwrap()]);
    assert_eq!(quiet.status.code(), Some(0), "{}", text(&quiet.stderr));
    assert_eq!(
        text(&quiet.stdout),
        format!(
            "{} submissions, {} passed every test\n",
            NAMES.len(),
            NAMES.len()
        ),
        "the closing line alone"
    );
    let quiet_err = text(&quiet.stderr);
    assert!(!quiet_err.contains("sandbox: "), "{quiet_err}");
    assert!(!quiet_err.contains("time limits: "), "{quiet_err}");
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        report["submissions"].as_array().unwrap().len(),
        NAMES.len(),
        "the report is written"
    );

    // An error is never silenced.
    let missing = grader()
        .args(["-q", "grade", "no-such-folder", "--cases", "cases"])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        text(&missing.stderr).contains("error: "),
        "{}",
        text(&missing.stderr)
    );
    // A failing class: the exit code and the closing line say so.
    let subs = dir.path().join("failing");
    fs::create_dir_all(&subs).unwrap();
    fs::copy(
        root().join("submissions/bug-no-clear.c"),
        subs.join("bug-no-clear.c"),
    )
    .unwrap();
    let failing = grader()
        .current_dir(root())
        .args(["--quiet", "grade"])
        .arg(&subs)
        .args(["--cases", "cases"])
        .output()
        .unwrap();
    assert_eq!(failing.status.code(), Some(1), "{}", text(&failing.stderr));
    assert_eq!(
        text(&failing.stdout),
        "1 submissions, 0 passed every test\n"
    );
}

/// `grade` on a pipe (a CI log) paints exactly when `check` does: one
/// decision (`--color`, `FORCE_COLOR`, `CLICOLOR_FORCE`, `NO_COLOR`); the
/// streamed lines come under the summary's header either way.
#[test]
fn grade_on_a_pipe_paints_when_colour_is_forced() {
    let dir = tempfile::tempdir().unwrap();
    let subs = class(dir.path());
    let painted = |args: &[&str], env: &[(&str, &str)]| -> bool {
        let mut cmd = grader();
        cmd.current_dir(root())
            .args(args)
            .arg("grade")
            .arg(&subs)
            .args(["--cases", "cases"]);
        for var in [
            "NO_COLOR",
            "FORCE_COLOR",
            "CLICOLOR",
            "CLICOLOR_FORCE",
            "TERM",
        ] {
            cmd.env_remove(var);
        }
        let out = cmd.envs(env.iter().copied()).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let plain = stdout.replace("\u{1b}[1m", "").replace("\u{1b}[0m", "");
        let header = plain.lines().next().unwrap_or_default();
        assert!(
            header.starts_with("student ") && header.ends_with("  result"),
            "{stdout}"
        );
        assert_eq!(plain.lines().count(), NAMES.len() + 2, "{stdout}");
        out.stdout.contains(&0x1b)
    };
    assert!(!painted(&[], &[]), "a pipe gets no colour");
    assert!(painted(&["--color", "always"], &[]), "--color always");
    assert!(painted(&[], &[("FORCE_COLOR", "1")]), "FORCE_COLOR");
    assert!(painted(&[], &[("CLICOLOR_FORCE", "1")]), "CLICOLOR_FORCE");
    assert!(
        !painted(&[], &[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]),
        "NO_COLOR wins"
    );
    assert!(
        !painted(&["--color", "never"], &[("FORCE_COLOR", "1")]),
        "--color never"
    );
}
