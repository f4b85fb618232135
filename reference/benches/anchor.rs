//! The reference solver against the crates.io `sudoku` crate, side by side.
//!
//! For every puzzle set in the repository's `data/` folder, both solvers count the
//! solutions of every puzzle up to 2 (the uniqueness question the grader
//! asks); the bench prints puzzles per second for each, the ratio
//! reference / anchor, and takes the median of 3 runs (alternating the two
//! solvers; a run repeats a small set until it takes 0.2 s). The `sudoku`
//! crate only knows 9x9, so 4x4, 16x16 and 25x25 sets run the reference
//! alone.
//! Before timing, both solvers' counts are compared puzzle by puzzle.
//!
//! Run: `cargo bench -p sudoku-reference --bench anchor`.
//! `GRADER_DATA` points at another data folder (default: the repository's
//! `data/`); `GRADER_BENCH_LIMIT` caps the puzzles per set;
//! a name given after `--` runs only the sets whose file name contains it.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use sudoku_lab::Board;

/// Runs per set; the median is reported.
const RUNS: usize = 3;

/// A run passes over a small set again until it has taken this long, so
/// that a set of a few puzzles is not timed in microseconds.
const MIN_RUN_SECS: f64 = 0.2;

/// One puzzle set read from the data folder.
struct Set {
    name: String,
    boards: Vec<Board>,
    /// The same puzzles for the `sudoku` crate (9x9 sets only).
    anchor: Option<Vec<sudoku::Sudoku>>,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let dir = data_dir();
    let limit = match std::env::var("GRADER_BENCH_LIMIT") {
        Ok(v) => Some(v.parse::<usize>().map_err(|_| {
            format!("GRADER_BENCH_LIMIT={v:?} is not a number: give the most puzzles per set")
        })?),
        Err(_) => None,
    };
    // `cargo bench` passes `--bench`; any other argument filters the sets.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| {
            format!(
                "cannot read the data folder {}: {e}; set GRADER_DATA to the folder with the puzzle sets",
                dir.display()
            )
        })?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no puzzle set (*.txt) found in {}", dir.display()));
    }

    println!(
        "data: {}   runs per set: {RUNS} (median)   counting up to 2",
        dir.display()
    );
    println!(
        "{:<34} {:>7} {:>6} {:>14} {:>14} {:>7}",
        "set", "puzzles", "side", "reference/s", "sudoku/s", "ratio"
    );
    for file in files {
        let set = load(&file, limit)?;
        check_agreement(&set)?;
        let side = set.boards.first().map_or(0, Board::side);
        // Runs alternate between the two solvers, so that a busy machine
        // slows both alike.
        let mut reference_runs = Vec::new();
        let mut anchor_runs = Vec::new();
        for _ in 0..RUNS {
            reference_runs.push(time(&set.boards, |b| {
                sudoku_reference::count_solutions(b, 2)
            }));
            if let Some(puzzles) = &set.anchor {
                anchor_runs.push(time(puzzles, |s| s.solutions_count_up_to(2) as u32));
            }
        }
        let reference = median(reference_runs);
        let anchor = (!anchor_runs.is_empty()).then(|| median(anchor_runs));
        let (anchor_col, ratio_col) = match anchor {
            Some(a) => (format!("{a:.0}"), format!("{:.2}", reference / a)),
            None => ("-".to_string(), "-".to_string()),
        };
        println!(
            "{:<34} {:>7} {:>6} {:>14.0} {:>14} {:>7}",
            set.name,
            set.boards.len(),
            side,
            reference,
            anchor_col,
            ratio_col
        );
    }
    Ok(())
}

/// `GRADER_DATA`, or the repository's `data/` folder.
fn data_dir() -> PathBuf {
    match std::env::var_os("GRADER_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../data"),
    }
}

/// Reads one set: one puzzle a line in the one-line form (`1-9` then `A..`
/// for 10.., `.` or `0` for empty), anything after a `:` ignored.
fn load(path: &Path, limit: Option<usize>) -> Result<Set, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut boards = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let puzzle = line.split(':').next().unwrap_or("").trim();
        if puzzle.is_empty() || puzzle.starts_with('#') {
            continue;
        }
        if limit.is_some_and(|l| boards.len() >= l) {
            break;
        }
        boards.push(parse_line(puzzle).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?);
    }
    let anchor = if !boards.is_empty() && boards.iter().all(|b| b.n() == 3) {
        let mut puzzles = Vec::with_capacity(boards.len());
        for b in &boards {
            puzzles.push(
                sudoku::Sudoku::from_bytes_slice(b.cells())
                    .map_err(|e| format!("{name}: the sudoku crate refused a puzzle: {e:?}"))?,
            );
        }
        Some(puzzles)
    } else {
        None
    };
    Ok(Set {
        name,
        boards,
        anchor,
    })
}

/// Parses a one-line board; its length gives the size (16, 81, 256, 625).
fn parse_line(line: &str) -> Result<Board, String> {
    let n = match line.len() {
        16 => 2,
        81 => 3,
        256 => 4,
        625 => 5,
        len => {
            return Err(format!(
                "a one-line board has 16, 81, 256 or 625 characters, found {len}"
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

/// Both solvers must give the same count (up to 2) on every puzzle.
fn check_agreement(set: &Set) -> Result<(), String> {
    let Some(anchor) = &set.anchor else {
        return Ok(());
    };
    for (i, (board, puzzle)) in set.boards.iter().zip(anchor).enumerate() {
        let ours = sudoku_reference::count_solutions(board, 2);
        let theirs = puzzle.solutions_count_up_to(2) as u32;
        if ours != theirs {
            return Err(format!(
                "{} puzzle {}: the reference counts {ours}, the sudoku crate {theirs}",
                set.name,
                i + 1
            ));
        }
    }
    Ok(())
}

/// Puzzles per second of `count` over `puzzles`, passing over the set as
/// many times as it takes to measure at least [`MIN_RUN_SECS`].
fn time<T>(puzzles: &[T], count: impl Fn(&T) -> u32) -> f64 {
    let start = Instant::now();
    let mut total = 0u64;
    let mut passes = 0u64;
    while passes == 0 || start.elapsed().as_secs_f64() < MIN_RUN_SECS {
        for p in puzzles {
            total += u64::from(count(black_box(p)));
        }
        passes += 1;
    }
    black_box(total);
    (puzzles.len() as u64 * passes) as f64 / start.elapsed().as_secs_f64()
}

/// The median of `RUNS` measurements.
fn median(mut runs: Vec<f64>) -> f64 {
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}
