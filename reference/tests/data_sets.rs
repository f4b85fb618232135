//! The reference solver on every puzzle set of the data folder
//! (the repository's `data/`, or `GRADER_DATA`): each solvable puzzle solved with a
//! valid solution that keeps its givens, the counts of
//! `tdoku_test_puzzles_with_counts.txt` matched exactly, two or more
//! solutions on `serg_benchmark_multi.txt`, none on the unsolvable and
//! invalid sets. A missing data folder fails these tests.

mod common;

use common::{Puzzle, data_dir, read_set, solution_error};
use sudoku_lab::{Board, Sudoku};
use sudoku_reference::BoardRules;
use sudoku_reference::{Reference, count_and_solve, count_solutions, solve};

/// What a set's puzzles must give.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Exactly one solution.
    Unique,
    /// Two or more solutions.
    Multiple,
    /// No solution.
    None,
    /// The count written after each puzzle.
    Listed,
}

/// Every set of the data folder, what it must give, and the sampling step
/// (1 = every puzzle).
const SETS: &[(&str, Expect, usize)] = &[
    ("17_clue.txt", Expect::Unique, 1),
    ("easy_emerentius.txt", Expect::Unique, 1),
    ("medium_emerentius.txt", Expect::Unique, 1),
    ("hard_emerentius.txt", Expect::Unique, 1),
    ("forum_hardest_1106.txt", Expect::Unique, 1),
    // 48,766 very hard puzzles take ~12 s even optimised; a deterministic
    // sample (every 8th line) keeps the test run short. The bench
    // (`cargo bench -p sudoku-reference --bench anchor`) runs the whole set
    // and checks every count against the `sudoku` crate.
    ("forum_hardest_1905_11plus.txt", Expect::Unique, 8),
    ("magictour_top1465.txt", Expect::Unique, 1),
    ("gen_4x4.txt", Expect::Unique, 1),
    ("gen_16x16.txt", Expect::Unique, 1),
    ("gen_25x25.txt", Expect::Unique, 1),
    ("serg_benchmark_multi.txt", Expect::Multiple, 1),
    ("tdoku_test_puzzles_with_counts.txt", Expect::Listed, 1),
    ("unsolvable_tdoku_test.txt", Expect::None, 1),
    ("unsolvable_top1465_plus1.txt", Expect::None, 1),
    ("invalid_sudopedia.txt", Expect::None, 1),
];

/// The largest count in `tdoku_test_puzzles_with_counts.txt` is 847; the
/// cap sits above it so that every count is compared exactly.
const LISTED_CAP: u32 = 1_000;

fn check_set(name: &str) {
    let &(_, expect, step) = SETS
        .iter()
        .find(|(set, _, _)| *set == name)
        .unwrap_or_else(|| panic!("{name} is not in SETS"));
    let puzzles = read_set(name, step);
    for p in &puzzles {
        check_puzzle(name, p, expect);
    }
}

fn check_puzzle(name: &str, p: &Puzzle, expect: Expect) {
    let at = format!("{name}:{}", p.line);
    let (cap, want) = match expect {
        Expect::Unique => (2, 1),
        Expect::Multiple => (2, 2),
        Expect::None => (2, 0),
        Expect::Listed => {
            let want = p
                .count
                .unwrap_or_else(|| panic!("{at}: no `:count` after the puzzle"));
            assert!(want < LISTED_CAP, "{at}: count {want} is not below the cap");
            (LISTED_CAP, want)
        }
    };
    let (count, first) = count_and_solve(&p.board, cap);
    assert_eq!(count, want, "{at}: solution count");
    assert_eq!(
        count_solutions(&p.board, cap),
        want,
        "{at}: count_solutions"
    );

    let mut board = p.board.clone();
    let solved = Reference.solve(&mut board);
    match first {
        Some(first) => {
            if let Some(e) = solution_error(&p.board, &first) {
                panic!("{at}: count_and_solve gave a wrong solution: {e}");
            }
            assert!(solved, "{at}: solve failed on a solvable puzzle");
            if let Some(e) = solution_error(&p.board, &board) {
                panic!("{at}: solve gave a wrong solution: {e}");
            }
            if want == 1 {
                assert_eq!(board, first, "{at}: two different unique solutions");
            }
        }
        None => {
            assert_eq!(want, 0, "{at}: a count without a solution");
            assert!(!solved, "{at}: solve claimed an unsolvable puzzle");
            assert_eq!(board, p.board, "{at}: solve changed the board on failure");
            let mut again = p.board.clone();
            assert!(!solve(&mut again));
        }
    }
}

#[test]
fn every_set_in_the_data_folder_is_checked() {
    let dir = data_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".txt"))
        .collect();
    names.sort();
    for name in &names {
        assert!(
            SETS.iter().any(|(set, _, _)| set == name),
            "{name} in {} has no expectation here: add it to SETS",
            dir.display()
        );
    }
    for (set, _, _) in SETS {
        assert!(
            names.iter().any(|n| n == set),
            "{set} is missing from {}",
            dir.display()
        );
    }
}

#[test]
fn clue_17() {
    check_set("17_clue.txt");
}

#[test]
fn emerentius_easy_medium_hard() {
    check_set("easy_emerentius.txt");
    check_set("medium_emerentius.txt");
    check_set("hard_emerentius.txt");
}

#[test]
fn forum_hardest_1106() {
    check_set("forum_hardest_1106.txt");
}

#[test]
fn forum_hardest_1905_sample() {
    check_set("forum_hardest_1905_11plus.txt");
}

#[test]
fn magictour_top1465() {
    check_set("magictour_top1465.txt");
}

#[test]
fn generated_4x4_16x16_25x25() {
    check_set("gen_4x4.txt");
    check_set("gen_16x16.txt");
    check_set("gen_25x25.txt");
}

#[test]
fn serg_multi_have_two_or_more() {
    check_set("serg_benchmark_multi.txt");
}

#[test]
fn tdoku_counts_match_exactly() {
    check_set("tdoku_test_puzzles_with_counts.txt");
    // The file's counts run up to 847: make sure the big ones are there.
    let max = read_set("tdoku_test_puzzles_with_counts.txt", 1)
        .iter()
        .filter_map(|p| p.count)
        .max();
    assert_eq!(max, Some(847));
}

#[test]
fn unsolvable_and_invalid_have_none() {
    check_set("unsolvable_tdoku_test.txt");
    check_set("unsolvable_top1465_plus1.txt");
    check_set("invalid_sudopedia.txt");
}

#[test]
fn invalid_sudopedia_duplicates_are_seen_as_clashes() {
    // Lines 1-3 have a digit twice in a box, column, row: the lab rule sees
    // the clash, and the reference answers 0 without a search.
    let puzzles = read_set("invalid_sudopedia.txt", 1);
    for p in &puzzles[..3] {
        let b: &Board = &p.board;
        let side = b.side();
        let clash = (0..side)
            .any(|r| (0..side).any(|c| b.get(r, c) != 0 && b.conflicts(r, c, b.get(r, c))));
        assert!(clash, "line {} should have clashing givens", p.line);
        assert_eq!(count_solutions(b, 2), 0);
    }
}
