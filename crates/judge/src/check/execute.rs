//! Step 2 of a test, in the test child (see the grader's `worker`): ask a [`Probe`]'s questions of any
//! [`Sudoku`] and collect the [`Response`].
//!
//! Everything about the probe is checked before the first call into student
//! code, so a malformed probe is a [`ProbeError`] and never a half-run test.
//! Whatever the student's code answers is recorded as is (an off-board cell
//! from `find_empty`, a value above `N` left by `solve`): judging it is the
//! grader's job, in [`judge`](super::judge).

use sudoku_lab::{Board, Sudoku};

use super::error::ProbeError;
use super::probe::{FindEmptyAnswer, Probe, Response};

/// Asks every question of `probe` of `solver`, in order, and returns the
/// answers.
///
/// # Errors
/// [`ProbeError`] if the probe is malformed (box size, board length, a value
/// above `N`, a legal query off the board, on a filled cell or with a digit
/// outside `1..=N`); no student code has run then.
pub fn execute(solver: &dyn Sudoku, probe: &Probe) -> Result<Response, ProbeError> {
    match probe {
        Probe::Legal { n, boards, queries } => {
            let boards = probe_boards(*n, boards)?;
            check_queries(&boards, queries)?;
            let answers = queries
                .iter()
                .map(|&[b, r, c, v]| solver.legal(&boards[b], r, c, v as u8))
                .collect();
            Ok(Response::Legal { answers })
        }
        Probe::FindEmpty { n, boards } => {
            let boards = probe_boards(*n, boards)?;
            let answers = boards
                .iter()
                .map(|b| {
                    solver
                        .find_empty(b)
                        .map(|(r, c)| FindEmptyAnswer::Cell([r, c]))
                })
                .collect();
            Ok(Response::FindEmpty { answers })
        }
        Probe::Solve { n, board } => {
            let mut board = Board::from_cells(*n, board.clone())
                .map_err(|reason| ProbeError::Board { index: 0, reason })?;
            let solved = solver.solve(&mut board);
            Ok(Response::Solve {
                solved,
                board: board.into_cells(),
            })
        }
    }
}

/// The probe's boards as [`Board`]s, every value in `0..=N`.
pub(crate) fn probe_boards(n: usize, boards: &[Vec<u8>]) -> Result<Vec<Board>, ProbeError> {
    boards
        .iter()
        .enumerate()
        .map(|(index, cells)| {
            Board::from_cells(n, cells.clone())
                .map_err(|reason| ProbeError::Board { index, reason })
        })
        .collect()
}

/// Checks that every legal query names a board of the probe, an empty cell
/// on it and a digit in `1..=N`.
pub(crate) fn check_queries(boards: &[Board], queries: &[[usize; 4]]) -> Result<(), ProbeError> {
    for (index, &[b, row, col, digit]) in queries.iter().enumerate() {
        let Some(board) = boards.get(b) else {
            return Err(ProbeError::NoSuchBoard {
                index,
                board: b,
                boards: boards.len(),
            });
        };
        let side = board.side();
        if row >= side || col >= side {
            return Err(ProbeError::Cell {
                index,
                row,
                col,
                side,
            });
        }
        if digit == 0 || digit > side {
            return Err(ProbeError::Digit { index, digit, side });
        }
        if board.get(row, col) != 0 {
            return Err(ProbeError::NotEmpty { index, row, col });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sudoku_reference::Reference;

    const CAMPUS: [u8; 16] = [1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0];

    /// A solver whose answers are out of everything's range.
    struct Odd;

    impl Sudoku for Odd {
        fn legal(&self, _: &Board, _: usize, _: usize, _: u8) -> bool {
            true
        }
        fn find_empty(&self, _: &Board) -> Option<(usize, usize)> {
            Some((usize::MAX, 99))
        }
        fn solve(&self, board: &mut Board) -> bool {
            board.cells_mut().fill(200);
            true
        }
    }

    #[test]
    fn asks_every_question_in_order() {
        let probe = Probe::Legal {
            n: 2,
            boards: vec![CAMPUS.to_vec()],
            queries: vec![[0, 0, 1, 1], [0, 0, 1, 2], [0, 3, 3, 1]],
        };
        assert_eq!(
            execute(&Reference, &probe),
            Ok(Response::Legal {
                answers: vec![false, true, true]
            })
        );
        let mut full = CAMPUS.to_vec();
        full.fill(1);
        let probe = Probe::FindEmpty {
            n: 2,
            boards: vec![CAMPUS.to_vec(), full],
        };
        assert_eq!(
            execute(&Reference, &probe),
            Ok(Response::FindEmpty {
                answers: vec![Some(FindEmptyAnswer::Cell([0, 1])), None]
            })
        );
        let probe = Probe::Solve {
            n: 2,
            board: CAMPUS.to_vec(),
        };
        assert_eq!(
            execute(&Reference, &probe),
            Ok(Response::Solve {
                solved: true,
                board: vec![1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]
            })
        );
    }

    #[test]
    fn records_odd_answers_without_panicking() {
        let probe = Probe::FindEmpty {
            n: 2,
            boards: vec![CAMPUS.to_vec()],
        };
        assert_eq!(
            execute(&Odd, &probe),
            Ok(Response::FindEmpty {
                answers: vec![Some(FindEmptyAnswer::Cell([usize::MAX, 99]))]
            })
        );
        let probe = Probe::Solve {
            n: 2,
            board: CAMPUS.to_vec(),
        };
        assert_eq!(
            execute(&Odd, &probe),
            Ok(Response::Solve {
                solved: true,
                board: vec![200; 16]
            })
        );
    }

    #[test]
    fn malformed_probes_are_errors() {
        let cases = [
            (
                Probe::Solve {
                    n: 7,
                    board: vec![0; 16],
                },
                "board 0 of the probe is malformed: box size 7",
            ),
            (
                Probe::FindEmpty {
                    n: 2,
                    boards: vec![CAMPUS.to_vec(), vec![0; 15]],
                },
                "board 1 of the probe is malformed: a board needs 16 cells, found 15",
            ),
            (
                Probe::Legal {
                    n: 2,
                    boards: vec![CAMPUS.to_vec()],
                    queries: vec![[1, 0, 1, 1]],
                },
                "legal query 0 asks about board 1, but the probe has only 1 board(s)",
            ),
            (
                Probe::Legal {
                    n: 2,
                    boards: vec![CAMPUS.to_vec()],
                    queries: vec![[0, 0, 1, 2], [0, 4, 0, 1]],
                },
                "legal query 1 asks about row 4, column 0 (0-based), off a board of side 4",
            ),
            (
                Probe::Legal {
                    n: 2,
                    boards: vec![CAMPUS.to_vec()],
                    queries: vec![[0, 0, 1, 5]],
                },
                "legal query 0 asks about digit 5, outside 1..=4",
            ),
            (
                Probe::Legal {
                    n: 2,
                    boards: vec![CAMPUS.to_vec()],
                    queries: vec![[0, 0, 0, 2]],
                },
                "legal query 0 asks about r1c1, which is not empty",
            ),
        ];
        for (probe, start) in cases {
            let err = execute(&Odd, &probe).unwrap_err().to_string();
            assert!(
                err.starts_with(start),
                "{err:?} should start with {start:?}"
            );
        }
        let mut bad = CAMPUS.to_vec();
        bad[1] = 9;
        let err = execute(&Odd, &Probe::Solve { n: 2, board: bad }).unwrap_err();
        assert!(matches!(err, ProbeError::Board { index: 0, .. }), "{err:?}");
    }
}
