//! The browser check's page as a student meets it (slow tier: `cargo test
//! --test integration web_page:: -- --ignored`): `grader package web`
//! writes the site, `tests/browser/serve.mjs` serves it on 127.0.0.1 with
//! or without COOP/COEP headers (or inside another site's iframe, as an
//! LMS shows it), and `tests/browser/checker.mjs` drives it
//! in headless Chromium (puppeteer-core, pinned by
//! `tests/browser/package-lock.json`): code typed or opened, Check pressed,
//! what the page shows read back and held against `grader check` of the
//! same file. Lighthouse audits it as it audits the HTML report.
//!
//! Needs Node, Chromium, `npm ci --prefix tests/browser` and `npm ci
//! --prefix web`, and a grader with the judge's WebAssembly built in
//! (`rustup target add wasm32-unknown-unknown`); `.ci/run` has them all.

use serde_json::Value;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::util::{Dir, needs, root, text};

/// The Node tools' folder.
fn tools() -> PathBuf {
    root().join("tests/browser")
}

/// Chromium's path, if it is installed.
fn chromium() -> Option<String> {
    let out = Command::new("sh")
        .args(["-c", "command -v chromium"])
        .output()
        .ok()?;
    let path = text(&out.stdout).trim().to_string();
    (!path.is_empty()).then_some(path)
}

/// Whether everything the page's tests drive is here; under `CI=true` a
/// missing piece fails the test.
fn can_drive() -> bool {
    needs(
        "chromium (Debian: apt-get install chromium)",
        chromium().is_some(),
    ) && needs(
        "node (Debian: apt-get install nodejs)",
        Command::new("node").arg("--version").output().is_ok(),
    ) && needs(
        "puppeteer-core and Lighthouse (npm ci --prefix tests/browser)",
        tools().join("node_modules/puppeteer-core").is_dir()
            && tools().join("node_modules/lighthouse").is_dir(),
    ) && needs(
        "the pinned Pyodide package (npm ci --prefix web)",
        root()
            .join("web/node_modules/pyodide/package.json")
            .is_file(),
    ) && needs(
        "the judge's WebAssembly in grader (rustup target add wasm32-unknown-unknown)",
        grader::web_engine::judge_wasm().is_ok(),
    )
}

/// A course folder with the public bundled cases and the site `grader
/// package web` writes from them (`site/`).
fn course() -> Dir {
    course_of(&["campus.toml", "newspaper.toml", "big.toml", "grader.toml"])
}

/// A course folder with the case files `cases` and its site.
fn course_of(cases: &[&str]) -> Dir {
    let dir = Dir::new().cases(cases);
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
        .arg(root().join("web/node_modules/pyodide"))
        .expect(0);
    dir
}

/// `node serve.mjs SITE [--isolate]`, killed when dropped; and its port.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(site: &Path, isolate: bool) -> (Server, u16) {
    let mut command = Command::new("node");
    command
        .arg(tools().join("serve.mjs"))
        .arg(site)
        .args(isolate.then_some("--isolate"));
    start_server(command)
}

/// `node serve.mjs --frame URL`: a course page (an LMS's, on another
/// origin) that embeds `url` in an iframe; and its port.
fn serve_frame(url: &str) -> (Server, u16) {
    let mut command = Command::new("node");
    command
        .arg(tools().join("serve.mjs"))
        .args(["--frame", url]);
    start_server(command)
}

/// Starts a `serve.mjs` and reads the port from its first line.
fn start_server(mut command: Command) -> (Server, u16) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("node serve.mjs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("its stdout"))
        .read_line(&mut line)
        .expect("its first line");
    let port = line
        .trim()
        .strip_prefix("port ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in the server's first line: {line:?}"));
    (Server(child), port)
}

/// `node checker.mjs ARGS`: what the page showed, as JSON.
fn drive(args: &[String]) -> Value {
    let out = Command::new("timeout")
        .arg("1500")
        .arg("node")
        .arg(tools().join("checker.mjs"))
        .args(args)
        .arg("--timeout")
        .arg("900000")
        .env("CHROME_PATH", chromium().expect("chromium"))
        .output()
        .expect("node checker.mjs");
    assert!(
        out.status.success(),
        "checker.mjs: {}\n{}",
        text(&out.stderr),
        text(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

fn fixture(name: &str) -> String {
    let path = root().join("submissions").join(name);
    let path = if path.exists() {
        path
    } else {
        root().join("tests/fixtures/web").join(name)
    };
    path.display().to_string()
}

/// `grader check --cases CASES FILE` without colour: its lines and exit code.
fn native(dir: &Dir, file: &str) -> (Vec<String>, i32) {
    let out = dir
        .grader()
        .args(["check", "--cases", "cases", file])
        .output();
    let lines = text(&out.stdout).lines().map(str::to_string).collect();
    (lines, out.status.code().unwrap_or(-1))
}

/// The per-function lines (`✓ legal ...`) and the closing count of a
/// check's lines.
fn verdict_lines(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| {
            l.starts_with('✓')
                || l.starts_with('✗')
                || l.contains("public tests passed")
                || l.contains("could not be loaded")
        })
        .cloned()
        .collect()
}

/// A run's lines, from the check's text the page shows.
fn page_lines(run: &Value) -> Vec<String> {
    run["text"]
        .as_str()
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
#[ignore = "slow: the site in headless Chromium, served with and without COOP/COEP, against grader check"]
fn the_page_checks_like_grader_check_with_and_without_headers() {
    if !can_drive() {
        return;
    }
    let dir = course();
    let listing = fixture("py-listing.py");
    let bug = fixture("py-no-clear.py");
    let notebook = fixture("py-notebook-no-clear.ipynb");
    let (bug_lines, bug_code) = native(&dir, &bug);
    assert_eq!(bug_code, 1);
    let (notebook_lines, _) = native(&dir, &notebook);
    for isolate in [true, false] {
        let (_server, port) = serve(&dir.join("site"), isolate);
        let mut args = vec![
            format!("http://127.0.0.1:{port}/"),
            "--check".into(),
            listing.clone(),
            "--check".into(),
            bug.clone(),
            "--open".into(),
            notebook.clone(),
        ];
        args.push("--reload".into());
        let seen = drive(&args);
        let how = if isolate { "with" } else { "without" };
        assert_eq!(seen["errors"], Value::Array(Vec::new()), "{how}: {seen}");
        // Isolated either way: by the headers, or by the service worker
        // (coi-serviceworker) where the host sets none.
        assert_eq!(seen["isolated"], true, "{how} headers: {seen}");
        let runs = seen["runs"].as_array().unwrap();
        assert!(
            runs[0]["status"]
                .as_str()
                .unwrap()
                .contains("21 of 21 public tests passed"),
            "{how}: {}",
            runs[0]
        );
        // The bug: the same per-function lines, closing line and first
        // failure as grader check; its board drawn with the cell marked.
        let lines = page_lines(&runs[1]);
        assert_eq!(verdict_lines(&lines), verdict_lines(&bug_lines), "{how}");
        let first = |lines: &[String]| {
            lines
                .iter()
                .find(|l| l.trim_start().starts_with("solve on "))
                .map(|l| l.split(": ").next().unwrap().trim().to_string())
        };
        assert_eq!(first(&lines), first(&bug_lines), "{how}");
        assert_eq!(
            first(&lines).as_deref(),
            Some("solve on campus-dead-end"),
            "{lines:?}"
        );
        let boards = runs[1]["boards"].as_array().unwrap();
        let marked: Vec<&Value> = boards.iter().filter(|b| !b["marked"].is_null()).collect();
        assert!(!marked.is_empty(), "{how}: a marked cell in {boards:?}");
        let named = bug_lines.join("\n");
        for board in marked {
            let cell = board["marked"]["title"].as_str().unwrap();
            assert_eq!(
                cell,
                format!(
                    "(row {}, col {})",
                    board["marked"]["row"].as_str().unwrap(),
                    board["marked"]["col"].as_str().unwrap()
                )
            );
            assert!(named.contains(cell), "grader check names {cell}: {named}");
        }
        // A notebook opened from disk: the verdicts grader check gives it.
        assert_eq!(
            verdict_lines(&page_lines(&runs[2])),
            verdict_lines(&notebook_lines),
            "{how}"
        );
        assert_eq!(seen["kept"], true, "the code survives a reload: {seen}");
    }
}

#[test]
#[ignore = "slow: hostile Python in headless Chromium, each ended, then a correct file checked"]
fn hostile_python_ends_with_a_message_and_the_page_still_checks() {
    if !can_drive() {
        return;
    }
    // The campus cases only: the loops run every solve test to its
    // wall-clock limit, the least (5 s) on a 4x4, minutes on the 9x9s and
    // the 16x16.
    let dir = course_of(&["campus.toml", "grader.toml"]);
    let (_server, port) = serve(&dir.join("site"), false);
    // What each must end with (words of the result).
    let hostile = [
        ("py-endless-loop.py", "wall-clock"),
        ("py-swallows-interrupt.py", "wall-clock"),
        ("py-deep-recursion.py", "RecursionError"),
        ("py-huge-list.py", "Error"),
        ("py-os-system.py", "public tests passed"),
        ("py-exit-at-import.py", "sys.exit(0)"),
    ];
    let mut args = vec![format!("http://127.0.0.1:{port}/")];
    for (name, _) in hostile {
        args.extend(["--check".to_string(), fixture(name)]);
    }
    args.extend(["--check".to_string(), fixture("py-listing.py")]);
    let seen = drive(&args);
    let runs = seen["runs"].as_array().unwrap();
    assert_eq!(runs.len(), hostile.len() + 1, "{seen}");
    for ((name, says), run) in hostile.iter().zip(runs) {
        let text = run["text"].as_str().unwrap();
        assert!(
            run["status"].as_str().unwrap().starts_with("Checked in"),
            "{name}: {run}"
        );
        assert!(text.contains(says), "{name} says {says:?}: {text}");
        let timed_out = text.contains("wall-clock");
        assert_eq!(run["time_note"], timed_out, "{name}: the wall-clock note");
    }
    assert!(
        runs[hostile.len()]["status"]
            .as_str()
            .unwrap()
            .contains("12 of 12 public tests passed"),
        "{seen}"
    );
    for (name, ms) in hostile.iter().zip(runs).map(|(h, r)| (h.0, &r["ms"])) {
        println!("{name}: {ms} ms");
    }
}

/// Lighthouse's score of `category` for `url`, and the audits below 1.
fn lighthouse(url: &str, out: &Path) -> Vec<(String, f64, Vec<String>)> {
    let run = Command::new("timeout")
        .arg("300")
        .arg("node")
        .arg(tools().join("node_modules/lighthouse/cli/index.js"))
        .arg(url)
        .args([
            "--only-categories=accessibility,best-practices",
            "--chrome-flags=--headless --no-sandbox --disable-gpu",
            "--output=json",
            "--quiet",
        ])
        .arg(format!("--output-path={}", out.display()))
        .env("CHROME_PATH", chromium().expect("chromium"))
        .output()
        .expect("lighthouse");
    assert!(run.status.success(), "lighthouse: {}", text(&run.stderr));
    let result: Value = serde_json::from_str(&fs::read_to_string(out).unwrap()).unwrap();
    ["accessibility", "best-practices"]
        .iter()
        .map(|category| {
            let score = result["categories"][category]["score"]
                .as_f64()
                .unwrap_or(0.0);
            let failed = result["categories"][category]["auditRefs"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|r| r["id"].as_str())
                .filter(|id| {
                    result["audits"][id]["score"]
                        .as_f64()
                        .is_some_and(|s| s < 1.0)
                })
                .map(|id| format!("{id}: {}", result["audits"][id]["title"]))
                .collect();
            (category.to_string(), score, failed)
        })
        .collect()
}

#[test]
#[ignore = "slow: Lighthouse and screenshots of the page in headless Chromium"]
fn the_page_is_accessible_fits_a_phone_and_is_pictured() {
    if !can_drive() {
        return;
    }
    let dir = course();
    let (_server, port) = serve(&dir.join("site"), true);
    let url = format!("http://127.0.0.1:{port}/");
    for (category, score, failed) in lighthouse(&url, &dir.join("lighthouse.json")) {
        println!("lighthouse {category}: {score}; below 1: {failed:?}");
        assert_eq!(score, 1.0, "{category} {score} < 1: {failed:#?}");
    }
    // A pass and a failure with its board, at a phone's width (390 px)
    // and a laptop's: no sideways scroll. Screenshots in
    // target/screenshots/ (docs/guide/ shows copies).
    let shots = root().join("target/screenshots");
    fs::create_dir_all(&shots).unwrap();
    for (width, name, file) in [
        ("390", "web-check-pass-390.png", "py-listing.py"),
        ("390", "web-check-failure-390.png", "py-digits-from-zero.py"),
        ("1280", "web-check-failure-1280.png", "py-no-clear.py"),
    ] {
        let seen = drive(&[
            url.clone(),
            "--width".into(),
            width.into(),
            "--check".into(),
            fixture(file),
            "--screenshot".into(),
            shots.join(name).display().to_string(),
        ]);
        assert_eq!(seen["sideways"], 0, "{width} px, {file}: {seen}");
        assert_eq!(seen["errors"], Value::Array(Vec::new()), "{seen}");
        let run = &seen["runs"][0];
        if file != "py-listing.py" {
            assert!(
                run["boards"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|b| !b["marked"].is_null()),
                "{file}: a board with its cell marked: {run}"
            );
        }
    }
}

#[test]
#[ignore = "slow: the site in headless Chromium, loaded once, then checked with the network off"]
fn the_page_works_offline_once_loaded() {
    if !can_drive() {
        return;
    }
    let dir = course();
    let (_server, port) = serve(&dir.join("site"), false);
    // Loaded once, then opened again with the network off: the service
    // worker's copy serves the page, Pyodide and the judge.
    let seen = drive(&[
        format!("http://127.0.0.1:{port}/"),
        "--offline".into(),
        "--check".into(),
        fixture("py-no-clear.py"),
    ]);
    assert_eq!(seen["errors"], Value::Array(Vec::new()), "{seen}");
    let (bug_lines, _) = native(&dir, &fixture("py-no-clear.py"));
    let run = &seen["runs"][0];
    assert_eq!(
        verdict_lines(&page_lines(run)),
        verdict_lines(&bug_lines),
        "{run}"
    );
}

#[test]
#[ignore = "slow: the site in another origin's iframe in headless Chromium, never isolated: an endless loop ended by restarting Python"]
fn the_page_in_another_sites_frame_checks_and_stops_a_loop_without_isolation() {
    if !can_drive() {
        return;
    }
    // The campus cases only, as the hostile test: the loop runs each solve
    // test to its wall-clock limit, 5 s on a 4x4.
    let dir = course_of(&["campus.toml", "grader.toml"]);
    let (_site, port) = serve(&dir.join("site"), false);
    // The course page on another port of another host name: another
    // origin and another site, as an LMS is. A frame cannot be isolated
    // unless the page around it is, so the check has no interrupt buffer
    // there and ends a loop by restarting Python.
    let (_lms, lms_port) = serve_frame(&format!("http://127.0.0.1:{port}/"));
    let listing = fixture("py-listing.py");
    let (listing_lines, code) = native(&dir, &listing);
    assert_eq!(code, 0, "{listing_lines:?}");
    let seen = drive(&[
        format!("http://localhost:{lms_port}/"),
        "--frame".into(),
        "--check".into(),
        listing.clone(),
        "--check".into(),
        fixture("py-endless-loop.py"),
        "--check".into(),
        listing,
        "--reload".into(),
    ]);
    assert_eq!(seen["errors"], Value::Array(Vec::new()), "{seen}");
    assert_eq!(seen["isolated"], false, "{seen}");
    let note = seen["isolation"].as_str().unwrap();
    assert!(note.contains("not cross-origin isolated"), "{note}");
    // Two loads (the visit and the one of --reload): the page never
    // reloads itself in a frame.
    assert_eq!(seen["navigations"], 2, "{seen}");
    assert_eq!(seen["kept"], true, "the code survives a reload: {seen}");
    let runs = seen["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "{seen}");
    for run in [&runs[0], &runs[2]] {
        assert!(
            run["status"]
                .as_str()
                .unwrap()
                .contains("12 of 12 public tests passed"),
            "{run}"
        );
        assert_eq!(
            verdict_lines(&page_lines(run)),
            verdict_lines(&listing_lines),
            "{run}"
        );
    }
    // The loop: every solve test timed out, said to be wall-clock, and
    // ended by a new Python, not by an interrupt.
    let looped = &runs[1];
    let text = looped["text"].as_str().unwrap();
    assert!(
        looped["status"]
            .as_str()
            .unwrap()
            .contains("8 of 12 public tests passed"),
        "{looped}"
    );
    assert!(text.contains("solve on campus-4x4: timeout"), "{text}");
    assert!(text.contains("wall-clock"), "{text}");
    assert_eq!(looped["time_note"], true, "{looped}");
    let statuses = looped["statuses"].as_array().unwrap();
    assert!(
        statuses
            .iter()
            .any(|s| s.as_str().unwrap().starts_with("Restarting Python")),
        "Python restarted: {statuses:?}"
    );
    println!(
        "ready {} ms; the loop {} ms",
        seen["ready_ms"], looped["ms"]
    );
}
