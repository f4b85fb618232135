//! Fuzz target `board_text`: see [`grader_fuzz::board_text`] for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| grader_fuzz::board_text(data));
