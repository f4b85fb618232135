//! Helpers shared by the integration tests: finding and reading the puzzle
//! sets of the repository's `data/` folder, and checking a solution.
#![allow(dead_code)] // each test binary uses its own part of this module

use std::path::PathBuf;

use sudoku_lab::Board;

/// One puzzle of a set: its line number, board, and the count written after
/// a `:` (only in `tdoku_test_puzzles_with_counts.txt`).
pub struct Puzzle {
    pub line: usize,
    pub board: Board,
    pub count: Option<u32>,
}

/// `GRADER_DATA`, or the repository's `data/` folder. Panics with what
/// to do when the folder is missing: a data test must fail, not pass
/// silently, when it cannot see its data.
pub fn data_dir() -> PathBuf {
    let dir = match std::env::var_os("GRADER_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data"),
    };
    assert!(
        dir.is_dir(),
        "the puzzle data folder {} is missing: restore the repository's data/ folder \
         (`git checkout -- data`) or set GRADER_DATA to the folder holding 17_clue.txt etc.",
        dir.display()
    );
    dir
}

/// The puzzles of `name` in the data folder, every `step`-th one (1 = all).
pub fn read_set(name: &str, step: usize) -> Vec<Puzzle> {
    let path = data_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the puzzle set {}: {e}", path.display()));
    let puzzles: Vec<Puzzle> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.starts_with('#'))
        .step_by(step)
        .map(|(i, line)| {
            let (puzzle, count) = match line.split_once(':') {
                Some((p, c)) => {
                    let count = c.trim().parse().unwrap_or_else(|_| {
                        panic!("{}:{}: bad solution count {c:?}", path.display(), i + 1)
                    });
                    (p, Some(count))
                }
                None => (line, None),
            };
            let board = parse_line(puzzle.trim())
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1));
            Puzzle {
                line: i + 1,
                board,
                count,
            }
        })
        .collect();
    assert!(
        !puzzles.is_empty(),
        "the puzzle set {} is empty",
        path.display()
    );
    puzzles
}

/// Parses a one-line board (`1-9` then `A..` for 10.., `.` or `0` empty);
/// its length gives the size.
pub fn parse_line(line: &str) -> Result<Board, String> {
    let n = match line.len() {
        16 => 2,
        81 => 3,
        256 => 4,
        625 => 5,
        len => {
            return Err(format!(
                "a one-line board has 16, 81, 256 or 625 characters, not {len}"
            ));
        }
    };
    let cells = line
        .bytes()
        .map(|ch| match ch {
            b'.' | b'0' => Ok(0),
            b'1'..=b'9' => Ok(ch - b'0'),
            b'A'..=b'P' => Ok(ch - b'A' + 10),
            _ => Err(format!("unexpected character {:?}", ch as char)),
        })
        .collect::<Result<Vec<u8>, String>>()?;
    Board::from_cells(n, cells).map_err(|e| e.to_string())
}

/// Why `solution` is not a solution of `puzzle`, if it is not: it must keep
/// every given and hold every digit once in each row, column and box.
pub fn solution_error(puzzle: &Board, solution: &Board) -> Option<String> {
    let (n, side) = (puzzle.n(), puzzle.side());
    if solution.n() != n {
        return Some(format!("box size {} instead of {n}", solution.n()));
    }
    for (i, (&given, &got)) in puzzle.cells().iter().zip(solution.cells()).enumerate() {
        if given != 0 && given != got {
            return Some(format!("the given {given} at cell {i} became {got}"));
        }
    }
    let all: u32 = (1 << side) - 1;
    for u in 0..side {
        let (mut row, mut col, mut bx) = (0u32, 0u32, 0u32);
        for k in 0..side {
            let (br, bc) = (u / n * n + k / n, u % n * n + k % n);
            for (mask, v) in [
                (&mut row, solution.get(u, k)),
                (&mut col, solution.get(k, u)),
                (&mut bx, solution.get(br, bc)),
            ] {
                if (1..=side).contains(&usize::from(v)) {
                    *mask |= 1 << (v - 1);
                }
            }
        }
        if row != all || col != all || bx != all {
            return Some(format!(
                "row, column or box {u} does not hold every digit once"
            ));
        }
    }
    None
}

/// The seed's listing, written as plainly as the lab text has it, on a
/// [`Board`]: the first zero in reading order, digits `1..=N` in order,
/// `legal` scanning row, column and box, write / recurse / clear. Counts
/// writes and undos and stops before the write past `max_writes`; returns
/// `(writes, undos, solved, finished)`.
pub fn seed_listing(board: &Board, max_writes: u64) -> (u64, u64, bool, bool) {
    fn legal(b: &Board, r: usize, c: usize, v: u8) -> bool {
        let (n, side) = (b.n(), b.side());
        if (0..side).any(|i| b.get(r, i) == v || b.get(i, c) == v) {
            return false;
        }
        let (br, bc) = (n * (r / n), n * (c / n));
        !(br..br + n).any(|i| (bc..bc + n).any(|j| b.get(i, j) == v))
    }
    fn find_empty(b: &Board) -> Option<(usize, usize)> {
        let side = b.side();
        (0..side)
            .flat_map(|i| (0..side).map(move |j| (i, j)))
            .find(|&(i, j)| b.get(i, j) == 0)
    }
    struct Walk {
        writes: u64,
        undos: u64,
        max: u64,
        finished: bool,
    }
    fn solve(b: &mut Board, w: &mut Walk) -> bool {
        let Some((r, c)) = find_empty(b) else {
            return true;
        };
        for v in 1..=b.side() as u8 {
            if legal(b, r, c, v) {
                if w.writes >= w.max {
                    w.finished = false;
                    return false;
                }
                b.set(r, c, v);
                w.writes += 1;
                if solve(b, w) {
                    return true;
                }
                if !w.finished {
                    return false;
                }
                b.set(r, c, 0);
                w.undos += 1;
            }
        }
        false
    }
    let mut w = Walk {
        writes: 0,
        undos: 0,
        max: max_writes,
        finished: true,
    };
    let solved = solve(&mut board.clone(), &mut w);
    (w.writes, w.undos, solved, w.finished)
}
