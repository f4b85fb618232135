//! Command-line arguments (SPEC 5), parsed with clap; no I/O here.
