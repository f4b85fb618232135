//! `grader`: the autograder for the Sudoku backtracking lab.
//!
//! The binary is a thin shell over this library (see `main.rs`). The parts:
//!
//! - [`board_text`], [`board_view`], [`finding`], [`verdict`], [`words`],
//!   and most of [`case`] and [`check`]: the judge, the crate
//!   `grader-judge` (`crates/judge`), which needs no operating system: the
//!   checks, their findings as data, the words of the findings in the
//!   student's language, and the student's view; here [`case`] adds
//!   reading case files from a folder and writing them;
//! - [`protocol`]: the messages between the grader and a submission's box;
//! - [`sandbox`]: the box from the grader's side: one per submission, the
//!   one child-process layer for builds and tests;
//! - [`worker`]: the worker program, every process inside a box: its init,
//!   and the test child that confines itself, loads the student's code
//!   and answers;
//! - [`submission`]: discover the submissions in a folder and build them;
//! - [`runner`]: how a test ended becomes a verdict, one submission's
//!   session (the one loop over its tests, which calls [`check`] to plan
//!   and judge), the class, the time limits, shrinking;
//! - `report`: the report model and one file per output format;
//! - [`commands`]: one module per subcommand;
//! - [`web_engine`]: the browser check's engine as the binary carries it
//!   (the judge's WebAssembly, the JavaScript, the harness) for
//!   `grader package web`;
//! - `generate`: fresh puzzles for `grader generate`; [`cli`]: the arguments;
//! - [`exit`], [`color`]: the vocabulary shared by all of them.
//!
//! ARCHITECTURE.md draws the flow and every process of a box.
#![deny(missing_docs)]
#![warn(unreachable_pub)]

// The box around student code is Linux: namespaces, cgroups, Landlock,
// seccomp. Said once, here, instead of stubs that cannot run.
#[cfg(not(target_os = "linux"))]
compile_error!(
    "grader runs student code in Linux namespaces, cgroups, Landlock and seccomp: it builds on Linux only"
);

pub use grader_judge::{board_text, board_view, finding, verdict, words};
pub mod case;
pub mod check;
pub mod cli;
pub mod color;
pub mod commands;
pub mod exit;
pub(crate) use grader_judge::generate;
pub mod protocol;
pub mod quiet;
pub(crate) mod report;
pub mod runner;
pub mod sandbox;
pub(crate) mod state;
pub mod submission;
pub(crate) mod visible;
pub mod web_engine;
pub mod worker;

pub mod testing;
