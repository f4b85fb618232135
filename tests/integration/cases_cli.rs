//! Runs the real `grader` binary for the board and case commands:
//! `grader solve` (boards, lists, errors) and `grader reference` (writing
//! answers, `--check`, broken case files), each in a temp dir.

use std::process::Stdio;

use crate::util::{self, data, root, run_with_stdin as grader, text};

const CAMPUS_FILE: &str = r#"# Cases written by hand.
[[case]]
name = "campus"   # from the seed
description = "the seed's board"
puzzle = """
1 . | . 4
. 4 | 1 .
----+----
2 . | . 3
. 3 | 2 .
"""

# A clash: no solution.
[[case]]
name = "clash"
hidden = true
puzzle = "112....3...4...."
"#;

#[test]
fn solve_prints_a_grid_and_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = grader(
        dir.path(),
        &["solve", "1 . . 4\n. 4 1 .\n2 . . 3\n. 3 2 ."],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "1 2 | 3 4\n3 4 | 1 2\n----+----\n2 1 | 4 3\n4 3 | 2 1\n"
    );
    let out = grader(
        dir.path(),
        &["solve", "-"],
        "1..4.41.2..3.32.\n\n112....3...4....\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "1234341221434321\nno solution\n");
}

#[test]
fn solve_reports_bad_boards_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let out = grader(
        dir.path(),
        &["solve", "1 . . 4\n. 4 9 .\n2 . . 3\n. 3 2 ."],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: the board argument:2:5: digit 9 is above 4, the largest digit of a 4x4 board\n"
    );
    assert!(out.stdout.is_empty());
    let file = dir.path().join("list.txt");
    std::fs::write(&file, "1..4.41.2..3.32.\n1..4.41.2..3.3#.\n").unwrap();
    let out = grader(dir.path(), &["solve", "list.txt"], "");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: list.txt:2:15: unexpected '#': expected 1-4, '.' or '0' for empty\n"
    );
    let out = grader(
        dir.path(),
        &["solve", "-"],
        &format!("{}\n", ".".repeat(80)),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("error: <stdin>:1:81: "),
        "{}",
        text(&out.stderr)
    );
    let out = grader(dir.path(), &["solve", "missing.txt"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is neither a file nor a board"));
}

#[test]
fn solve_count_matches_the_tdoku_counts() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(data("tdoku_test_puzzles_with_counts.txt"))
        .expect("data/tdoku_test_puzzles_with_counts.txt");
    let mut puzzles = String::new();
    let mut expected = String::new();
    for line in source.lines().filter(|l| !l.trim().is_empty()) {
        let (puzzle, count) = line.split_once(':').expect("puzzle:count");
        let count: u64 = count.trim().parse().expect("a count");
        puzzles.push_str(puzzle);
        puzzles.push('\n');
        expected.push_str(&format!("{}\n", count.min(2)));
    }
    assert!(expected.lines().count() >= 40);
    assert!(expected.contains("0\n") && expected.contains("1\n") && expected.contains("2\n"));
    let out = grader(dir.path(), &["solve", "--count", "-"], &puzzles);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), expected);
}

#[test]
fn reference_writes_answers_and_keeps_comments() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    std::fs::create_dir(&cases).unwrap();
    std::fs::write(cases.join("a.toml"), CAMPUS_FILE).unwrap();
    std::fs::write(
        cases.join("grader.toml"),
        "# defaults\ntime_limit_ms = 500\n",
    )
    .unwrap();
    std::fs::write(cases.join("notes.md"), "not a case file").unwrap();

    let out = grader(dir.path(), &["reference", "--check", "cases"], "");
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("cases/a.toml:2: case \"campus\": no `solutions` stored"),
        "{stdout}"
    );
    assert!(
        stdout.contains("cases/a.toml:14: case \"clash\": no `solutions` stored"),
        "{stdout}"
    );

    let out = grader(dir.path(), &["reference", "cases"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(cases.join("a.toml")).unwrap();
    let expected = CAMPUS_FILE
        .replace(
            ". 3 | 2 .\n\"\"\"\n",
            ". 3 | 2 .\n\"\"\"\nsolutions = 1\nsolution = \"\"\"\n1 2 | 3 4\n3 4 | 1 2\n----+----\n2 1 | 4 3\n4 3 | 2 1\n\"\"\"\nlisting_writes = 8\nlisting_undos = 0\nsuggested_time_limit_ms = 1000\n",
        )
        + "solutions = 0\nlisting_writes = 0\nlisting_undos = 0\nsuggested_time_limit_ms = 1000\n";
    assert_eq!(written, expected);

    let out = grader(dir.path(), &["reference", "--check", "cases"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stdout),
        "reference answers up to date: 2 cases in 1 file\n"
    );
    // Running again changes nothing.
    let out = grader(dir.path(), &["reference", "cases/a.toml"], "");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(cases.join("a.toml")).unwrap(),
        expected
    );
}

#[test]
fn reference_check_catches_a_hand_edited_solution() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.toml");
    std::fs::write(&file, CAMPUS_FILE).unwrap();
    let out = grader(dir.path(), &["reference", "a.toml"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let good = std::fs::read_to_string(&file).unwrap();

    // Two digits of the last row swapped.
    let edited = good.replace("4 3 | 2 1\n\"\"\"", "4 3 | 1 2\n\"\"\"");
    assert_ne!(edited, good);
    std::fs::write(&file, &edited).unwrap();
    let out = grader(dir.path(), &["reference", "--check", "a.toml"], "");
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("a.toml:2: case \"campus\": the stored `solution` does not complete the puzzle: r4c3 holds 1 but the puzzle gives 2"),
        "{stdout}"
    );
    assert!(!stdout.contains("\"clash\""), "{stdout}");
    assert!(
        stdout.contains("1 of 2 cases differ from the reference"),
        "{stdout}"
    );

    // A hand-edited count.
    std::fs::write(&file, good.replace("solutions = 0", "solutions = 1")).unwrap();
    let out = grader(dir.path(), &["reference", "--check", "a.toml"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("case \"clash\": stored `solutions = 1`, the reference finds 0"),
        "{}",
        text(&out.stdout)
    );

    // Rewriting repairs it.
    let out = grader(dir.path(), &["reference", "a.toml"], "");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), good);
}

#[test]
fn broken_case_files_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.toml");
    let check = |content: &str, expected: &str| {
        std::fs::write(&file, content).unwrap();
        for args in [
            &["reference", "a.toml"][..],
            &["reference", "--check", "a.toml"],
        ] {
            let out = grader(dir.path(), args, "");
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let stderr = text(&out.stderr);
            assert!(stderr.starts_with(expected), "{args:?}: {stderr}");
        }
        // Nothing was written.
        assert_eq!(std::fs::read_to_string(&file).unwrap(), content);
    };
    check(
        &CAMPUS_FILE.replace("hidden = true", "hiden = true"),
        "error: a.toml:16:1: case \"clash\": unknown field `hiden`, expected one of",
    );
    check(
        &CAMPUS_FILE.replace("2 . | . 3", "2 . | . x"),
        "error: a.toml:9:9: case \"campus\": bad `puzzle`: unexpected 'x': expected a digit 1-4, '.' or '0' for empty",
    );
    check(
        &CAMPUS_FILE.replace("name = \"clash\"", "name = \"campus\""),
        "error: a.toml:14:1: case \"campus\": the name is already used at a.toml:2: give each case a unique name",
    );
    check(
        "[[case]]\nname = \"x\"\npuzzle = \"1..4\"\n",
        "error: a.toml:3:15: case \"x\": bad `puzzle`: a one-line board has 16, 81, 256 or 625 cells",
    );
    check("[[case]\n", "error: a.toml:1:");
}

#[test]
fn solve_stops_quietly_when_stdout_closes() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let list = data("17_clue.txt");
    let mut child = util::grader()
        .args(["solve".as_ref(), list.as_os_str()])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start grader");
    // Read the first answer, then close the pipe: about 4 MB of answers
    // cannot fit in the pipe, so the writer must meet a broken pipe.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 82];
    stdout.read_exact(&mut first).expect("a first answer");
    assert_eq!(first[81], b'\n');
    assert!(first[..81].iter().all(u8::is_ascii_digit));
    drop(stdout);
    let out = child.wait_with_output().expect("run grader");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
}

/// Students run the binary: no hidden case may be readable out of it.
#[test]
fn hidden_cases_are_not_in_the_binary() {
    let cases_dir = root().join("cases");
    let cases = grader::case::load(&[cases_dir]).expect("the bundled cases load");
    let hidden: Vec<_> = cases.cases.iter().filter(|c| c.hidden).collect();
    assert!(
        !hidden.is_empty(),
        "the bundled cases have hidden ones to check"
    );
    let binary = std::fs::read(util::grader_exe()).expect("read the grader binary");
    // Searched as text: an ASCII name matches at the same bytes, and the
    // standard library's substring search is fast even in a debug build.
    let binary = String::from_utf8_lossy(&binary);
    let contains = |needle: &str| binary.contains(needle);
    for case in hidden {
        assert!(
            !contains(&case.name),
            "hidden case `{}` is in the binary",
            case.name
        );
    }
    // And the public ones are (grader check runs them from the binary).
    let public = cases
        .cases
        .iter()
        .find(|c| !c.hidden)
        .expect("a public case");
    assert!(
        contains(&public.name),
        "public case `{}` is not in the binary",
        public.name
    );
}

/// A `--cases` folder that is not there: one line naming it and saying
/// what to give instead, the same for every command that reads cases.
#[test]
fn a_missing_cases_folder_is_named_once_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("submissions")).unwrap();
    std::fs::copy(
        root().join("submissions/c-listing.c"),
        dir.path().join("submissions/ada.c"),
    )
    .unwrap();
    for args in [
        &["grade", "submissions", "--cases", "no-such-cases"][..],
        &["reference", "--check", "no-such-cases"],
    ] {
        let out = grader(dir.path(), args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert_eq!(
            stderr,
            "error: no-such-cases does not exist: give a folder of case files (.toml files with [[case]] tables, e.g. the bundled `cases`) or one case file\n",
            "{args:?}"
        );
    }
}
