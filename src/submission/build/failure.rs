//! Why a submission did not build ([`BuildFailure`]): the student's to
//! fix (a compile error, a timeout, something that cannot be built) or the
//! grader's own fault, typed ([`BuildFailure::Grader`]), never a score.

use std::time::Duration;

use crate::verdict::{Fault, FaultKind};

/// Why a submission did not build. Every variant but [`BuildFailure::Grader`]
/// is the student's to fix; the message says how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildFailure {
    /// The compiler refused the code; its trimmed output.
    #[error("{tool} failed:\n{output}")]
    Compile {
        /// `cc` or `cargo build`.
        tool: &'static str,
        /// The compiler's errors, trimmed.
        output: String,
    },
    /// The build used more than its limit of CPU time (or spent that long
    /// not wanting a CPU) and was stopped.
    #[error("the build used more than {} of CPU time, or waited that long without using any, and was stopped{}", seconds(*.limit), tail(.output))]
    Timeout {
        /// The limit.
        limit: Duration,
        /// What the compiler had printed, trimmed.
        output: String,
    },
    /// The submission is not something that can be built (a bad
    /// `Cargo.toml`, no library produced).
    #[error("{0}")]
    Invalid(String),
    /// The grader could not run the build (not the student's fault): a
    /// report shows the fault's own words before the message.
    #[error("{message}")]
    Grader {
        /// What kind of fault.
        kind: FaultKind,
        /// What went wrong and what to do.
        message: String,
    },
}

impl BuildFailure {
    /// A tool the build needs is missing or cannot set itself up.
    pub fn toolchain(message: impl Into<String>) -> BuildFailure {
        BuildFailure::Grader {
            kind: FaultKind::Toolchain,
            message: message.into(),
        }
    }

    /// The box, or a folder of the build, cannot be made or run.
    pub fn sandbox(message: impl Into<String>) -> BuildFailure {
        BuildFailure::Grader {
            kind: FaultKind::Sandbox,
            message: message.into(),
        }
    }

    /// The grader's fault, for [`BuildFailure::Grader`] (no compiler, a
    /// folder that cannot be made); `None` when it is the student's.
    pub fn fault(&self) -> Option<Fault> {
        match self {
            BuildFailure::Grader { kind, .. } => Some(Fault::grader(*kind)),
            _ => None,
        }
    }
}

/// A duration for people: `120 s`, `0.3 s`.
pub(super) fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

pub(super) fn tail(output: &str) -> String {
    if output.is_empty() {
        String::new()
    } else {
        format!(":\n{output}")
    }
}
