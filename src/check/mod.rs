//! The checks of SPEC 4 are the judge's (`grader_judge::check`,
//! re-exported here): plan, execute in process, judge, the trace replay.
//! What several tests prove together and how the words spell code in the
//! submission's language are the judge's too (`grader_judge::words`).

pub use grader_judge::check::*;
