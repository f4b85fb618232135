//! The messages between the grader and a worker process.
//!
//! The grader writes one [`WorkerRequest`] as JSON to the worker's stdin and
//! closes it. The worker writes [`WorkerMessage`]s as JSON lines to fd 3
//! (the "protocol fd"), never to stdout/stderr, which belong to the
//! student's code. The format is plain JSON so that a Python worker can speak
//! it with the standard library.
//!
//! Nothing here is trusted: student code can write to fd 3 too, so the
//! grader decodes defensively and judges every answer itself.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

use crate::check::{Probe, Response};

/// The file descriptor the worker writes [`WorkerMessage`]s to.
pub const PROTOCOL_FD: i32 = 3;

/// What kind of student code a worker loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeKind {
    /// A shared library with the lab's C ABI (built from Rust or C, or given).
    Library,
    /// A Python module defining the seed's three functions.
    Python,
}

/// Resource limits for one test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// CPU time for the test, in milliseconds.
    pub time_limit_ms: u64,
    /// Memory, in MiB.
    pub memory_limit_mb: u64,
}

/// One test for a worker: what to load and what to ask of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkerRequest {
    /// What `code` is.
    pub kind: CodeKind,
    /// The library or module to load.
    pub code: PathBuf,
    /// The questions to ask.
    pub probe: Probe,
    /// The limits to apply to itself before loading `code`.
    pub limits: Limits,
}

/// One line a worker writes to the protocol fd.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WorkerMessage {
    /// The sandbox is in place and the code is loaded: from here on, a
    /// failure is the student's.
    Loaded,
    /// The code could not be loaded (no such file, a missing symbol, an
    /// import error): the `error` verdict.
    LoadError {
        /// What went wrong and what to do.
        message: String,
    },
    /// The answers, and the time spent in student code.
    Done {
        /// The answers.
        response: Response,
        /// Milliseconds spent in the student's function calls.
        time_ms: f64,
    },
    /// The sandbox refused a system call (written by the SIGSYS handler).
    Forbidden {
        /// The system call's number on this architecture.
        syscall: i64,
    },
    /// A safeguard could not be applied; the rest still are.
    SandboxNote {
        /// Which one, and why.
        message: String,
    },
}
