//! Grading on top of the box ([`crate::sandbox`]): how a test ended becomes
//! a verdict ([`outcome`], a library's crash worded by its
//! [`crash_site`]), one submission's session, its only loop over the tests
//! (`session`), one test run and judged and the class graded
//! ([`grade`]), the time limit of each test (`limits`),
//! shrinking a failing board ([`shrink`]) and `grader check`'s run with
//! the grader's own `legal` (`legal_swap`).
pub mod crash_site;
pub mod grade;
pub(crate) mod legal_swap;
pub(crate) mod limits;
pub mod outcome;
pub mod plan;
pub mod session;
pub mod shrink;
