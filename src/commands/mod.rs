//! One module per subcommand, and nothing else; each has
//! `run(&Args) -> anyhow::Result<u8>` returning the exit code (see
//! [`crate::exit`]). What several share lives where it belongs in the
//! pipeline: the checked plan in [`crate::runner::grade_plan`], the report flags
//! and the results folder in `crate::report`, `--shard` in
//! [`crate::submission::shard`].

pub mod check;
pub mod checks;
pub mod completions;
pub mod diff;
pub mod generate;
pub mod glibc;
pub mod grade;
pub mod init;
pub mod man;
pub mod merge;
pub mod package;
pub mod package_web;
pub mod reference;
pub mod report;
pub mod solve;
