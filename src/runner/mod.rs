//! The parent side of grading: discover submissions, build them, run each
//! test in a worker process, and turn how it ended into a verdict.
pub mod build;
pub mod discover;
