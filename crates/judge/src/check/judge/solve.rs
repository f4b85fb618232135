//! Judging `solve`: values in range, the return value against the
//! reference, and the board it left — complete, valid and with its givens on
//! true, byte-identical to the input on false.

use crate::check::catalog::Check;
use sudoku_lab::Board;
use sudoku_reference::BoardRules;

use crate::case::model::{Case, Solutions};
use crate::check::failure::Failure;
use crate::check::rule::{cell, clashes};
use crate::finding::Finding;

/// Judges `solve(input)` returning `solved` and leaving `after`.
pub(super) fn judge(case: &Case, input: &Board, solved: bool, after: &[u8]) -> Result<(), Failure> {
    let n = input.n();
    let side = input.side();
    let Ok(after) = Board::from_cells_unchecked_values(n, after.to_vec()) else {
        return Err(Failure::new(
            Check::SolveShape,
            format!(
                "solve left a board of {} cells where {} were passed: fill the board you were given, in place",
                after.len(),
                side * side
            ),
        )
        .on(input, None));
    };
    if let Some(i) = after.cells().iter().position(|&v| usize::from(v) > side) {
        let (r, c) = (i / side, i % side);
        return Err(Failure::new(
            Check::SolveRange,
            format!(
                "after solve, {} holds {}, outside 0..={side}: write only the digits 1 to {side} \
                 (0 clears a cell): most likely your digit loop goes past {side}; or your code was \
                 written for a bigger board (a fixed 9 where N = n*n belongs)",
                cell(r, c),
                after.get(r, c)
            ),
        )
        .on(&after, Some((r, c))));
    }
    let solvable = match case.solutions {
        Some(s) => s != Solutions::None,
        None => sudoku_reference::count_solutions(&case.puzzle, 2) > 0,
    };
    match (solved, solvable) {
        (false, false) => restored(input, &after),
        (false, true) => Err(gave_up(case, input, &after)),
        (true, true) => match completed_problem(input, &after) {
            Some(p) => Err(Failure::new(
                p.check,
                format!("solve returned true, but {}: {}", p.what, p.hint),
            )
            .on(&after, Some(p.cell))),
            None => Ok(()),
        },
        (true, false) => {
            let problem = completed_problem(input, &after);
            if let Some(p) = problem.as_ref().filter(|p| p.check == Check::SolveGivens) {
                return Err(Failure::new(
                    Check::SolveGivens,
                    format!(
                        "solve returned true on a puzzle that has no solution, and {}: {}",
                        p.what, p.hint
                    ),
                )
                .on(&after, Some(p.cell)));
            }
            let detail = problem
                .as_ref()
                .map_or(String::new(), |p| format!(", and {}", p.what));
            // A repeated digit on the board says how the search got to
            // true: a placement that broke the rule, not a lost false.
            let advice = match &problem {
                Some(p) if p.check == Check::SolveDuplicate => {
                    "a digit was placed where the rule forbids it: write a digit only when \
                     legal(board, r, c, v) returns true for that cell; if solve does, legal \
                     answered true there"
                }
                _ => {
                    "return true only when find_empty finds no empty cell, and pass on \
                     the recursive call's false (return false once every digit failed at a cell)"
                }
            };
            let unchanged = problem
                .as_ref()
                .is_some_and(|p| p.check == Check::SolveInPlace);
            let failure = Failure::new(
                Check::SolveResult,
                format!("solve returned true, but this puzzle has no solution{detail}: {advice}"),
            )
            .on(&after, problem.map(|p| p.cell));
            Err(if unchanged {
                failure.with(Finding::SolveTrueUnchanged)
            } else {
                failure
            })
        }
    }
}

/// `solve` returned false on a puzzle that has a solution: the diagnosis
/// is chosen from what the board shows, most likely cause first.
fn gave_up(case: &Case, input: &Board, after: &Board) -> Failure {
    let side = input.side();
    let cells = || (0..side).flat_map(move |r| (0..side).map(move |c| (r, c)));
    // A given changed: the search wrote over the puzzle.
    if let Some((r, c)) =
        cells().find(|&(r, c)| input.get(r, c) != 0 && after.get(r, c) != input.get(r, c))
    {
        return Failure::new(
            Check::SolveGivens,
            format!(
                "solve returned false on a puzzle that has a solution, and the given {} changed from {} to {}: \
                 write only to cells that find_empty returns (the empty ones), never to a given",
                cell(r, c),
                input.get(r, c),
                after.get(r, c)
            ),
        )
        .on(after, Some((r, c)));
    }
    // Digits left behind: the lab's signature bug.
    let leftovers: Vec<(usize, usize)> = cells()
        .filter(|&(r, c)| input.get(r, c) == 0 && after.get(r, c) != 0)
        .collect();
    if let Some(&(r, c)) = leftovers.first() {
        let more = match leftovers.len() {
            1 => String::new(),
            k => format!(" ({k} cells hold leftover digits)"),
        };
        let more = more + &last_digit_left(after, &leftovers);
        return Failure::new(
            Check::SolveLeftover,
            format!(
                "solve returned false on a puzzle that has a solution, and {} still holds {}{more}: \
                 a digit written on a dead branch was not cleared, so it became a fake given and \
                 later cells found no legal digit. After the recursive call returns false, set the \
                 cell back to 0 before trying the next digit",
                cell(r, c),
                after.get(r, c)
            ),
        )
        .on(after, Some((r, c)));
    }
    // The board is as it was: the search gave up too early. The end state
    // cannot tell why (a loop that stops before N, a return inside the
    // loop, a legal that answers false, a base case...), so it says what a
    // search that finds the solution does, not which part is wrong; a
    // digit N the solution needs is named, since a loop's bound would
    // miss it.
    // A board with no empty cell has nothing to search: only the base
    // case answers it.
    if input.empty_cells().next().is_none() {
        return Failure::new(
            Check::SolveGaveUp,
            "solve returned false on a board with no empty cell (it is already solved): \
             return true when find_empty finds no empty cell"
                .to_string(),
        )
        .on(after, None);
    }
    let needs_top = case.solution.as_ref().and_then(|solution| {
        cells().find(|&(r, c)| input.get(r, c) == 0 && usize::from(solution.get(r, c)) == side)
    });
    Failure::found(
        Check::SolveGaveUp,
        Finding::SolveGaveUp {
            side,
            needs_top: needs_top.map(|(r, c)| [r, c]),
        },
    )
    .on(after, needs_top)
}

/// A note for leftover digits that are all N, the digit loop's last, in
/// at least two cells: a search that clears after every other digit and
/// skips the clear after the last one (a return before the clear) leaves
/// exactly these. One cell holding N proves nothing, so it gets no note.
fn last_digit_left(after: &Board, leftovers: &[(usize, usize)]) -> String {
    let side = after.side();
    let all_top = leftovers
        .iter()
        .all(|&(r, c)| usize::from(after.get(r, c)) == side);
    if leftovers.len() >= 2 && all_top {
        format!(
            " (every leftover digit is {side}, the last one the loop tries: most likely the clear \
             is skipped only after the last digit fails)"
        )
    } else {
        String::new()
    }
}

/// On false: the board must be byte-identical to the input; a changed given
/// is named before a leftover digit.
fn restored(input: &Board, after: &Board) -> Result<(), Failure> {
    let side = input.side();
    let changed: Vec<usize> = (0..side * side)
        .filter(|&i| input.cells()[i] != after.cells()[i])
        .collect();
    let Some(&first) = changed
        .iter()
        .find(|&&i| input.cells()[i] != 0)
        .or(changed.first())
    else {
        return Ok(());
    };
    let (r, c) = (first / side, first % side);
    let more = match changed.len() {
        1 => String::new(),
        k => format!(" ({k} cells differ from the input)"),
    };
    let leftovers: Vec<(usize, usize)> = changed
        .iter()
        .filter(|&&i| input.cells()[i] == 0)
        .map(|&i| (i / side, i % side))
        .collect();
    let more = more + &last_digit_left(after, &leftovers);
    let (check, message) = if input.get(r, c) != 0 {
        (
            Check::SolveGivens,
            format!(
                "solve returned false, but the given {} changed from {} to {}{more}: write only to cells \
                 that find_empty returns (the empty ones), never to a given; on false the board must be \
                 exactly as it was passed in",
                cell(r, c),
                input.get(r, c),
                after.get(r, c)
            ),
        )
    } else {
        (
            Check::SolveLeftover,
            format!(
                "solve returned false, but {} still holds {}{more}: a digit written on a dead branch was \
                 not cleared (a fake given). After the recursive call returns false, set the cell back \
                 to 0 before trying the next digit; on false the board must be exactly as it was passed in",
                cell(r, c),
                after.get(r, c)
            ),
        )
    };
    Err(Failure::new(check, message).on(after, Some((r, c))))
}

/// What is wrong with a board `solve` called solved.
struct Problem {
    check: Check,
    cell: (usize, usize),
    what: String,
    hint: &'static str,
}

/// The first problem of a board claimed solved, most telling first: left as
/// passed in, a given changed, a cell empty, a digit repeated.
fn completed_problem(input: &Board, after: &Board) -> Option<Problem> {
    let side = input.side();
    if input == after {
        let at = input.empty_cells().next()?;
        return Some(Problem {
            check: Check::SolveInPlace,
            cell: at,
            what: format!(
                "the board is exactly as it was passed in ({} is still empty)",
                cell(at.0, at.1)
            ),
            hint: "the board you were given must hold the solution when solve returns true: \
                   write into it in place (not into a copy), and do not clear a cell after the \
                   recursive call returned true",
        });
    }
    let cells = || (0..side).flat_map(move |r| (0..side).map(move |c| (r, c)));
    if let Some((r, c)) =
        cells().find(|&(r, c)| input.get(r, c) != 0 && after.get(r, c) != input.get(r, c))
    {
        return Some(Problem {
            check: Check::SolveGivens,
            cell: (r, c),
            what: format!(
                "the given {} changed from {} to {}",
                cell(r, c),
                input.get(r, c),
                after.get(r, c)
            ),
            hint: "write only to cells that find_empty returns (the empty ones), never to a given",
        });
    }
    if let Some((r, c)) = after.empty_cells().next() {
        return Some(Problem {
            check: Check::SolveIncomplete,
            cell: (r, c),
            what: format!("{} is still empty", cell(r, c)),
            hint: "return true only when find_empty finds no empty cell (or when the recursive call returned true)",
        });
    }
    // A repeated digit, named at a cell the student wrote rather than a given.
    let written = cells().filter(|&(r, c)| input.get(r, c) == 0);
    let givens = cells().filter(|&(r, c)| input.get(r, c) != 0);
    written.chain(givens).find_map(|(r, c)| {
        let v = after.get(r, c);
        let (unit, (i, j)) = *clashes(after, r, c, v).first()?;
        Some(Problem {
            check: Check::SolveDuplicate,
            cell: (r, c),
            what: format!(
                "{v} appears twice in {} ({} and {})",
                unit.name(after.n(), r, c),
                cell(r, c),
                cell(i, j)
            ),
            hint: "every row, column and box must hold each digit exactly once",
        })
    })
}
