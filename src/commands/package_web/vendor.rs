//! The npm packages a web site vendors, pinned by `vendor.lock` (built into
//! grader): Pyodide, taken at packaging time from an npm package on disk
//! (unpacked, as `npm ci --prefix web` leaves it, or the tarball `npm pack`
//! writes) and checked file by file; and `coi-serviceworker`, small enough
//! to be committed (`web/page/coi-serviceworker.js`) and checked the same
//! way by a test.

use anyhow::{Context, bail};
use serde::Deserialize;
use sha2::{Digest, Sha256, Sha512};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// The lock file's text.
pub(super) const LOCK: &str = include_str!("vendor.lock");

/// One pinned npm package.
#[derive(Debug, Deserialize)]
pub(super) struct Pin {
    /// The npm version.
    pub(super) version: String,
    /// The npm integrity of its tarball (`sha512-...`, base64).
    pub(super) integrity: String,
    /// Each file the site takes from it, with its SHA-256 (hex).
    pub(super) files: BTreeMap<String, String>,
}

/// The lock file read.
#[derive(Debug, Deserialize)]
pub(super) struct Pins {
    /// Pyodide.
    pub(super) pyodide: Pin,
    /// coi-serviceworker.
    #[serde(rename = "coi-serviceworker")]
    pub(super) coi_serviceworker: Pin,
}

/// The pins, read once (the lock file is part of the binary: a unit test
/// reads it).
pub(super) static PINS: LazyLock<Pins> =
    LazyLock::new(|| toml::from_str(LOCK).expect("vendor.lock is valid (a unit test reads it)"));

/// SHA-256 of `bytes`, in hex.
pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The npm integrity string (`sha512-` and base64) of `bytes`.
pub(super) fn integrity(bytes: &[u8]) -> String {
    use base64::Engine;
    format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(Sha512::digest(bytes))
    )
}

/// Refuses a built-in coi-serviceworker that is not the pinned one (a
/// grader built from an edited `web/page/coi-serviceworker.js`).
///
/// # Errors
/// When its SHA-256 differs from the pin.
pub(super) fn check_coi_serviceworker(bytes: &[u8]) -> anyhow::Result<()> {
    let pin = &PINS.coi_serviceworker;
    if sha256_hex(bytes) != pin.files["coi-serviceworker.js"] {
        bail!(
            "this grader was built with a coi-serviceworker.js that is not version {} as pinned in vendor.lock: \
             restore web/page/coi-serviceworker.js from `npm pack coi-serviceworker@{}` and build grader again",
            pin.version,
            pin.version
        );
    }
    Ok(())
}

/// Where the Pyodide package was found.
#[derive(Debug)]
pub(super) enum Pyodide {
    /// An unpacked npm package (`node_modules/pyodide`).
    Folder(PathBuf),
    /// The tarball of `npm pack pyodide@VERSION`.
    Tarball(PathBuf),
}

/// What to do when no Pyodide package is at hand.
fn how_to_get() -> String {
    let version = &PINS.pyodide.version;
    format!(
        "get the pinned package with `npm pack pyodide@{version}` and pass `--pyodide pyodide-{version}.tgz`, \
         or run `npm ci --prefix web` in grader's source folder"
    )
}

impl Pyodide {
    /// The package `--pyodide` names, else `web/node_modules/pyodide` in
    /// the current folder or in the source folder grader was built from.
    ///
    /// # Errors
    /// When `given` does not exist, or nothing was given and neither
    /// default exists: the message says how to get the pinned package.
    pub(super) fn find(given: Option<&Path>) -> anyhow::Result<Pyodide> {
        if let Some(path) = given {
            if path.is_dir() {
                return Ok(Pyodide::Folder(path.to_path_buf()));
            }
            if path.is_file() {
                return Ok(Pyodide::Tarball(path.to_path_buf()));
            }
            bail!(
                "--pyodide {}: no such file or folder; {}",
                path.display(),
                how_to_get()
            );
        }
        let beside = Path::new("web/node_modules/pyodide");
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(beside);
        for candidate in [beside.to_path_buf(), source] {
            if candidate.join("package.json").is_file() {
                return Ok(Pyodide::Folder(candidate));
            }
        }
        bail!(
            "no Pyodide package: the site serves Pyodide {} itself; {}",
            PINS.pyodide.version,
            how_to_get()
        )
    }

    /// The pinned files, by their path in the site (`pyodide/...`), each
    /// checked against its pinned SHA-256 (and a tarball against its
    /// integrity).
    ///
    /// # Errors
    /// When a file is missing or differs from the pin: the message names
    /// it and says how to get the pinned package.
    pub(super) fn files(&self) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
        let pin = &PINS.pyodide;
        let mut contents: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        let shown = match self {
            Pyodide::Folder(dir) => {
                for name in pin.files.keys() {
                    let path = dir.join(name);
                    let bytes = std::fs::read(&path).with_context(|| {
                        format!(
                            "the Pyodide package in {} has no readable {name}: it is not Pyodide {}; {}",
                            dir.display(),
                            pin.version,
                            how_to_get()
                        )
                    })?;
                    contents.insert(name.clone(), bytes);
                }
                dir.display().to_string()
            }
            Pyodide::Tarball(path) => {
                let bytes = std::fs::read(path)
                    .with_context(|| format!("cannot read --pyodide {}", path.display()))?;
                if integrity(&bytes) != pin.integrity {
                    bail!(
                        "--pyodide {} is not the pinned npm tarball of Pyodide {} (its checksum differs); {}",
                        path.display(),
                        pin.version,
                        how_to_get()
                    );
                }
                let mut entries = super::tar::gzip_entries(&bytes)
                    .with_context(|| format!("cannot unpack {}", path.display()))?;
                for name in pin.files.keys() {
                    let bytes = entries
                        .remove(&format!("package/{name}"))
                        .with_context(|| format!("{} has no {name}", path.display()))?;
                    contents.insert(name.clone(), bytes);
                }
                path.display().to_string()
            }
        };
        let mut files = Vec::new();
        for (name, bytes) in contents {
            if sha256_hex(&bytes) != pin.files[&name] {
                bail!(
                    "{name} in the Pyodide package {shown} differs from Pyodide {}'s (its SHA-256 is not the pinned one); {}",
                    pin.version,
                    how_to_get()
                );
            }
            files.push((format!("pyodide/{name}"), bytes));
        }
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_file_reads_and_pins_what_the_site_needs() {
        let pins = &*PINS;
        assert!(pins.pyodide.integrity.starts_with("sha512-"));
        for name in ["pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip"] {
            assert_eq!(pins.pyodide.files[name].len(), 64, "{name}");
        }
    }

    #[test]
    fn the_pins_are_the_files_and_version_the_engine_loads() {
        let pinned: Vec<&str> = PINS.pyodide.files.keys().map(String::as_str).collect();
        let mut loaded = crate::web_engine::PYODIDE_FILES.to_vec();
        loaded.sort_unstable();
        assert_eq!(pinned, loaded);
        assert_eq!(PINS.pyodide.version, crate::web_engine::PYODIDE_VERSION);
    }

    #[test]
    fn the_committed_coi_serviceworker_is_the_pinned_one() {
        let committed = include_bytes!("../../../web/page/coi-serviceworker.js");
        check_coi_serviceworker(committed).unwrap();
        assert!(check_coi_serviceworker(b"edited").is_err());
    }

    #[test]
    fn integrity_is_npms_form() {
        // `printf abc | openssl dgst -sha512 -binary | base64`
        assert_eq!(
            integrity(b"abc"),
            "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw=="
        );
    }
}
