//! One module per subcommand; each has `run(&Args) -> anyhow::Result<u8>`
//! returning the exit code (see [`crate::exit`]). [`plan`] is not a
//! subcommand: it holds what `grade` and `check` share before any student
//! code runs.

pub mod check;
pub mod generate;
pub mod grade;
pub mod init;
pub mod plan;
pub mod reference;
pub mod solve;
