//! Build script: fingerprints the code a worker runs, for
//! `grader::worker::BUILD_IDENTITY` (see `src/worker/identity.rs`).
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
