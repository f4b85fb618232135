//! Fuzz target `protocol`: see [`grader_fuzz::protocol`] for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| grader_fuzz::protocol(data));
