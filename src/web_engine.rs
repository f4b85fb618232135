//! The browser check's engine as the binary carries it, for `grader
//! package web` to write into a site folder: the judge compiled to
//! WebAssembly (built by `build.rs` from `crates/judge-web` when the
//! `wasm32-unknown-unknown` target is installed), the JavaScript engine
//! (`web/engine/`), the Node runner (`web/check.mjs`) and the Python
//! harness (the same file as the native check's). Pyodide is not carried:
//! it comes from the npm package (`npm ci --prefix web`).
//!
//! The folder they make (documented atop `web/engine/checker.mjs`):
//! `engine/` (the modules, `judge.wasm`, `python_harness.py`),
//! `pyodide/`, `cases/index.json` and the public cases, `check.mjs`.

/// The judge's WebAssembly, or what to do to get it.
///
/// # Errors
/// When this grader was built without it (no `wasm32-unknown-unknown`
/// target): the message says how to build it in.
pub fn judge_wasm() -> Result<&'static [u8], String> {
    #[cfg(judge_wasm)]
    {
        Ok(include_bytes!(env!("GRADER_JUDGE_WASM")))
    }
    #[cfg(not(judge_wasm))]
    {
        Err(
            "this grader was built without the judge's WebAssembly: run \
             `rustup target add wasm32-unknown-unknown`, then build the grader again \
             (`cargo build --release`; GRADER_NO_JUDGE_WASM must not be set)"
                .to_string(),
        )
    }
}

/// The engine's files, by their path in the site folder, besides
/// `engine/judge.wasm` ([`judge_wasm`]).
pub const ENGINE_FILES: &[(&str, &str)] = &[
    (
        "engine/checker.mjs",
        include_str!("../web/engine/checker.mjs"),
    ),
    (
        "engine/runner.mjs",
        include_str!("../web/engine/runner.mjs"),
    ),
    ("engine/judge.mjs", include_str!("../web/engine/judge.mjs")),
    (
        "engine/platform.mjs",
        include_str!("../web/engine/platform.mjs"),
    ),
    (
        "engine/python-worker.mjs",
        include_str!("../web/engine/python-worker.mjs"),
    ),
    ("engine/python_harness.py", crate::worker::python::HARNESS),
    ("check.mjs", include_str!("../web/check.mjs")),
];

/// The Pyodide files a site needs, from the npm package's folder
/// (`web/node_modules/pyodide` after `npm ci --prefix web`): the loader,
/// the interpreter, the standard library and the lock file it reads.
pub const PYODIDE_FILES: &[&str] = &[
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
    "package.json",
];

/// The Pyodide version the engine is pinned to (`web/package.json`).
pub const PYODIDE_VERSION: &str = "314.0.8";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_pyodide_is_the_one_the_package_names() {
        let package = include_str!("../web/package.json");
        assert!(
            package.contains(&format!("\"pyodide\": \"{PYODIDE_VERSION}\"")),
            "web/package.json pins another pyodide than PYODIDE_VERSION"
        );
    }
}
