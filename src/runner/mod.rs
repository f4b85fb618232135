//! Grading on top of the box ([`crate::sandbox`]): how a test ended becomes
//! a verdict ([`outcome`]), one submission's session, its only loop over
//! the tests (`session`), one test run and judged and the class graded
//! ([`grade`]), the time limit of each test (`limits`),
//! and shrinking a failing board ([`shrink`]).
pub mod grade;
pub(crate) mod limits;
pub mod outcome;
pub mod plan;
pub mod session;
pub mod shrink;
