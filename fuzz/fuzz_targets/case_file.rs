//! Fuzz target `case_file`: see [`grader_fuzz::case_file`] for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| grader_fuzz::case_file(data));
