//! `grader man`: the manual page in roff, made by `clap_mangen` from the
//! same definition the parser uses (`grader man | man -l -`), with an
//! EXIT STATUS section of our own: the codes of `crate::exit`, each with
//! the meaning the instructors' guide gives it ("Exit codes").

use clap::CommandFactory;
use std::io::Write;

use crate::cli::Cli;
use crate::exit;

/// Every exit code and what it means, in the guide's words.
const EXIT_STATUS: [(u8, &str); 4] = [
    (exit::SUCCESS, "every test passed / the command did its job"),
    (
        exit::FAILURE,
        "some test failed (grade, check), or reference --check found a difference",
    ),
    (
        exit::USAGE_OR_INPUT,
        "bad usage, bad input (a case file, a board), or the grader itself failed (also when it failed on only some submissions: their reports say so, the others are kept)",
    ),
    (
        exit::BUILD_OR_LOAD_ERROR,
        "grader check only: the student's code did not build or load (a compile error, a missing symbol), so no test ran",
    ),
];

/// Prints the manual page on stdout.
///
/// # Errors
/// When stdout cannot be written.
pub fn run() -> anyhow::Result<u8> {
    let mut out = std::io::stdout().lock();
    write_page(&mut out)?;
    out.flush()?;
    Ok(exit::SUCCESS)
}

/// The page: `clap_mangen`'s sections in its order, EXIT STATUS before
/// VERSION (where man-pages(7) puts it, after the options).
fn write_page(out: &mut dyn Write) -> std::io::Result<()> {
    let command = Cli::command();
    let man = clap_mangen::Man::new(command.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    man.render_subcommands_section(out)?;
    if command.get_after_long_help().is_some() || command.get_after_help().is_some() {
        man.render_extra_section(out)?;
    }
    write_exit_status(out)?;
    if command.get_version().is_some() {
        man.render_version_section(out)?;
    }
    if command.get_author().is_some() {
        man.render_authors_section(out)?;
    }
    Ok(())
}

/// The EXIT STATUS section: a tagged paragraph per code.
fn write_exit_status(out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, ".SH \"EXIT STATUS\"")?;
    for (code, meaning) in EXIT_STATUS {
        writeln!(out, ".TP\n\\fB{code}\\fR\n{}", roff_text(meaning))?;
    }
    writeln!(
        out,
        ".PP\n{}",
        roff_text(
            "A closed stdout (grader check | head) is not an error: the command ends quietly with 0."
        )
    )
}

/// `text` as one roff text line: backslashes and hyphens escaped, and a
/// leading `.` or `'` kept from reading as a request.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}
