//! `grader check [PATH]`: a student checks their own submission against the
//! public cases, with a picture of any wrong board.

use anyhow::bail;
use std::io::Write;

use crate::cli::CheckArgs;
use crate::commands::plan::{load_cases, prepare};
use crate::exit;
use crate::report::terminal;
use crate::runner::grade::grade_one;
use crate::submission::discover;

/// Runs `grader check`; the exit code is 0 iff every test passed.
pub fn run(args: &CheckArgs) -> anyhow::Result<u8> {
    if !args.path.exists() {
        bail!(
            "{} does not exist: run `grader check` in your project folder, or name it (a folder with Cargo.toml, a .c, a .py or a .so file)",
            args.path.display()
        );
    }
    let cases = load_cases(args.cases.as_deref(), false)?;
    if cases.cases.is_empty() {
        bail!("there are no public cases to check against");
    }
    let submission = discover::classify(&args.path);
    let plan = prepare(cases, Some(1), &args.path)?;
    let report = grade_one(&submission, &plan);
    let mut out = std::io::stdout().lock();
    terminal::write_details(&report, &mut out)?;
    out.flush()?;
    Ok(if report.grader_fault {
        eprintln!(
            "error: the grader itself failed while checking your code (see the messages above): this is not your fault"
        );
        exit::USAGE_OR_INPUT
    } else if report.all_passed() {
        exit::SUCCESS
    } else {
        exit::FAILURE
    })
}
