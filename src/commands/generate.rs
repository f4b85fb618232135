//! `grader generate`: fresh puzzles from `crate::generate`, appended as
//! `[[case]]` tables (SPEC 3) to a case file, with the reference's answers
//! and the listing keys (`crate::case::listing`) filled in, so the file
//! passes `grader reference --check` as written.
//!
//! The file is written by the case writer (`case::append_cases`),
//! so what it already holds (cases, comments, layout) stays byte for byte;
//! the new cases go at the end and the whole file is checked to load before
//! it atomically replaces the old one. Names are
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

use crate::case::{
    Answers, ListingCost, NewCase, ReferenceAnswer, Solutions, append_cases, parse_file,
    write_atomically,
};
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

    let text = append(&existing.text, &made, &costs, args, &request);
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
/// terminal, so logs and tests see only the summary line; none with `-q`.
fn progress_bar(count: usize) -> indicatif::ProgressBar {
    if crate::quiet::is_quiet() {
        return indicatif::ProgressBar::hidden();
    }
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
    // must load as a case file. (Checked by hand, before any parser: toml_edit
    // 0.23 panicked on some malformed text.)
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
/// the end, each under a comment naming the command that made it.
fn append(
    text: &str,
    made: &[(String, Generated)],
    costs: &[ListingCost],
    args: &GenerateArgs,
    request: &Request,
) -> String {
    let origin = origin_comment(args);
    let answers: Vec<ReferenceAnswer> = made
        .iter()
        .zip(costs)
        .map(|((_, generated), cost)| ReferenceAnswer {
            solutions: Solutions::from_count(u32::from(generated.solution.is_some())),
            solution: generated.solution.clone(),
            listing: *cost,
        })
        .collect();
    let cases: Vec<NewCase> = made
        .iter()
        .zip(&answers)
        .map(|((name, generated), answer)| NewCase {
            comment: format!("{origin}: {}", describe(request, generated)),
            name,
            puzzle: &generated.puzzle,
            hidden: args.hidden,
            answer,
        })
        .collect();
    append_cases(text, &cases)
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
