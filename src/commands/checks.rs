//! `grader checks`: the table of every check the grader makes
//! ([`crate::check::Check`]), for a course author reading a report's check
//! ids; `--markdown` writes it as the page `docs/checks.md` is, and
//! `--report-schema` the JSON report's schema, which names these ids.

use std::io::Write;

use crate::check::Check;
use crate::cli::ChecksArgs;

/// Runs `grader checks`.
///
/// # Errors
/// When stdout cannot be written.
pub fn run(args: &ChecksArgs) -> anyhow::Result<u8> {
    let mut out = std::io::stdout().lock();
    if args.report_schema {
        out.write_all(crate::report::schema::report_schema().as_bytes())?;
    } else if args.markdown {
        out.write_all(Check::markdown().as_bytes())?;
    } else {
        for check in Check::ALL {
            let info = check.info();
            writeln!(out, "{} ({})", info.id, info.function)?;
            writeln!(out, "  checks: {}", info.checks)?;
            writeln!(out, "  a failure means: {}", info.failure_means)?;
        }
    }
    out.flush()?;
    Ok(crate::exit::SUCCESS)
}
