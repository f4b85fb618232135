//! One module per subcommand; each has `run(&Args) -> anyhow::Result<u8>`
//! returning the exit code (see [`crate::exit`]).

pub mod check;
pub mod generate;
pub mod grade;
pub mod init;
pub mod plan;
pub mod reference;
pub mod solve;
