//! The first two steps of the pipeline: find the submissions in a folder
//! ([`discover`]) and build each one into something a worker can load
//! ([`build`]).
pub mod build;
pub mod discover;
pub mod lab_kit;
pub mod manifest;
pub mod notebook;
pub mod scan;
