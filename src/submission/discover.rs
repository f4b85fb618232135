//! Finding the submissions in a folder (SPEC 5): every entry is one student,
//! named by the entry, and what it holds says how to build it.
//!
//! The rules, for an entry of the submissions folder:
//!
//! | entry | kind | id |
//! |---|---|---|
//! | a folder holding `Cargo.toml` | [`SubmissionKind::Rust`] | the folder's name |
//! | a `.c` / `.py` / `.ipynb` / `.so` file | C / Python / Python / Library | the file name without its extension |
//! | a folder holding exactly one `.c`, `.py`, `.ipynb` or `.so` file (next to anything else) | that kind | the folder's name |
//! | a folder holding several, of which one defines `legal`, `find_empty` and `solve` (`super::defines`, read as text) | that one's kind | the folder's name |
//!
//! Of several sources (a student's `sudoku.py` and the `main.py` that
//! imports it), the one that defines the lab's three functions is the
//! submission and the others are named in its notes as ignored; only a
//! real ambiguity (two that define all three, or none) is refused, naming
//! the files.
//!
//! A Jupyter notebook (`.ipynb`) is a Python submission: its code cells are
//! taken as the module when it is built (`src/submission/notebook.rs`).
//!
//! Skipped, so that a submissions folder can carry its own notes: entries
//! whose name starts with `.` (`.git`, `.DS_Store`), and `README.md` and
//! `expected.toml` at the top level. Anything else that fits no rule (an
//! empty folder, a folder with two candidate sources, a `.txt`, two entries
//! with the same id) still becomes a [`Submission`], whose `kind` is an
//! error saying what is wrong and what to do: that student gets a
//! `build_error` and the others are still graded.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

/// Top-level names in a submissions folder that are not submissions.
pub const SKIPPED_NAMES: [&str; 2] = ["README.md", "expected.toml"];

/// One student's submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// The student id: the entry's name (a file's name without extension).
    pub id: String,
    /// What to build: the crate folder for Rust, else the one source or
    /// library file (inside the student's folder if they handed in one).
    pub path: PathBuf,
    /// What kind of code it is, or why it could not be told.
    pub kind: Result<SubmissionKind, String>,
    /// What the student should know about how the upload was read (files
    /// ignored beside the submission), shown in their own output.
    pub notes: Vec<String>,
}

/// The ways a student can hand in the lab (SPEC 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubmissionKind {
    /// A `cdylib` crate (a folder with `Cargo.toml`).
    Rust,
    /// A C source file, built against the lab's header.
    C,
    /// A Python module.
    Python,
    /// A prebuilt shared library with the lab's C ABI.
    Library,
}

impl SubmissionKind {
    /// The name used in reports (SPEC 6): `rust`, `c`, `python`, `library`.
    pub fn name(self) -> &'static str {
        match self {
            SubmissionKind::Rust => "rust",
            SubmissionKind::C => "c",
            SubmissionKind::Python => "python",
            SubmissionKind::Library => "library",
        }
    }

    /// The kind of a single file, from its extension.
    fn of_file(path: &Path) -> Option<SubmissionKind> {
        match path.extension().and_then(OsStr::to_str) {
            Some("c") => Some(SubmissionKind::C),
            Some("py" | "ipynb") => Some(SubmissionKind::Python),
            Some("so") => Some(SubmissionKind::Library),
            _ => None,
        }
    }
}

impl fmt::Display for SubmissionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a submissions folder could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// The folder does not exist.
    #[error("{} does not exist: give the folder that holds one entry per student", .0.display())]
    Missing(PathBuf),
    /// The path is not a folder.
    #[error("{} is not a folder: give the folder that holds one entry per student", .0.display())]
    NotAFolder(PathBuf),
    /// The folder could not be listed.
    #[error("cannot list {}: {source}", .path.display())]
    Read {
        /// The folder.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
}

/// Every submission in `dir`, sorted by id. Entries that fit no rule are
/// submissions with an error `kind`; only an unreadable `dir` is an `Err`.
///
/// # Errors
/// When `dir` is missing, not a folder, or cannot be listed.
pub fn discover(dir: &Path) -> Result<Vec<Submission>, DiscoverError> {
    let meta = match std::fs::metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(DiscoverError::Missing(dir.to_path_buf()));
        }
        Err(source) => {
            return Err(DiscoverError::Read {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    if !meta.is_dir() {
        return Err(DiscoverError::NotAFolder(dir.to_path_buf()));
    }
    let read_err = |source| DiscoverError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut submissions: Vec<(String, Submission)> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read_err)? {
        let entry = entry.map_err(read_err)?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if is_clutter(&name) || SKIPPED_NAMES.contains(&name.as_ref()) {
            continue;
        }
        submissions.push((name.into_owned(), classify(&entry.path())));
    }
    submissions.sort_by(|a, b| a.1.id.cmp(&b.1.id).then_with(|| a.0.cmp(&b.0)));
    mark_duplicate_ids(&mut submissions);
    Ok(submissions.into_iter().map(|(_, s)| s).collect())
}

/// Whether a folder entry named `name` is never part of a submission: a
/// hidden file, what a desktop or an editor leaves (`__MACOSX/` of a macOS
/// zip, `.DS_Store`, `Thumbs.db`, `__pycache__/`).
fn is_clutter(name: &str) -> bool {
    name.starts_with('.')
        || matches!(
            name,
            "__MACOSX" | "Thumbs.db" | "desktop.ini" | "__pycache__"
        )
}

/// Whether a file or folder named `name` holds the student's own tests
/// (`test_*.py`, `*_test.py`, `conftest.py`, `tests/`): beside a solution
/// it is not the solution.
fn is_tests(name: &str) -> bool {
    name == "tests"
        || name == "conftest.py"
        || (name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py")))
}

/// `candidates` without the test files, unless only test files are there.
fn without_tests<T>(candidates: Vec<T>, name: impl Fn(&T) -> String) -> (Vec<T>, Vec<T>) {
    let (tests, rest): (Vec<T>, Vec<T>) = candidates.into_iter().partition(|c| is_tests(&name(c)));
    if rest.is_empty() {
        (tests, Vec::new())
    } else {
        (rest, tests)
    }
}

/// The submission at `path` (a file or a folder), by the rules of this
/// module; used for each entry of a submissions folder, and by
/// `grader check` for a student's own folder.
pub fn classify(path: &Path) -> Submission {
    let id = id_of(path);
    let error = |message: String| Submission {
        id: id.clone(),
        path: path.to_path_buf(),
        kind: Err(message),
        notes: Vec::new(),
    };
    let shown = path.display();
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) => return error(format!("cannot read {shown}: {e}")),
    };
    if meta.is_file() {
        return match SubmissionKind::of_file(path) {
            Some(kind) => Submission {
                id,
                path: path.to_path_buf(),
                kind: Ok(kind),
                notes: Vec::new(),
            },
            None => error(format!(
                "{shown} is not a submission: hand in a .c, .py, .ipynb or .so file, or a folder with Cargo.toml"
            )),
        };
    }
    if !meta.is_dir() {
        return error(format!(
            "{shown} is neither a file nor a folder: hand in a .c, .py, .ipynb or .so file, or a folder with Cargo.toml"
        ));
    }
    if path.join("Cargo.toml").is_file() {
        return Submission {
            id,
            path: path.to_path_buf(),
            kind: Ok(SubmissionKind::Rust),
            notes: Vec::new(),
        };
    }
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(e) => return error(format!("cannot list {shown}: {e}")),
    };
    let mut candidates = Vec::new();
    let mut others = Vec::new();
    for entry in entries.flatten() {
        let file = entry.path();
        if is_clutter(&entry.file_name().to_string_lossy()) {
            continue;
        }
        match SubmissionKind::of_file(&file) {
            Some(kind) if file.is_file() => candidates.push((file, kind)),
            _ => others.push(file),
        }
    }
    let (mut candidates, tests) = without_tests(candidates, |(f, _)| file_name(f));
    candidates.sort_by(|a, b| a.0.cmp(&b.0));
    others.sort();
    let found: Vec<String> = others.iter().map(|p| shown_entry(p, path)).collect();
    match candidates.as_slice() {
        [] if others.is_empty() => error(format!(
            "{shown} is empty: put the submission in it (a .c, .py, .ipynb or .so file, or a Cargo.toml crate)"
        )),
        [] => error(format!(
            "{shown} holds no submission: it holds {}{}; put one .c, .py, .ipynb or .so file in it, or make it a crate with Cargo.toml",
            listed(&found),
            hint(&others)
        )),
        [(file, kind)] => {
            let mut ignored: Vec<String> = tests
                .iter()
                .map(|(f, _)| file_name(f))
                .chain(
                    others
                        .iter()
                        .filter(|p| is_tests(&file_name(p)))
                        .map(|p| shown_entry(p, path)),
                )
                .collect();
            ignored.sort();
            Submission {
                id,
                path: file.clone(),
                kind: Ok(*kind),
                notes: ignored_note(&ignored).into_iter().collect(),
            }
        }
        several => {
            let files: Vec<PathBuf> = several.iter().map(|(f, _)| f.clone()).collect();
            let names: Vec<String> = files.iter().map(|f| file_name(f)).collect();
            match the_solution(&files, &names) {
                Ok(chosen) => {
                    let mut ignored: Vec<String> = names
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != chosen)
                        .map(|(_, n)| n.clone())
                        .chain(tests.iter().map(|(f, _)| file_name(f)))
                        .chain(
                            others
                                .iter()
                                .filter(|p| is_tests(&file_name(p)))
                                .map(|p| shown_entry(p, path)),
                        )
                        .collect();
                    ignored.sort();
                    let mut notes = vec![chosen_note(&names[chosen])];
                    notes.extend(ignored_note(&ignored));
                    Submission {
                        id,
                        path: several[chosen].0.clone(),
                        kind: Ok(several[chosen].1),
                        notes,
                    }
                }
                Err(why) => error(format!(
                    "{shown} holds {why}: keep exactly one solution (move the others out, or rename them to .txt)"
                )),
            }
        }
    }
}

/// Among several candidate sources (`files`, shown as `names`), the one
/// that defines all of the lab's functions (`legal`, `find_empty`,
/// `solve`; read as text, see [`super::defines`]); else what the folder
/// holds instead, to follow "holds": two or more that define them all, or
/// sources none of which does.
fn the_solution(files: &[PathBuf], names: &[String]) -> Result<usize, String> {
    let defined: Vec<Vec<&str>> = files
        .iter()
        .map(|f| super::defines::defined_in(f))
        .collect();
    let all = super::defines::LAB_FUNCTIONS.len();
    let complete: Vec<usize> = (0..files.len())
        .filter(|&i| defined[i].len() == all)
        .collect();
    match complete.as_slice() {
        [only] => Ok(*only),
        [] => {
            let partial: Vec<String> = (0..files.len())
                .filter(|&i| !defined[i].is_empty())
                .map(|i| format!("{} defines {}", names[i], defined[i].join(", ")))
                .collect();
            let partial = if partial.is_empty() {
                String::new()
            } else {
                format!(" ({})", listed(&partial))
            };
            Err(format!(
                "several candidate sources ({}), none of which defines all of legal, find_empty and solve{partial}",
                listed(names)
            ))
        }
        several => {
            let both: Vec<String> = several.iter().map(|&i| names[i].clone()).collect();
            Err(format!(
                "several solutions ({} each define legal, find_empty and solve)",
                listed(&both)
            ))
        }
    }
}

/// The note that says which of several sources was taken, and why.
fn chosen_note(name: &str) -> String {
    format!(
        "{name} is the submission: the one source here that defines legal, find_empty and solve"
    )
}

/// One student's upload (Gradescope's `/autograder/submission`, a student
/// repository): the submission in it, and the files it holds that are not
/// part of it (notes, a README), to be named in the output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upload {
    /// The submission, as [`classify`] gives it (with its error if none).
    pub submission: Submission,
    /// Files and folders beside the submission that are ignored, relative
    /// to the upload, sorted.
    pub ignored: Vec<String>,
}

/// The single submission in the upload folder `dir`, whatever its layout:
/// a crate at the top (`Cargo.toml`), else the one `.c`, `.py` or `.so`
/// file at the top, else the same inside a lone top-level folder (a zip
/// of a folder). Hidden entries are skipped; anything else is listed in
/// [`Upload::ignored`]. No candidate, or several, gives an error `kind`
/// that says what to upload.
pub fn classify_upload(dir: &Path) -> Upload {
    let listing = |dir: &Path| -> Vec<PathBuf> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| !is_clutter(&e.file_name().to_string_lossy()))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default();
        entries.sort();
        entries
    };
    let relative = |path: &Path| {
        path.strip_prefix(dir)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    };
    let mut root = dir.to_path_buf();
    let mut entries = listing(&root);
    let is_candidate = |p: &PathBuf| p.is_file() && SubmissionKind::of_file(p).is_some();
    if !root.join("Cargo.toml").is_file() && !entries.iter().any(is_candidate) {
        let folders: Vec<&PathBuf> = entries
            .iter()
            .filter(|p| p.is_dir() && !is_tests(&file_name(p)))
            .collect();
        if let [only] = folders.as_slice() {
            root = (*only).clone();
            let outer: Vec<PathBuf> = entries.iter().filter(|p| p.is_file()).cloned().collect();
            entries = listing(&root);
            entries.extend(outer);
        }
    }
    let id = id_of(dir);
    let shown = dir.display();
    if root.join("Cargo.toml").is_file() {
        return Upload {
            submission: Submission {
                id,
                path: root,
                kind: Ok(SubmissionKind::Rust),
                notes: Vec::new(),
            },
            ignored: Vec::new(),
        };
    }
    let (candidates, mut others): (Vec<PathBuf>, Vec<PathBuf>) =
        entries.into_iter().partition(is_candidate);
    let (candidates, tests) = without_tests(candidates, |p| file_name(p));
    others.extend(tests);
    others.sort();
    let ignored: Vec<String> = others.iter().map(|p| relative(p)).collect();
    let kind_of = |p: &PathBuf| SubmissionKind::of_file(p).ok_or_else(String::new);
    const WHAT_TO_UPLOAD: &str =
        "upload your .c, .py, .ipynb or .so file, or your crate (Cargo.toml and src/)";
    let names: Vec<String> = candidates.iter().map(|p| relative(p)).collect();
    let chosen = match candidates.as_slice() {
        [_, _, ..] => the_solution(&candidates, &names),
        _ => Err(String::new()),
    };
    if let Ok(chosen) = chosen {
        let only = &candidates[chosen];
        let mut ignored: Vec<String> = ignored
            .into_iter()
            .chain(
                names
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != chosen)
                    .map(|(_, n)| n.clone()),
            )
            .collect();
        ignored.sort();
        let mut notes = vec![chosen_note(&names[chosen])];
        notes.extend(ignored_note(&ignored));
        return Upload {
            submission: Submission {
                id,
                path: only.clone(),
                kind: kind_of(only),
                notes,
            },
            ignored,
        };
    }
    let (path, kind, notes) = match candidates.as_slice() {
        [only] => (
            only.clone(),
            kind_of(only),
            ignored_note(&ignored).into_iter().collect(),
        ),
        [] if others.is_empty() => (
            dir.to_path_buf(),
            Err(format!(
                "the upload {shown} is empty (hidden files and what macOS or Windows add aside): {WHAT_TO_UPLOAD}"
            )),
            Vec::new(),
        ),
        [] => (
            dir.to_path_buf(),
            Err(format!(
                "the upload {shown} holds no submission: it holds {}{}; {WHAT_TO_UPLOAD}",
                listed(&ignored),
                hint(&others)
            )),
            Vec::new(),
        ),
        _ => {
            let why = chosen.err().unwrap_or_default();
            (
                dir.to_path_buf(),
                Err(format!(
                    "the upload {shown} holds {why}: upload exactly one solution (other files, renamed to .txt, are ignored)"
                )),
                Vec::new(),
            )
        }
    };
    Upload {
        submission: Submission {
            id,
            path,
            kind,
            notes,
        },
        ignored,
    }
}

/// The note of the files ignored beside a submission, if any.
fn ignored_note(ignored: &[String]) -> Option<String> {
    (!ignored.is_empty()).then(|| {
        format!(
            "ignored, not part of the submission: {}",
            ignored.join(", ")
        )
    })
}

/// At most [`LISTED`] names, then how many more.
fn listed(names: &[String]) -> String {
    const LISTED: usize = 8;
    if names.len() <= LISTED {
        names.join(", ")
    } else {
        format!(
            "{}, and {} more",
            names[..LISTED].join(", "),
            names.len() - LISTED
        )
    }
}

/// Advice for what a student often uploads instead of a solution: a
/// Rust source without its crate, an archive inside the upload, a C++ file.
fn hint(found: &[PathBuf]) -> &'static str {
    let has = |exts: &[&str]| {
        found.iter().any(|p| {
            let name = file_name(p).to_ascii_lowercase();
            exts.iter().any(|e| name.ends_with(e))
        })
    };
    if has(&[".zip", ".tar", ".tar.gz", ".tgz", ".7z", ".rar"]) {
        " (an archive inside the upload is not unpacked: upload the files in it)"
    } else if has(&[".rs"]) {
        " (a .rs file alone is not a crate: upload Cargo.toml with src/)"
    } else if has(&[".cpp", ".cc", ".cxx"]) {
        " (the lab takes C, not C++: a .c file)"
    } else if has(&[".h"]) {
        " (a header alone is not a solution: upload the .c file)"
    } else {
        ""
    }
}

/// `path` relative to `base`, as text (a folder with a trailing `/`).
fn shown_entry(path: &Path, base: &Path) -> String {
    let name = path
        .strip_prefix(base)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned();
    if path.is_dir() {
        format!("{name}/")
    } else {
        name
    }
}

/// The last part of `path`, as text.
fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// The student id of an entry: a folder's name, a file's name without its
/// extension.
fn id_of(path: &Path) -> String {
    let is_file = path.is_file();
    let name = if is_file {
        path.file_stem()
    } else {
        path.file_name()
    };
    match name {
        Some(name) => name.to_string_lossy().into_owned(),
        // `.` or `/`: name it after the folder it stands for.
        None => std::fs::canonicalize(path)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| path.display().to_string()),
    }
}

/// Turns every submission that shares its id with another (`alice.c` next
/// to `alice/`) into an error, so that no report mixes two students. Each
/// submission comes with the name of its entry in the folder.
fn mark_duplicate_ids(submissions: &mut [(String, Submission)]) {
    let mut entries: HashMap<String, Vec<String>> = HashMap::new();
    for (entry, s) in submissions.iter() {
        entries.entry(s.id.clone()).or_default().push(entry.clone());
    }
    for (_, s) in submissions.iter_mut() {
        if let Some(names) = entries.get(&s.id).filter(|names| names.len() > 1) {
            s.kind = Err(format!(
                "several entries give the student id {:?} ({}): rename all but one",
                s.id,
                names.join(", ")
            ));
        }
    }
}

/// Whether `dir` looks like a student's project at all: a crate
/// (`Cargo.toml`) or a folder with a file of a kind the lab takes. A folder
/// that is not one is a usage error of `grader check` (the wrong folder),
/// not a build error; [`projects_below`] names the ones it holds.
pub fn is_project(dir: &Path) -> bool {
    if !dir.is_dir() || dir.join("Cargo.toml").is_file() {
        return true;
    }
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            let file = entry.path();
            !is_clutter(&entry.file_name().to_string_lossy())
                && file.is_file()
                && SubmissionKind::of_file(&file).is_some()
        })
    })
}

/// The folders right below `dir` that are projects of their own (each
/// classifies as a submission), sorted by name.
pub fn projects_below(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| !is_clutter(&e.file_name().to_string_lossy()))
                .map(|e| e.path())
                .filter(|p| p.is_dir() && classify(p).kind.is_ok())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn folder() -> tempfile::TempDir {
        tempfile::tempdir().expect("a temp dir")
    }

    fn touch(path: &Path) {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("parent dir");
        }
        fs::write(path, "x").expect("write a file");
    }

    fn by_id(subs: &[Submission], id: &str) -> Submission {
        subs.iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("no submission {id} in {subs:?}"))
            .clone()
    }

    #[test]
    fn each_kind_of_entry_is_recognised() {
        let dir = folder();
        let root = dir.path();
        touch(&root.join("alice.c"));
        touch(&root.join("bob.py"));
        touch(&root.join("carol.so"));
        touch(&root.join("dave/Cargo.toml"));
        touch(&root.join("dave/src/lib.rs"));
        touch(&root.join("erin/solver.c"));
        touch(&root.join("erin/notes.txt"));
        touch(&root.join("frank/lib.so"));
        touch(&root.join("grace/sudoku.py"));
        let subs = discover(root).expect("discover");
        let ids: Vec<&str> = subs.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(
            ids,
            ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]
        );
        assert_eq!(by_id(&subs, "alice").kind, Ok(SubmissionKind::C));
        assert_eq!(by_id(&subs, "alice").path, root.join("alice.c"));
        assert_eq!(by_id(&subs, "bob").kind, Ok(SubmissionKind::Python));
        assert_eq!(by_id(&subs, "carol").kind, Ok(SubmissionKind::Library));
        assert_eq!(by_id(&subs, "dave").kind, Ok(SubmissionKind::Rust));
        assert_eq!(by_id(&subs, "dave").path, root.join("dave"));
        assert_eq!(by_id(&subs, "erin").kind, Ok(SubmissionKind::C));
        assert_eq!(by_id(&subs, "erin").path, root.join("erin/solver.c"));
        assert_eq!(by_id(&subs, "frank").kind, Ok(SubmissionKind::Library));
        assert_eq!(by_id(&subs, "grace").kind, Ok(SubmissionKind::Python));
    }

    #[test]
    fn hidden_entries_and_the_folder_notes_are_skipped() {
        let dir = folder();
        let root = dir.path();
        touch(&root.join(".git/config"));
        touch(&root.join(".DS_Store"));
        touch(&root.join("README.md"));
        touch(&root.join("expected.toml"));
        touch(&root.join("alice.c"));
        let subs = discover(root).expect("discover");
        assert_eq!(subs.len(), 1, "{subs:?}");
        assert_eq!(subs[0].id, "alice");
    }

    #[test]
    fn bad_entries_become_errors_and_the_rest_are_kept() {
        let dir = folder();
        let root = dir.path();
        fs::create_dir(root.join("empty")).expect("mkdir");
        touch(&root.join("two/a.c"));
        touch(&root.join("two/b.py"));
        touch(&root.join("notes/readme.txt"));
        touch(&root.join("essay.txt"));
        touch(&root.join("ok.c"));
        let subs = discover(root).expect("discover");
        assert_eq!(subs.len(), 5);
        assert_eq!(by_id(&subs, "ok").kind, Ok(SubmissionKind::C));
        let err = |id: &str| by_id(&subs, id).kind.expect_err("an error kind");
        assert!(err("empty").contains("is empty"), "{}", err("empty"));
        assert!(
            err("two").contains("several candidate sources (a.c, b.py)"),
            "{}",
            err("two")
        );
        assert!(
            err("notes").contains("holds no submission: it holds readme.txt;"),
            "{}",
            err("notes")
        );
        assert!(
            err("essay").contains("is not a submission"),
            "{}",
            err("essay")
        );
    }

    #[test]
    fn two_entries_with_one_id_are_both_errors() {
        let dir = folder();
        let root = dir.path();
        touch(&root.join("alice.c"));
        touch(&root.join("alice/solver.c"));
        let subs = discover(root).expect("discover");
        assert_eq!(subs.len(), 2);
        for s in &subs {
            let message = s.kind.as_ref().expect_err("duplicate");
            assert!(
                message.contains("alice, alice.c") || message.contains("alice.c, alice"),
                "{message}"
            );
        }
    }

    #[test]
    fn a_missing_folder_is_an_error() {
        let dir = folder();
        let missing = dir.path().join("nope");
        let err = discover(&missing).expect_err("missing");
        assert!(matches!(err, DiscoverError::Missing(_)));
        assert!(err.to_string().contains("does not exist"));
        touch(&dir.path().join("file.c"));
        let err = discover(&dir.path().join("file.c")).expect_err("a file");
        assert!(err.to_string().contains("is not a folder"));
    }

    #[test]
    fn classify_names_a_folder_by_itself() {
        let dir = folder();
        let crate_dir = dir.path().join("mine");
        touch(&crate_dir.join("Cargo.toml"));
        let sub = classify(&crate_dir);
        assert_eq!(sub.id, "mine");
        assert_eq!(sub.kind, Ok(SubmissionKind::Rust));
        let sub = classify(&crate_dir.join("."));
        assert_eq!(sub.id, "mine");
    }

    #[test]
    fn kinds_serialise_as_in_the_report() {
        let names: Vec<String> = [
            SubmissionKind::Rust,
            SubmissionKind::C,
            SubmissionKind::Python,
            SubmissionKind::Library,
        ]
        .iter()
        .map(|k| serde_json::to_string(k).expect("json"))
        .collect();
        assert_eq!(names, ["\"rust\"", "\"c\"", "\"python\"", "\"library\""]);
        assert_eq!(SubmissionKind::Library.to_string(), "library");
    }

    #[test]
    fn an_upload_is_one_student_whatever_its_layout() {
        let dir = folder();
        let up = dir.path().join("submission");
        touch(&up.join("Cargo.toml"));
        touch(&up.join("Cargo.lock"));
        touch(&up.join("src/lib.rs"));
        let upload = classify_upload(&up);
        assert_eq!(upload.submission.kind, Ok(SubmissionKind::Rust));
        assert_eq!(upload.submission.path, up);
        assert_eq!(upload.submission.id, "submission");

        let dir = folder();
        let up = dir.path().join("submission");
        touch(&up.join("sudoku.c"));
        touch(&up.join("notes.txt"));
        touch(&up.join(".DS_Store"));
        let upload = classify_upload(&up);
        assert_eq!(upload.submission.kind, Ok(SubmissionKind::C));
        assert_eq!(upload.submission.path, up.join("sudoku.c"));
        assert_eq!(upload.ignored, vec!["notes.txt".to_string()]);

        // A zip of a folder: the lone folder is the project.
        let dir = folder();
        let up = dir.path().join("submission");
        touch(&up.join("lab/solver.py"));
        touch(&up.join("lab/README"));
        touch(&up.join("readme.txt"));
        let upload = classify_upload(&up);
        assert_eq!(upload.submission.kind, Ok(SubmissionKind::Python));
        assert_eq!(upload.submission.path, up.join("lab/solver.py"));
        assert_eq!(upload.ignored, vec!["lab/README", "readme.txt"]);
    }

    #[test]
    fn uploads_as_students_make_them() {
        // macOS "Compress": the folder, and __MACOSX/ beside it.
        let dir = folder();
        let up = dir.path().join("submission");
        touch(&up.join("lab3/sudoku.py"));
        touch(&up.join("lab3/.DS_Store"));
        touch(&up.join("__MACOSX/lab3/._sudoku.py"));
        touch(&up.join("__MACOSX/._lab3"));
        let upload = classify_upload(&up);
        assert_eq!(upload.submission.kind, Ok(SubmissionKind::Python));
        assert_eq!(upload.submission.path, up.join("lab3/sudoku.py"));
        assert!(upload.ignored.is_empty(), "{:?}", upload.ignored);

        // The student's own tests beside the solution, at the top and in
        // the lone folder: not candidates, but named as ignored.
        let dir = folder();
        let up = dir.path().join("submission");
        touch(&up.join("sudoku.py"));
        touch(&up.join("test_sudoku.py"));
        touch(&up.join("sudoku_test.py"));
        touch(&up.join("tests/test_more.py"));
        let upload = classify_upload(&up);
        assert_eq!(upload.submission.path, up.join("sudoku.py"));
        assert_eq!(
            upload.ignored,
            vec!["sudoku_test.py", "test_sudoku.py", "tests"],
            "{:?}",
            upload.ignored
        );
        // A folder graded with `grade` (a GitHub Classroom repository) too.
        assert_eq!(classify(&up).path, up.join("sudoku.py"));
        assert_eq!(classify(&up).kind, Ok(SubmissionKind::Python));

        // A test file alone is what was handed in.
        let dir = folder();
        let up = dir.path().join("submission");
        touch(&up.join("test_sudoku.py"));
        assert_eq!(
            classify_upload(&up).submission.path,
            up.join("test_sudoku.py")
        );
    }

    #[test]
    fn a_class_folder_skips_what_a_zip_leaves() {
        let dir = folder();
        touch(&dir.path().join("alice.c"));
        touch(&dir.path().join("__MACOSX/._alice.c"));
        let found = discover(dir.path()).unwrap();
        let ids: Vec<&str> = found.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["alice"]);
    }

    #[test]
    fn an_empty_or_ambiguous_upload_says_what_to_upload() {
        let dir = folder();
        let up = dir.path().join("submission");
        fs::create_dir_all(&up).unwrap();
        let err = classify_upload(&up).submission.kind.unwrap_err();
        assert!(err.contains("is empty"), "{err}");

        // What was found is named, with a hint for a common mistake.
        touch(&up.join("notes.txt"));
        touch(&up.join("lab/src/main.rs"));
        touch(&up.join("lab/solution.rs"));
        let err = classify_upload(&up).submission.kind.unwrap_err();
        assert!(
            err.contains("holds no submission: it holds lab/solution.rs, lab/src, notes.txt (a .rs file alone is not a crate: upload Cargo.toml with src/); upload your .c, .py, .ipynb or .so file"),
            "{err}"
        );
        fs::remove_dir_all(up.join("lab")).unwrap();
        touch(&up.join("lab3.zip"));
        let err = classify_upload(&up).submission.kind.unwrap_err();
        assert!(
            err.contains(
                "it holds lab3.zip, notes.txt (an archive inside the upload is not unpacked"
            ),
            "{err}"
        );
        fs::remove_file(up.join("lab3.zip")).unwrap();
        fs::remove_file(up.join("notes.txt")).unwrap();

        // The files ignored beside a solution are a note for the student.
        touch(&up.join("sudoku.ipynb"));
        touch(&up.join("notes.txt"));
        let upload = classify_upload(&up);
        assert_eq!(upload.submission.kind, Ok(SubmissionKind::Python));
        assert_eq!(
            upload.submission.notes,
            vec!["ignored, not part of the submission: notes.txt".to_string()]
        );
        fs::remove_file(up.join("sudoku.ipynb")).unwrap();
        fs::remove_file(up.join("notes.txt")).unwrap();

        touch(&up.join("a.c"));
        touch(&up.join("b.py"));
        let err = classify_upload(&up).submission.kind.unwrap_err();
        assert!(err.contains("a.c, b.py"), "{err}");
        assert!(err.contains("upload exactly one"), "{err}");
    }

    const SOLUTION_PY: &str = "def legal(board, r, c, v, n=2):\n    return True\n\ndef find_empty(board):\n    return None\n\ndef solve(board, n=2):\n    return True\n";
    const DRIVER_PY: &str = "from sudoku import legal, find_empty, solve\n\nboard = [[0] * 4 for _ in range(4)]\nprint(solve(board))\n";

    #[test]
    fn the_one_source_that_defines_the_lab_is_the_submission() {
        // A student's main.py that imports their sudoku.py.
        let dir = folder();
        let up = dir.path().join("ada");
        fs::create_dir_all(&up).unwrap();
        fs::write(up.join("sudoku.py"), SOLUTION_PY).unwrap();
        fs::write(up.join("main.py"), DRIVER_PY).unwrap();
        touch(&up.join("test_sudoku.py"));
        let sub = classify(&up);
        assert_eq!(sub.kind, Ok(SubmissionKind::Python));
        assert_eq!(sub.path, up.join("sudoku.py"));
        assert_eq!(
            sub.notes,
            vec![
                "sudoku.py is the submission: the one source here that defines legal, find_empty and solve".to_string(),
                "ignored, not part of the submission: main.py, test_sudoku.py".to_string(),
            ]
        );
        let upload = classify_upload(&up);
        assert_eq!(upload.submission.path, up.join("sudoku.py"));
        assert_eq!(upload.ignored, vec!["main.py", "test_sudoku.py"]);
        assert_eq!(upload.submission.notes, sub.notes);

        // A driver in C beside a C solution, and a library built from it.
        let dir = folder();
        let up = dir.path().join("bo");
        fs::create_dir_all(&up).unwrap();
        fs::write(
            up.join("sudoku.c"),
            "bool legal(const uint8_t *b, size_t n, size_t r, size_t c, uint8_t v) { return true; }\nbool find_empty(const uint8_t *b, size_t n, size_t *r, size_t *c) { return false; }\nbool solve(uint8_t *b, size_t n) { return true; }\n",
        )
        .unwrap();
        fs::write(
            up.join("main.c"),
            "bool solve(uint8_t *b, size_t n);\nint main(void) { uint8_t b[16] = {0}; return solve(b, 2); }\n",
        )
        .unwrap();
        touch(&up.join("sudoku.so"));
        let sub = classify(&up);
        assert_eq!(sub.kind, Ok(SubmissionKind::C));
        assert_eq!(sub.path, up.join("sudoku.c"));
    }

    #[test]
    fn only_a_real_ambiguity_is_refused_naming_the_files() {
        // Two files each define all three.
        let dir = folder();
        let up = dir.path().join("cy");
        fs::create_dir_all(&up).unwrap();
        fs::write(up.join("sudoku.py"), SOLUTION_PY).unwrap();
        fs::write(up.join("old_sudoku.py"), SOLUTION_PY).unwrap();
        fs::write(up.join("main.py"), DRIVER_PY).unwrap();
        let err = classify(&up).kind.unwrap_err();
        assert!(
            err.contains("holds several solutions (old_sudoku.py, sudoku.py each define legal, find_empty and solve): keep exactly one"),
            "{err}"
        );
        let err = classify_upload(&up).submission.kind.unwrap_err();
        assert!(
            err.contains("several solutions (old_sudoku.py, sudoku.py each define"),
            "{err}"
        );
        // None defines all three: what each defines is named.
        fs::remove_file(up.join("old_sudoku.py")).unwrap();
        fs::write(
            up.join("sudoku.py"),
            "def legal(board, r, c, v):\n    return True\n\ndef solve(board):\n    return True\n",
        )
        .unwrap();
        let err = classify(&up).kind.unwrap_err();
        assert!(
            err.contains("several candidate sources (main.py, sudoku.py), none of which defines all of legal, find_empty and solve (sudoku.py defines legal, solve)"),
            "{err}"
        );
        // A solution behind a link is not read, so it is no solution here.
        fs::write(up.join("real.txt"), SOLUTION_PY).unwrap();
        fs::remove_file(up.join("sudoku.py")).unwrap();
        std::os::unix::fs::symlink(up.join("real.txt"), up.join("sudoku.py")).unwrap();
        let err = classify(&up).kind.unwrap_err();
        assert!(err.contains("none of which defines"), "{err}");
    }
}
