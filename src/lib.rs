//! `grader`: the autograder for the Sudoku backtracking lab.
//!
//! The binary is a thin shell over this library (see `main.rs`). The parts:
//!
//! - [`board_text`]: the board text format of SPEC 1, parsed and printed;
//! - [`case`]: case files (SPEC 3) and `grader.toml`;
//! - [`check`]: the checks of SPEC 4, written once against the lab trait;
//! - [`protocol`]: the messages between the grader and a worker process;
//! - [`worker`]: the child side: confine, load the student's code, answer;
//! - [`submission`]: discover the submissions in a folder and build them;
//! - [`runner`]: the parent side: spawn, time, kill, classify how a test
//!   ended, the grading loop (which calls [`check`] to plan and judge);
//! - `report`: the report model and one file per output format;
//! - [`commands`]: one module per subcommand;
//! - `generate`: fresh puzzles for `grader generate`; [`cli`]: the arguments;
//! - [`verdict`], [`exit`]: the vocabulary shared by all of them.
#![deny(missing_docs)]
#![warn(unreachable_pub)]

// The box around student code is Linux: namespaces, cgroups, Landlock,
// seccomp. Said once, here, instead of stubs that cannot run.
#[cfg(not(target_os = "linux"))]
compile_error!(
    "grader runs student code in Linux namespaces, cgroups, Landlock and seccomp: it builds on Linux only"
);

pub mod board_text;
pub mod case;
pub mod check;
pub mod cli;
pub mod color;
pub mod commands;
pub mod exit;
pub(crate) mod generate;
pub mod protocol;
pub mod quiet;
pub(crate) mod report;
pub mod runner;
pub mod sandbox;
pub mod submission;
pub mod verdict;
pub mod worker;
