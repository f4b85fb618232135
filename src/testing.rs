//! What a unit test does when the host lacks what it needs (root,
//! cgroups, namespaces): it says so and stops, except under `CI=true`,
//! where it fails, so that no test passes on CI by doing nothing. One
//! helper for the unit tests and the integration tests alike (these call
//! it as `grader::testing::needs`); no command uses it.

/// Whether a test may go on, needing `what`; `available` says whether the
/// host has it.
pub fn needs(what: &str, available: bool) -> bool {
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
