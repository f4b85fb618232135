//! The first two steps of the pipeline: find the submissions in a folder
//! ([`discover`]) and build each one into something a worker can load
//! ([`build`]).
pub mod build;
pub(crate) mod defines;
pub mod discover;
pub(crate) mod lab_kit;
pub(crate) mod manifest;
pub(crate) mod notebook;
pub(crate) mod scan;
pub mod shard;
