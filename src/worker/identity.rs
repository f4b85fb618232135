//! Which build a worker executable comes from: [`BUILD_IDENTITY`], and the
//! command line of the separate `grader-worker` executable.
//!
//! `grader` starts its boxes with `grader-worker` when it sits beside it,
//! for speed.
//! A `grader-worker` left over from an earlier build (`cargo run` rebuilds
//! only `grader`) would silently run old code, so the grader asks it for its
//! identity first and uses it only when that matches its own.

use std::ffi::OsString;

/// A fingerprint of the code the worker program runs: the package version, the build
/// profile, and a hash of every file of this module, the `grader-worker`
/// binary, the protocol, the checks it executes, the lab crate, the
/// manifest and the dependency lock file (computed by `build.rs`). Two
/// executables with the same identity answer a request the same way.
pub const BUILD_IDENTITY: &str = env!("GRADER_WORKER_IDENTITY");

/// [`BUILD_IDENTITY`] as `grader-worker --identity` prints it.
pub fn identity_line() -> String {
    format!("grader-worker {BUILD_IDENTITY}")
}

/// What `grader-worker` was asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// Serve as a submission's box (no arguments, or `worker` as `grader
    /// worker` takes it).
    Run,
    /// Print [`identity_line`] and exit.
    Identity,
}

/// Reads `grader-worker`'s arguments (without the program name).
///
/// # Errors
/// On anything but nothing, `worker` or `--identity`.
pub fn parse_args(args: impl IntoIterator<Item = OsString>) -> anyhow::Result<Invocation> {
    let args: Vec<OsString> = args.into_iter().collect();
    match args
        .iter()
        .map(|a| a.to_str())
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] | [Some("worker")] => Ok(Invocation::Run),
        [Some("--identity")] => Ok(Invocation::Identity),
        _ => anyhow::bail!(
            "`grader-worker` takes no arguments: `grader grade` and `grader check` start it, one box per submission; run those instead"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let parse = |args: &[&str]| parse_args(args.iter().map(OsString::from));
        assert_eq!(parse(&[]).expect("none"), Invocation::Run);
        assert_eq!(parse(&["worker"]).expect("worker"), Invocation::Run);
        assert_eq!(parse(&["--identity"]).expect("id"), Invocation::Identity);
        let err = parse(&["grade", "submissions"]).expect_err("refused");
        assert!(err.to_string().contains("takes no arguments"), "{err}");
        assert!(parse(&["worker", "extra"]).is_err());
    }

    #[test]
    fn identity_line_has_the_hash() {
        let line = identity_line();
        assert!(line.starts_with("grader-worker "), "{line}");
        assert_eq!(line.len(), "grader-worker ".len() + 16);
        assert!(
            BUILD_IDENTITY.chars().all(|c| c.is_ascii_hexdigit()),
            "{line}"
        );
    }
}
