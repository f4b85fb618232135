//! Runs the real `grader generate`: the same seed gives the same bytes, the
//! output (listing keys included) passes `grader reference --check`, a band
//! shows in the stored undos, appending keeps what the file held and keeps
//! names unique, unsolvable-deep cases store `solutions = 0`, and bad
//! arguments exit 2 with a message. Small boards only, to stay fast.

use std::path::Path;
use std::process::Output;

use crate::util::{run_in as grader, text};

/// Runs `grader ARGS` and insists on exit code `code`.
fn expect(dir: &Path, args: &[&str], code: i32) -> Output {
    let out = grader(dir, args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "grader {args:?}\nstdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

/// The values of `key = ...` lines, in file order.
fn values<'a>(file: &'a str, key: &str) -> Vec<&'a str> {
    let prefix = format!("{key} = ");
    file.lines()
        .filter_map(|line| line.strip_prefix(prefix.as_str()))
        .collect()
}

#[test]
fn the_same_seed_gives_the_same_file_and_it_passes_the_reference_check() {
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &str, seed: &str| {
        for args in [
            vec!["--n", "2", "--count", "3"],
            vec!["--n", "3", "--count", "2", "--minimal", "--hidden"],
            vec!["--n", "3", "--count", "1", "--clues", "30"],
            vec![
                "--n",
                "3",
                "--count",
                "1",
                "--min-undos",
                "10",
                "--max-undos",
                "100000",
            ],
        ] {
            let mut all = vec!["generate", "--seed", seed, "--out", out];
            all.extend(args);
            expect(dir.path(), &all, 0);
        }
        std::fs::read(dir.path().join(out)).unwrap()
    };
    let a = run("a.toml", "42");
    let b = run("b.toml", "42");
    assert_eq!(a, b, "same seed, different bytes");
    let c = run("c.toml", "43");
    assert_ne!(a, c, "a different seed gave the same file");

    let file = text(&a);
    assert_eq!(values(&file, "name").len(), 7, "{file}");
    assert_eq!(values(&file, "solutions"), vec!["1"; 7], "{file}");
    assert_eq!(values(&file, "solution").len(), 7, "{file}");
    assert_eq!(values(&file, "hidden"), vec!["true"; 2], "{file}");
    // The listing keys of every case; the last one was asked for in a band.
    let undos: Vec<u64> = values(&file, "listing_undos")
        .iter()
        .map(|v| v.parse().expect("a count"))
        .collect();
    assert_eq!(undos.len(), 7, "{file}");
    assert!((10..=100_000).contains(&undos[6]), "{file}");
    for limit in values(&file, "suggested_time_limit_ms") {
        let limit: u64 = limit.parse().expect("milliseconds");
        assert!(limit >= 1000 && limit % 100 == 0, "{file}");
    }
    let out = expect(dir.path(), &["reference", "--check", "a.toml"], 0);
    assert!(
        text(&out.stdout).contains("up to date: 7 cases"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn appending_keeps_the_file_and_makes_new_names() {
    let dir = tempfile::tempdir().unwrap();
    let hand = "# Written by hand.\n[[case]]\nname = \"gen-4x4-s7-0\"   # a name the generator would pick\npuzzle = \"1..4.41.2..3.32.\"\n";
    // A trailing comment stays above the appended cases.
    let hand = format!("{hand}# a trailing note, kept where it is\n");
    std::fs::write(dir.path().join("cases.toml"), hand).unwrap();
    expect(dir.path(), &["reference", "cases.toml"], 0);
    let before = std::fs::read_to_string(dir.path().join("cases.toml")).unwrap();

    let args = [
        "generate",
        "--n",
        "2",
        "--count",
        "2",
        "--seed",
        "7",
        "--out",
        "cases.toml",
    ];
    let out = expect(dir.path(), &args, 0);
    assert!(
        text(&out.stdout).contains("appended 2 cases to cases.toml (gen-4x4-s7-1 .. gen-4x4-s7-2)"),
        "{}",
        text(&out.stdout)
    );
    expect(dir.path(), &args, 0);
    let after = std::fs::read_to_string(dir.path().join("cases.toml")).unwrap();
    assert!(
        after.starts_with(&before),
        "the existing text changed:\n{after}"
    );
    let names = values(&after, "name");
    assert_eq!(
        names,
        [
            "\"gen-4x4-s7-0\"   # a name the generator would pick",
            "\"gen-4x4-s7-1\"",
            "\"gen-4x4-s7-2\"",
            "\"gen-4x4-s7-3\"",
            "\"gen-4x4-s7-4\"",
        ]
    );
    expect(dir.path(), &["reference", "--check", "cases.toml"], 0);
}

#[test]
fn unsolvable_deep_cases_have_no_solution() {
    let dir = tempfile::tempdir().unwrap();
    for n in ["2", "3"] {
        let args = [
            "generate",
            "--n",
            n,
            "--count",
            "2",
            "--unsolvable-deep",
            "--out",
            "dead.toml",
        ];
        expect(dir.path(), &args, 0);
    }
    let file = std::fs::read_to_string(dir.path().join("dead.toml")).unwrap();
    assert_eq!(values(&file, "solutions"), vec!["0"; 4], "{file}");
    assert!(values(&file, "solution").is_empty(), "{file}");
    assert!(file.contains("name = \"gen-9x9-dead-s1-1\""), "{file}");
    expect(dir.path(), &["reference", "--check", "dead.toml"], 0);
}

#[test]
fn bad_arguments_exit_2_and_leave_the_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            vec!["--n", "6", "--count", "1"],
            "box size 6 is not supported",
        ),
        (
            vec!["--n", "3", "--count", "0"],
            "--count 0 generates nothing",
        ),
        (
            vec!["--n", "3", "--count", "1", "--clues", "16"],
            "a unique 9x9 needs at least 17 givens",
        ),
        (
            vec!["--n", "2", "--count", "1", "--clues", "17"],
            "use 4..=16",
        ),
        (
            vec![
                "--n",
                "3",
                "--count",
                "1",
                "--min-undos",
                "9",
                "--max-undos",
                "3",
            ],
            "--min-undos 9 is above --max-undos 3",
        ),
        (
            vec!["--n", "5", "--count", "1", "--minimal"],
            "--minimal is out of reach on a 25x25",
        ),
        (
            vec!["--n", "2", "--count", "1", "--min-undos", "100000"],
            "widen the band: lower --min-undos",
        ),
    ];
    for (args, message) in cases {
        let mut all = vec!["generate", "--out", "x.toml"];
        all.extend(args);
        let out = expect(dir.path(), &all, 2);
        let err = text(&out.stderr);
        assert!(err.contains(message), "grader {all:?}: {err}");
        assert!(
            !dir.path().join("x.toml").exists(),
            "grader {all:?} wrote a file"
        );
    }

    // A file that is not a case file is refused, not appended to.
    std::fs::write(dir.path().join("notes.toml"), "title = \"mine\"\n").unwrap();
    let out = expect(
        dir.path(),
        &[
            "generate",
            "--n",
            "2",
            "--count",
            "1",
            "--out",
            "notes.toml",
        ],
        2,
    );
    assert!(
        text(&out.stderr).contains("notes.toml is not a valid case file"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.toml")).unwrap(),
        "title = \"mine\"\n"
    );
    // Text that once made toml_edit panic (found by the case_file fuzz
    // target) is refused like any other broken file.
    std::fs::write(dir.path().join("broken.toml"), "==\n.=").unwrap();
    let args = [
        "generate",
        "--n",
        "2",
        "--count",
        "1",
        "--out",
        "broken.toml",
    ];
    let out = expect(dir.path(), &args, 2);
    assert!(
        text(&out.stderr).contains("broken.toml is not a valid case file"),
        "{}",
        text(&out.stderr)
    );
}
