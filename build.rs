//! Build script: fingerprints the code a worker runs, for
//! `grader::worker::BUILD_IDENTITY` (see `src/worker/identity.rs`); and
//! builds the judge for the browser check (`crates/judge-web`, for
//! `wasm32-unknown-unknown`) when that target is installed, for the
//! binary to embed (`grader::web_engine`, `grader package web`).
//!
//! The fingerprint covers every file of `src/worker/`, the `grader-worker`
//! binary, the protocol and the checks it executes, the write watch
//! (`crates/watch`), the lab crate, the
//! manifest and the lock file, and the build profile. Hashing here, rather
//! than in a `const`, costs nothing at compile time however large the files
//! grow.

use std::fs;
use std::path::{Path, PathBuf};

/// Files outside `src/worker/` that decide how a worker answers.
const EXTRA_SOURCES: &[&str] = &[
    "src/bin/grader-worker.rs",
    "src/exit.rs",
    "src/protocol.rs",
    "src/check/mod.rs",
    "crates/judge/src/check/mod.rs",
    "crates/judge/src/check/execute.rs",
    "crates/judge/src/check/probe.rs",
    "crates/judge/src/check/error.rs",
    "lab/src/lib.rs",
    "crates/watch/src/lib.rs",
    "crates/watch/Cargo.toml",
    "Cargo.lock",
    "Cargo.toml",
];

fn main() {
    let mut sources: Vec<PathBuf> = fs::read_dir("src/worker")
        .expect("src/worker is readable")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    sources.sort();
    sources.extend(EXTRA_SOURCES.iter().map(PathBuf::from));

    println!("cargo:rerun-if-changed=src/worker");
    let mut hash = Fnv::new();
    hash.add(env!("CARGO_PKG_VERSION").as_bytes());
    hash.add(std::env::var("PROFILE").unwrap_or_default().as_bytes());
    for source in &sources {
        println!("cargo:rerun-if-changed={}", source.display());
        hash.add(source.to_string_lossy().as_bytes());
        hash.add(&read(source));
    }
    println!("cargo:rustc-env=GRADER_WORKER_IDENTITY={:016x}", hash.0);
    judge_wasm();
}

/// What the judge's WebAssembly is built from.
const JUDGE_WASM_SOURCES: &[&str] = &[
    "crates/judge-web",
    "crates/judge/src",
    "crates/judge/Cargo.toml",
    "lab/src",
    "reference/src",
    "Cargo.lock",
];

/// Builds `crates/judge-web` for `wasm32-unknown-unknown` with a cargo of
/// its own (its own target folder, `target/judge-wasm`, so it never waits
/// on this build's lock), small (`opt-level = "s"`, LTO, no debug info,
/// `panic = "abort"`), and passes its path to the crate as
/// `GRADER_JUDGE_WASM` with the cfg `judge_wasm`. Without the target, or
/// with `GRADER_NO_JUDGE_WASM` set, or when that build fails (a warning),
/// the grader builds without it and `grader package web` says how to get
/// it.
fn judge_wasm() {
    println!("cargo:rustc-check-cfg=cfg(judge_wasm)");
    println!("cargo:rerun-if-env-changed=GRADER_NO_JUDGE_WASM");
    for source in JUDGE_WASM_SOURCES {
        println!("cargo:rerun-if-changed={source}");
    }
    if std::env::var_os("GRADER_NO_JUDGE_WASM").is_some() {
        return;
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = std::process::Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let installed =
        sysroot.is_some_and(|root| root.join("lib/rustlib/wasm32-unknown-unknown/lib").is_dir());
    if !installed {
        return;
    }
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("target"))
        .join("judge-wasm");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = std::process::Command::new(cargo);
    build
        .current_dir(&manifest)
        .args(["build", "--quiet", "--release", "-p", "grader-judge-web"])
        .args(["--target", "wasm32-unknown-unknown", "--target-dir"])
        .arg(&target_dir);
    // This build's own settings are not the wasm build's.
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        let outer = key.starts_with("CARGO_") && key != "CARGO_HOME" && key != "CARGO_MAKEFLAGS";
        if outer || key.starts_with("RUSTC") || key == "RUSTFLAGS" || key == "RUSTDOCFLAGS" {
            build.env_remove(key.as_ref());
        }
    }
    build
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "s")
        .env("CARGO_PROFILE_RELEASE_LTO", "true")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_STRIP", "true")
        .env("CARGO_PROFILE_RELEASE_PANIC", "abort");
    let built = target_dir.join("wasm32-unknown-unknown/release/grader_judge_web.wasm");
    match build.status() {
        Ok(status) if status.success() && built.is_file() => {
            let out =
                PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("judge.wasm");
            if fs::copy(&built, &out).is_ok() {
                println!("cargo:rustc-env=GRADER_JUDGE_WASM={}", out.display());
                println!("cargo:rustc-cfg=judge_wasm");
            }
        }
        Ok(status) => println!(
            "cargo:warning=the judge's WebAssembly (crates/judge-web) did not build ({status}); `grader package web` will say so"
        ),
        Err(error) => println!(
            "cargo:warning=cannot run cargo for the judge's WebAssembly: {error}; `grader package web` will say so"
        ),
    }
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// 64-bit FNV-1a, with a separator after each piece so that moving text
/// between files changes the result.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, bytes: &[u8]) {
        for &byte in bytes.iter().chain(&[0xff]) {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}
