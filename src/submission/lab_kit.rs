//! The lab kit: the lab crate (`sudoku-lab`) and the C header, built into
//! the binary so that one `grader` executable is everything a student or a
//! build needs, with no source checkout of the grader anywhere.
//!
//! [`write_lab_crate`] writes a standalone copy of the crate (its manifest
//! inherits nothing from the grader's workspace, so it builds on its own);
//! [`write_header`] writes `sudoku_lab.h`. `grader init` vendors both into a
//! student's project; a build can write them into its own build folder.

use std::io;
use std::path::Path;

/// The lab crate's manifest. It spells its lints out rather than inheriting
/// the grader's workspace, so the copy builds outside the workspace.
pub(crate) const LAB_MANIFEST: &str = include_str!("../../lab/Cargo.toml");

/// The lab crate's source: `Board`, the `Sudoku` trait, `export_c_abi!`.
pub(crate) const LAB_SOURCE: &str = include_str!("../../lab/src/lib.rs");

/// The C ABI's header, `sudoku_lab.h`.
pub(crate) const LAB_HEADER: &str = include_str!("../../lab/include/sudoku_lab.h");

/// The header's file name.
pub(crate) const HEADER_NAME: &str = "sudoku_lab.h";

/// Writes a buildable copy of the lab crate into `dir` (created if
/// missing): `Cargo.toml`, `src/lib.rs` and `include/sudoku_lab.h`, the
/// layout of the crate in the grader's source.
///
/// # Errors
/// When a folder or file cannot be written.
pub(crate) fn write_lab_crate(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(dir.join("Cargo.toml"), LAB_MANIFEST)?;
    std::fs::write(dir.join("src").join("lib.rs"), LAB_SOURCE)?;
    write_header(&dir.join("include"))
}

/// Writes `sudoku_lab.h` into `dir` (created if missing).
///
/// # Errors
/// When the folder or file cannot be written.
pub(crate) fn write_header(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(HEADER_NAME), LAB_HEADER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_stands_alone() {
        // `workspace = true` anywhere would tie the copy to the grader's
        // workspace, and cargo would refuse to build it elsewhere.
        let doc: toml::Table = toml::from_str(LAB_MANIFEST).expect("the manifest is TOML");
        assert!(!doc.contains_key("workspace"), "{LAB_MANIFEST}");
        let lints = doc["lints"].as_table().expect("[lints]");
        assert!(!lints.contains_key("workspace"), "{LAB_MANIFEST}");
        assert_eq!(doc["package"]["name"].as_str(), Some("sudoku-lab"));
    }

    #[test]
    fn writes_the_crate_layout() {
        let dir = tempfile::tempdir().unwrap();
        write_lab_crate(dir.path()).unwrap();
        for file in ["Cargo.toml", "src/lib.rs", "include/sudoku_lab.h"] {
            assert!(dir.path().join(file).is_file(), "{file}");
        }
        let header = std::fs::read_to_string(dir.path().join("include/sudoku_lab.h")).unwrap();
        assert!(header.contains("bool solve(uint8_t *board, size_t n);"));
    }
}
