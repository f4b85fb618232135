//! What a unit test does when the host lacks what it needs (root,
//! cgroups, namespaces): it says so and stops, except under `CI=true`,
//! where it fails, so that no test passes on CI by doing nothing. The
//! integration tests' twin is `tests/integration/util.rs` (`needs`).

/// Whether a test may go on, needing `what`; `available` says whether the
/// host has it.
pub(crate) fn needs(what: &str, available: bool) -> bool {
    if available {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "this test needs {what}, which this host lacks; on CI it must run"
    );
    eprintln!("skipped: this test needs {what}");
    false
}
