//! The `grader` binary: parse, run, map the result to an exit code.

use clap::Parser;
use grader::cli::{Cli, Command};
use grader::exit;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    grader::color::apply(cli.color);
    grader::quiet::set(cli.quiet);
    let result: anyhow::Result<u8> = match &cli.command {
        Command::Worker => grader::worker::main(),
        Command::Check(a) => grader::commands::check::run(a),
        Command::Init(a) => grader::commands::init::run(a),
        Command::Grade(a) => grader::commands::grade::run(a),
        Command::Reference(a) => grader::commands::reference::run(a),
        Command::Solve(a) => grader::commands::solve::run(a),
        Command::Generate(a) => grader::commands::generate::run(a),
        Command::Report(a) => grader::commands::report::run(a),
        Command::Merge(a) => grader::commands::merge::run(a),
        Command::Diff(a) => grader::commands::diff::run(a),
        Command::Checks(a) => grader::commands::checks::run(a),
        Command::Completions(a) => grader::commands::completions::run(a),
        Command::Man => grader::commands::man::run(),
        Command::Package(grader::cli::PackageTarget::Gradescope(a)) => {
            grader::commands::package::run_gradescope(a)
        }
        Command::Package(grader::cli::PackageTarget::Web(a)) => {
            grader::commands::package_web::run(a)
        }
    };
    // A stop signal's handler is cleaning up and exits with 130 itself.
    while grader::sandbox::cleanup::stopping() {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) if exit::is_broken_pipe(&err) => ExitCode::from(exit::SUCCESS),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(exit::USAGE_OR_INPUT)
        }
    }
}
