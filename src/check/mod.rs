//! The checks of SPEC 4 are the judge's (`grader_judge::check`,
//! re-exported here): plan, execute in process, judge, the trace replay.
//! This module adds what several tests of one submission prove together
//! (`across.rs`) and how a hint spells code in the submission's language
//! (`spelling.rs`).

pub(crate) mod across;
mod spelling;

pub use grader_judge::check::*;
pub use spelling::digit_loop;
