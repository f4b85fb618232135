//! The integration tests, one test binary (as ripgrep and just do: one link,
//! one place for the shared helpers in `util.rs`). Each module was once its
//! own binary and keeps its name:
//!
//! - `attacks`: one fixture per attack class (`attacks/`) beside innocent
//!   neighbours;
//! - `boxes`: the box around each submission: compile-time attacks, two
//!   graders side by side, a missing compiler, SIGTERM;
//! - `cases_cli`: `grader solve` and `grader reference` on boards and case files;
//! - `conventions`: `-q`, and the summary table lined up for wide names;
//! - `crashes`: a C library's crash named by its signal and the student's
//!   function (the crash handler's line), the verdict unchanged;
//! - `docs`: the docs agree with the code (the files that hold `unsafe`,
//!   the test tiers' marks);
//! - `fuzz_seeds`: the fuzz seed corpus through the fuzz targets' checks;
//! - `generate`: `grader generate`, seeded and checked by the reference;
//! - `layout`: the code's layout: the judge reaches no operating system;
//! - `module_graph`: no file of `src/` imports another round a circle;
//! - `html_class`: the HTML report of 200 students in Chromium and
//!   Lighthouse (slow tier);
//! - `package`: the Gradescope package in a simulated `/autograder`;
//! - `recipes`: the sharding recipes and the Classroom workflow, run;
//! - `reports`: every report format against the JSON report;
//! - `runs`: streaming, resuming, sharding, merging, diffing runs;
//! - `shell`: the completion scripts and the manual page, read by bash and `man`;
//! - `sandbox`: hostile C libraries through the sandboxed runner;
//! - `state`: what the grader reads back and trusts: a grader fault never
//!   a score, derived fields recomputed (a forged shard refused), the
//!   results folder opened as trusted state, the LMS files against
//!   Moodle's import rule;
//! - `students`: `grader init` and `grader check` as a student meets them
//!   (snapshots of the student view, shrinking);
//! - `submissions`: the fixture submissions against `submissions/expected.toml`;
//! - `triples`: one algorithm in C, Rust and Python (`tests/fixtures/triples/`)
//!   gets the same verdict table in all three.
//! - `uploads`: uploads as learners make them (a C solver calling `sqrt`,
//!   a prebuilt library without `-lm`);
//! - `views`: what each kind of box can see, listed and probed;
//! - `web`: the browser check's engine in Node (`node SITE/check.mjs`)
//!   against `grader check`: the same verdicts, the hostile fixtures;
//! - `web_package`: `grader package web`: the site's folder and each
//!   refusal;
//! - `web_page`: the browser check's page in headless Chromium (slow
//!   tier): parity with `grader check`, hostile code, Lighthouse.
//!
//! Run one module with `cargo test --test integration MODULE::`. A test
//! too slow for every run (a whole class, a recipe, the Gradescope
//! package, headless Chromium, cargo in a box) is marked
//! `#[ignore = "slow: <why>"]` and runs in the slow tier: add `-- --ignored`
//! (CI runs both tiers: `cargo test --workspace`, then with `-- --ignored`).

mod util;

mod attacks;
mod boxes;
mod cases_cli;
mod conventions;
mod crashes;
mod docs;
mod fuzz_seeds;
mod generate;
mod html_class;
mod layout;
mod module_graph;
mod package;
mod recipes;
mod reports;
mod runs;
mod sandbox;
mod shell;
mod state;
mod students;
mod submissions;
mod triples;
mod uploads;
mod views;
mod web;
mod web_package;
mod web_page;
