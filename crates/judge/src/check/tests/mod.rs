//! End-to-end tests of the checks: plan, execute in-process, judge, for the
//! reference, a fewest-candidates solver and one solver per bug class.

mod students;

use std::path::PathBuf;

use sudoku_lab::{Board, Sudoku};
use sudoku_reference::BoardRules;
use sudoku_reference::Reference;

use super::plan::clash_kinds;
use super::{
    Failure, FindEmptyAnswer, Judgement, MAX_LEGAL_QUERIES, Probe, Response, execute, judge,
    judge_traced, plan,
};
use crate::case::{Case, FindEmptyPolicy, Solutions};
use crate::finding::Finding;
use crate::verdict::Function;
use students::{Bug, Student};

const CAMPUS: &str = "1..4.41.2..3.32.";
const NINE: &str =
    "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..";
/// From `data/unsolvable_tdoku_test.txt`.
const UNSOLVABLE: &str =
    "1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4.";

/// The first puzzle of `data/gen_25x25.txt`.
const TWENTY_FIVE: &str = concat!(
    ".3FAP.BD.NE7..K..6I.G.5.2K.4.7.1.M..O...PFH3A8.BND...5OHA..FDJ..8.4KE.6M1.I",
    "6IC1M.52OL.PAFH.N.D.K.94.8DNBJ.9..4IM1C6OL.2.HPAF3562MLA.GF3H..DB4E9.J1C7IK",
    "1..7..M6.2G.....DB.P.4.E89..J4.7KCI6...5F3A.O.NPDHA.3O..PH.D8.J.9CI1..5LM26",
    ".H.PN.J84.KC.I1..56MAFO3GI47K.26.5M.AGO.BP...E.8..DFPHBE8..J41K7..M2C63A.OL",
    "EN..9I.41.C56M2AO3L.D.HP..LOGAD.FBPN9.JE.7I4K2.6MC2.M....LAOFBHPD...N8I1K74",
    ".O.3.N...BJK.946..7ILG2.M..BD84EJK976I1.G5L.2.H...LM...F.OHAP8DBNK.4JEC6I17",
    ".J9..CI761..25L.AF...8DB.C7.....MG5O...F8BNPD4KE9J.5...P.ADHBE.8J..79.M..61",
    "..K4...126.3LG..HPAF......1.C2.L..GAD.HPE8...7..K9PAH...N...9I4K726M1CO3L.5",
    "JB...749IK.2C.M3GO5LPDFHA",
);

fn board(n: usize, text: &str) -> Board {
    let cells = text
        .bytes()
        .map(|b| match b {
            b'.' => 0,
            b'1'..=b'9' => b - b'0',
            _ => b - b'A' + 10,
        })
        .collect();
    Board::from_cells(n, cells).expect("a valid test board")
}

fn case(name: &str, n: usize, text: &str) -> Case {
    let puzzle = board(n, text);
    let (count, solution) = sudoku_reference::count_and_solve(&puzzle, 2);
    Case {
        name: name.to_string(),
        description: None,
        puzzle,
        points: 1,
        hidden: false,
        tests: Function::ALL.to_vec(),
        time_limit_ms: None,
        solutions: Some(Solutions::from_count(count)),
        solution,
        file: PathBuf::from("test.toml"),
        line: 1,
    }
}

fn campus() -> Case {
    case("campus", 2, CAMPUS)
}

fn nine() -> Case {
    case("nine", 3, NINE)
}

fn unsolvable() -> Case {
    let mut c = case("unsolvable", 3, UNSOLVABLE);
    // Known from the data set; saves the placeholder reference the search.
    c.solutions = Some(Solutions::None);
    c.solution = None;
    c
}

fn run(solver: &dyn Sudoku, case: &Case, function: Function, policy: FindEmptyPolicy) -> Judgement {
    let probe = plan(case, function);
    let response = execute(solver, &probe).expect("plan makes well-formed probes");
    judge(case, policy, &probe, &response)
}

fn failure(judgement: Judgement) -> Failure {
    match judgement {
        Judgement::Wrong(f) => f,
        Judgement::Pass => panic!("expected a failed check, got a pass"),
        Judgement::BadProbe(error) => panic!("expected a failed check, got a bad probe: {error}"),
    }
}

/// Givens that already clash (two 1s in row 1): no solution.
fn clashing() -> Case {
    case("clashing", 2, "11.4.41.2..3.32.")
}

/// A puzzle with nothing left to fill.
fn full() -> Case {
    case("full", 2, "1234341221434321")
}

#[test]
fn the_reference_passes_every_check() {
    assert_eq!(clashing().solutions, Some(Solutions::None));
    assert_eq!(full().solutions, Some(Solutions::Unique));
    for case in [campus(), nine(), unsolvable(), clashing(), full()] {
        for function in Function::ALL {
            for policy in [FindEmptyPolicy::Any, FindEmptyPolicy::First] {
                let j = run(&Reference, &case, function, policy);
                assert_eq!(j, Judgement::Pass, "{} {function} {policy:?}", case.name);
                let j = run(&Student(Bug::None), &case, function, policy);
                assert_eq!(
                    j,
                    Judgement::Pass,
                    "student {} {function} {policy:?}",
                    case.name
                );
            }
        }
    }
}

#[test]
fn fewest_policy_accepts_fewest_and_refuses_reading_order() {
    let fewest = Student(Bug::Fewest);
    for case in [campus(), nine(), unsolvable()] {
        for policy in [FindEmptyPolicy::Any, FindEmptyPolicy::Fewest] {
            let j = run(&fewest, &case, Function::FindEmpty, policy);
            assert_eq!(j, Judgement::Pass, "{} {policy:?}", case.name);
        }
    }
    let f = failure(run(
        &fewest,
        &nine(),
        Function::FindEmpty,
        FindEmptyPolicy::First,
    ));
    assert_eq!(f.check, "find_empty.policy");
    assert!(
        f.message.contains("first empty cell in reading order"),
        "{f}"
    );
    let f = failure(run(
        &Reference,
        &nine(),
        Function::FindEmpty,
        FindEmptyPolicy::Fewest,
    ));
    assert_eq!(f.check, "find_empty.policy");
    assert!(f.message.contains("fewest legal digits"), "{f}");
}

/// A bug, the case and function that show it, the check that must fail,
/// and words its message must hold.
type BugRow = (
    Bug,
    fn() -> Case,
    Function,
    FindEmptyPolicy,
    &'static str,
    &'static [&'static str],
);

#[test]
fn every_bug_class_is_caught_with_its_check_and_cell() {
    use FindEmptyPolicy::{Any, First};
    use Function::{FindEmpty, Legal, Solve};
    let table: &[BugRow] = &[
        (
            Bug::NoClear,
            unsolvable,
            Solve,
            Any,
            "solve.leftover",
            &["returned false", "still holds", "not cleared"],
        ),
        (
            Bug::PartialClear,
            unsolvable,
            Solve,
            Any,
            "solve.leftover",
            &["returned false", "still holds"],
        ),
        (
            Bug::LegalNoBox,
            campus,
            Legal,
            Any,
            "legal",
            &["returned true", "box"],
        ),
        (
            Bug::LegalNoBox,
            nine,
            Legal,
            Any,
            "legal",
            &["returned true", "box"],
        ),
        (
            Bug::LegalNoColumn,
            campus,
            Legal,
            Any,
            "legal",
            &["returned true", "column"],
        ),
        (
            Bug::LegalNoColumn,
            nine,
            Legal,
            Any,
            "legal",
            &["returned true", "column"],
        ),
        (
            Bug::WrongBoxOrigin,
            campus,
            Legal,
            Any,
            "legal",
            &["legal(board, "],
        ),
        (
            Bug::WrongBoxOrigin,
            nine,
            Legal,
            Any,
            "legal",
            &["legal(board, "],
        ),
        (
            Bug::ColumnMajor,
            campus,
            FindEmpty,
            First,
            "find_empty.policy",
            &["reading order"],
        ),
        (
            Bug::ColumnMajor,
            nine,
            FindEmpty,
            First,
            "find_empty.policy",
            &["reading order"],
        ),
        (
            Bug::NeverNone,
            nine,
            FindEmpty,
            Any,
            "find_empty.full",
            &["on a full board", "none"],
        ),
        (
            Bug::AlwaysTrue,
            unsolvable,
            Solve,
            Any,
            "solve.result",
            &["returned true", "no solution"],
        ),
        (
            Bug::OverwritesGivens,
            nine,
            Solve,
            Any,
            "solve.givens",
            &["the given", "changed from"],
        ),
        (
            Bug::SolvesCopy,
            nine,
            Solve,
            Any,
            "solve.in_place",
            &["exactly as it was passed in", "in place"],
        ),
        (
            Bug::OutOfRange,
            unsolvable,
            Solve,
            Any,
            "solve.range",
            &["holds 10, outside 0..=9"],
        ),
    ];
    for &(bug, make, function, policy, check, words) in table {
        let case = make();
        let Judgement::Wrong(f) = run(&Student(bug), &case, function, policy) else {
            panic!("{bug:?} on {} passed {function} {policy:?}", case.name);
        };
        let what = format!("{bug:?} on {}: {f}", case.name);
        assert_eq!(f.check, check, "{what}");
        for w in words {
            assert!(f.message.contains(w), "{what}: missing {w:?}");
        }
        let (r, c) = f.cell.unwrap_or_else(|| panic!("{what}: no cell"));
        let name = format!("(row {r}, col {c})");
        let call = format!("legal(board, {r}, {c}, ");
        assert!(
            f.message.contains(&name) || f.message.contains(&call),
            "{what}: does not name {name}"
        );
        assert!(f.board.is_some(), "{what}: no board");
    }
}

#[test]
fn a_bug_fails_only_its_own_function() {
    let bugs = [
        (Bug::NoClear, Function::Solve),
        (Bug::PartialClear, Function::Solve),
        (Bug::LegalNoBox, Function::Legal),
        (Bug::LegalNoColumn, Function::Legal),
        (Bug::WrongBoxOrigin, Function::Legal),
        (Bug::ColumnMajor, Function::FindEmpty),
        (Bug::NeverNone, Function::FindEmpty),
        (Bug::AlwaysTrue, Function::Solve),
        (Bug::OverwritesGivens, Function::Solve),
        (Bug::SolvesCopy, Function::Solve),
        (Bug::OutOfRange, Function::Solve),
    ];
    for (bug, own) in bugs {
        for case in [campus(), nine(), unsolvable()] {
            for function in Function::ALL.into_iter().filter(|&f| f != own) {
                let j = run(&Student(bug), &case, function, FindEmptyPolicy::Any);
                assert_eq!(j, Judgement::Pass, "{bug:?} {} {function}", case.name);
            }
        }
    }
}

#[test]
fn partial_boards_hold_row_only_column_only_and_box_only_clashes() {
    for case in [campus(), nine(), unsolvable()] {
        let Probe::Legal { n, boards, queries } = plan(&case, Function::Legal) else {
            panic!("a legal probe");
        };
        assert!(boards.len() >= 4, "{}: {} boards", case.name, boards.len());
        assert_eq!(boards[0], case.puzzle.cells());
        let boards: Vec<Board> = boards
            .into_iter()
            .map(|b| Board::from_cells(n, b).unwrap())
            .collect();
        assert_eq!(clash_kinds(&boards), [true; 3], "{}", case.name);
        // Every (empty cell, digit) pair of every board is asked, but on
        // the last, the off-diagonal board, only those of its first box.
        let (off_diagonal, question) = boards.split_last().unwrap();
        let pairs: usize = question
            .iter()
            .map(|b| b.empty_cells().count() * b.side())
            .sum();
        let first_box = (n * n - 1) * off_diagonal.side();
        assert_eq!(queries.len(), pairs + first_box, "{}", case.name);
        assert_eq!(plan(&case, Function::Legal), plan(&case, Function::Legal));
    }
}

#[test]
fn find_empty_probe_ends_with_a_full_board() {
    for case in [campus(), nine(), unsolvable()] {
        let Probe::FindEmpty { n, boards } = plan(&case, Function::FindEmpty) else {
            panic!("a find_empty probe");
        };
        let last = Board::from_cells(n, boards.last().unwrap().clone()).unwrap();
        assert!(last.is_full(), "{}", case.name);
        let side = last.side();
        for r in 0..side {
            for c in 0..side {
                assert!(
                    !last.conflicts(r, c, last.get(r, c)),
                    "{} r{r}c{c}",
                    case.name
                );
            }
        }
        assert!(
            boards.iter().filter(|b| b.contains(&0)).count() >= 4,
            "{}",
            case.name
        );
    }
}

#[test]
fn legal_queries_are_bounded_on_25x25() {
    let empty = Board::empty(5).unwrap();
    let mut unsolved = campus();
    unsolved.puzzle = empty.clone();
    unsolved.solutions = None;
    unsolved.solution = None;
    let Probe::Legal {
        queries, boards, ..
    } = plan(&unsolved, Function::Legal)
    else {
        panic!("a legal probe");
    };
    assert!(
        queries.len() <= MAX_LEGAL_QUERIES,
        "{} queries",
        queries.len()
    );
    assert!(
        queries.len() >= MAX_LEGAL_QUERIES / 2,
        "{} queries",
        queries.len()
    );
    assert!(boards.len() >= 4);
    let j = run(&Reference, &unsolved, Function::Legal, FindEmptyPolicy::Any);
    assert_eq!(j, Judgement::Pass);
    let f = failure(run(
        &Student(Bug::LegalNoBox),
        &unsolved,
        Function::Legal,
        FindEmptyPolicy::Any,
    ));
    assert_eq!(f.check, "legal");
}

#[test]
fn a_constant_legal_is_told_it_answers_the_same_to_everything() {
    let case = campus();
    let p = plan(&case, Function::Legal);
    let Probe::Legal { queries, .. } = &p else {
        panic!("{p:?}");
    };
    let constant = Response::Legal {
        answers: vec![false; queries.len()],
    };
    let f = failure(judge(&case, FindEmptyPolicy::Any, &p, &constant));
    assert!(
        f.message.ends_with(&format!(
            "; it answered false to all {} questions, whatever the board, the cell and the digit: \
             a constant answer, like the untouched stub's",
            queries.len()
        )),
        "{f}"
    );
    // One answer flipped from the constant: no longer constant, not said.
    let mut answers = vec![false; queries.len()];
    answers[0] = true;
    let f = failure(judge(
        &case,
        FindEmptyPolicy::Any,
        &p,
        &Response::Legal { answers },
    ));
    assert!(!f.message.contains("constant"), "{f}");
}

#[test]
fn legal_messages_name_the_units_and_the_clash() {
    let case = campus();
    let probe = |board: &Board, queries: Vec<[usize; 4]>| Probe::Legal {
        n: 2,
        boards: vec![board.cells().to_vec()],
        queries,
    };
    // (1, 0) and 4: row 1 and the top-left box at (1, 1); (0, 2) and 2:
    // column 2 at (3, 2); (0, 1) and 2: no clash.
    let p = probe(&case.puzzle, vec![[0, 1, 0, 4], [0, 0, 2, 2], [0, 0, 1, 2]]);
    let all_wrong = Response::Legal {
        answers: vec![true, true, false],
    };
    let f = failure(judge(&case, FindEmptyPolicy::Any, &p, &all_wrong));
    assert_eq!(f.check, "legal");
    assert_eq!(
        f.message,
        "legal(board, 1, 0, 4) returned true, but 4 is already in row 1 at (row 1, col 1) and the box of rows 0-1, cols 0-1 at (row 1, col 1): \
         a digit may not repeat in a row, a column or a box (3 of 3 answers were wrong)"
    );
    assert_eq!(f.cell, Some((1, 0)));
    assert_eq!(f.board.as_ref(), Some(&case.puzzle));
    let one_wrong = Response::Legal {
        answers: vec![false, true, true],
    };
    let f = failure(judge(&case, FindEmptyPolicy::Any, &p, &one_wrong));
    assert_eq!(
        f.message,
        "legal(board, 0, 2, 2) returned true, but 2 is already in column 2 at (row 3, col 2): check every cell of the column"
    );
    let right = Response::Legal {
        answers: vec![false, false, true],
    };
    assert_eq!(
        judge(&case, FindEmptyPolicy::Any, &p, &right),
        Judgement::Pass
    );
    let said_false = Response::Legal {
        answers: vec![false, false, false],
    };
    let f = failure(judge(&case, FindEmptyPolicy::Any, &p, &said_false));
    assert_eq!(
        f.message,
        "legal(board, 0, 1, 2) returned false, but 2 is not in row 0, column 1 or the box of rows 0-1, cols 0-1: \
         only the cell's own row, column and box rule a digit out"
    );
    // Box only: 4 at (3, 2), asked at (2, 3).
    let mut b = Board::empty(2).unwrap();
    b.set(3, 2, 4);
    let p = probe(&b, vec![[0, 2, 3, 4]]);
    let f = failure(judge(
        &case,
        FindEmptyPolicy::Any,
        &p,
        &Response::Legal {
            answers: vec![true],
        },
    ));
    assert_eq!(
        f.message,
        "legal(board, 2, 3, 4) on a test board (not the case's puzzle) returned true, but 4 is already in the box of rows 2-3, cols 2-3 at (row 3, col 2): \
         check the 2x2 box that holds the cell, whose top-left cell is (row 2, col 2)"
    );
}

/// A probe the grader built wrong is the grader's bug: never a failed
/// check (the student's `wrong`), whatever the answers.
#[test]
fn a_malformed_probe_is_a_bad_probe_not_a_failed_check() {
    let case = campus();
    let probes = [
        Probe::Solve {
            n: 2,
            board: vec![9; 3],
        },
        Probe::FindEmpty {
            n: 2,
            boards: vec![vec![0; 15]],
        },
        Probe::Legal {
            n: 2,
            boards: vec![vec![0; 16]],
            queries: vec![[1, 0, 0, 1]],
        },
    ];
    let responses = [
        Response::Solve {
            solved: false,
            board: vec![9; 3],
        },
        Response::FindEmpty {
            answers: vec![None],
        },
        Response::Legal {
            answers: vec![true],
        },
    ];
    for (probe, response) in probes.iter().zip(&responses) {
        match judge(&case, FindEmptyPolicy::Any, probe, response) {
            Judgement::BadProbe(_) => {}
            other => panic!("{probe:?}: want a bad probe, got {other:?}"),
        }
        let (judgement, _) = judge_traced(&case, FindEmptyPolicy::Any, probe, response, None);
        assert!(matches!(judgement, Judgement::BadProbe(_)), "{judgement:?}");
    }
}

#[test]
fn response_shape_mismatches_are_wrong() {
    let case = campus();
    let p = plan(&case, Function::FindEmpty);
    let other = Response::Legal { answers: vec![] };
    let f = failure(judge(&case, FindEmptyPolicy::Any, &p, &other));
    assert_eq!(f.check, "response.shape");
    assert!(
        f.message.contains("find_empty probe with legal answers"),
        "{f}"
    );
    let short = Response::FindEmpty {
        answers: vec![Some(FindEmptyAnswer::Cell([0, 1]))],
    };
    let f = failure(judge(&case, FindEmptyPolicy::Any, &p, &short));
    assert_eq!(f.check, "response.shape");
    assert!(f.message.contains("but 1 answer(s) came back"), "{f}");
    let p = plan(&case, Function::Solve);
    let replaced = Response::Solve {
        solved: true,
        board: vec![1; 81],
    };
    let f = failure(judge(&case, FindEmptyPolicy::Any, &p, &replaced));
    assert_eq!(f.check, "solve.shape");
    assert!(
        f.message.contains("board of 81 cells where 16 were passed"),
        "{f}"
    );
}

#[test]
fn find_empty_messages() {
    let case = campus();
    let p = Probe::FindEmpty {
        n: 2,
        boards: vec![case.puzzle.cells().to_vec()],
    };
    let judge_one = |answer: Option<[usize; 2]>| {
        failure(judge(
            &case,
            FindEmptyPolicy::First,
            &p,
            &Response::FindEmpty {
                answers: vec![answer.map(FindEmptyAnswer::Cell)],
            },
        ))
    };
    let f = judge_one(Some([0, 0]));
    assert_eq!(f.check, "find_empty.not_empty");
    assert_eq!(
        f.message,
        "find_empty returned (row 0, col 0), which holds 1: it must return an empty cell (one that holds 0)"
    );
    let f = judge_one(Some([4, usize::MAX]));
    assert_eq!(f.check, "find_empty.range");
    assert!(f.message.contains("off the 4x4 board"), "{f}");
    assert_eq!(f.cell, None);
    let f = judge_one(None);
    assert_eq!(f.check, "find_empty.none");
    assert!(
        f.message
            .starts_with("find_empty reported none, but (row 0, col 1) is empty"),
        "{f}"
    );
    let f = judge_one(Some([1, 0]));
    assert_eq!(
        f.message,
        "find_empty returned (row 1, col 0), but this case asks for the first empty cell in reading order \
         (row by row, left to right), (row 0, col 1)"
    );
}

#[test]
fn a_value_that_is_neither_a_cell_nor_none_is_told_as_returned() {
    let case = campus();
    let full = case.solution.clone().unwrap();
    let p = Probe::FindEmpty {
        n: 2,
        boards: vec![case.puzzle.cells().to_vec(), full.cells().to_vec()],
    };
    let other = |returned: &str| {
        Some(FindEmptyAnswer::Other {
            returned: returned.to_string(),
        })
    };
    let judge_these = |answers| {
        failure(judge(
            &case,
            FindEmptyPolicy::Any,
            &p,
            &Response::FindEmpty { answers },
        ))
    };
    // False on the full board, the puzzle's answer right.
    let f = judge_these(vec![Some(FindEmptyAnswer::Cell([0, 1])), other("False")]);
    assert_eq!(f.check, "find_empty.value");
    assert_eq!(
        f.finding.as_deref(),
        Some(&Finding::FindEmptyValue {
            on_test_board: true,
            value: "False".into(),
            first_empty: None,
        })
    );
    assert_eq!(
        f.board.as_ref(),
        Some(&full),
        "the board it was asked about"
    );
    // (-1, -1) on the puzzle, which has an empty cell: named with it.
    let f = judge_these(vec![other("(-1, -1)"), None]);
    assert_eq!(
        f.finding.as_deref(),
        Some(&Finding::FindEmptyValue {
            on_test_board: false,
            value: "(-1, -1)".into(),
            first_empty: Some([0, 1]),
        })
    );
    assert_eq!(f.cell, Some((0, 1)));
    // The student's text is cut short and kept to one printable line.
    let f = judge_these(vec![
        other(&format!("'\u{1b}[31m{}'", "x".repeat(80))),
        None,
    ]);
    let Some(Finding::FindEmptyValue { value, .. }) = f.finding.as_deref() else {
        panic!("{f:?}");
    };
    assert!(
        !value.contains('\u{1b}') && value.chars().count() <= 41,
        "{value:?}"
    );
}

#[test]
fn solve_messages() {
    let case = campus();
    let p = plan(&case, Function::Solve);
    let solution = case.solution.clone().unwrap();
    let judge_solve = |solved: bool, cells: Vec<u8>| {
        judge(
            &case,
            FindEmptyPolicy::Any,
            &p,
            &Response::Solve {
                solved,
                board: cells,
            },
        )
    };
    assert_eq!(
        judge_solve(true, solution.cells().to_vec()),
        Judgement::Pass
    );
    let mut cells = solution.cells().to_vec();
    cells[1] = 17;
    let f = failure(judge_solve(true, cells));
    assert_eq!(f.check, "solve.range");
    assert_eq!(
        f.message,
        "after solve, (row 0, col 1) holds 17, outside 0..=4: write only the digits 1 to 4 \
         (0 clears a cell): most likely your digit loop goes past 4; or your code was written \
         for a bigger board (a fixed 9 where N = n*n belongs)"
    );
    assert_eq!(f.cell, Some((0, 1)));
    // A given changed and a duplicate: the given is named.
    let mut cells = solution.cells().to_vec();
    cells[0] = 2;
    let f = failure(judge_solve(true, cells));
    assert_eq!(f.check, "solve.givens");
    assert_eq!(
        f.message,
        "solve returned true, but the given (row 0, col 0) changed from 1 to 2: \
         write only to cells that find_empty returns (the empty ones), never to a given"
    );
    // Two written cells swapped: a duplicate, named at a written cell.
    let mut cells = solution.cells().to_vec();
    cells.swap(1, 2);
    let f = failure(judge_solve(true, cells));
    assert_eq!(f.check, "solve.duplicate");
    assert!(
        f.message
            .starts_with("solve returned true, but 3 appears twice in column 1 ((row 0, col 1) and (row 3, col 1))"),
        "{f}"
    );
    let mut cells = solution.cells().to_vec();
    cells[15] = 0;
    let f = failure(judge_solve(true, cells));
    assert_eq!(f.check, "solve.incomplete");
    assert!(f.message.contains("(row 3, col 3) is still empty"), "{f}");
    let f = failure(judge_solve(false, case.puzzle.cells().to_vec()));
    // The board as passed in: the search gave up, and the solution needs a
    // 4 in an empty cell, so a digit loop that reaches 4 is described,
    // not blamed.
    assert_eq!(f.check, "solve.gave_up");
    assert!(
        f.message.starts_with(
            "solve returned false and left the board as it was passed in, but this puzzle has a solution"
        ),
        "{f}"
    );
    assert!(
        f.message
            .contains("digit loop tries every digit from 1 to 4"),
        "{f}"
    );
    // Digits left behind on a solvable puzzle: the leftover bug comes first.
    let mut cells = case.puzzle.cells().to_vec();
    cells[1] = 3;
    let f = failure(judge_solve(false, cells));
    assert_eq!(f.check, "solve.leftover");
    assert!(
        f.message.starts_with(
            "solve returned false on a puzzle that has a solution, and (row 0, col 1) still holds 3"
        ),
        "{f}"
    );
    // With no stored count, the reference is asked.
    let mut uncounted = case.clone();
    uncounted.solutions = None;
    let r = Response::Solve {
        solved: false,
        board: case.puzzle.cells().to_vec(),
    };
    assert_eq!(
        failure(judge(&uncounted, FindEmptyPolicy::Any, &p, &r)).check,
        "solve.gave_up"
    );
}

#[test]
fn leftover_message_on_an_unsolvable_case() {
    let case = unsolvable();
    let p = plan(&case, Function::Solve);
    let mut cells = case.puzzle.cells().to_vec();
    cells[2 * 9 + 4] = 7;
    let r = Response::Solve {
        solved: false,
        board: cells.clone(),
    };
    let f = failure(judge(&case, FindEmptyPolicy::Any, &p, &r));
    assert_eq!(f.check, "solve.leftover");
    assert_eq!(
        f.message,
        "solve returned false, but (row 2, col 4) still holds 7: a digit written on a dead branch was not \
         cleared (a fake given). After the recursive call returns false, set the cell back to 0 before \
         trying the next digit; on false the board must be exactly as it was passed in"
    );
    assert_eq!(f.cell, Some((2, 4)));
    cells[0] = 0;
    let r = Response::Solve {
        solved: false,
        board: cells,
    };
    let f = failure(judge(&case, FindEmptyPolicy::Any, &p, &r));
    assert_eq!(f.check, "solve.givens");
    assert!(
        f.message.contains(
            "the given (row 0, col 0) changed from 1 to 0 (2 cells differ from the input)"
        ),
        "{f}"
    );
    let r = Response::Solve {
        solved: false,
        board: case.puzzle.cells().to_vec(),
    };
    assert_eq!(judge(&case, FindEmptyPolicy::Any, &p, &r), Judgement::Pass);
}

#[test]
fn a_25x25_case_is_bounded_and_judged() {
    let case = case("twenty-five", 5, TWENTY_FIVE);
    assert_eq!(case.solutions, Some(Solutions::Unique));
    let Probe::Legal {
        queries, boards, ..
    } = plan(&case, Function::Legal)
    else {
        panic!("a legal probe");
    };
    assert!(
        queries.len() <= MAX_LEGAL_QUERIES,
        "{} queries",
        queries.len()
    );
    assert!(boards.len() >= 4);
    for function in Function::ALL {
        let j = run(&Reference, &case, function, FindEmptyPolicy::First);
        assert_eq!(j, Judgement::Pass, "{function}");
    }
    let f = failure(run(
        &Student(Bug::WrongBoxOrigin),
        &case,
        Function::Legal,
        FindEmptyPolicy::Any,
    ));
    assert_eq!(f.check, "legal");
    let f = failure(run(
        &Student(Bug::SolvesCopy),
        &case,
        Function::Solve,
        FindEmptyPolicy::Any,
    ));
    assert_eq!(f.check, "solve.in_place");
}

/// Every bundled case, hidden ones included (they are never built in, so
/// they are read from the source tree's `cases/`).
fn bundled_cases() -> Vec<Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../cases");
    crate::case::load_folder_for_tests(&dir).cases
}

/// The boards of the `legal` and `find_empty` probes of `case`.
fn probe_boards(case: &Case) -> Vec<Vec<u8>> {
    let mut all = Vec::new();
    for function in [Function::Legal, Function::FindEmpty] {
        match plan(case, function) {
            Probe::Legal { boards, .. } | Probe::FindEmpty { boards, .. } => all.extend(boards),
            Probe::Solve { .. } => unreachable!(),
        }
    }
    all
}

#[test]
fn probes_are_made_from_the_puzzle_alone() {
    // Whatever the case's solution is, or whether it has one at all, the
    // questions are the same: a student printing every probe learns
    // nothing the puzzle does not already say.
    for case in bundled_cases()
        .into_iter()
        .chain([campus(), nine(), unsolvable()])
    {
        let mut blind = case.clone();
        blind.solution = None;
        blind.solutions = None;
        let mut lied_to = case.clone();
        lied_to.solution = Some(crate::generate::grid::pattern_grid(case.puzzle.n()));
        for function in Function::ALL {
            let probe = plan(&case, function);
            assert_eq!(probe, plan(&blind, function), "{} {function}", case.name);
            assert_eq!(probe, plan(&lied_to, function), "{} {function}", case.name);
        }
    }
}

#[test]
fn no_probe_board_agrees_with_the_solution_beyond_chance() {
    let mut checked = 0;
    for case in bundled_cases().into_iter().chain([campus(), nine()]) {
        let Some(solution) = case.solution.as_ref().filter(|s| s.is_full()) else {
            continue;
        };
        let side = solution.side();
        let givens = case.puzzle.cells().iter().filter(|&&v| v != 0).count();
        for board in probe_boards(&case) {
            if board == case.puzzle.cells() {
                continue;
            }
            // Cells where the board shows the solution's digit but the
            // puzzle does not: what a printed probe would leak. A board cut
            // from another grid shares about one cell in `side` with it by
            // chance; one cut from the solution shares every filled cell.
            let filled = board.iter().filter(|&&v| v != 0).count();
            let leaked = board
                .iter()
                .zip(solution.cells())
                .zip(case.puzzle.cells())
                .filter(|&((&shown, &answer), &given)| shown != 0 && shown == answer && given == 0)
                .count();
            let chance = filled / side;
            assert!(
                leaked <= 2 * chance + side.min(8) && leaked <= givens.max(side) + side,
                "{}: a probe board shows {leaked} of the solution's hidden cells ({filled} filled, {givens} givens)",
                case.name
            );
            checked += 1;
        }
        // The full find_empty board is not the solution.
        let Probe::FindEmpty { boards, .. } = plan(&case, Function::FindEmpty) else {
            unreachable!()
        };
        let full = boards.last().expect("a full board");
        assert!(!full.contains(&0), "{}", case.name);
        assert_ne!(full.as_slice(), solution.cells(), "{}", case.name);
    }
    assert!(checked > 30, "only {checked} boards checked");
}

#[test]
fn bugs_only_a_few_boards_show_are_caught_on_every_bundled_case() {
    // A `find_empty` that skips the last row or column, and a `legal` that
    // walks only the box's diagonal, fail on every case; a scan of a fixed
    // 9x9 region fails on every board wider than 9.
    for case in bundled_cases() {
        let side = case.puzzle.side();
        for (bug, function, caught) in [
            (Bug::SkipsLastRow, Function::FindEmpty, true),
            (Bug::SkipsLastColumn, Function::FindEmpty, true),
            (Bug::Fixed9x9, Function::FindEmpty, side > 9),
            (Bug::LegalDiagonalBox, Function::Legal, true),
        ] {
            let judgement = run(&Student(bug), &case, function, FindEmptyPolicy::Any);
            assert_eq!(
                judgement != Judgement::Pass,
                caught,
                "{bug:?} on {}: {judgement:?}",
                case.name
            );
        }
    }
}

#[test]
fn every_bundled_case_gets_all_three_kinds_of_clash() {
    for case in bundled_cases() {
        let Probe::Legal { n, boards, .. } = plan(&case, Function::Legal) else {
            panic!("a legal probe");
        };
        let boards: Vec<Board> = boards
            .into_iter()
            .map(|b| Board::from_cells(n, b).expect("a probe board"))
            .collect();
        assert_eq!(clash_kinds(&boards), [true; 3], "{}", case.name);
    }
}
