//! `grader-worker`: the worker program alone, without the rest of the
//! grader (no command line parser, no reports, no reference solver), so
//! each box's process has less to map and relocate. It runs exactly
//! what the hidden `grader worker` subcommand runs: see [`grader::worker`].
//! `SandboxEnv::detect` uses it when it sits beside the `grader`
//! executable and comes from the same build.

use std::process::ExitCode;

fn main() -> ExitCode {
    let result = match grader::worker::parse_args(std::env::args_os().skip(1)) {
        Ok(grader::worker::Invocation::Run) => grader::worker::main(),
        Ok(grader::worker::Invocation::Identity) => {
            println!("{}", grader::worker::identity_line());
            Ok(grader::exit::SUCCESS)
        }
        Err(err) => Err(err),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(grader::exit::USAGE_OR_INPUT)
        }
    }
}
