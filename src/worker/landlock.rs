//! The worker's Landlock ruleset: read-only access to the system libraries
//! and to the student's library, nothing else (no writes anywhere, no
//! `/proc`, no case files), and no signals to processes outside the
//! sandbox.

use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, RestrictionStatus, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};

/// What the dynamic loader and a C or Rust library need to read: the
/// library folders and the loader's cache, nothing else of the system (no
/// headers, no `/usr/share`, no `/etc`).
const SYSTEM_PATHS: &[&str] = &[
    "/lib",
    "/lib64",
    "/lib32",
    "/usr/lib",
    "/usr/lib64",
    "/usr/lib32",
    "/usr/local/lib",
    "/etc/ld.so.cache",
];

/// How far the ruleset could be enforced.
pub enum Enforcement {
    /// Every requested restriction is in force.
    Full,
    /// Some are (an older kernel): what is missing.
    Partial(String),
}

/// Restricts this process (and its future threads) to reading
/// [`SYSTEM_PATHS`] and `code`.
///
/// # Errors
/// When the kernel has no Landlock at all, or a ruleset call fails.
pub(super) fn restrict(code: &Path) -> Result<Enforcement, String> {
    let abi = ABI::V6;
    let status: RestrictionStatus = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        .and_then(|r| {
            let present = SYSTEM_PATHS.iter().filter(|p| Path::new(p).exists());
            r.add_rules(path_beneath_rules(present, AccessFs::from_read(abi)))
        })
        .and_then(|r| r.add_rules(path_beneath_rules([code], AccessFs::from_read(abi))))
        .and_then(|r| r.restrict_self())
        .map_err(|err| format!("landlock: {err}"))?;
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok(Enforcement::Full),
        RulesetStatus::PartiallyEnforced => Ok(Enforcement::Partial(format!(
            "landlock is only partly enforced by this kernel ({:?})",
            status.landlock
        ))),
        RulesetStatus::NotEnforced => Err("landlock is not enforced by this kernel".to_string()),
    }
}

/// What a compiler needs to read and execute besides the folders of the
/// job: the system's programs, libraries, headers and configuration, and
/// the few device files.
const BUILD_SYSTEM_PATHS: &[&str] = &[
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/bin",
    "/sbin",
    "/etc",
    "/opt",
    "/proc",
    "/dev/urandom",
    "/dev/random",
];

/// Restricts a build child (and everything it starts) to reading and
/// executing [`BUILD_SYSTEM_PATHS`] and `read`, writing only `write` and
/// `/dev/null`, and signalling only processes of its own domain.
///
/// # Errors
/// When the kernel has no Landlock at all, or a ruleset call fails.
pub(super) fn restrict_build(
    read: &[std::path::PathBuf],
    write: &[std::path::PathBuf],
) -> Result<Enforcement, String> {
    let abi = ABI::V6;
    let existing = |paths: Vec<std::path::PathBuf>| -> Vec<std::path::PathBuf> {
        paths.into_iter().filter(|p| p.exists()).collect()
    };
    let system = existing(BUILD_SYSTEM_PATHS.iter().map(Into::into).collect());
    let read = existing(read.to_vec());
    let write = existing(write.to_vec());
    let status: RestrictionStatus = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(&system, AccessFs::from_read(abi))))
        .and_then(|r| r.add_rules(path_beneath_rules(&read, AccessFs::from_read(abi))))
        .and_then(|r| r.add_rules(path_beneath_rules(&write, AccessFs::from_all(abi))))
        .and_then(|r| {
            r.add_rules(path_beneath_rules(
                ["/dev/null"],
                AccessFs::from_read(abi) | AccessFs::WriteFile,
            ))
        })
        .and_then(|r| r.restrict_self())
        .map_err(|err| format!("landlock: {err}"))?;
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok(Enforcement::Full),
        RulesetStatus::PartiallyEnforced => Ok(Enforcement::Partial(format!(
            "landlock is only partly enforced by this kernel ({:?})",
            status.landlock
        ))),
        RulesetStatus::NotEnforced => Err("landlock is not enforced by this kernel".to_string()),
    }
}
