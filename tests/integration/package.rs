//! `grader package gradescope` against a simulated `/autograder` tree (the
//! scripts take `AUTOGRADER_ROOT`): the zip unpacks into `source/`,
//! `setup.sh` finds what it needs (checks only: nothing is installed here),
//! and `run_autograder` grades a crate upload, a lone `.c` with a stray
//! file, Jupyter notebooks (correct, buggy, with magics, malformed), a
//! macOS zip, an empty upload, one with no solution, one with two, and a
//! missing upload folder, writing a valid `results.json` every time.

use serde_json::Value;
use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::{Grader, printed, root, text};

/// Writes the package for the bundled campus cases into `dir` and unzips it
/// into `dir/autograder/source`, keeping each file's mode.
fn unpacked(dir: &Path, rust: bool) -> PathBuf {
    unpacked_by(Grader::new(), dir, rust).1
}

/// [`unpacked`], the package made by `grader` (the one cargo built, or
/// another build of it); also what `package` printed.
fn unpacked_by(grader: Grader, dir: &Path, rust: bool) -> (String, PathBuf) {
    let cases = dir.join("cases");
    fs::create_dir_all(&cases).unwrap();
    for file in ["campus.toml", "grader.toml"] {
        fs::copy(root().join("cases").join(file), cases.join(file)).unwrap();
    }
    let zip_path = dir.join("autograder.zip");
    let out = grader
        .args(["package", "gradescope", "--cases"])
        .arg(&cases)
        .arg("--out")
        .arg(&zip_path)
        .args(rust.then_some("--rust"))
        .expect(0);
    let said = text(&out.stdout);
    assert!(said.contains("4 cases"), "{said}");

    let ag = dir.join("autograder");
    let source = ag.join("source");
    let mut archive = zip::ZipArchive::new(fs::File::open(&zip_path).unwrap()).unwrap();
    let mut names = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let name = entry.enclosed_name().expect("no entry escapes the folder");
        names.push(name.display().to_string());
        let path = source.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        fs::write(&path, bytes).unwrap();
        let mode = entry.unix_mode().expect("a unix mode") & 0o777;
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
    }
    names.sort();
    assert_eq!(
        names,
        [
            "bin/grader",
            "bin/grader-worker",
            "cases/campus.toml",
            "cases/grader.toml",
            "run_autograder",
            "setup.sh"
        ]
    );
    fs::create_dir_all(ag.join("results")).unwrap();
    (said, source)
}

/// Runs a script of the package as Gradescope would, under the simulated
/// root, with `HOME` unset (as some images run it: the scripts must still
/// write their results).
fn script(ag: &Path, name: &str) -> Output {
    Command::new("bash")
        .arg(ag.join("source").join(name))
        .env_remove("HOME")
        .env("AUTOGRADER_ROOT", ag)
        .env("SETUP_CHECK_ONLY", "1")
        .output()
        .unwrap()
}

/// Puts `files` (path, contents) in a fresh `submission/`, runs
/// `run_autograder`, and returns `results.json`.
fn grade_upload(ag: &Path, files: Option<&[(&str, Vec<u8>)]>) -> (Value, String) {
    let upload = ag.join("submission");
    let _ = fs::remove_dir_all(&upload);
    let _ = fs::remove_file(ag.join("results/results.json"));
    if let Some(files) = files {
        fs::create_dir_all(&upload).unwrap();
        for (path, bytes) in files {
            let path = upload.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
        }
    }
    let out = script(ag, "run_autograder");
    let log = printed(&out);
    assert!(out.status.success(), "run_autograder exits 0: {log}");
    let results = fs::read(ag.join("results/results.json"))
        .unwrap_or_else(|e| panic!("results.json is always written ({e}): {log}"));
    let value: Value = serde_json::from_slice(&results)
        .unwrap_or_else(|e| panic!("results.json is JSON ({e}): {}", text(&results)));
    assert!(value["score"].is_number(), "{value}");
    (value, log)
}

fn fixture(name: &str) -> Vec<u8> {
    fs::read(crate::util::fixture(name)).unwrap()
}

#[test]
#[ignore = "slow: an engine: the Gradescope package run in a simulated /autograder"]
fn the_gradescope_package_grades_each_upload_and_always_writes_results() {
    let dir = tempfile::tempdir().unwrap();
    unpacked(dir.path(), false);
    let ag = dir.path().join("autograder");

    let setup = script(&ag, "setup.sh");
    assert!(
        setup.status.success(),
        "setup.sh finds cc and python3: {}",
        text(&setup.stderr)
    );
    assert!(
        text(&setup.stdout).contains("setup: ready"),
        "{}",
        text(&setup.stdout)
    );

    // A lone .c with a stray note: graded, the note named.
    let (results, log) = grade_upload(
        &ag,
        Some(&[
            ("sudoku.c", fixture("c-listing.c")),
            ("notes.txt", b"my notes".to_vec()),
        ]),
    );
    assert_eq!(results["score"], 12, "{results}");
    assert_eq!(results["tests"].as_array().unwrap().len(), 12);
    assert!(
        log.contains("ignored, not part of the submission: notes.txt"),
        "{log}"
    );
    // ... and the student reads it in their own result, not only the log.
    assert!(
        results["output"]
            .as_str()
            .unwrap()
            .contains("Note: ignored, not part of the submission: notes.txt"),
        "{results}"
    );

    // Jupyter notebooks: the lab's listing, one bug, magics and shell
    // escapes, and one cut off while being saved.
    let (results, log) = grade_upload(
        &ag,
        Some(&[("sudoku.ipynb", fixture("py-notebook-listing.ipynb"))]),
    );
    assert_eq!(results["score"], 12, "{results}\n{log}");
    let output = results["output"].as_str().unwrap();
    assert!(
        output.contains("Note: took code cells 1, 2, 3, 4 of sudoku.ipynb as your Python program"),
        "{output}"
    );
    let (results, log) = grade_upload(
        &ag,
        Some(&[("lab3/sudoku.ipynb", fixture("py-notebook-no-clear.ipynb"))]),
    );
    let score = results["score"].as_u64().unwrap();
    assert!((1..12).contains(&score), "{results}\n{log}");
    assert!(
        results["tests"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["output"]
                .as_str()
                .unwrap()
                .contains("a leftover digit is a fake given")),
        "{results}"
    );
    let (results, log) = grade_upload(
        &ag,
        Some(&[("sudoku.ipynb", fixture("py-notebook-magics.ipynb"))]),
    );
    assert_eq!(results["score"], 12, "{results}\n{log}");
    let output = results["output"].as_str().unwrap();
    assert!(
        output.contains(
            "left out code cell 2 (In [2]): shell escape; code cell 6 (In [6]): cell magic %%timeit"
        ),
        "{output}"
    );
    let (results, log) = grade_upload(
        &ag,
        Some(&[("sudoku.ipynb", fixture("py-notebook-malformed.ipynb"))]),
    );
    assert_eq!(results["score"], 0, "{results}\n{log}");
    let output = results["output"].as_str().unwrap();
    assert!(
        output.contains("could not be built")
            && output.contains("sudoku.ipynb is not a notebook Jupyter can open")
            && output.contains("File > Save"),
        "{output}"
    );

    // A folder zipped with macOS "Compress" (the folder, __MACOSX/ beside
    // it), and a Python solution with the student's tests beside it.
    let (results, log) = grade_upload(
        &ag,
        Some(&[
            ("lab3/sudoku.py", fixture("py-listing.py")),
            ("__MACOSX/lab3/._sudoku.py", b"\x00\x05\x16\x07".to_vec()),
            ("__MACOSX/._lab3", b"\x00\x05\x16\x07".to_vec()),
        ]),
    );
    assert_eq!(results["score"], 12, "{results}\n{log}");
    let (results, log) = grade_upload(
        &ag,
        Some(&[
            ("sudoku.py", fixture("py-listing.py")),
            ("test_sudoku.py", b"import sudoku\n".to_vec()),
        ]),
    );
    assert_eq!(results["score"], 12, "{results}\n{log}");
    assert!(
        log.contains("test_sudoku.py"),
        "the test file is named as ignored: {log}"
    );

    // A one-bug .c: graded, not full marks.
    let (results, _) = grade_upload(&ag, Some(&[("solver.c", fixture("bug-legal-no-box.c"))]));
    assert_eq!(results["score"], 8, "{results}");

    // A crate at the top, as Gradescope unpacks it.
    let (results, log) = grade_upload(
        &ag,
        Some(&[
            ("Cargo.toml", fixture("rust-trait/Cargo.toml")),
            ("Cargo.lock", fixture("rust-trait/Cargo.lock")),
            ("src/lib.rs", fixture("rust-trait/src/lib.rs")),
        ]),
    );
    assert_eq!(results["score"], 12, "{results}\n{log}");

    // An empty upload: a result that says what to upload.
    let (results, _) = grade_upload(&ag, Some(&[]));
    assert_eq!(results["score"], 0);
    let output = results["output"].as_str().unwrap();
    assert!(
        output.contains("is empty") && output.contains("upload your .c, .py, .ipynb or .so file"),
        "{results}"
    );
    // An upload of something else: the student's own result says what was
    // found and what to upload.
    let (results, _) = grade_upload(
        &ag,
        Some(&[
            ("lab3.zip", b"PK\x05\x06".to_vec()),
            ("notes.txt", b"my notes".to_vec()),
        ]),
    );
    assert_eq!(results["score"], 0);
    let output = results["output"].as_str().unwrap();
    assert!(
        output.contains("holds no submission: it holds lab3.zip, notes.txt (an archive inside the upload is not unpacked: upload the files in it); upload your .c, .py, .ipynb or .so file"),
        "{output}"
    );
    // Two solutions: both named.
    let (results, _) = grade_upload(
        &ag,
        Some(&[
            ("sudoku.py", fixture("py-listing.py")),
            ("sudoku.ipynb", fixture("py-notebook-listing.ipynb")),
        ]),
    );
    assert_eq!(results["score"], 0);
    let output = results["output"].as_str().unwrap();
    assert!(
        output.contains("several solutions (sudoku.ipynb, sudoku.py each define legal, find_empty and solve): upload exactly one"),
        "{output}"
    );

    // No upload folder at all (the grader cannot run): still a results.json,
    // with a message for the instructor.
    let (results, log) = grade_upload(&ag, None);
    assert_eq!(results["score"], 0);
    assert_eq!(results["output_format"], "text");
    let output = results["output"].as_str().unwrap();
    assert!(output.contains("This is not your grade"), "{output}");
    assert!(output.contains("For the instructor"), "{output}");
    assert!(log.contains("the grader failed"), "{log}");
}

#[test]
#[ignore = "slow: an engine: the Gradescope package with Rust, in a simulated /autograder"]
fn with_rust_setup_also_wants_cargo() {
    let dir = tempfile::tempdir().unwrap();
    let source = unpacked(dir.path(), true);
    let setup = fs::read_to_string(source.join("setup.sh")).unwrap();
    assert!(setup.contains("NEEDS_RUST=1"), "{setup}");
    // Check-only with no cargo on PATH: it says Rust is missing.
    let out = Command::new("bash")
        .arg(source.join("setup.sh"))
        .env("AUTOGRADER_ROOT", dir.path().join("autograder"))
        .env("SETUP_CHECK_ONLY", "1")
        .env("HOME", dir.path())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    if Path::new("/usr/bin/cargo").exists() {
        assert!(out.status.success(), "{stderr}");
    } else {
        assert!(!out.status.success());
        assert!(
            stderr.contains("missing:") && stderr.contains("rust"),
            "{stderr}"
        );
    }
}

/// The highest `GLIBC_x.y` that `objdump -T` (binutils, a reader other
/// than grader's own) shows for the dynamic symbols of `binary`; `None`
/// when it names none.
fn objdump_glibc(binary: &Path) -> Option<(u32, u32)> {
    let out = Command::new("objdump")
        .arg("-T")
        .arg(binary)
        .output()
        .expect("objdump is needed (Debian: apt-get install binutils)");
    assert!(out.status.success(), "objdump: {}", text(&out.stderr));
    text(&out.stdout)
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter_map(|word| word.strip_prefix("GLIBC_"))
        .filter_map(|version| {
            let mut parts = version.split('.');
            Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
        })
        .max()
}

#[test]
fn the_package_names_the_gradescope_images_its_binaries_run_on() {
    let dir = tempfile::tempdir().unwrap();
    let source = unpacked(dir.path(), false);
    // What the packed binaries need, as objdump reads them.
    let needed = ["bin/grader", "bin/grader-worker"]
        .iter()
        .filter_map(|b| objdump_glibc(&source.join(b)))
        .max();
    let images = [
        ("ubuntu-18.04", (2, 27)),
        ("ubuntu-20.04", (2, 31)),
        ("ubuntu-22.04", (2, 35)),
    ];
    let fits: Vec<&str> = images
        .iter()
        .filter(|(_, has)| needed.is_none_or(|n| n <= *has))
        .map(|(name, _)| *name)
        .collect();
    let package = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_grader"))
            .args(["package", "gradescope", "--cases"])
            .arg(dir.path().join("cases"))
            .arg("--out")
            .arg(dir.path().join("again.zip"))
            .args(extra)
            .output()
            .unwrap()
    };
    let out = package(&[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    let line = said
        .lines()
        .find(|l| l.starts_with("runs on Gradescope's base images "))
        .unwrap_or_else(|| panic!("no line on the images: {said}"));
    assert!(
        line.starts_with(&format!(
            "runs on Gradescope's base images {} (",
            fits.join(", ")
        )),
        "objdump says glibc {needed:?}: {line}"
    );
    if let Some((major, minor)) = needed {
        assert!(
            line.contains(&format!("need glibc {major}.{minor} (")),
            "{line}"
        );
    }
    let warning = text(&out.stderr);
    assert_eq!(
        warning.contains("scripts/build-portable && target/x86_64-unknown-linux-gnu/release/grader package gradescope"),
        fits.len() < images.len(),
        "the one command for every image: {warning}"
    );
    for (name, has) in images {
        let excluded = !fits.contains(&name);
        assert_eq!(
            warning.contains(&format!("{name} (glibc {}.{})", has.0, has.1)),
            excluded,
            "{name}: {warning}"
        );
        // --image refuses an image that cannot run the binaries, before
        // any zip is written.
        let _ = fs::remove_file(dir.path().join("again.zip"));
        let chosen = package(&["--image", name]);
        if excluded {
            assert_eq!(chosen.status.code(), Some(2), "{name}");
            assert!(
                text(&chosen.stderr).contains(&format!("--image {name}: the binaries need glibc")),
                "{}",
                text(&chosen.stderr)
            );
            assert!(!dir.path().join("again.zip").exists(), "{name}: no zip");
        } else {
            assert!(chosen.status.success(), "{name}: {}", text(&chosen.stderr));
        }
    }
    let unknown = package(&["--image", "ubuntu-16.04"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        text(&unknown.stderr).contains("give one of ubuntu-18.04, ubuntu-20.04, ubuntu-22.04"),
        "{}",
        text(&unknown.stderr)
    );
}

/// Where `scripts/build-portable` leaves grader and grader-worker.
const PORTABLE: &str = "target/x86_64-unknown-linux-gnu/release";

/// The portable build (`scripts/build-portable`, which `.ci/run` runs
/// before the slow tier): no symbol of either binary needs a glibc newer
/// than 2.27 (objdump's reading), `package` run with it says every
/// Gradescope image runs them and packs them, and the package grades an
/// upload in the simulated `/autograder`. Without the build, this test
/// says it skipped; under `CI=true` it fails.
#[test]
#[ignore = "slow: an engine: the portable build's package in a simulated /autograder"]
fn the_portable_build_packs_binaries_every_gradescope_image_runs() {
    let built = root().join(PORTABLE);
    if !built.join("grader").is_file() {
        assert!(
            std::env::var_os("CI").is_none(),
            "no portable build in {PORTABLE}: run scripts/build-portable (.ci/run does)"
        );
        eprintln!("skipped: no portable build in {PORTABLE} (scripts/build-portable makes it)");
        return;
    }
    for bin in ["grader", "grader-worker"] {
        let needed = objdump_glibc(&built.join(bin));
        assert!(
            needed.is_some_and(|v| v <= (2, 27)),
            "{bin} needs glibc {needed:?}, over Ubuntu 18.04's 2.27"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let (said, source) = unpacked_by(Grader::of(built.join("grader")), dir.path(), false);
    assert!(
        said.contains(
            "runs on Gradescope's base images ubuntu-18.04, ubuntu-20.04, ubuntu-22.04 ("
        ),
        "{said}"
    );
    for bin in ["bin/grader", "bin/grader-worker"] {
        let packed = fs::read(source.join(bin)).unwrap();
        let name = bin.trim_start_matches("bin/");
        assert!(
            packed == fs::read(built.join(name)).unwrap(),
            "{bin} is the portable build's"
        );
    }
    let ag = dir.path().join("autograder");
    let setup = script(&ag, "setup.sh");
    assert!(setup.status.success(), "{}", text(&setup.stderr));
    let (results, log) = grade_upload(&ag, Some(&[("sudoku.c", fixture("c-listing.c"))]));
    assert_eq!(results["score"], 12, "{results}\n{log}");
    let (results, log) = grade_upload(&ag, Some(&[("sudoku.c", fixture("bug-no-clear.c"))]));
    let score = results["score"].as_u64().unwrap();
    assert!((1..12).contains(&score), "{results}\n{log}");
}
