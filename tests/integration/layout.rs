//! The code's layout holds what ARCHITECTURE.md says of it: the judge
//! (`crates/judge`, and `crates/judge-web` around it for the browser)
//! reaches no operating system, so that it builds and runs for every target (CI also checks it for macOS, Windows and
//! WebAssembly: `.ci/run`).

use std::fs;
use std::path::Path;

use crate::util::{root, rust_files};

/// What the judge's library code must not name: files, processes, the
/// platform's own modules, raw system calls, threads, sockets, the clock
/// of a machine.
const SYSTEM: [&str; 8] = [
    "std::fs",
    "std::process",
    "std::os",
    "std::net",
    "std::thread",
    "std::env",
    "libc",
    "libloading",
];

/// `text` without its `#[cfg(test)]` items (a test may read the source
/// tree's files): from each attribute to the end of the item it marks, a
/// `;` or the matching `}` of its first `{`.
fn without_test_items(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, ch) in item.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_judge_names_no_part_of_an_operating_system() {
    // The judge, and the judge as the browser check's WebAssembly.
    let mut files = rust_files(&root().join("crates/judge/src"));
    let web = rust_files(&root().join("crates/judge-web/src"));
    assert!(
        files.len() > 10 && web.len() > 5,
        "the judge's sources: {files:?} {web:?}"
    );
    files.extend(web);
    let mut found = Vec::new();
    for file in &files {
        let code = without_test_items(&fs::read_to_string(file).expect("a source"));
        for line in code.lines() {
            let line = line.split("//").next().unwrap_or_default();
            for name in SYSTEM {
                if line.contains(name) {
                    found.push(format!("{}: `{name}` in {line:?}", file.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the judge must reach no operating system (the grader brings files and processes):\n{}",
        found.join("\n")
    );
}

#[test]
fn test_items_are_left_out_and_the_rest_is_kept() {
    let text = "use a;\n#[cfg(test)]\nfn f() { std::fs::read(x); { } }\nfn g() {}\n#[cfg(test)]\nuse std::fs;\nconst C: u8 = 1;\n";
    let kept = without_test_items(text);
    assert_eq!(kept, "use a;\n\nfn g() {}\n\nconst C: u8 = 1;\n");
    assert!(!kept.contains("std::fs"));
}

/// Every file or folder ARCHITECTURE.md names exists: a whole path
/// (`src/worker/init.rs`, `scripts/count-tests`) at that path, a bare file
/// name (`init.rs`) somewhere in the repository. A map that names what is
/// gone sends a reader nowhere.
#[test]
fn every_path_architecture_names_exists() {
    let root = root();
    let text = fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut names = Vec::new();
    let mut files = Vec::new();
    tracked_files(&root, &root, &mut files);
    let mut missing = Vec::new();
    for (i, piece) in text.split('`').enumerate() {
        // Odd pieces are inside backticks.
        if i % 2 == 0 || piece.contains(' ') || piece.is_empty() {
            continue;
        }
        let path = piece.trim_end_matches(':');
        let top = [
            "src/",
            "crates/",
            "docs/",
            "scripts/",
            "tests/",
            "benches/",
            "lab/",
            "reference/",
            "schemas/",
            "cases/",
            "data/",
            "submissions/",
            "attacks/",
            "fuzz/",
            ".ci/",
            "web/",
        ];
        if top.iter().any(|t| path.starts_with(t)) {
            if !root.join(path.trim_end_matches('/')).exists() {
                missing.push(path.to_string());
            }
            names.push(path.to_string());
        } else if !path.contains('/')
            && [".rs", ".py", ".md", ".mjs", ".sh", ".toml", ".xsd"]
                .iter()
                .any(|ext| path.ends_with(ext))
            && path
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            if !files
                .iter()
                .any(|f| f.ends_with(&format!("/{path}")) || *f == path)
            {
                missing.push(path.to_string());
            }
            names.push(path.to_string());
        }
    }
    assert!(names.len() > 50, "ARCHITECTURE.md names paths: {names:?}");
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what is not in the tree: {missing:?}"
    );
}

/// The repository's files, as paths relative to `root` (no `target/`, no
/// `.git/`, no `node_modules/`).
fn tracked_files(root: &Path, dir: &Path, found: &mut Vec<String>) {
    for entry in fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if ["target", ".git", "node_modules"].contains(&name.as_ref()) {
            continue;
        }
        if path.is_dir() {
            tracked_files(root, &path, found);
        } else if let Ok(relative) = path.strip_prefix(root) {
            found.push(relative.to_string_lossy().into_owned());
        }
    }
}
