//! `grader man`: the manual page in roff, made by `clap_mangen` from the
//! same definition the parser uses (`grader man | man -l -`).

use clap::CommandFactory;

use crate::cli::Cli;

/// Prints the manual page on stdout.
///
/// # Errors
/// When stdout cannot be written.
pub fn run() -> anyhow::Result<u8> {
    clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout())?;
    Ok(crate::exit::SUCCESS)
}
