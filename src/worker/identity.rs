//! Which build a worker executable comes from: [`BUILD_IDENTITY`], and the
//! command line of the separate `grader-worker` executable.
//!
//! `grader` runs tests in `grader-worker` when it sits beside it, for speed.
//! A `grader-worker` left over from an earlier build (`cargo run` rebuilds
//! only `grader`) would silently run old code, so the grader asks it for its
//! identity first and uses it only when that matches its own.

use std::ffi::OsString;

/// A fingerprint of the code a worker runs: the package version and a hash
/// of the sources of the worker (every file of this module and the
/// `grader-worker` binary), the protocol, the checks it executes, the lab
/// crate, the manifest and the dependency lock file. Two executables with
/// the same identity answer a request the same way. A file added to this
/// module belongs in the list below.
pub const BUILD_IDENTITY: u64 = {
    let sources: [&[u8]; 19] = [
        env!("CARGO_PKG_VERSION").as_bytes(),
        include_bytes!("identity.rs"),
        include_bytes!("mod.rs"),
        include_bytes!("sys.rs"),
        include_bytes!("seccomp.rs"),
        include_bytes!("landlock.rs"),
        include_bytes!("library.rs"),
        include_bytes!("wire.rs"),
        include_bytes!("../bin/grader-worker.rs"),
        include_bytes!("../exit.rs"),
        include_bytes!("../protocol.rs"),
        include_bytes!("../check/mod.rs"),
        include_bytes!("../check/execute.rs"),
        include_bytes!("../check/probe.rs"),
        include_bytes!("../check/error.rs"),
        include_bytes!("../../lab/src/lib.rs"),
        include_bytes!("../../Cargo.lock"),
        include_bytes!("../../Cargo.toml"),
        // What the build profile changes (a debug worker beside a release
        // grader still answers the same; this is only for completeness).
        if cfg!(debug_assertions) {
            b"debug"
        } else {
            b"release"
        },
    ];
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut s = 0;
    while s < sources.len() {
        let bytes = sources[s];
        let mut i = 0;
        while i < bytes.len() {
            hash ^= bytes[i] as u64;
            hash = hash.wrapping_mul(0x0100_0000_01b3);
            i += 1;
        }
        // Separate the sources, so moving text between files changes it.
        hash ^= 0xff;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        s += 1;
    }
    hash
};

/// [`BUILD_IDENTITY`] as `grader-worker --identity` prints it.
pub fn identity_line() -> String {
    format!("grader-worker {BUILD_IDENTITY:016x}")
}

/// What `grader-worker` was asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// Run one test (no arguments, or `worker` as `grader worker` takes it).
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
            "`grader-worker` takes no arguments: `grader grade` and `grader check` start it, one process per test; run those instead"
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
    fn every_file_of_the_worker_is_in_the_identity() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/worker");
        let own = include_str!("identity.rs");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("src/worker") {
            let name = entry.expect("entry").file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".rs") {
                let line = format!("include_bytes!(\"{name}\")");
                assert!(own.contains(&line), "{name} is missing from BUILD_IDENTITY");
                seen += 1;
            }
        }
        assert!(seen >= 7, "found only {seen} files in {}", dir.display());
    }

    #[test]
    fn identity_line_has_the_hash() {
        let line = identity_line();
        assert!(line.starts_with("grader-worker "), "{line}");
        assert_eq!(line.len(), "grader-worker ".len() + 16);
        assert_ne!(BUILD_IDENTITY, 0xcbf2_9ce4_8422_2325);
    }
}
