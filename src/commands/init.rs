//! `grader init [--lang c|rust|python] DIR`: a ready project for a student,
//! written from what the binary carries (the lab kit), so `grader init`
//! then `grader check` works on a machine with only the binary and a
//! compiler.
//!
//! Each project holds the three functions as stubs that compile and fail
//! cleanly (every test answers "wrong", none crashes), whatever the language
//! needs to build locally, and a short README. Nothing in it comes from the
//! cases: no hidden case, no answer, no solution.

use anyhow::{Context, bail};
use std::io::Write;
use std::path::Path;

use crate::cli::{InitArgs, Lang};
use crate::exit;
use crate::submission::lab_kit;
use crate::visible::visible_line;

/// The C project's stubs.
const C_STUB: &str = r#"/* sudoku.c: the Sudoku backtracking lab, in C.
 *
 * Fill in the three functions (the lab's listing shows how), then run
 *     grader check
 * in this folder. The board is N*N bytes, row-major, N = n*n; 0 is an empty
 * cell. Rows and columns count from 0, as in sudoku_lab.h.
 */
#include "sudoku_lab.h"

/* True iff digit v is not in row r, column c, or the n x n box of (r, c). */
bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
    (void)board; (void)n; (void)r; (void)c; (void)v;
    return false; /* TODO */
}

/* Writes an empty cell to *r, *c and returns true; false iff the board is full. */
bool find_empty(const uint8_t *board, size_t n, size_t *r, size_t *c) {
    (void)board; (void)n; (void)r; (void)c;
    return false; /* TODO */
}

/* Fills the board in place; true iff a solution exists. Write a digit,
 * recurse, and clear the cell (back to 0) when the recursive call fails. */
bool solve(uint8_t *board, size_t n) {
    (void)board; (void)n;
    return false; /* TODO */
}

uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
"#;

/// The C project's Makefile: the library goes into `build/`, never beside
/// `sudoku.c` (a folder with both is refused as ambiguous).
const C_MAKEFILE: &str = "# Build the library into build/ (not beside sudoku.c: the grader refuses a\n\
# folder holding both a .c and a .so). `grader check` builds sudoku.c itself.\n\
CC ?= cc\n\
CFLAGS ?= -O2 -std=c11 -Wall -Wextra\n\
\n\
build/libsudoku.so: sudoku.c sudoku_lab.h\n\
\tmkdir -p build\n\
\t$(CC) $(CFLAGS) -shared -fPIC -I. -o $@ sudoku.c\n\
\n\
check:\n\
\tgrader check .\n\
\n\
clean:\n\
\trm -rf build\n\
\n\
.PHONY: check clean\n";

/// The Rust project's manifest; `{name}` is the crate name.
const RUST_MANIFEST: &str = r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
crate-type = ["cdylib"]

[dependencies]
# The lab crate, vendored by `grader init`: the board, the trait, the macro.
sudoku-lab = { path = "sudoku-lab" }

# This crate stands alone, even inside another project's workspace.
[workspace]
"#;

/// The Rust project's stubs.
const RUST_STUB: &str = r#"//! The Sudoku backtracking lab, in Rust: fill in the three functions (the
//! lab's listing shows how), then run `grader check` in this folder.
//! Rows and columns count from 0.

use sudoku_lab::{Board, Sudoku};

/// My solver.
pub struct Mine;

impl Sudoku for Mine {
    /// True iff digit `v` is not in row `r`, column `c`, or the box of `(r, c)`.
    fn legal(&self, _board: &Board, _r: usize, _c: usize, _v: u8) -> bool {
        false // TODO
    }

    /// An empty cell as `(row, column)`, or `None` iff the board is full.
    fn find_empty(&self, _board: &Board) -> Option<(usize, usize)> {
        None // TODO
    }

    /// Fills the board in place; true iff a solution exists. Write a digit,
    /// recurse, and clear the cell (back to 0) when the recursive call fails.
    fn solve(&self, _board: &mut Board) -> bool {
        false // TODO
    }
}

sudoku_lab::export_c_abi!(Mine);
"#;

/// The Python project's stubs, with the seed listing's signatures.
pub(crate) const PYTHON_STUB: &str = r#""""The Sudoku backtracking lab, in Python.

Fill in the three functions (the lab's listing shows how), then run
`grader check` in this folder. `board` is a list of N lists of N ints,
N = n * n; 0 is an empty cell. Rows and columns count from 0.
"""


def legal(board, r, c, v, n=2):
    """True iff digit v is not in row r, column c, or the n x n box of (r, c)."""
    return False  # TODO


def find_empty(board):
    """An empty cell as (r, c), or None iff the board is full."""
    return None  # TODO


def solve(board, n=2):
    """Fill the board in place; True iff a solution exists. Write a digit,
    recurse, and clear the cell (back to 0) when the recursive call fails."""
    return False  # TODO
"#;

/// Runs `grader init`.
pub fn run(args: &InitArgs) -> anyhow::Result<u8> {
    let dir = &args.dir;
    let shown = visible_line(&dir.to_string_lossy()).into_owned();
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).with_context(|| format!("cannot read {shown}"))?;
        if entries.next().is_some() {
            bail!(
                "{shown} already exists and is not empty: give `grader init` a new folder name (nothing was written)"
            );
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {shown}"))?;
    write_project(dir, args.lang)
        .with_context(|| format!("cannot write the project in {shown}"))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "wrote a {} project in {shown}", args.lang.name())?;
    writeln!(
        out,
        "next: cd {shown}, fill in legal, find_empty and solve, then run `grader check`"
    )?;
    Ok(exit::SUCCESS)
}

/// Writes the project for `lang` into the existing folder `dir`.
///
/// # Errors
/// When a file cannot be written.
pub fn write_project(dir: &Path, lang: Lang) -> std::io::Result<()> {
    std::fs::write(dir.join("README.md"), readme(lang))?;
    match lang {
        Lang::C => {
            std::fs::write(dir.join("sudoku.c"), C_STUB)?;
            lab_kit::write_header(dir)?;
            std::fs::write(dir.join("Makefile"), C_MAKEFILE)?;
        }
        Lang::Rust => {
            std::fs::create_dir_all(dir.join("src"))?;
            let name = crate_name(dir);
            std::fs::write(
                dir.join("Cargo.toml"),
                RUST_MANIFEST.replace("{name}", &name),
            )?;
            std::fs::write(dir.join("src").join("lib.rs"), RUST_STUB)?;
            lab_kit::write_lab_crate(&dir.join("sudoku-lab"))?;
            std::fs::write(dir.join(".gitignore"), "/target\n")?;
        }
        Lang::Python => {
            std::fs::write(dir.join("sudoku.py"), PYTHON_STUB)?;
        }
    }
    Ok(())
}

/// A crate name from the folder's name: letters, digits, `-` and `_`
/// kept, anything else made `-`; `sudoku` when nothing usable is left or it
/// does not start with a letter.
fn crate_name(dir: &Path) -> String {
    let base = std::fs::canonicalize(dir)
        .ok()
        .and_then(|d| d.file_name().map(|f| f.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let name: String = base
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '_' || ch == '-' {
                ch.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_matches('-').to_string();
    if name.starts_with(|ch: char| ch.is_ascii_alphabetic()) && name != "sudoku-lab" {
        name
    } else {
        "sudoku".to_string()
    }
}

/// The project's README: what is here, how to build and check it.
fn readme(lang: Lang) -> String {
    let (files, build) = match lang {
        Lang::C => (
            "- `sudoku.c`: your code; the three functions are stubs that answer \"no\".\n\
             - `sudoku_lab.h`: the lab's C interface (do not change it).\n\
             - `Makefile`: `make` builds `build/libsudoku.so`; `make check` runs `grader check`.\n",
            "make            # compile; the compiler's warnings help\n\
             grader check    # build and test against the public cases\n",
        ),
        Lang::Rust => (
            "- `src/lib.rs`: your code; the three functions are stubs that answer \"no\".\n\
             - `sudoku-lab/`: the lab crate (the board, the `Sudoku` trait, the export macro); do not change it.\n\
             - `Cargo.toml`: a `cdylib` that depends on `sudoku-lab` by path.\n",
            "cargo build     # compile\n\
             grader check    # build and test against the public cases\n",
        ),
        Lang::Python => (
            "- `sudoku.py`: your code, with the listing's signatures; the three functions are stubs.\n",
            "grader check    # test against the public cases (needs python3)\n",
        ),
    };
    format!(
        "# The Sudoku backtracking lab\n\n\
         Write `legal`, `find_empty` and `solve` as in the lab's listing: find an empty\n\
         cell, try each legal digit, write it, recurse, and clear the cell when the\n\
         recursive call fails. Rows and columns count from 0.\n\n\
         ## What is here\n\n{files}\n\
         ## Build and check\n\n```sh\n{build}grader check -v          # every test, not only the first failure\n\
         grader check --watch     # re-run whenever you save\n```\n\n\
         `grader check` runs the public cases only; your grade also counts hidden\n\
         cases, so make your code right for every board, not only these.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crate_names_are_valid() {
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("My Lab!");
        std::fs::create_dir(&odd).unwrap();
        assert_eq!(crate_name(&odd), "my-lab");
        let digits = dir.path().join("2024");
        std::fs::create_dir(&digits).unwrap();
        assert_eq!(crate_name(&digits), "sudoku");
    }

    #[test]
    fn every_language_writes_its_files() {
        for (lang, files) in [
            (Lang::C, &["sudoku.c", "sudoku_lab.h", "Makefile"][..]),
            (
                Lang::Rust,
                &["Cargo.toml", "src/lib.rs", "sudoku-lab/Cargo.toml"][..],
            ),
            (Lang::Python, &["sudoku.py"][..]),
        ] {
            let dir = tempfile::tempdir().unwrap();
            write_project(dir.path(), lang).unwrap();
            assert!(dir.path().join("README.md").is_file());
            for file in files {
                assert!(dir.path().join(file).is_file(), "{lang:?}: {file}");
            }
        }
    }
}
