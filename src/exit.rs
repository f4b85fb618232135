//! The process exit codes, in one place (documented in the README).

/// Everything passed, or the command did its job.
pub const SUCCESS: u8 = 0;

/// Some student test failed, or `reference --check` found a difference.
pub const FAILURE: u8 = 1;

/// Bad usage, bad input (a case file, a board), or the grader itself failed.
pub const USAGE_OR_INPUT: u8 = 2;
