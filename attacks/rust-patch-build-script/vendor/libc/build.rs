fn main() {
    let _ = std::fs::write("/tmp/grader-fixture-escaped-patch-build-script", "ran");
}
