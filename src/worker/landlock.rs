//! The Landlock rulesets of a box's children: every run of a box (a build tool, a
//! library test, a Python test) is held to its kind's view
//! ([`crate::sandbox::view`]), path by path: read where the view says
//! read, execute where it says execute, write only the box's work folder
//! (and `/dev/null`), nothing elsewhere; and no signals to processes outside its own domain. With a
//! mount namespace the box's root already holds nothing else; without one
//! this is the only line.

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access as _, AccessFs, BitFlags, CompatLevel, Compatible, RestrictionStatus, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};

use crate::protocol::{Access, View};

/// How far the ruleset could be enforced.
pub(super) enum Enforcement {
    /// Every requested restriction is in force.
    Full,
    /// Some are (an older kernel): what is missing.
    Partial(String),
}

/// The Landlock rights an entry's access gives.
fn rights(access: Access, abi: ABI) -> BitFlags<AccessFs> {
    let read = AccessFs::ReadFile | AccessFs::ReadDir;
    match access {
        Access::Read => read,
        Access::Exec => read | AccessFs::Execute,
        Access::Write => AccessFs::from_all(abi),
        Access::Device => AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate,
    }
}

/// Restricts this process (and everything it starts) to `view`.
///
/// # Errors
/// When the kernel has no Landlock at all, or a ruleset call fails.
pub(super) fn restrict(view: &View) -> Result<Enforcement, String> {
    let abi = ABI::V6;
    let mut rules: Vec<(Vec<PathBuf>, BitFlags<AccessFs>)> = Vec::new();
    for entry in &view.entries {
        if !Path::new(&entry.path).exists() {
            continue;
        }
        rules.push((vec![entry.path.clone()], rights(entry.access, abi)));
    }
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        .map_err(|err| format!("landlock: {err}"))?;
    for (paths, access) in rules {
        ruleset = ruleset
            .add_rules(path_beneath_rules(&paths, access))
            .map_err(|err| format!("landlock: {err}"))?;
    }
    let status: RestrictionStatus = ruleset
        .restrict_self()
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
