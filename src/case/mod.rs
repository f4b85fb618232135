//! Test cases (SPEC 3): the model and its reading from text are the
//! judge's (`grader_judge::case`, re-exported here); this module adds what
//! touches files: finding and reading the case files of a folder
//! (`files.rs`) and writing them (`write.rs`: the answers `grader
//! reference` fills in, the cases `grader generate` appends, each file
//! replaced atomically).

mod files;
mod write;

pub(crate) use files::case_files;
pub use files::load;
pub use grader_judge::case::*;
pub(crate) use write::{
    Fill, NewCase, ReferenceAnswer, append_cases, fill_answers, write_atomically,
};
