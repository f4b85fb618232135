//! The docs agree with the code: ARCHITECTURE.md's list of the files that
//! hold `unsafe` is exactly the workspace's files that do, and every test
//! kept out of the fast tier says it is slow (`#[ignore = "slow: ..."]`),
//! so the slow tier (`cargo test --workspace -- --ignored`) runs checks
//! only, and the README's test command is the one `.ci/run` runs.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{TokenStream, TokenTree};

use crate::util::root;

/// Where a list of files that hold `unsafe` starts and ends in a page.
const UNSAFE_LIST: (&str, &str) = ("<!-- unsafe-files -->", "<!-- /unsafe-files -->");

/// The workspace's members, as `Cargo.toml` names them (folders relative
/// to the root).
fn members() -> Vec<PathBuf> {
    let manifest = fs::read_to_string(root().join("Cargo.toml")).expect("read Cargo.toml");
    let manifest: toml::Table = manifest.parse().expect("Cargo.toml is TOML");
    let members = manifest["workspace"]["members"]
        .as_array()
        .expect("Cargo.toml lists the workspace's members");
    members
        .iter()
        .map(|m| PathBuf::from(m.as_str().expect("a member is a path")))
        .collect()
}

/// Every `.rs` file under `dir`, fixtures aside (they are student code,
/// not the grader's).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("read a folder entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name != "fixtures" && name != "target" {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The workspace's own Rust files: each member's `src/`, `benches/`,
/// `tests/`, `examples/` and `build.rs`, relative to the root.
fn workspace_sources() -> Vec<PathBuf> {
    let root = root();
    let mut files = Vec::new();
    for member in members() {
        let dir = root.join(&member);
        for sub in ["src", "benches", "tests", "examples"] {
            rust_files(&dir.join(sub), &mut files);
        }
        let build = dir.join("build.rs");
        if build.is_file() {
            files.push(build);
        }
    }
    let mut files: Vec<PathBuf> = files
        .into_iter()
        .map(|f| f.strip_prefix(&root).expect("under the root").to_path_buf())
        .collect();
    files.sort();
    files.dedup();
    files
}

/// Whether Rust source `text` uses the `unsafe` keyword as code (a block,
/// a function, an impl, an extern block, an unsafe attribute): comments,
/// doc comments and string literals do not count.
fn holds_unsafe(text: &str) -> Result<bool, String> {
    fn scan(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            TokenTree::Ident(ident) => ident == "unsafe",
            TokenTree::Group(group) => scan(group.stream()),
            TokenTree::Punct(_) | TokenTree::Literal(_) => false,
        })
    }
    let tokens = TokenStream::from_str(text).map_err(|err| format!("{err:?}"))?;
    Ok(scan(tokens))
}

/// The files a page lists between the [`UNSAFE_LIST`] marks: the first
/// backticked path of each table row. `None` when the page has no list.
fn listed_files(page: &str) -> Option<Vec<PathBuf>> {
    let start = page.find(UNSAFE_LIST.0)? + UNSAFE_LIST.0.len();
    let len = page[start..]
        .find(UNSAFE_LIST.1)
        .expect("an unsafe-files list has its end mark");
    let files = page[start..start + len]
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .map(|rest| PathBuf::from(&rest[..rest.find('`').expect("a closing backtick")]))
        .collect();
    Some(files)
}

/// The pages that may list where `unsafe` lives.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![PathBuf::from("README.md"), PathBuf::from("ARCHITECTURE.md")];
    let mut stack = vec![root().join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).into_iter().flatten() {
            let path = entry.expect("read a folder entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(
                    path.strip_prefix(root())
                        .expect("under the root")
                        .to_path_buf(),
                );
            }
        }
    }
    pages
}

#[test]
fn the_unsafe_list_names_exactly_the_files_that_hold_unsafe() {
    let mut holding = BTreeSet::new();
    for file in workspace_sources() {
        let text = fs::read_to_string(root().join(&file)).expect("read a source file");
        match holds_unsafe(&text) {
            Ok(true) => {
                holding.insert(file);
            }
            Ok(false) => {}
            Err(err) => panic!("{} does not lex as Rust: {err}", file.display()),
        }
    }
    assert!(
        holding.contains(Path::new("src/worker/sys.rs")),
        "the scan found no unsafe in src/worker/sys.rs: the scan is broken"
    );
    let mut lists = 0;
    for page in pages() {
        let text = fs::read_to_string(root().join(&page)).expect("read a page");
        let Some(listed) = listed_files(&text) else {
            continue;
        };
        lists += 1;
        let listed: BTreeSet<PathBuf> = listed.into_iter().collect();
        let missing: Vec<_> = holding.difference(&listed).collect();
        let stale: Vec<_> = listed.difference(&holding).collect();
        assert!(
            missing.is_empty() && stale.is_empty(),
            "{}'s list of the files that hold `unsafe` (between {} and {}) has drifted from the code:\n\
             hold `unsafe` but are not listed (add a row saying what their unsafe does): {missing:?}\n\
             listed but hold no `unsafe` (remove the row): {stale:?}",
            page.display(),
            UNSAFE_LIST.0,
            UNSAFE_LIST.1
        );
    }
    assert!(
        lists >= 1,
        "ARCHITECTURE.md lists the files that hold `unsafe` between {} and {}",
        UNSAFE_LIST.0,
        UNSAFE_LIST.1
    );
}

#[test]
fn the_unsafe_scan_tells_code_from_comments_and_strings() {
    assert_eq!(holds_unsafe("fn f() { unsafe { g() } }"), Ok(true));
    assert_eq!(holds_unsafe("unsafe extern \"C\" fn f() {}"), Ok(true));
    assert_eq!(
        holds_unsafe("#[unsafe(no_mangle)] pub extern \"C\" fn f() {}"),
        Ok(true)
    );
    assert_eq!(
        holds_unsafe("macro_rules! m { () => { unsafe { g() } } }"),
        Ok(true)
    );
    assert_eq!(
        holds_unsafe("// unsafe { g() }\n/// no `unsafe` here\nfn f() {}"),
        Ok(false)
    );
    assert_eq!(
        holds_unsafe("/* unsafe */ const S: &str = \"unsafe { }\"; const R: &str = r#\"unsafe\"#;"),
        Ok(false)
    );
    assert_eq!(
        holds_unsafe("fn unsafe_free() {} // the word in a name"),
        Ok(false)
    );
}

#[test]
fn a_drifted_unsafe_list_is_seen() {
    let page = format!(
        "text\n{}\n| file | why |\n|---|---|\n| `src/a.rs` | a |\n| `src/b.rs` | b |\n{}\n",
        UNSAFE_LIST.0, UNSAFE_LIST.1
    );
    assert_eq!(
        listed_files(&page),
        Some(vec![PathBuf::from("src/a.rs"), PathBuf::from("src/b.rs")])
    );
    assert_eq!(listed_files("no list here"), None);
}

/// `#[ignore = "slow: ..."]`, and nothing else, keeps a test out of the
/// fast tier: a test ignored for another reason (a measurement, a broken
/// test) would run in the slow tier as a check, or hide there.
#[test]
fn every_ignored_test_is_a_slow_check() {
    let mut problems = Vec::new();
    for file in workspace_sources() {
        let text = fs::read_to_string(root().join(&file)).expect("read a source file");
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_start();
            if !line.starts_with("#[ignore") {
                continue;
            }
            if !line.starts_with("#[ignore = \"slow: ") {
                problems.push(format!("{}:{}: {line}", file.display(), number + 1));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "an ignored test must be a slow check, marked `#[ignore = \"slow: <why>\"]` \
         (a measurement belongs in benches/):\n{}",
        problems.join("\n")
    );
}

/// The README's test command is the one CI runs, line for line (CI's main
/// job adds a report to the README's main job, so only the test command
/// is compared whole).
#[test]
fn the_readme_test_command_is_the_one_ci_runs() {
    let readme = fs::read_to_string(root().join("README.md")).expect("read README.md");
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("The two commands"))
        .expect("README.md has a section \"The two commands\"");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the section shows its commands in a sh block");
    let lines: Vec<&str> = block.lines().collect();
    let test = lines
        .iter()
        .position(|l| l.starts_with("# The tests"))
        .and_then(|at| lines.get(at + 1))
        .expect("a \"# The tests\" comment above the test command");
    let ci = fs::read_to_string(root().join(".ci/run")).expect("read .ci/run");
    // The command itself, or the command with flags or a pipe after it.
    let test = test.trim();
    assert!(
        ci.lines().map(str::trim).any(|l| l == test
            || l.strip_prefix(test)
                .is_some_and(|rest| rest.starts_with(' '))),
        "the README's test command `{test}` is not run by .ci/run: CI must run what the README says"
    );
    assert!(
        block.contains("cargo run --release -- grade submissions --cases cases"),
        "the README's main job must stay `cargo run --release -- grade submissions --cases cases`: .ci/run and scripts/update-baseline run it"
    );
}
