//! `walk_listing` against a plain, direct implementation of the seed's
//! listing: the same writes, undos, outcome and budget stop on 4x4, 9x9 and
//! 16x16 puzzles from the repository's `data/` folder, and no undo on the campus
//! board.

mod common;

use common::{parse_line, read_set, seed_listing};
use sudoku_reference::BoardRules;
use sudoku_reference::{ListingWalk, count_solutions, walk_listing};

/// Compares the walk with the direct listing on `board` within `budget`.
fn same_walk(label: &str, board: &sudoku_lab::Board, budget: u64) -> ListingWalk {
    let walk = walk_listing(board, budget);
    let (writes, undos, solved, finished) = seed_listing(board, budget);
    assert_eq!(
        (walk.writes, walk.undos, walk.solved, walk.finished),
        (writes, undos, solved, finished),
        "{label}: walk_listing differs from the seed's listing (writes, undos, solved, finished)"
    );
    walk
}

#[test]
fn campus_board_needs_no_undo() {
    // Rows 1..4 / .41. / 2..3 / .32. of the seed.
    let board = parse_line("1..4.41.2..3.32.").expect("the campus board");
    let walk = same_walk("campus", &board, 1_000);
    assert_eq!(
        walk,
        ListingWalk {
            writes: 8,
            undos: 0,
            solved: true,
            finished: true
        }
    );
}

#[test]
fn every_generated_4x4_walk_matches() {
    for p in read_set("gen_4x4.txt", 1) {
        let walk = same_walk(&format!("gen_4x4.txt:{}", p.line), &p.board, u64::MAX);
        assert!(
            walk.finished && walk.solved,
            "gen_4x4.txt:{}: unique puzzles are solvable",
            p.line
        );
        assert_eq!(
            walk.writes - walk.undos,
            p.board.empty_cells().count() as u64
        );
    }
}

#[test]
fn gentle_9x9_walks_match_to_the_end() {
    let mut finished = 0;
    for p in read_set("easy_emerentius.txt", 1).iter().take(15) {
        let walk = same_walk(
            &format!("easy_emerentius.txt:{}", p.line),
            &p.board,
            100_000,
        );
        if walk.finished {
            finished += 1;
            assert_eq!(walk.solved, count_solutions(&p.board, 1) == 1);
        }
    }
    // A few "easy" puzzles still cost the listing more than the budget.
    assert!(finished >= 10, "only {finished} of 15 walks finished");
}

#[test]
fn hard_and_unsolvable_9x9_walks_match_up_to_the_budget() {
    let mut boards = Vec::new();
    for (set, take) in [
        ("17_clue.txt", 3),
        ("hard_emerentius.txt", 2),
        ("unsolvable_tdoku_test.txt", 2),
        ("invalid_sudopedia.txt", 7),
    ] {
        for p in read_set(set, 1).into_iter().take(take) {
            boards.push((format!("{set}:{}", p.line), p.board));
        }
    }
    let mut cut = 0;
    for (label, board) in &boards {
        let walk = same_walk(label, board, 20_000);
        if !walk.finished {
            cut += 1;
            assert_eq!(walk.writes, 20_000, "{label}: stopped before the budget");
        }
    }
    // The 17-clue walks are far longer than the budget: the stop is tested.
    assert!(cut >= 3, "only {cut} walks hit the budget");
}

#[test]
fn sixteen_by_sixteen_walks_match_up_to_the_budget() {
    for p in read_set("gen_16x16.txt", 1).iter().take(2) {
        same_walk(&format!("gen_16x16.txt:{}", p.line), &p.board, 3_000);
    }
}
