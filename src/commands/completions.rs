//! `grader completions SHELL`: the shell's completion script, made by
//! `clap_complete` from the same definition the parser uses.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

/// Prints the completion script for `args.shell` on stdout.
///
/// # Errors
/// Never; the signature matches the other commands'.
pub fn run(args: &CompletionsArgs) -> anyhow::Result<u8> {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "grader", &mut std::io::stdout());
    Ok(crate::exit::SUCCESS)
}
