//! The shell completions and the manual page, read by their consumers:
//! bash loads the completion script and completes a subcommand, and the
//! manual page is roff that names every subcommand (and `man` renders it
//! where `man` is installed).

use std::process::Command;

use crate::util::{grader, root, text};

#[test]
fn bash_loads_the_completions_and_completes_a_subcommand() {
    let out = grader()
        .args(["completions", "bash"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let script = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(script.path(), &out.stdout).expect("write");
    // What bash's completion machinery does for `grader gr<TAB>`.
    let line = format!(
        "source {}; COMP_WORDS=(grader gr); COMP_CWORD=1; COMP_LINE='grader gr'; COMP_POINT=9; _grader grader gr grader; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.path().display()
    );
    let done = Command::new("bash")
        .args(["-c", &line])
        .output()
        .expect("bash runs");
    assert!(done.status.success(), "{}", text(&done.stderr));
    let words = text(&done.stdout);
    assert!(words.lines().any(|w| w == "grade"), "{words}");
    assert!(!words.lines().any(|w| w == "solve"), "{words}");
}

#[test]
fn the_manual_page_is_roff_naming_every_subcommand() {
    let out = grader().arg("man").output().expect("runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    assert!(page.contains(".TH grader 1"), "{page}");
    for sub in [
        "check",
        "grade",
        "init",
        "reference",
        "merge",
        "completions",
    ] {
        assert!(page.contains(sub), "{sub} missing from the page");
    }
    // EXIT STATUS: every row of the guide's "Exit codes" table, in its
    // words (code spans as plain text).
    assert!(page.contains(".SH \"EXIT STATUS\""), "{page}");
    let guide = std::fs::read_to_string(root().join("docs/guide/instructors.md")).unwrap();
    let table = &guide[guide.find("## Exit codes").expect("the guide's exit codes")..];
    let rows: Vec<(&str, &str)> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| ")?.strip_suffix(" |")?.split_once(" | "))
        .filter(|(code, _)| code.parse::<u8>().is_ok())
        .collect();
    assert_eq!(rows.len(), 4, "{table}");
    for (code, meaning) in rows {
        let roff = meaning.replace('`', "").replace('-', "\\-");
        assert!(
            page.contains(&format!(".TP\n\\fB{code}\\fR\n{roff}\n")),
            "exit code {code} ({meaning}) is not in the page's EXIT STATUS:\n{page}"
        );
    }
    if Command::new("man").arg("--version").output().is_ok() {
        let file = tempfile::NamedTempFile::new().expect("temp file");
        std::fs::write(file.path(), &out.stdout).expect("write");
        let shown = Command::new("man")
            .args(["-l", "-P", "cat"])
            .arg(file.path())
            .env("MANWIDTH", "80")
            .output()
            .expect("man runs");
        assert!(shown.status.success(), "{}", text(&shown.stderr));
        assert!(
            text(&shown.stdout).contains("grader"),
            "{}",
            text(&shown.stdout)
        );
    }
}
