//! Command-line arguments (SPEC 5), parsed with clap. No I/O happens here:
//! each subcommand's `run` turns its arguments into a checked plan.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// The autograder for the Sudoku backtracking lab.
#[derive(Debug, Parser)]
#[command(name = "grader", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check your own submission against the public cases (for students).
    Check(CheckArgs),
    /// Grade a folder of submissions, one per student (for instructors).
    Grade(GradeArgs),
    /// Fill in (or with --check, verify) the reference answers of case files.
    Reference(ReferenceArgs),
    /// Solve boards with the reference solver.
    Solve(SolveArgs),
    /// Generate fresh puzzles of a known difficulty as TOML cases.
    Generate(GenerateArgs),
    /// Run one test of student code in a sandbox (internal; used by grade/check).
    #[command(hide = true)]
    Worker,
}

/// `grader check [PATH]`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Your project: a folder with Cargo.toml, a .c, a .py or a .so file.
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// Use the cases in this folder instead of the built-in public ones.
    #[arg(long)]
    pub cases: Option<PathBuf>,
}

/// `grader grade SUBMISSIONS`.
#[derive(Debug, Args)]
pub struct GradeArgs {
    /// A folder with one entry per student, named by the student id.
    pub submissions: PathBuf,
    /// The folder of case files, hidden cases included (default: the built-in
    /// public cases only; hidden cases are never built into the binary).
    #[arg(long)]
    pub cases: Option<PathBuf>,
    /// Submissions graded at once (default: the number of cores).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Write the JSON report (SPEC 6) here; `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report here (one suite per student, as cargo-nextest
    /// writes it, for CI test viewers); `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Write a CSV gradebook here (one row per student, one column per
    /// test); `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub csv: Option<PathBuf>,
    /// The CSV's column layout: `plain` (every test a column) or the
    /// gradebook import of `canvas`, `moodle` or `blackboard`.
    #[arg(long, value_enum, value_name = "LMS", default_value = "plain")]
    pub csv_for: crate::report::csv::CsvLayout,
    /// A CSV mapping submission ids to the LMS's student identifiers
    /// (header `id,lms_id[,name][,section]`), for `--csv-for`.
    #[arg(long, value_name = "FILE")]
    pub roster: Option<PathBuf>,
    /// The grade column's name in a `--csv-for` LMS layout (default
    /// `Sudoku lab`): name the LMS's assignment to update it.
    #[arg(long, value_name = "NAME")]
    pub csv_assignment: Option<String>,
    /// Write Gradescope's results.json here (needs exactly one submission,
    /// as Gradescope grades one student per run); `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub gradescope: Option<PathBuf>,
    /// Write a self-contained HTML page (summary and failure details) here;
    /// `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
}

/// `grader reference CASES...`.
#[derive(Debug, Args)]
pub struct ReferenceArgs {
    /// Case files, or folders of them.
    #[arg(required = true)]
    pub cases: Vec<PathBuf>,
    /// Verify the stored answers without writing; exit 1 on any difference.
    #[arg(long)]
    pub check: bool,
}

/// `grader solve PUZZLE|FILE|-`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// A board as text, a file of boards, or `-` for stdin.
    pub puzzle: String,
    /// Print the number of solutions (0, 1, or 2 meaning two or more) instead.
    #[arg(long)]
    pub count: bool,
}

/// `grader generate --n N --count K --out FILE`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Box size: 2 (4x4), 3 (9x9), 4 (16x16) or 5 (25x25).
    #[arg(long)]
    pub n: usize,
    /// How many puzzles to generate.
    #[arg(long)]
    pub count: usize,
    /// Stop removing givens at this many (default: as few as uniqueness allows).
    #[arg(long)]
    pub clues: Option<usize>,
    /// Make every puzzle minimal: no given can be removed without losing uniqueness.
    #[arg(long)]
    pub minimal: bool,
    /// Keep only puzzles on which the seed's listing undoes at least this many writes.
    #[arg(long, value_name = "U")]
    pub min_undos: Option<u64>,
    /// Keep only puzzles on which the seed's listing undoes at most this many writes.
    #[arg(long, value_name = "U")]
    pub max_undos: Option<u64>,
    /// Make puzzles with no solution that only a search can tell.
    #[arg(long)]
    pub unsolvable_deep: bool,
    /// Seed for the random generator: the same seed gives the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Mark the generated cases hidden (graded, never shown by `grader check`).
    #[arg(long)]
    pub hidden: bool,
    /// The case file to append to (created if missing).
    #[arg(long)]
    pub out: std::path::PathBuf,
}
