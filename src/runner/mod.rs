//! Grading on top of the box ([`crate::sandbox`]): how a test ended becomes
//! a verdict ([`outcome`]), one test run and judged, the grading loop over
//! the submissions ([`grade`]), the time limit of each test ([`limits`]),
//! and shrinking a failing board ([`shrink`]).
pub mod grade;
pub mod limits;
pub mod outcome;
pub mod process;
pub mod shrink;
