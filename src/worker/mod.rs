//! The child side of grading: confine this process, load the student's
//! code, ask it the questions of one test, and report on the protocol fd.

/// The `grader worker` entry point (placeholder until the sandbox lands).
pub fn main() -> anyhow::Result<u8> {
    anyhow::bail!("the worker is not implemented yet")
}
