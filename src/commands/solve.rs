//! `grader solve PUZZLE|FILE|-`: the reference solver on boards given as
//! text, in a file, or on stdin.
//!
//! A file whose first board line is a one-line board (16, 81, 256 or 625
//! characters) is a list, one puzzle a line: each is answered on its own
//! line, in order, with the solved board in the same one-line form (or
//! `no solution`), or with `--count` the number of solutions (0, 1, or 2
//! meaning two or more). Anything else is one board in the rows form,
//! answered as a grid. Lists are solved on all cores and written through a
//! buffer; a closed stdout (`| head`) ends the run quietly.

use anyhow::{Context, anyhow};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{BufWriter, IsTerminal, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use sudoku_lab::Board;

use crate::board_text::{BoardTextError, format_grid, format_line, parse_board, parse_line};
use crate::cli::SolveArgs;
use crate::exit;

/// Puzzles handed to a worker thread at a time.
const CHUNK: usize = 128;

/// Lists at least this long get a progress bar (when stderr is a terminal).
const PROGRESS_FROM: usize = 2_000;

/// The lengths of one-line boards.
const LINE_LENGTHS: [usize; 4] = [16, 81, 256, 625];

/// Runs `grader solve`; returns [`exit::SUCCESS`] (boards without a
/// solution are answers, not failures). A bad board is an `Err` naming the
/// file (or argument), line and column (exit 2).
pub fn run(args: &SolveArgs) -> anyhow::Result<u8> {
    let (source, text) = read_input(&args.puzzle)?;
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    let result = match first {
        Some(line) if is_line_board(line) => solve_list(&source, &text, args.count),
        _ => solve_grid(&source, &text, args.count),
    };
    match result {
        Err(e) if is_broken_pipe(&e) => Ok(exit::SUCCESS),
        other => other,
    }
}

/// The text to solve and how to name it in messages.
fn read_input(arg: &str) -> anyhow::Result<(String, String)> {
    if arg == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the boards from stdin")?;
        return Ok(("<stdin>".to_string(), text));
    }
    let path = Path::new(arg);
    if !arg.contains('\n') && path.is_file() {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        return Ok((path.display().to_string(), text));
    }
    if !arg.contains('\n') && parse_board(arg).is_err() && !looks_like_board(arg) {
        return Err(anyhow!(
            "`{arg}` is neither a file nor a board: give a file of boards, `-` for stdin, or a board as text"
        ));
    }
    Ok(("the board argument".to_string(), arg.to_string()))
}

/// True if every character could belong to a board, so that a board
/// error is more helpful than "no such file".
fn looks_like_board(arg: &str) -> bool {
    arg.chars().all(|c| {
        c.is_ascii_alphanumeric() || c.is_whitespace() || matches!(c, '.' | '|' | '-' | '+')
    }) && arg.chars().filter(|c| !c.is_whitespace()).count() >= 16
}

fn is_line_board(line: &str) -> bool {
    !line.contains(char::is_whitespace) && LINE_LENGTHS.contains(&line.chars().count())
}

fn located(source: &str, e: &BoardTextError) -> anyhow::Error {
    anyhow!("{source}:{}:{}: {}", e.line, e.column, e.message)
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// One board in the rows form (or a one-line board among other text).
fn solve_grid(source: &str, text: &str, count: bool) -> anyhow::Result<u8> {
    let mut board = parse_board(text).map_err(|e| located(source, &e))?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if count {
        writeln!(out, "{}", sudoku_reference::count_solutions(&board, 2))?;
    } else if sudoku_reference::solve(&mut board) {
        write!(out, "{}", format_grid(&board))?;
    } else {
        writeln!(out, "no solution")?;
    }
    out.flush()?;
    Ok(exit::SUCCESS)
}

/// A list of one-line boards: all parsed first (so a bad line stops the
/// run before any output), then solved in chunks on every core and
/// printed in order.
fn solve_list(source: &str, text: &str, count: bool) -> anyhow::Result<u8> {
    let mut boards = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let board =
            parse_line(line).map_err(|e| located(source, &BoardTextError { line: i + 1, ..e }))?;
        boards.push(board);
    }
    let answer = |board: &Board| -> String {
        if count {
            sudoku_reference::count_solutions(board, 2).to_string()
        } else {
            let mut b = board.clone();
            if sudoku_reference::solve(&mut b) {
                format_line(&b)
            } else {
                "no solution".to_string()
            }
        }
    };

    let chunks: Vec<&[Board]> = boards.chunks(CHUNK).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(chunks.len())
        .max(1);
    let progress = (std::io::stderr().is_terminal()
        && !crate::quiet::is_quiet()
        && boards.len() >= PROGRESS_FROM)
        .then(|| {
            let bar = ProgressBar::new(boards.len() as u64);
            if let Ok(style) =
                ProgressStyle::with_template("{bar:40} {pos}/{len} puzzles, {per_sec}, eta {eta}")
            {
                bar.set_style(style);
            }
            bar
        });
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written: std::io::Result<()> = std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, String)>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (chunks, next, stop, answer) = (&chunks, &next, &stop, &answer);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(chunk) = chunks.get(i) else { break };
                    let mut lines = String::with_capacity(chunk.len() * 84);
                    for board in *chunk {
                        lines.push_str(&answer(board));
                        lines.push('\n');
                    }
                    if tx.send((i, lines)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Chunks arrive in any order; print them in order.
        let mut pending: Vec<Option<String>> = vec![None; chunks.len()];
        let mut printed = 0;
        for (i, lines) in rx {
            pending[i] = Some(lines);
            while let Some(Some(lines)) = pending.get_mut(printed).map(Option::take) {
                if let Err(e) = out.write_all(lines.as_bytes()) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                if let Some(bar) = &progress {
                    bar.inc(chunks[printed].len() as u64);
                }
                printed += 1;
            }
        }
        out.flush()
    });
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    written.context("cannot write the answers")?;
    Ok(exit::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_lists_from_grids_and_files_from_boards() {
        assert!(is_line_board("1..4.41.2..3.32."));
        assert!(!is_line_board("1 . . 4"));
        assert!(!is_line_board(&".".repeat(80)));
        assert!(looks_like_board("1 . . 4\n. 4 1 .\n2 . . 3\n. 3 2 ."));
        assert!(!looks_like_board("puzzles/none.txt"));
        let e = read_input("no/such/file.txt").unwrap_err().to_string();
        assert_eq!(
            e,
            "`no/such/file.txt` is neither a file nor a board: give a file of boards, `-` for stdin, or a board as text"
        );
        let (source, text) = read_input("1..4.41.2..3.32.").unwrap();
        assert_eq!(
            (source.as_str(), text.as_str()),
            ("the board argument", "1..4.41.2..3.32.")
        );
    }
}
