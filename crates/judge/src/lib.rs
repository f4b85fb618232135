//! `grader-judge`: what the grader knows of the lab without running
//! anything. It reads and prints boards and cases from text, plans the
//! questions a test asks (the probe), asks them of any `Sudoku` in
//! process, judges the answers against the lab's rules and the reference
//! answer, and replays a `solve`'s write trace.
//!
//! It holds no file system access, no process and no system call: the
//! grader (`grader grade`, `grader check`) brings the box and the files,
//! a browser or Node brings the page. So it builds for every target:
//! Linux, macOS, Windows and `wasm32-unknown-unknown` (CI checks all
//! four).
//!
//! - [`board_text`]: the board text format of SPEC 1, parsed and printed;
//! - [`case`]: the case model and case files (SPEC 3) read from text;
//! - [`check`]: the checks of SPEC 4: plan, execute in process, judge, the
//!   trace replay;
//! - [`board_view`]: a board as reports show it, as data;
//! - [`finding`]: what a check observed, as data;
//! - [`report`]: one test's result, as every report holds it;
//! - [`words`]: the findings worded once, and the student's view;
//! - [`generate`]: fresh puzzles for `grader generate`;
//! - [`notebook`]: a Jupyter notebook's code cells as a Python module;
//! - [`shrink`]: the search for the smallest board a failing `solve`
//!   still fails on (the runs are the driver's);
//! - [`verdict`]: the vocabulary every stage shares.
#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod board_text;
pub mod board_view;
pub mod case;
pub mod check;
pub mod finding;
pub mod generate;
pub mod notebook;
pub mod report;
pub mod shrink;
pub mod verdict;
pub mod words;
