//! `grader generate`: fresh puzzles from [`crate::generate`], appended as
//! `[[case]]` tables (SPEC 3) to a case file, with the reference's answers
//! and the listing keys ([`crate::case::listing`]) filled in, so the file
//! passes `grader reference --check` as written.
//!
//! The file is edited with `toml_edit`, so what it already holds (cases,
//! comments, layout) stays byte for byte; the new cases go at the end and the
//! whole file is checked to load before it replaces the old one. Names are
//! `gen-<N>x<N>-s<seed>-<i>` (`gen-<N>x<N>-dead-s<seed>-<i>` for
//! `--unsolvable-deep`), and puzzle `i` of a seed is always the same puzzle
//! for the same options: a second run with the same seed into the same file
//! skips the names already there and appends the next puzzles of the seed.
//!
//! Setting `GRADER_GENERATE_STATS=1` prints where the time went (grids,
//! removal search, counting, checks, band walks, and the walks for the
//! listing keys) to stderr.

use anyhow::{Context, bail};
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::time::Instant;
use sudoku_lab::Board;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

use crate::board_text::format_grid;
use crate::case::{Answers, ListingCost, parse_file};
use crate::cli::GenerateArgs;
use crate::exit;
use crate::generate::{Generated, Request, Stats, UndoBand, generate};

/// The environment variable that turns on the time report on stderr.
pub const STATS_ENV: &str = "GRADER_GENERATE_STATS";

/// Runs `grader generate`; returns [`exit::SUCCESS`]. Bad arguments, a case
/// file that does not load, or a request no candidate meets are an `Err`
/// (exit 2), and the file is then left as it was.
pub fn run(args: &GenerateArgs) -> anyhow::Result<u8> {
    let request = plan(args)?;
    let existing = read_existing(&args.out)?;
    let taken: HashSet<String> = existing.names.iter().cloned().collect();

    let started = Instant::now();
    let mut stats = Stats::default();
    let mut made: Vec<(String, Generated)> = Vec::with_capacity(args.count);
    let mut index: u64 = 0;
    let progress = progress_bar(args.count);
    while made.len() < args.count {
        let name = case_name(&request, index);
        if !taken.contains(&name) {
            let generated = generate(&request, index, &mut stats)
                .with_context(|| format!("cannot generate case \"{name}\""));
            let generated = match generated {
                Ok(generated) => generated,
                Err(e) => {
                    progress.abandon();
                    return Err(e);
                }
            };
            made.push((name, generated));
            progress.inc(1);
        }
        index += 1;
    }
    progress.finish_and_clear();
    let generating = started.elapsed();

    // The listing keys, as `grader reference` would store them.
    let walking = Instant::now();
    let costs: Vec<ListingCost> = made
        .iter()
        .map(|(_, generated)| ListingCost::measure(&generated.puzzle))
        .collect();
    let walking = walking.elapsed();

    let text = append(&existing.text, &made, &costs, args, &request)?;
    check_written(&args.out, &text, &made)?;
    write_atomically(&args.out, &text)?;

    if std::env::var_os(STATS_ENV).is_some_and(|v| !v.is_empty() && v != "0") {
        eprintln!("{stats}");
        eprintln!(
            "generating:        {:10.1} ms for {} puzzles",
            generating.as_secs_f64() * 1e3,
            made.len()
        );
        let capped = costs.iter().filter(|c| c.capped).count();
        eprintln!(
            "listing keys:      {:10.1} ms for {} walks ({capped} stopped at the cap)",
            walking.as_secs_f64() * 1e3,
            costs.len()
        );
    }
    let mut out = std::io::stdout().lock();
    let first = &made[0].0;
    let last = &made[made.len() - 1].0;
    let range = if made.len() == 1 {
        first.clone()
    } else {
        format!("{first} .. {last}")
    };
    let result = writeln!(
        out,
        "appended {} {} to {} ({range}) in {:.2} s",
        made.len(),
        if made.len() == 1 { "case" } else { "cases" },
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    // A closed stdout (e.g. `| head -0`) is not a failure of the command.
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    Ok(exit::SUCCESS)
}

/// A progress bar on stderr; indicatif draws nothing when stderr is not a
/// terminal, so logs and tests see only the summary line.
fn progress_bar(count: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(count as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "generating {pos}/{len} puzzles [{elapsed}] {wide_bar}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// Turns the arguments into a checked request.
fn plan(args: &GenerateArgs) -> anyhow::Result<Request> {
    if args.count == 0 {
        bail!("--count 0 generates nothing: ask for at least 1 puzzle");
    }
    let request = Request {
        n: args.n,
        clues: args.clues,
        minimal: args.minimal,
        band: UndoBand {
            min: args.min_undos,
            max: args.max_undos,
        },
        unsolvable_deep: args.unsolvable_deep,
        seed: args.seed,
        ..Request::new(args.n)
    };
    request.validate()?;
    Ok(request)
}

/// The name of puzzle `index` of a request.
fn case_name(request: &Request, index: u64) -> String {
    let side = request.n * request.n;
    let kind = if request.unsolvable_deep { "dead-" } else { "" };
    format!("gen-{side}x{side}-{kind}s{}-{index}", request.seed)
}

/// The output file as it is now.
struct Existing {
    /// Its text; empty if it does not exist yet.
    text: String,
    /// The names of its cases.
    names: Vec<String>,
}

/// Reads and loads the output file, if there is one; a file that is not a
/// valid case file is refused rather than appended to.
fn read_existing(path: &Path) -> anyhow::Result<Existing> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    // A missing, empty or comment-only file has no cases yet; anything else
    // must load as a case file. (Checked by hand rather than by toml_edit,
    // which panics on some malformed text.)
    let blank = text.lines().all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with('#')
    });
    if blank {
        return Ok(Existing {
            text,
            names: Vec::new(),
        });
    }
    let parsed = parse_file(path, &text, Answers::Raw).with_context(|| {
        format!(
            "{} is not a valid case file, so nothing was appended: fix it or choose another --out",
            path.display()
        )
    })?;
    Ok(Existing {
        names: parsed.cases.into_iter().map(|c| c.name).collect(),
        text,
    })
}

/// The file's text with one `[[case]]` table per generated puzzle added at
/// the end. The existing text is kept byte for byte as the prefix (only a
/// final newline is added if it lacks one): the new tables are printed by
/// `toml_edit` on their own and appended, since a document edited in place
/// may move a trailing comment below the new tables.
fn append(
    text: &str,
    made: &[(String, Generated)],
    costs: &[ListingCost],
    args: &GenerateArgs,
    request: &Request,
) -> anyhow::Result<String> {
    let mut tables = ArrayOfTables::new();
    let origin = origin_comment(args);
    let fresh = text.trim().is_empty();
    for (i, ((name, generated), cost)) in made.iter().zip(costs).enumerate() {
        let mut table = Table::new();
        let blank = if i == 0 && fresh { "" } else { "\n" };
        table.decor_mut().set_prefix(format!(
            "{blank}# {origin}: {}\n",
            describe(request, generated)
        ));
        table.insert("name", Item::Value(Value::from(name.as_str())));
        table.insert("puzzle", Item::Value(multi_line(&generated.puzzle)?));
        if args.hidden {
            table.insert("hidden", Item::Value(Value::from(true)));
        }
        let solutions = if generated.solution.is_some() { 1 } else { 0 };
        table.insert("solutions", Item::Value(Value::from(solutions)));
        if let Some(solution) = &generated.solution {
            table.insert("solution", Item::Value(multi_line(solution)?));
        }
        let count = |v: u64| Item::Value(Value::from(i64::try_from(v).unwrap_or(i64::MAX)));
        table.insert("listing_writes", count(cost.writes));
        table.insert("listing_undos", count(cost.undos));
        if cost.capped {
            table.insert("listing_capped", Item::Value(Value::from(true)));
        }
        table.insert(
            "suggested_time_limit_ms",
            count(cost.suggested_time_limit_ms),
        );
        tables.push(table);
    }
    let mut doc = DocumentMut::new();
    doc.insert("case", Item::ArrayOfTables(tables));
    let mut out = if fresh {
        String::new()
    } else {
        text.to_string()
    };
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&doc.to_string());
    Ok(out)
}

/// The command line that made the cases, as a comment.
fn origin_comment(args: &GenerateArgs) -> String {
    let mut line = format!("grader generate --n {} --seed {}", args.n, args.seed);
    if let Some(clues) = args.clues {
        line.push_str(&format!(" --clues {clues}"));
    }
    if args.minimal {
        line.push_str(" --minimal");
    }
    if let Some(min) = args.min_undos {
        line.push_str(&format!(" --min-undos {min}"));
    }
    if let Some(max) = args.max_undos {
        line.push_str(&format!(" --max-undos {max}"));
    }
    if args.unsolvable_deep {
        line.push_str(" --unsolvable-deep");
    }
    line
}

/// A few words about one puzzle, for its comment.
fn describe(request: &Request, generated: &Generated) -> String {
    let kind = if request.unsolvable_deep {
        "no solution, open domains"
    } else if request.makes_minimal() {
        "unique, minimal"
    } else {
        "unique"
    };
    format!("{kind}, {} givens", generated.puzzle.filled())
}

/// A board as a TOML multi-line string in the grid form.
fn multi_line(board: &Board) -> anyhow::Result<Value> {
    format!("\"\"\"\n{}\"\"\"", format_grid(board))
        .parse::<Value>()
        .context("internal error: a board did not print as a TOML string")
}

/// Loads the new text and checks the new cases read back as made.
fn check_written(path: &Path, text: &str, made: &[(String, Generated)]) -> anyhow::Result<()> {
    let internal = || format!("internal error: appending to {} went wrong", path.display());
    // Raw: the answers already in the file are the author's business.
    let parsed = parse_file(path, text, Answers::Raw).with_context(|| {
        format!(
            "{} would not load with [[case]] tables appended, so nothing was written: write its cases as [[case]] tables",
            path.display()
        )
    })?;
    let Some(first) = parsed.cases.len().checked_sub(made.len()) else {
        bail!("{}: cases were lost", internal());
    };
    let read_back = parsed.cases[first..].iter().zip(&parsed.stored[first..]);
    for ((case, stored), (name, generated)) in read_back.zip(made) {
        let solutions = i64::from(generated.solution.is_some());
        let solution = stored.solution.as_ref().and_then(|s| s.as_ref().ok());
        if &case.name != name
            || case.puzzle != generated.puzzle
            || stored.solutions != Some(solutions)
            || solution != generated.solution.as_ref()
        {
            bail!("{}: case \"{name}\" did not read back as made", internal());
        }
    }
    Ok(())
}

/// Replaces `path` with `text` through a temporary file beside it, so that
/// an interrupted run never leaves half a file.
fn write_atomically(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    // Keep the mode of the file replaced; a new one gets the usual 0644
    // rather than the temporary file's 0600.
    let permissions = match std::fs::metadata(path) {
        Ok(meta) => Some(meta.permissions()),
        Err(_) => new_file_permissions(),
    };
    if let Some(permissions) = permissions {
        std::fs::set_permissions(tmp.path(), permissions).with_context(|| {
            format!(
                "cannot set the mode of a temporary file in {}",
                dir.display()
            )
        })?;
    }
    tmp.write_all(text.as_bytes())
        .with_context(|| format!("cannot write a temporary file in {}", dir.display()))?;
    tmp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The mode of a newly created case file.
#[cfg(unix)]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o644))
}

/// The mode of a newly created case file: the platform's default.
#[cfg(not(unix))]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    None
}
