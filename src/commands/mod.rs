//! One module per subcommand; each has `run(&Args) -> anyhow::Result<u8>`
//! returning the exit code (see [`crate::exit`]). [`plan`] is not a
//! subcommand: it holds what `grade` and `check` share before any student
//! code runs.

pub mod check;
pub mod checks;
pub mod completions;
pub mod diff;
pub mod generate;
pub mod grade;
pub mod init;
pub mod man;
pub mod merge;
pub(crate) mod outputs;
pub mod package;
pub mod plan;
pub mod reference;
pub mod replay;
pub(crate) mod results;
pub mod shard;
pub mod solve;
