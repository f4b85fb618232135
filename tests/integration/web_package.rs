//! `grader package web` through the real binary: the site's folder (the
//! page, Pyodide checked against its pins, the public cases, the index
//! files), and each refusal with what to do: a hidden case, an output
//! folder that cannot be written or holds other files, a missing or
//! altered Pyodide package.
//!
//! The folder's contents need the pinned Pyodide package: `npm ci --prefix
//! web` (`.ci/run` does it).

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

use crate::util::{Dir, Grader, needs, root, text};

/// The Pyodide package `npm ci --prefix web` installs.
fn pyodide_package() -> PathBuf {
    root().join("web/node_modules/pyodide")
}

/// The public bundled cases (no `hidden.toml`) in `dir/cases`.
fn public_cases() -> Dir {
    Dir::new().cases(&["campus.toml", "newspaper.toml", "big.toml", "grader.toml"])
}

/// `grader package web ARGS` in `dir`, expecting exit `code`; its stderr.
fn package(dir: &Dir, args: &[&str], code: i32) -> String {
    let out = dir
        .grader()
        .args(["package", "web"])
        .args(args)
        .expect(code);
    text(&out.stderr)
}

#[test]
fn a_hidden_case_is_refused_and_nothing_is_written() {
    let dir = Dir::new().cases(&["campus.toml", "hidden.toml", "grader.toml"]);
    let said = package(
        &dir,
        &["--cases", "cases", "--out", "site", "--pyodide", "nowhere"],
        2,
    );
    assert!(
        said.contains("hidden case(s) hidden-backtrack-9x9"),
        "{said}"
    );
    assert!(said.contains("the web page is public"), "{said}");
    assert!(said.contains("only the public case files"), "{said}");
    assert!(!dir.join("site").exists());
}

#[test]
fn a_missing_pyodide_package_says_how_to_get_the_pinned_one() {
    let dir = public_cases();
    let said = package(
        &dir,
        &["--cases", "cases", "--out", "site", "--pyodide", "nowhere"],
        2,
    );
    assert!(
        said.contains("--pyodide nowhere: no such file or folder"),
        "{said}"
    );
    assert!(said.contains("npm pack pyodide@314.0.8"), "{said}");
    assert!(said.contains("npm ci --prefix web"), "{said}");
    assert!(!dir.join("site").exists());
}

#[test]
fn a_pyodide_package_that_differs_from_the_pin_is_refused() {
    // A folder shaped like the package, with files of its own: another
    // version, or one altered on the way.
    let mut dir = public_cases();
    for file in [
        "package.json",
        "pyodide.mjs",
        "pyodide.asm.mjs",
        "pyodide.asm.wasm",
        "python_stdlib.zip",
        "pyodide-lock.json",
    ] {
        dir = dir.create(format!("fake/{file}"), "not Pyodide");
    }
    let said = package(
        &dir,
        &["--cases", "cases", "--out", "site", "--pyodide", "fake"],
        2,
    );
    assert!(said.contains("differs from Pyodide 314.0.8's"), "{said}");
    assert!(said.contains("npm pack pyodide@314.0.8"), "{said}");
    let dir = dir.create("pyodide.tgz", "not a tarball");
    let said = package(
        &dir,
        &[
            "--cases",
            "cases",
            "--out",
            "site",
            "--pyodide",
            "pyodide.tgz",
        ],
        2,
    );
    assert!(
        said.contains("not the pinned npm tarball of Pyodide 314.0.8"),
        "{said}"
    );
    assert!(!dir.join("site").exists());
}

#[test]
fn an_output_folder_that_cannot_be_written_is_refused() {
    let dir = public_cases()
        .create("a-file", "x")
        .create("notes/todo.txt", "mine");
    // Under a file: nobody can create it, root included.
    let said = package(
        &dir,
        &[
            "--cases",
            "cases",
            "--out",
            "a-file/site",
            "--pyodide",
            "nowhere",
        ],
        2,
    );
    // Checked before anything is read from the Pyodide package.
    assert!(
        said.contains("cannot write in a-file: it is not a folder"),
        "{said}"
    );
    let said = package(&dir, &["--cases", "cases", "--out", "a-file"], 2);
    assert!(said.contains("--out a-file is a file"), "{said}");
    let said = package(&dir, &["--cases", "cases", "--out", "notes"], 2);
    assert!(
        said.contains("--out notes already holds files that are not a site grader wrote"),
        "{said}"
    );
    assert_eq!(
        fs::read_to_string(dir.join("notes/todo.txt")).unwrap(),
        "mine"
    );
}

/// Every file under `dir`, as `/`-separated paths relative to it, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_site_holds_the_page_pinned_pyodide_and_the_public_cases() {
    if !needs(
        "the pinned Pyodide package (npm ci --prefix web)",
        pyodide_package().join("package.json").is_file(),
    ) {
        return;
    }
    let dir = public_cases();
    let pyodide = pyodide_package();
    let out = dir
        .grader()
        .args([
            "package",
            "web",
            "--cases",
            "cases",
            "--out",
            "site",
            "--pyodide",
        ])
        .arg(&pyodide)
        .expect(0);
    let said = text(&out.stdout);
    assert!(
        said.contains("7 public cases from 4 files, Pyodide 314.0.8"),
        "{said}"
    );
    let site = dir.join("site");
    let files = files_under(&site);
    for needed in [
        "index.html",
        "page.mjs",
        "page.css",
        "board.mjs",
        "sw.js",
        "coi-serviceworker.js",
        "stub.py",
        "manifest.json",
        "cases/index.json",
        "cases/campus.toml",
        "cases/grader.toml",
        "pyodide/pyodide.mjs",
        "pyodide/pyodide.asm.wasm",
        "pyodide/python_stdlib.zip",
        "pyodide/pyodide-lock.json",
        "engine/checker.mjs",
        "engine/judge.wasm",
        "engine/python_harness.py",
        "check.mjs",
    ] {
        assert!(files.contains(&needed.to_string()), "{needed} in {files:?}");
    }
    // The manifest names every file (the service worker caches it all).
    let manifest: Value =
        serde_json::from_str(&fs::read_to_string(site.join("manifest.json")).unwrap()).unwrap();
    let listed: Vec<String> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, files);
    let version = manifest["version"].as_str().unwrap();
    let sw = fs::read_to_string(site.join("sw.js")).unwrap();
    assert!(sw.contains(&format!("const VERSION = '{version}'")), "{sw}");
    // Pyodide byte for byte as the npm package ships it, served from the
    // site: no third-party host in the page.
    for name in ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide.mjs"] {
        assert_eq!(
            fs::read(site.join("pyodide").join(name)).unwrap(),
            fs::read(pyodide.join(name)).unwrap(),
            "{name}"
        );
    }
    let page = fs::read_to_string(site.join("index.html")).unwrap();
    for file in ["index.html", "page.mjs", "sw.js"] {
        let body = fs::read_to_string(site.join(file)).unwrap();
        assert!(!body.contains("https://"), "{file} names a host");
    }
    assert!(page.contains("<strong>Python</strong>"), "{page}");
    assert!(
        page.contains("C or Rust") && page.contains("grader check"),
        "{page}"
    );
    // Public cases only, as given, and the index the page reads.
    let index: Value =
        serde_json::from_str(&fs::read_to_string(site.join("cases/index.json")).unwrap()).unwrap();
    assert_eq!(
        index,
        serde_json::json!(["big.toml", "campus.toml", "grader.toml", "newspaper.toml"])
    );
    assert!(!files.iter().any(|f| f.contains("hidden")), "{files:?}");
    // The stubs are the ones `grader init --lang python` writes.
    Grader::new()
        .current_dir(dir.path())
        .args(["init", "--lang", "python", "proj"])
        .expect(0);
    assert_eq!(
        fs::read_to_string(site.join("stub.py")).unwrap(),
        fs::read_to_string(dir.join("proj/sudoku.py")).unwrap()
    );

    // Packaging again replaces the earlier site, whatever it held.
    fs::write(site.join("stale.txt"), "old").unwrap();
    dir.grader()
        .args([
            "package",
            "web",
            "--cases",
            "cases",
            "--out",
            "site",
            "--pyodide",
        ])
        .arg(&pyodide)
        .expect(0);
    assert!(!site.join("stale.txt").exists());
    assert_eq!(files_under(&site), files);
}

#[test]
fn the_pins_agree_with_the_npm_lock_files() {
    // vendor.lock (built into grader) and web/package-lock.json pin the
    // same Pyodide; tests/browser's lock pins the committed
    // coi-serviceworker.
    let lock = fs::read_to_string(root().join("src/commands/package_web/vendor.lock")).unwrap();
    let pins: toml::Value = toml::from_str(&lock).unwrap();
    for (package, lock_file) in [
        ("pyodide", "web/package-lock.json"),
        ("coi-serviceworker", "tests/browser/package-lock.json"),
    ] {
        let npm: Value =
            serde_json::from_str(&fs::read_to_string(root().join(lock_file)).unwrap()).unwrap();
        let entry = &npm["packages"][format!("node_modules/{package}")];
        assert_eq!(
            entry["version"].as_str(),
            pins[package]["version"].as_str(),
            "{package} in {lock_file}"
        );
        assert_eq!(
            entry["integrity"].as_str(),
            pins[package]["integrity"].as_str(),
            "{package} in {lock_file}"
        );
    }
    let npm = root().join("tests/browser/node_modules/coi-serviceworker/coi-serviceworker.js");
    if needs(
        "the pinned coi-serviceworker (npm ci --prefix tests/browser)",
        npm.is_file(),
    ) {
        assert_eq!(
            fs::read(&npm).unwrap(),
            fs::read(root().join("web/page/coi-serviceworker.js")).unwrap(),
            "web/page/coi-serviceworker.js is the npm package's file"
        );
    }
}
