//! The integration tests, one test binary (as ripgrep and just do: one link,
//! one place for the shared helpers in `util.rs`). Each module was once its
//! own binary and keeps its name:
//!
//! - `attacks`: one fixture per attack class (`attacks/`) beside innocent
//!   neighbours;
//! - `boxes`: the box around each submission: compile-time attacks, two
//!   graders side by side, a missing compiler, SIGTERM;
//! - `cases_cli`: `grader solve` and `grader reference` on boards and case files;
//! - `fuzz_seeds`: the fuzz seed corpus through the fuzz targets' checks;
//! - `generate`: `grader generate`, seeded and checked by the reference;
//! - `reports`: every report format against the JSON report;
//! - `sandbox`: hostile C libraries through the sandboxed runner;
//! - `submissions`: the fixture submissions against `submissions/expected.toml`.
//!
//! Run one module with `cargo test --test integration MODULE::`.

mod util;

mod attacks;
mod boxes;
mod cases_cli;
mod fuzz_seeds;
mod generate;
mod reports;
mod sandbox;
mod submissions;
