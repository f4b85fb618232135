//! Building a submission into something a worker can load (SPEC 5): a
//! shared library with the lab's C ABI, or a Python file — inside the
//! submission's box ([`crate::sandbox`]). The grader copies what
//! the build needs into the box's `work/` folder (the box user's), the
//! compiler runs there as a confined run of the box, and the product is
//! copied into the box's read-only `code/` folder (`0644`), which the tests
//! load.
//!
//! - **Rust**: the crate is copied into `work/crate` (the student's folder
//!   is never written to: no `Cargo.lock`, no `target/`), its manifest is
//!   checked and adjusted by `crate::submission::manifest` — a `cdylib` with a
//!   library name unique to the student, the `sudoku-lab` dependency
//!   pointed at the box's read-only copy of the lab crate, the grader's own
//!   empty `[workspace]` — and built by the toolchain's own `cargo` with
//!   `cargo build --release --offline --lib`, in a cleared environment, a
//!   target folder and `CARGO_HOME` of its own (nothing shared with another
//!   student: no lock, no artefact).
//! - **C**: a private copy of the file, `submission.c`, compiled in
//!   `work/src` by `cc -O2 -shared -fPIC -pthread -I <lab>/include -o
//!   <work>/lib.so submission.c -lm`: fixed arguments only, so no
//!   student-chosen name ever reaches the compiler's command line (`@opts.c`
//!   would read options from a file, `-wrapper.c` would be one), and the
//!   compiler's default dialect (GNU C, so POSIX names such as `pid_t` and
//!   `usleep` compile as they do everywhere else). Messages name the
//!   student's file again.
//! - **Library** (`.so`) and **Python** (`.py`): copied as they are; a
//!   notebook (`.ipynb`) is written as the Python its code cells make
//!   (`src/submission/notebook.rs`), under its own name.
//!
//! The box kills a build at its time limit, with everything it started.
//! Its output becomes the failure message, trimmed to the errors.
//!
//! What is read is checked first, by its size on disk and never by reading
//! it: a source file at most 1 MiB, a crate at most 16 MiB in all, a `.so`
//! at most 64 MiB (so a sparse 1 GiB file costs nothing to refuse). A
//! symbolic link anywhere in a submission is refused, never followed: it
//! could name the hidden cases or another student's files.
//!
//! These checks, the manifest rules of `crate::submission::manifest` and
//! the source rules of `crate::submission::scan` are defence in depth: the
//! box the build runs in is the real line. What they refuse is refused
//! with a message saying why, as a build error (the student's to fix); a
//! missing compiler or a folder the grader cannot make is the grader's
//! fault ([`BuildFailure::Grader`]).
//!
//! One module per concern: where the tools are (`toolchain.rs`), the
//! builds (`compile.rs`), copying within size budgets (`copy.rs`), slot
//! names (`slot.rs`), trimming compiler output (`trim.rs`), and why a
//! build failed ([`BuildFailure`], `failure.rs`); this file is the entry,
//! [`build`].

mod compile;
mod copy;
pub(crate) mod failure;
mod rust_cache;
mod slot;
mod toolchain;
mod trim;
pub mod warnings;

pub use failure::BuildFailure;
pub use toolchain::{BuildContext, BuildSetupError, C_TIME_LIMIT, RUST_TIME_LIMIT, RustToolchain};

use std::path::{Path, PathBuf};

use crate::sandbox::SubmissionBox;
use crate::submission::discover::{Submission, SubmissionKind};

use compile::{build_c, build_rust};
use copy::{
    MAX_LIBRARY_BYTES, MAX_SOURCE_BYTES, copy_limited, grader_io, notebook_as_python,
    refuse_symlink, set_mode,
};

/// A built submission, ready for a worker to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltCode {
    path: PathBuf,
    notes: Vec<String>,
    notebook: Option<grader_judge::notebook::Converted>,
    warnings: Vec<warnings::CompilerWarning>,
}

impl BuiltCode {
    /// The shared library (or Python file) to load; alone in its folder,
    /// world-readable.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the student should know about how the code was taken (a
    /// notebook's cells), for their own output.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The compiler's warnings about the student's own files (kept when
    /// the context asks for them: `grader check`).
    pub fn warnings(&self) -> &[warnings::CompilerWarning] {
        &self.warnings
    }

    /// What to do when importing a notebook raised in a cell's top-level
    /// code (`message`, the load error): that cell named, with the fix
    /// (see [`grader_judge::notebook::Converted::import_crash`]).
    pub(crate) fn notebook_import_crash(&self, line: usize) -> Option<String> {
        self.notebook.as_ref()?.import_crash(line)
    }
}

/// Builds `sub` as `kind` inside its box: the submission is copied into
/// the box, the compiler runs there (confined as the box's user, see
/// [`crate::sandbox`]), and the product is copied into the box's
/// read-only `code/` folder, from which the tests load it.
///
/// # Errors
/// A [`BuildFailure`] saying why, with the compiler's trimmed output.
pub fn build(
    sub: &Submission,
    kind: SubmissionKind,
    ctx: &BuildContext,
    sandbox: &mut SubmissionBox<'_>,
) -> Result<BuiltCode, BuildFailure> {
    // The student's own folder around a single file must not be a link
    // either (it could hold another student's file).
    if let Some(folder) = sub
        .path
        .parent()
        .filter(|f| kind != SubmissionKind::Rust && f.file_name().is_some_and(|n| *n == *sub.id))
    {
        refuse_symlink(folder)?;
    }
    let code = sandbox.code_dir();
    let mut notes = Vec::new();
    let mut notebook = None;
    let mut warnings = Vec::new();
    let built = match kind {
        SubmissionKind::C | SubmissionKind::Rust => {
            let (built, found) = match kind {
                SubmissionKind::C => build_c(sub, ctx, sandbox)?,
                _ => build_rust(sub, ctx, sandbox)?,
            };
            warnings = found;
            built
        }
        SubmissionKind::Library => copy_limited(
            &sub.path,
            &code.join("lib.so"),
            MAX_LIBRARY_BYTES,
            "library",
        )?,
        SubmissionKind::Python => {
            let name = sub.path.file_name().ok_or_else(|| {
                BuildFailure::Invalid(format!("{} is not a file", sub.path.display()))
            })?;
            if crate::submission::notebook::is_notebook(&sub.path) {
                let (built, converted) = notebook_as_python(&sub.path, &code.join(name))?;
                notes.push(converted.note.clone());
                notebook = Some(converted);
                built
            } else {
                copy_limited(&sub.path, &code.join(name), MAX_SOURCE_BYTES, "source file")?
            }
        }
    };
    set_mode(&built, 0o644).map_err(|e| grader_io("make the build readable", &built, e))?;
    Ok(BuiltCode {
        path: built,
        notes,
        notebook,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::submission::discover::classify;
    use crate::verdict::{Fault, FaultKind};
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::time::Duration;

    const GOOD_C: &str = r#"#include "sudoku_lab.h"
bool legal(const uint8_t *b, size_t n, size_t r, size_t c, uint8_t v) { (void)b; (void)n; (void)r; (void)c; (void)v; return true; }
bool find_empty(const uint8_t *b, size_t n, size_t *r, size_t *c) { (void)b; (void)n; *r = 0; *c = 0; return false; }
bool solve(uint8_t *b, size_t n) { (void)b; (void)n; return false; }
uint32_t sudoku_abi_version(void) { return SUDOKU_ABI_VERSION; }
"#;

    fn lab() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("lab")
    }

    fn context() -> BuildContext {
        BuildContext::with_lab(&lab()).expect("the lab crate is in the source tree")
    }

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).expect("metadata").permissions().mode() & 0o777
    }

    /// Builds `file` as `kind` in a fresh box.
    fn build_in_box(
        file: &Path,
        kind: SubmissionKind,
        ctx: &BuildContext,
    ) -> (Result<BuiltCode, BuildFailure>, Vec<u8>) {
        let env = crate::sandbox::SandboxEnv::for_tests();
        let mut sandbox = SubmissionBox::open(&env, &ctx.views_for(kind)).expect("a box");
        let built = build(&classify(file), kind, ctx, &mut sandbox);
        let bytes = built
            .as_ref()
            .map(|b| fs::read(b.path()).expect("read the product"))
            .unwrap_or_default();
        if let Ok(code) = &built {
            assert_eq!(code.path().parent(), Some(sandbox.code_dir().as_path()));
            assert_eq!(mode(code.path()), 0o644);
        }
        (built, bytes)
    }

    #[test]
    fn a_good_c_file_builds_into_the_boxs_code_folder() {
        let src = tempfile::tempdir().expect("tempdir");
        let file = src.path().join("alice.c");
        fs::write(&file, GOOD_C).expect("write");
        let (built, bytes) = build_in_box(&file, SubmissionKind::C, &context());
        let built = built.expect("builds");
        assert_eq!(
            built.path().file_name().and_then(|n| n.to_str()),
            Some("lib.so")
        );
        assert_eq!(&bytes[..4], b"\x7fELF");
        // The student's folder is unchanged, and the box is gone.
        assert_eq!(fs::read_dir(src.path()).expect("read").count(), 1);
        assert!(!built.path().exists(), "the box folder goes with the box");
    }

    #[test]
    fn a_bad_c_file_fails_with_the_error_line_and_no_temp_paths() {
        let src = tempfile::tempdir().expect("tempdir");
        let file = src.path().join("bob.c");
        fs::write(
            &file,
            GOOD_C.replace("return false; }\nuint32_t", "return false }\nuint32_t"),
        )
        .expect("write");
        let (built, _) = build_in_box(&file, SubmissionKind::C, &context());
        let err = built.expect_err("does not build");
        let message = err.to_string();
        assert_eq!(err.fault(), None);
        assert!(message.starts_with("cc failed:\n"), "{message}");
        assert!(message.contains("bob.c:4:"), "{message}");
        assert!(message.contains("error: expected ';'"), "{message}");
        assert!(!message.contains("submission.c"), "{message}");
        assert!(
            !message.contains(&src.path().display().to_string()),
            "{message}"
        );
        assert!(!message.contains("/box-"), "{message}");
    }

    #[test]
    fn a_c_file_is_compiled_as_a_private_copy_under_a_fixed_name() {
        let src = tempfile::tempdir().expect("tempdir");
        // A name cc would read as an option file, next to such a file.
        fs::write(src.path().join("x.c"), "-wrapper /bin/sh,-c,touch\n").expect("write");
        let file = src.path().join("@x.c");
        // POSIX names compile in the compiler's default dialect.
        let posix = GOOD_C.replace(
            "uint32_t sudoku_abi_version",
            "#include <sys/types.h>\n#include <unistd.h>\nstatic pid_t unused(void) { usleep(0); return getpid(); }\nuint32_t sudoku_abi_version",
        );
        fs::write(&file, posix).expect("write");
        let (built, bytes) = build_in_box(&file, SubmissionKind::C, &context());
        built.expect("builds as an ordinary source");
        assert_eq!(&bytes[..4], b"\x7fELF");
        // A compile error names the student's file, not the copy.
        fs::write(&file, "int broken(void) { return }\n").expect("write");
        let err = build_in_box(&file, SubmissionKind::C, &context())
            .0
            .expect_err("does not build");
        assert!(err.to_string().contains("@x.c:1:"), "{err}");
        assert!(!err.to_string().contains("submission.c"), "{err}");
    }

    #[test]
    fn links_and_oversized_files_are_refused_before_reading() {
        let src = tempfile::tempdir().expect("tempdir");
        let ctx = context();
        let link = src.path().join("eve.c");
        std::os::unix::fs::symlink("/etc/passwd", &link).expect("symlink");
        let err = build_in_box(&link, SubmissionKind::C, &ctx)
            .0
            .expect_err("a link");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(err.fault(), None);
        // A student's folder that is a link to another student's folder.
        let other = src.path().join("other");
        fs::create_dir_all(&other).expect("mkdir");
        fs::write(other.join("sol.c"), GOOD_C).expect("write");
        std::os::unix::fs::symlink(&other, src.path().join("frank")).expect("symlink");
        let err = build_in_box(&src.path().join("frank"), SubmissionKind::C, &ctx)
            .0
            .expect_err("a linked folder");
        assert!(
            err.to_string().contains("frank is a symbolic link"),
            "{err}"
        );
        // A sparse 1 GiB library costs nothing to refuse.
        let huge = src.path().join("huge.so");
        fs::File::create(&huge)
            .and_then(|f| f.set_len(1 << 30))
            .expect("sparse file");
        let err = build_in_box(&huge, SubmissionKind::Library, &ctx)
            .0
            .expect_err("too big");
        assert!(
            err.to_string().contains("over the limit of 64 MiB"),
            "{err}"
        );
        let big_c = src.path().join("big.c");
        fs::File::create(&big_c)
            .and_then(|f| f.set_len(MAX_SOURCE_BYTES + 1))
            .expect("sparse file");
        let err = build_in_box(&big_c, SubmissionKind::C, &ctx)
            .0
            .expect_err("too big");
        assert!(err.to_string().contains("over the limit of 1 MiB"), "{err}");
        // A crate: a huge manifest, then a source that is a link.
        let krate = src.path().join("mallory");
        fs::create_dir_all(krate.join("src")).expect("mkdir");
        fs::File::create(krate.join("Cargo.toml"))
            .and_then(|f| f.set_len(1 << 30))
            .expect("sparse file");
        let err = build_in_box(&krate, SubmissionKind::Rust, &ctx)
            .0
            .expect_err("too big");
        assert!(
            err.to_string().contains("over the limit of 64 KiB"),
            "{err}"
        );
        fs::write(
            krate.join("Cargo.toml"),
            "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
        )
        .expect("write");
        std::os::unix::fs::symlink("/etc/passwd", krate.join("src/lib.rs")).expect("symlink");
        let err = build_in_box(&krate, SubmissionKind::Rust, &ctx)
            .0
            .expect_err("a link");
        assert!(
            err.to_string().contains("src/lib.rs is a symbolic link"),
            "{err}"
        );
    }

    #[test]
    fn a_build_past_its_time_limit_is_killed() {
        // A preprocessor bomb: 2^40 tokens, far past any time limit.
        let src = tempfile::tempdir().expect("tempdir");
        let file = src.path().join("carol.c");
        let mut bomb = String::from("#define A0 1, 1,\n");
        for i in 1..40 {
            bomb.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
        }
        bomb.push_str("int x[] = { A39 };\n");
        fs::write(&file, bomb).expect("write");
        let mut ctx = context();
        ctx.c_time_limit = Duration::from_millis(500);
        let start = std::time::Instant::now();
        let (built, _) = build_in_box(&file, SubmissionKind::C, &ctx);
        let err = built.expect_err("times out");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
        assert!(matches!(err, BuildFailure::Timeout { .. }), "{err:?}");
        assert!(
            err.to_string().contains("more than 0.5 s of CPU time"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_compiler_is_the_graders_fault() {
        let src = tempfile::tempdir().expect("tempdir");
        let file = src.path().join("dave.c");
        fs::write(&file, GOOD_C).expect("write");
        let mut ctx = context();
        ctx.cc = src.path().join("no-such-cc");
        let (built, _) = build_in_box(&file, SubmissionKind::C, &ctx);
        let err = built.expect_err("no cc");
        assert_eq!(err.fault(), Some(Fault::grader(FaultKind::Toolchain)));
        assert!(err.to_string().contains("no C compiler"), "{err}");
    }

    #[test]
    fn libraries_and_python_files_are_copied() {
        let src = tempfile::tempdir().expect("tempdir");
        let so = src.path().join("erin.so");
        fs::write(&so, b"\x7fELF fake").expect("write");
        let py = src.path().join("frank.py");
        fs::write(&py, "def solve(board, n=2):\n    return False\n").expect("write");
        let ctx = context();
        let (built, bytes) = build_in_box(&so, SubmissionKind::Library, &ctx);
        built.expect("copied");
        assert_eq!(bytes, b"\x7fELF fake");
        let (built, _) = build_in_box(&py, SubmissionKind::Python, &ctx);
        assert_eq!(
            built
                .expect("copied")
                .path()
                .file_name()
                .and_then(|n| n.to_str()),
            Some("frank.py")
        );
    }

    #[test]
    fn a_rust_crate_builds_without_touching_the_students_folder() {
        let src = tempfile::tempdir().expect("tempdir");
        let dir = src.path().join("grace");
        fs::create_dir_all(dir.join("src")).expect("mkdir");
        fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"grace\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nsudoku-lab = { path = \"../lab\" }\n",
        )
        .expect("write");
        fs::write(
            dir.join("src/lib.rs"),
            "pub struct S;\nimpl sudoku_lab::Sudoku for S {\n    fn legal(&self, b: &sudoku_lab::Board, r: usize, c: usize, v: u8) -> bool { b.get(r, c) == 0 && v > 0 }\n    fn find_empty(&self, b: &sudoku_lab::Board) -> Option<(usize, usize)> { (0..b.side()).find(|&c| b.get(0, c) == 0).map(|c| (0, c)) }\n    fn solve(&self, _: &mut sudoku_lab::Board) -> bool { false }\n}\nsudoku_lab::export_c_abi!(S);\n",
        )
        .expect("write");
        let ctx = context();
        let (built, bytes) = build_in_box(&dir, SubmissionKind::Rust, &ctx);
        built.expect("builds");
        assert_eq!(&bytes[..4], b"\x7fELF");
        let mut names: Vec<String> = fs::read_dir(&dir)
            .expect("read")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["Cargo.toml", "src"],
            "no Cargo.lock or target/ left behind"
        );

        // A type error comes back as the compiler's error line, with the
        // path relative to the crate.
        fs::write(dir.join("src/lib.rs"), "pub fn f() -> bool { 1usize }\n").expect("write");
        let (built, _) = build_in_box(&dir, SubmissionKind::Rust, &ctx);
        let err = built.expect_err("type error");
        let message = err.to_string();
        assert!(message.starts_with("cargo build failed:\n"), "{message}");
        assert!(message.contains("src/lib.rs:1:"), "{message}");
        assert!(message.contains("mismatched types"), "{message}");
        assert!(!message.contains("Compiling"), "{message}");
        assert!(!message.contains("/box-"), "{message}");
    }
}
