//! Grading on top of the box ([`crate::sandbox`]): how a test ended becomes
//! a verdict ([`outcome`], a library's crash worded by its
//! [`crash_site`]), one test's run ([`test_run`]), one submission's
//! session and its only loop over the tests ([`session`]), the class
//! ([`class`]), the time limit of each test ([`limits`]), timed from the
//! lab's listing ([`calibrate`]), shrinking a failing board ([`shrink`])
//! and `grader check`'s run with the grader's own `legal` (`legal_swap`).
//!
//! The files import each other one way only (a test in
//! `tests/integration/module_graph.rs` holds it): `class` and `calibrate`
//! over `session`, `shrink` and `legal_swap` over it too; `session` over
//! `test_run` and `plan`; `test_run` over `outcome`; `plan` over `limits`.
pub mod calibrate;
pub mod class;
pub mod crash_site;
pub mod grade_plan;
pub(crate) mod legal_swap;
pub mod limits;
mod listing_cache;
pub mod outcome;
pub mod session;
pub mod shrink;
pub mod test_run;
