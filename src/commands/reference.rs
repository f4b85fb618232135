//! `grader reference CASES...`: fill in (or with `--check`, verify) the
//! `solutions` / `solution` answers of case files from the reference solver,
//! and each case's cost for the seed's listing (`listing_writes`,
//! `listing_undos`, `listing_capped`, `suggested_time_limit_ms`; see
//! `crate::case::listing`), through the case writer
//! (`case::fill_answers`) so the author's comments and layout stay
//! as they were, each file replaced atomically.
//!
//! `--check` treats the listing keys as information: absent ones are not a
//! difference (hand-written files may leave them out), but a stored value
//! that differs from a fresh walk is.
//!
//! A case `grade` would refuse is never written and fails `--check`, named
//! by file and line (`refused`): a puzzle on which the lab's listing does
//! not answer as the reference does, which happens when its givens clash
//! and the listing, which does not check them, fills the rest and returns
//! true where the reference finds no solution (the clash is named).

use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

use crate::case::{
    Answers, Case, CaseError, Fill, ListingCost, ReferenceAnswer as Answer, Solutions,
    StoredAnswers, StoredListing, case_files, check_unique, completes, fill_answers, parse_file,
    write_atomically,
};
use crate::cli::ReferenceArgs;
use crate::exit;

/// One case file, parsed with its answers left raw.
struct CaseFile {
    path: PathBuf,
    text: String,
    cases: Vec<Case>,
    stored: Vec<StoredAnswers>,
}

/// Runs `grader reference`; returns the exit code: [`exit::SUCCESS`], or
/// [`exit::FAILURE`] when `--check` finds a stored answer that differs or
/// a case `grade` would refuse. Unreadable or invalid case files, and a
/// rewrite of a case `grade` would refuse, are an `Err` (exit 2).
pub fn run(args: &ReferenceArgs) -> anyhow::Result<u8> {
    let files = read_all(&args.cases)?;
    let total: usize = files.iter().map(|f| f.cases.len()).sum();
    let mut out = std::io::stdout().lock();
    if args.check {
        let mut differ = 0;
        let mut cannot = 0;
        for file in &files {
            for (case, stored) in file.cases.iter().zip(&file.stored) {
                let answer = solve(case);
                let refusal = refused(case, &answer);
                cannot += usize::from(refusal.is_some());
                let whys: Vec<String> = refusal
                    .into_iter()
                    .chain(difference(case, stored, &answer))
                    .chain(listing_difference(&stored.listing, &answer.listing))
                    .collect();
                if !whys.is_empty() {
                    differ += 1;
                }
                for why in whys {
                    writeln!(
                        out,
                        "{}:{}: case \"{}\": {why}",
                        file.path.display(),
                        case.line,
                        case.name
                    )?;
                }
            }
        }
        if cannot > 0 {
            writeln!(
                out,
                "{cannot} of {total} cases cannot be graded as they are: fix the {} named above",
                if cannot == 1 { "case" } else { "cases" }
            )?;
            return Ok(exit::FAILURE);
        }
        if differ == 0 {
            writeln!(
                out,
                "reference answers up to date: {} in {}",
                plural(total, "case"),
                plural(files.len(), "file")
            )?;
            Ok(exit::SUCCESS)
        } else {
            writeln!(
                out,
                "{differ} of {total} cases differ from the reference: run `grader reference {}` to rewrite them",
                args.cases
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            )?;
            Ok(exit::FAILURE)
        }
    } else {
        let mut refusals = Vec::new();
        let answered: Vec<Vec<Answer>> = files
            .iter()
            .map(|file| {
                let answers: Vec<Answer> = file.cases.iter().map(solve).collect();
                for (case, answer) in file.cases.iter().zip(&answers) {
                    if let Some(why) = refused(case, answer) {
                        refusals.push(format!(
                            "{}:{}: case \"{}\": {why}",
                            file.path.display(),
                            case.line,
                            case.name
                        ));
                    }
                }
                answers
            })
            .collect();
        if !refusals.is_empty() {
            anyhow::bail!(
                "{}\nno file was written: fix the {} above, then run `grader reference` again",
                refusals.join("\n"),
                if refusals.len() == 1 { "case" } else { "cases" }
            );
        }
        let mut written = 0;
        for (file, answers) in files.iter().zip(answered) {
            let new_text = rewrite(file, &answers)?;
            if new_text != file.text {
                // Check the result loads strictly before replacing the file.
                parse_file(&file.path, &new_text, Answers::Check).with_context(|| {
                    format!(
                        "internal error: the rewritten {} does not load",
                        file.path.display()
                    )
                })?;
                write_atomically(&file.path, &new_text)?;
                written += 1;
                writeln!(out, "wrote {}", file.path.display())?;
            }
        }
        writeln!(
            out,
            "reference answers for {} in {}: {written} rewritten, {} already up to date",
            plural(total, "case"),
            plural(files.len(), "file"),
            files.len() - written
        )?;
        Ok(exit::SUCCESS)
    }
}

/// "1 case", "2 cases".
fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// Reads and parses every case file, answers left raw; names must be unique.
fn read_all(paths: &[PathBuf]) -> Result<Vec<CaseFile>, CaseError> {
    let (paths, _config) = case_files(paths)?;
    let mut files = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).map_err(|error| CaseError::Read {
            path: path.clone(),
            error,
        })?;
        let parsed = parse_file(&path, &text, Answers::Raw)?;
        files.push(CaseFile {
            path,
            text,
            cases: parsed.cases,
            stored: parsed.stored,
        });
    }
    let all: Vec<Case> = files.iter().flat_map(|f| f.cases.iter().cloned()).collect();
    check_unique(&all)?;
    Ok(files)
}

/// Why `grade` would refuse `case` (the reference's `answer` beside it),
/// if it would: a puzzle on which the lab's listing
/// (`sudoku_reference::walk_listing`, the reading-order backtracker every
/// time limit is timed on, which does not check the givens) does not
/// answer as the reference does. Givens that clash are named as the cause
/// when they do; a clash on which the listing gives up too (the bundled
/// `campus-clash`) is a fair puzzle with no solution.
fn refused(case: &Case, answer: &Answer) -> Option<String> {
    let walk = sudoku_reference::walk_listing(&case.puzzle, crate::case::listing::LISTING_WALK_CAP);
    let has_solution = answer.solutions != Solutions::None;
    if !walk.finished || walk.solved == has_solution {
        return None;
    }
    let listing = if walk.solved {
        "returns true"
    } else {
        "returns false"
    };
    let reference = match answer.solutions {
        Solutions::None => "no solution",
        Solutions::Unique => "one solution",
        Solutions::Many => "two or more",
    };
    let cause = match clash(&case.puzzle) {
        Some(clash) => format!(
            "its givens clash ({clash}), so the reference finds {reference}, but the lab's listing does not check the givens: it fills the rest and {listing}"
        ),
        None => format!("the lab's listing {listing} on it, but the reference finds {reference}"),
    };
    Some(format!(
        "{cause}; `grade` times every limit on the listing and refuses a case it cannot pass: fix the puzzle"
    ))
}

/// The first two givens of `puzzle` that break the rules, in words
/// ("3 appears twice in column 3 ((row 2, col 3) and (row 3, col 3))",
/// counted from 0 as every message counts).
fn clash(puzzle: &sudoku_lab::Board) -> Option<String> {
    let side = puzzle.side();
    let n = puzzle.n();
    let givens: Vec<(usize, usize, u8)> = (0..side)
        .flat_map(|r| (0..side).map(move |c| (r, c)))
        .map(|(r, c)| (r, c, puzzle.get(r, c)))
        .filter(|&(_, _, v)| v != 0)
        .collect();
    for (i, &(r1, c1, v1)) in givens.iter().enumerate() {
        for &(r2, c2, v2) in &givens[i + 1..] {
            if v1 != v2 {
                continue;
            }
            let place = if r1 == r2 {
                format!("row {r1}")
            } else if c1 == c2 {
                format!("column {c1}")
            } else if (r1 / n, c1 / n) == (r2 / n, c2 / n) {
                format!("the box at (row {}, col {})", n * (r1 / n), n * (c1 / n))
            } else {
                continue;
            };
            return Some(format!(
                "{v1} appears twice in {place} ((row {r1}, col {c1}) and (row {r2}, col {c2}))"
            ));
        }
    }
    None
}

fn solve(case: &Case) -> Answer {
    let (count, solution) = sudoku_reference::count_and_solve(&case.puzzle, 2);
    Answer {
        solutions: Solutions::from_count(count),
        solution,
        listing: ListingCost::measure(&case.puzzle),
    }
}

/// How the stored listing keys differ from a fresh walk, or `None` if they
/// agree or are all absent (they are information, not answers).
fn listing_difference(stored: &StoredListing, cost: &ListingCost) -> Option<String> {
    if stored.is_empty() {
        return None;
    }
    let mut whys = Vec::new();
    let mut compare = |key: &str, have: Option<u64>, want: u64| match have {
        None => whys.push(format!("no `{key}` stored (the listing walk gives {want})")),
        Some(have) if have != want => whys.push(format!(
            "stored `{key} = {have}`, the listing walk gives {want}"
        )),
        Some(_) => {}
    };
    compare("listing_writes", stored.writes, cost.writes);
    compare("listing_undos", stored.undos, cost.undos);
    compare(
        "suggested_time_limit_ms",
        stored.suggested_time_limit_ms,
        cost.suggested_time_limit_ms,
    );
    if stored.capped.unwrap_or(false) != cost.capped {
        whys.push(if cost.capped {
            "the listing walk stops at its cap but `listing_capped = true` is not stored"
                .to_string()
        } else {
            "`listing_capped = true` is stored but the listing walk finishes".to_string()
        });
    }
    (!whys.is_empty()).then(|| whys.join("; "))
}

/// Why the stored answers differ from the reference's, or `None` if they
/// agree. With two or more solutions any valid completion is accepted, so
/// that a change in which solution the reference finds first is not a
/// difference.
fn difference(case: &Case, stored: &StoredAnswers, answer: &Answer) -> Option<String> {
    let want = answer.solutions.as_number();
    let Some(have) = stored.solutions else {
        return Some(format!(
            "no `solutions` stored (the reference finds {want})"
        ));
    };
    if have != i64::from(want) {
        return Some(format!(
            "stored `solutions = {have}`, the reference finds {want}"
        ));
    }
    match (&stored.solution, &answer.solution) {
        (None, None) => None,
        (Some(_), None) => Some("a `solution` is stored but the puzzle has none".to_string()),
        (None, Some(_)) => Some("no `solution` stored".to_string()),
        (Some(Err(e)), Some(_)) => Some(format!("the stored `solution` is not a board: {e}")),
        (Some(Ok(have)), Some(reference)) => {
            if let Err(why) = completes(&case.puzzle, have) {
                return Some(format!(
                    "the stored `solution` does not complete the puzzle: {why}"
                ));
            }
            if answer.solutions == Solutions::Unique && have != reference {
                // Unreachable for a valid completion of a unique puzzle,
                // but cheap to say plainly.
                return Some("the stored `solution` differs from the reference's".to_string());
            }
            None
        }
    }
}

/// The file's text with each case's answers set, comments and layout kept:
/// `solutions` / `solution` rewritten only where they differ from the
/// reference, the listing keys only where they differ from the walk.
fn rewrite(file: &CaseFile, answers: &[Answer]) -> Result<String, CaseError> {
    let fills: Vec<Fill> = answers
        .iter()
        .zip(&file.cases)
        .zip(&file.stored)
        .map(|((answer, case), stored)| Fill {
            answer,
            rewrite_answers: difference(case, stored, answer).is_some(),
            stored_listing: &stored.listing,
        })
        .collect();
    fill_answers(&file.path, &file.text, &fills)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const FILE: &str = r#"# My cases.
[[case]]
name = "campus"   # the seed's
puzzle = """
1 . | . 4
. 4 | 1 .
----+----
2 . | . 3
. 3 | 2 .
"""
# Written by `grader reference`:
solutions = 0 # by hand
solution = "1234"

# The next one.
[[case]]
name = "clash"
puzzle = "11.............."

[[case]]
name = "open"
puzzle = "1..............."
"#;

    fn parsed(text: &str) -> CaseFile {
        let path = PathBuf::from("x.toml");
        let f = parse_file(&path, text, Answers::Raw).unwrap();
        CaseFile {
            path,
            text: text.to_string(),
            cases: f.cases,
            stored: f.stored,
        }
    }

    #[test]
    fn rewrite_keeps_comments_and_fills_answers() {
        let file = parsed(FILE);
        let answers: Vec<Answer> = file.cases.iter().map(solve).collect();
        let text = rewrite(&file, &answers).unwrap();
        assert!(text.starts_with("# My cases.\n[[case]]\nname = \"campus\"   # the seed's\n"));
        assert!(text.contains(
            "# Written by `grader reference`:\nsolutions = 1 # by hand\nsolution = \"\"\"\n1 2 | 3 4\n3 4 | 1 2\n----+----\n2 1 | 4 3\n4 3 | 2 1\n\"\"\"\nlisting_writes = 8\nlisting_undos = 0\nsuggested_time_limit_ms = 1000\n\n# The next one.\n[[case]]"
        ), "{text}");
        assert!(
            text.contains("name = \"clash\"\npuzzle = \"11..............\"\nsolutions = 0\nlisting_writes = 411\nlisting_undos = 411\nsuggested_time_limit_ms = 1000\n"),
            "{text}"
        );
        assert!(text.contains("name = \"open\"\npuzzle = \"1...............\"\nsolutions = 2\nsolution = \"\"\"\n1 "), "{text}");
        // The result loads strictly, and rewriting again changes nothing.
        let strict = parse_file(Path::new("x.toml"), &text, Answers::Check).unwrap();
        assert_eq!(strict.cases[0].solutions, Some(Solutions::Unique));
        assert_eq!(strict.cases[2].solutions, Some(Solutions::Many));
        let again = parsed(&text);
        let answers: Vec<Answer> = again.cases.iter().map(solve).collect();
        assert_eq!(rewrite(&again, &answers).unwrap(), text);
        for (case, stored) in again.cases.iter().zip(&again.stored) {
            assert_eq!(difference(case, stored, &solve(case)), None);
            assert_eq!(
                listing_difference(&stored.listing, &solve(case).listing),
                None
            );
        }
    }

    #[test]
    fn difference_names_each_mismatch() {
        let file = parsed(FILE);
        let campus = &file.cases[0];
        let answer = solve(campus);
        let diff = |solutions: Option<i64>, solution: Option<&str>| {
            let stored = StoredAnswers {
                solutions,
                solution: solution.map(crate::board_text::parse_board),
                listing: StoredListing::default(),
            };
            difference(campus, &stored, &answer)
        };
        assert_eq!(
            diff(None, None).unwrap(),
            "no `solutions` stored (the reference finds 1)"
        );
        assert_eq!(
            diff(Some(2), None).unwrap(),
            "stored `solutions = 2`, the reference finds 1"
        );
        assert_eq!(diff(Some(1), None).unwrap(), "no `solution` stored");
        assert_eq!(diff(Some(1), Some("1234341221434321")), None);
        assert_eq!(
            diff(Some(1), Some("1234341221434312")).unwrap(),
            "the stored `solution` does not complete the puzzle: r4c3 holds 1 but the puzzle gives 2"
        );
        assert_eq!(
            diff(Some(1), Some("1324341221434321")).unwrap(),
            "the stored `solution` does not complete the puzzle: r1c2 holds 3, which its row, column or box already has"
        );
        assert!(
            diff(Some(1), Some("12"))
                .unwrap()
                .starts_with("the stored `solution` is not a board: line 1")
        );
        let clash = &file.cases[1];
        let stored = StoredAnswers {
            solutions: Some(0),
            solution: Some(crate::board_text::parse_board("1234341221434321")),
            listing: StoredListing::default(),
        };
        assert_eq!(
            difference(clash, &stored, &solve(clash)).unwrap(),
            "a `solution` is stored but the puzzle has none"
        );
    }

    #[test]
    fn listing_keys_are_checked_when_present_and_repaired() {
        let file = parsed(FILE);
        let campus = &file.cases[0];
        let cost = solve(campus).listing;
        assert_eq!((cost.writes, cost.undos, cost.capped), (8, 0, false));
        // Absent: information not stored yet, not a difference.
        assert_eq!(listing_difference(&StoredListing::default(), &cost), None);
        let right = StoredListing {
            writes: Some(8),
            undos: Some(0),
            capped: None,
            suggested_time_limit_ms: Some(1000),
        };
        assert_eq!(listing_difference(&right, &cost), None);
        let wrong = StoredListing {
            writes: Some(9),
            capped: Some(true),
            suggested_time_limit_ms: None,
            ..right
        };
        assert_eq!(
            listing_difference(&wrong, &cost).unwrap(),
            "stored `listing_writes = 9`, the listing walk gives 8; no `suggested_time_limit_ms` stored (the listing walk gives 1000); `listing_capped = true` is stored but the listing walk finishes"
        );

        // A hand-edited count is rewritten in place, the rest kept.
        let first = rewrite(&file, &file.cases.iter().map(solve).collect::<Vec<_>>()).unwrap();
        let edited = first.replacen("listing_writes = 8", "listing_writes = 80", 1);
        let again = parsed(&edited);
        let answers: Vec<Answer> = again.cases.iter().map(solve).collect();
        assert_eq!(rewrite(&again, &answers).unwrap(), first);
    }

    #[test]
    fn clashing_givens_are_named_by_where_they_clash() {
        let board = |text: &str| crate::board_text::parse_board(text).expect("a board");
        assert_eq!(
            clash(&board("11..............")).unwrap(),
            "1 appears twice in row 0 ((row 0, col 0) and (row 0, col 1))"
        );
        assert_eq!(
            clash(&board("1..4.41.2..3.323")).unwrap(),
            "3 appears twice in column 3 ((row 2, col 3) and (row 3, col 3))"
        );
        assert_eq!(
            clash(&board("2....2..........")).unwrap(),
            "2 appears twice in the box at (row 0, col 0) ((row 0, col 0) and (row 1, col 1))"
        );
        assert_eq!(clash(&board("1..4.41.2..3.32.")), None);
        // A clash on which the listing gives up too is a fair puzzle with
        // no solution; one on which it fills the rest is refused.
        let file = parsed(FILE);
        let clash_case = &file.cases[1];
        assert_eq!(refused(clash_case, &solve(clash_case)), None);
        let mistyped = parsed("[[case]]\nname = \"m\"\npuzzle = \"1..4.41.2..3.323\"\n");
        let case = &mistyped.cases[0];
        assert_eq!(
            refused(case, &solve(case)).unwrap(),
            "its givens clash (3 appears twice in column 3 ((row 2, col 3) and (row 3, col 3))), so the reference finds no solution, but the lab's listing does not check the givens: it fills the rest and returns true; `grade` times every limit on the listing and refuses a case it cannot pass: fix the puzzle"
        );
        assert_eq!(refused(&file.cases[0], &solve(&file.cases[0])), None);
        assert_eq!(refused(&file.cases[2], &solve(&file.cases[2])), None);
    }
}
