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
    /// When to colour the output: auto (a terminal, unless NO_COLOR,
    /// TERM=dumb, CLICOLOR=0; FORCE_COLOR or CLICOLOR_FORCE force it),
    /// always, never.
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
    pub color: crate::color::ColorWhen,
    /// Print no progress, status lines or notes, and of a summary only its
    /// last line; errors, warnings and reports are never silenced.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check your own submission against the public cases (for students).
    Check(CheckArgs),
    /// Start a project for the lab: stubs, the lab's header or crate, a README (for students).
    Init(InitArgs),
    /// Grade a folder of submissions, one per student (for instructors).
    Grade(GradeArgs),
    /// Fill in (or with --check, verify) the reference answers of case files.
    Reference(ReferenceArgs),
    /// Solve boards with the reference solver.
    Solve(SolveArgs),
    /// Generate fresh puzzles of a known difficulty as TOML cases.
    Generate(GenerateArgs),
    /// Write reports from a results folder of `grade --results DIR`.
    Report(ReportArgs),
    /// Join the JSON reports of `grade --shard` runs into one.
    Merge(MergeArgs),
    /// Show whose scores changed between two JSON reports, and which tests flipped.
    Diff(DiffArgs),
    /// List every check the grader makes: the id a report names, what it checks, what a failure means.
    Checks(ChecksArgs),
    /// Write a ready-to-upload autograder package (Gradescope).
    #[command(subcommand)]
    Package(PackageTarget),
    /// Print a shell's completion script (e.g. `grader completions bash > /etc/bash_completion.d/grader`).
    Completions(CompletionsArgs),
    /// Print the manual page, in roff (e.g. `grader man | man -l -`).
    Man,
    /// The worker program: one submission's box (internal; started by grade and check).
    #[command(hide = true)]
    Worker,
}

/// `grader checks`.
#[derive(Debug, Args)]
pub struct ChecksArgs {
    /// Print the table as Markdown (the page `docs/checks.md` is).
    #[arg(long, conflicts_with = "report_schema")]
    pub markdown: bool,
    /// Print the JSON report's schema instead (JSON Schema 2020-12, made
    /// from the report's types: the file `schemas/report.schema.json` is).
    #[arg(long)]
    pub report_schema: bool,
}

/// `grader completions SHELL`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `grader check [PATH]`.
#[derive(Debug, Args)]
#[command(after_help = CHECK_EXAMPLES)]
pub struct CheckArgs {
    /// Your project: a folder with Cargo.toml, a .c, a .py, a .ipynb or a .so file.
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// Use the cases in this folder instead of the built-in public ones.
    #[arg(long)]
    pub cases: Option<PathBuf>,
    /// Show every test and every failing case in full (default: the first
    /// failure of each function in full, the rest one line each).
    #[arg(long, short)]
    pub verbose: bool,
    /// Run only the case with this name (see `grader check -v` for the names).
    #[arg(long, value_name = "NAME")]
    pub case: Option<String>,
    /// Run only the tests of this function.
    #[arg(long, value_enum, value_name = "FUNCTION")]
    pub function: Option<FunctionArg>,
    /// Stop at the first failing test.
    #[arg(long)]
    pub fail_fast: bool,
    /// Print the results as JSON (for editors and scripts) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Rebuild and re-run whenever a source file changes (Ctrl-C to stop).
    #[arg(long, conflicts_with = "json")]
    pub watch: bool,
    /// Do not shrink a failing solve to the smallest board that still fails.
    #[arg(long)]
    pub no_shrink: bool,
}

/// The three functions, as `--function` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FunctionArg {
    /// May digit v go at (r, c)? C `legal(board, n, r, c, v)`, Python
    /// `legal(board, r, c, v, n)`, Rust `Sudoku::legal`.
    Legal,
    /// An empty cell, or none. C `find_empty(board, n, &r, &c)`, Python
    /// `find_empty(board)`, Rust `Sudoku::find_empty`.
    #[value(name = "find_empty")]
    FindEmpty,
    /// Solve in place. C `solve(board, n)`, Python `solve(board, n)`, Rust
    /// `Sudoku::solve`.
    Solve,
}

const CHECK_EXAMPLES: &str = "\
Examples:
  grader check                      build the project in this folder and run the public cases
  grader check sudoku.c             check one C file
  grader check -v                   show every test, and every failing case in full
  grader check --function legal     only the tests of legal
  grader check --case campus-4x4 --fail-fast
  grader check --watch              re-run whenever you save a file
  grader check --json               machine-readable results, for an editor

Exit codes: 0 every test passed; 1 some test failed (your code gave a wrong
answer, crashed or ran out of time); 2 bad usage, or the grader itself failed
(not your fault); 3 your code did not build or load (the compiler's or
loader's message says why).
The public cases are a sample: your grade also counts hidden cases.";

/// `grader init [--lang c|rust|python] DIR`.
#[derive(Debug, Args)]
#[command(after_help = INIT_EXAMPLES)]
pub struct InitArgs {
    /// The folder to create (it must not exist, or be empty).
    pub dir: PathBuf,
    /// The language you write the lab in.
    #[arg(long, value_enum, default_value = "c")]
    pub lang: Lang,
}

/// The languages `grader init` writes a project for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// C: `sudoku.c`, the lab's header `sudoku_lab.h`, a Makefile.
    C,
    /// Rust: a `cdylib` crate with the lab crate vendored beside it.
    Rust,
    /// Python: `sudoku.py` with the listing's signatures.
    Python,
}

impl Lang {
    /// `C`, `Rust` or `Python`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Lang::C => "C",
            Lang::Rust => "Rust",
            Lang::Python => "Python",
        }
    }
}

const INIT_EXAMPLES: &str = "\
Examples:
  grader init sudoku                 a C project in ./sudoku: sudoku.c, sudoku_lab.h, Makefile
  grader init --lang rust sudoku     a Rust crate, with the lab crate in sudoku/sudoku-lab
  grader init --lang python sudoku   sudoku.py with the listing's signatures
then:
  cd sudoku && grader check          the stubs fail every test; fill them in until all pass";

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
    /// SUBMISSIONS is one student's upload, not a folder of students:
    /// a crate, or one .c/.py/.ipynb/.so file, at its top (or in a lone folder);
    /// other files are ignored and named (Gradescope, a student's repo).
    #[arg(long, conflicts_with = "shard")]
    pub single: bool,
    /// The reports to write.
    #[command(flatten)]
    pub outputs: ReportOutputs,
    /// Stream each student's result as one JSON line (the JSON report's
    /// submission object) as soon as it is graded; `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub jsonl: Option<PathBuf>,
    /// Keep each student's result in this folder as soon as it is graded;
    /// a rerun with the same folder reuses the results of submissions whose
    /// contents, cases and grader are unchanged, and grades the rest.
    /// `grader report DIR` writes any report from it.
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// Grade only shard K of N (1-based): the submissions whose id hashes to
    /// it, the same on every machine; `grader merge` joins the shards'
    /// JSON reports.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::submission::shard::Shard>,
    /// Exit 1 when a submission scores under this percent of the points,
    /// 0 otherwise (instead of 1 unless every test passed).
    #[arg(long, value_name = "PERCENT", value_parser = parse_percent)]
    pub fail_under: Option<f64>,
}

/// The report files a command writes (`grade`, `report`, `merge`).
#[derive(Debug, Args, Default)]
pub struct ReportOutputs {
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
    pub csv_for: crate::report::formats::csv::CsvLayout,
    /// A CSV mapping submission ids to the LMS's student identifiers
    /// (header `id,lms_id[,name][,section]`), for `--csv-for`.
    #[arg(long, value_name = "FILE")]
    pub roster: Option<PathBuf>,
    /// The grade column's name in a `--csv-for` LMS layout (default
    /// `Sudoku lab`): name the LMS's assignment to update it.
    #[arg(long, value_name = "NAME")]
    pub csv_assignment: Option<String>,
    /// With --roster: a submission whose id the roster does not list
    /// refuses the CSV (exit 2) instead of being left out of it.
    #[arg(long, requires = "roster")]
    pub roster_strict: bool,
    /// With --roster: what the LMS file holds for a roster student who
    /// handed in nothing: `omit` (no row, so an import keeps the grade the
    /// LMS has, such as one entered by hand) or `zero` (a row with 0).
    #[arg(
        long,
        value_enum,
        value_name = "ROW",
        default_value = "omit",
        requires = "roster"
    )]
    pub roster_missing: crate::report::formats::csv::MissingRow,
    /// Blackboard's Column ID of the grade column (Grade Center: the
    /// column's menu > Quick Column Information), needed by
    /// `--csv-for blackboard` so an upload updates that column.
    #[arg(long, value_name = "ID")]
    pub csv_column_id: Option<String>,
    /// Write Gradescope's results.json here (needs exactly one submission,
    /// as Gradescope grades one student per run); `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub gradescope: Option<PathBuf>,
    /// Write a self-contained HTML page (summary and failure details) here;
    /// `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
    /// Write a Markdown summary here (a table of scores and what failed),
    /// e.g. `$GITHUB_STEP_SUMMARY` in GitHub Actions; `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub summary_md: Option<PathBuf>,
    /// Write GitHub Classroom's runner result here (one line of base64
    /// JSON, what the autograding reporter reads from `<STEP>_RESULTS`;
    /// needs exactly one submission); `-` for stdout.
    #[arg(long, value_name = "PATH")]
    pub classroom: Option<PathBuf>,
}

/// `grader report DIR`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A results folder written by `grader grade --results DIR`.
    pub results: PathBuf,
    /// The reports to write.
    #[command(flatten)]
    pub outputs: ReportOutputs,
    /// Exit 1 when a submission scores under this percent of the points.
    #[arg(long, value_name = "PERCENT", value_parser = parse_percent)]
    pub fail_under: Option<f64>,
}

/// `grader merge REPORT.json...`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// JSON reports of `grader grade --shard K/N --json`, one per shard.
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// The case folder the shards were graded on (default: the case files
    /// the shards' `run` sections record, each checked by its SHA-256); a
    /// report graded on other cases is refused.
    #[arg(long)]
    pub cases: Option<PathBuf>,
    /// The reports to write.
    #[command(flatten)]
    pub outputs: ReportOutputs,
    /// Exit 1 when a submission scores under this percent of the points.
    #[arg(long, value_name = "PERCENT", value_parser = parse_percent)]
    pub fail_under: Option<f64>,
}

/// `grader diff OLD.json NEW.json`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The earlier JSON report.
    pub old: PathBuf,
    /// The later JSON report (e.g. a regrade after fixing a case).
    pub new: PathBuf,
}

/// `grader package ...`: where the package is for.
#[derive(Debug, Subcommand)]
pub enum PackageTarget {
    /// The autograder zip for a Gradescope programming assignment.
    Gradescope(GradescopePackageArgs),
    /// A static web site where students check their Python in the browser.
    Web(WebPackageArgs),
}

/// `grader package web --cases DIR --out SITE`.
#[derive(Debug, Args)]
pub struct WebPackageArgs {
    /// The course's public cases (and grader.toml): a folder with a hidden
    /// case is refused, since the site is public.
    #[arg(long)]
    pub cases: PathBuf,
    /// The folder to write (a new one, or an earlier site to replace);
    /// publish it as it is.
    #[arg(long, value_name = "SITE")]
    pub out: PathBuf,
    /// The pinned Pyodide npm package: its folder (node_modules/pyodide)
    /// or the tarball of `npm pack pyodide@VERSION` (default:
    /// web/node_modules/pyodide, after `npm ci --prefix web`).
    #[arg(long, value_name = "PATH")]
    pub pyodide: Option<PathBuf>,
}

/// `grader package gradescope --cases DIR --out FILE.zip`.
#[derive(Debug, Args)]
pub struct GradescopePackageArgs {
    /// The course's case folder (public and hidden cases, grader.toml),
    /// every case with its reference answer.
    #[arg(long)]
    pub cases: PathBuf,
    /// The zip to write (upload it as the assignment's autograder).
    #[arg(long, value_name = "FILE.zip")]
    pub out: PathBuf,
    /// The course takes Rust crates: setup.sh also installs a Rust toolchain.
    #[arg(long)]
    pub rust: bool,
    /// The Gradescope base image the assignment uses (ubuntu-18.04,
    /// ubuntu-20.04, ubuntu-22.04): refuse to package binaries that need a
    /// newer glibc than it has.
    #[arg(long, value_name = "IMAGE")]
    pub image: Option<String>,
}

/// A percent from 0 to 100, for `--fail-under`.
fn parse_percent(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("`{text}` is not a number: give a percent from 0 to 100, e.g. 60"))?;
    if (0.0..=100.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!(
            "{value} is not a percent: give a number from 0 to 100"
        ))
    }
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
