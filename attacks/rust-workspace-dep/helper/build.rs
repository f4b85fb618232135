fn main() {
    let _ = std::fs::write("/tmp/grader-fixture-escaped-workspace-dep", "ran");
}
