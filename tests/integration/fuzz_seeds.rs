//! Runs the fuzz seed corpus (`fuzz/seeds/<target>/`) through the fuzz
//! targets' own checks as a plain `cargo test`, so the front doors keep
//! being checked without cargo-fuzz: every file a fuzzer ever crashed on
//! goes there as a regression.

#[path = "../../fuzz/src/lib.rs"]
mod checks;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use crate::util::root;

/// The seed files of one target, sorted.
fn seeds(target: &str) -> Vec<PathBuf> {
    let dir = root().join("fuzz/seeds").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable folder entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `check` on every seed of `target` (at least `min` of them) and
/// names every seed that fails.
fn run_seeds(target: &str, min: usize, check: fn(&[u8])) {
    let files = seeds(target);
    assert!(
        files.len() >= min,
        "fuzz/seeds/{target} has {} files, expected at least {min}",
        files.len()
    );
    let failed: Vec<String> = files
        .iter()
        .filter(|file| {
            let data = std::fs::read(file).expect("a readable seed");
            catch_unwind(AssertUnwindSafe(|| check(&data))).is_err()
        })
        .map(|file| file.display().to_string())
        .collect();
    assert!(failed.is_empty(), "seeds failing {target}: {failed:#?}");
}

#[test]
fn board_text_seeds() {
    run_seeds("board_text", 20, checks::board_text);
}

#[test]
fn case_file_seeds() {
    run_seeds("case_file", 8, checks::case_file);
}

#[test]
fn protocol_seeds() {
    run_seeds("protocol", 6, checks::protocol);
}

/// The bundled case files, as seeded, still read without error: the
/// fuzzer starts from real, valid files.
#[test]
fn the_bundled_case_seeds_read() {
    let mut read = 0;
    for file in seeds("case_file") {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.starts_with("cases-") || name == "cases-grader.toml" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a readable seed");
        let cases = grader::case::parse_case_file(&file, &text)
            .unwrap_or_else(|e| panic!("{} does not read: {e}", file.display()));
        assert!(!cases.is_empty());
        read += 1;
    }
    assert!(
        read >= 4,
        "only {read} bundled case files in fuzz/seeds/case_file"
    );
}

/// The checks catch what they are meant to: a board error placed past the
/// end of its text is refused.
#[test]
#[should_panic(expected = "column past the end")]
fn the_checks_can_fail() {
    let e = grader::board_text::BoardTextError {
        line: 1,
        column: 9,
        message: "made up".to_string(),
    };
    checks::check_text_error("1234", &e);
}
