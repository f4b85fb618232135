//! The HTML report of a class of 200 in the local Chromium (slow tier:
//! `cargo test --test integration html_class:: -- --ignored`): a real run
//! of fixtures that cover every verdict, its students copied to 200 and
//! rendered by `grader merge --html`, then
//! - Lighthouse's accessibility audit (served from 127.0.0.1: Lighthouse
//!   refuses `file://` URLs), which must score at least 0.95;
//! - `tests/browser/page.mjs` (puppeteer-core): the filter shows exactly
//!   the students the JSON report says have a verdict on a test, the page
//!   without script shows every student, and the page's height is printed
//!   (run with `--nocapture` to read it).
//!
//! The Node tools are installed by `npm ci --prefix tests/browser` (`.ci/run`
//! does it).

use serde_json::Value;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::util::{grader, root, text};

/// The fixtures of the real run: a pass (C and Python), wrong answers (of
/// `solve`, and of `legal` with the `solve` failures that follow from it),
/// a timeout, a crash, a memory limit, a forbidden call, a build error.
const FIXTURES: [&str; 9] = [
    "c-listing.c",
    "py-listing.py",
    "bug-no-clear.c",
    "bug-legal-no-box.c",
    "hostile-sleep.c",
    "hostile-segfault.c",
    "hostile-memory-bomb.c",
    "hostile-fork.c",
    "broken-compile.c",
];

const CLASS_SIZE: usize = 200;

/// The Node tools' folder, or a failure saying how to install them.
fn node_tools() -> PathBuf {
    let dir = root().join("tests/browser");
    assert!(
        dir.join("node_modules/lighthouse").is_dir()
            && dir.join("node_modules/puppeteer-core").is_dir(),
        "Lighthouse and puppeteer-core are needed: run `npm ci --prefix tests/browser` (Debian: apt-get install nodejs npm chromium); .ci/run does"
    );
    dir
}

/// The browser Lighthouse and puppeteer drive.
fn chromium() -> String {
    let out = Command::new("sh")
        .args(["-c", "command -v chromium"])
        .output()
        .expect("sh");
    let path = text(&out.stdout).trim().to_string();
    assert!(
        !path.is_empty(),
        "chromium is needed (Debian: apt-get install chromium); .ci/run installs it"
    );
    path
}

/// A real run of [`FIXTURES`], copied to [`CLASS_SIZE`] students (`id-k`),
/// as a JSON report in `dir`.
fn class_report(dir: &Path) -> Value {
    let subs = dir.join("subs");
    fs::create_dir_all(&subs).unwrap();
    for name in FIXTURES {
        fs::copy(root().join("submissions").join(name), subs.join(name)).unwrap();
    }
    let real = dir.join("real.json");
    let run = grader()
        .current_dir(root())
        .arg("grade")
        .arg(&subs)
        .args(["--cases", "cases", "--json"])
        .arg(&real)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    let mut report: Value = serde_json::from_str(&fs::read_to_string(&real).unwrap()).unwrap();
    let graded = report["submissions"].as_array().unwrap().clone();
    assert_eq!(graded.len(), FIXTURES.len());
    let mut class = Vec::new();
    for k in 0.. {
        for sub in &graded {
            if class.len() == CLASS_SIZE {
                break;
            }
            let mut copy = sub.clone();
            copy["id"] = format!("{}-{k:03}", sub["id"].as_str().unwrap()).into();
            class.push(copy);
        }
        if class.len() == CLASS_SIZE {
            break;
        }
    }
    class.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    report["submissions"] = Value::Array(class);
    report
}

/// How many students of `report` have `verdict` ("fail": anything but a
/// pass) on the test `test` ("": on any test).
fn students_with(report: &Value, verdict: &str, test: &str) -> usize {
    report["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|sub| {
            sub["tests"].as_array().unwrap().iter().any(|t| {
                let name = format!(
                    "{}/{}",
                    t["case"].as_str().unwrap(),
                    t["function"].as_str().unwrap()
                );
                let v = t["verdict"].as_str().unwrap();
                (test.is_empty() || name == test)
                    && match verdict {
                        "" => true,
                        "fail" => v != "pass",
                        _ => v == verdict,
                    }
            })
        })
        .count()
}

/// `python3 -m http.server` on 127.0.0.1 serving `dir`, and its port; the
/// server is killed when the guard drops.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(dir: &Path) -> (Server, u16) {
    let mut child = Command::new("python3")
        .args(["-u", "-m", "http.server", "0", "--bind", "127.0.0.1"])
        .arg("--directory")
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 -m http.server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // "Serving HTTP on 127.0.0.1 port 43125 (http://127.0.0.1:43125/) ..."
    let port = line
        .split_whitespace()
        .skip_while(|w| *w != "port")
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in the server's first line: {line:?}"));
    (Server(child), port)
}

/// `node tests/browser/page.mjs ARGS`: what puppeteer saw, as JSON.
fn page(tools: &Path, args: &[&str]) -> Value {
    let out = Command::new("timeout")
        .arg("120")
        .arg("node")
        .arg(tools.join("page.mjs"))
        .args(args)
        .env("CHROME_PATH", chromium())
        .output()
        .unwrap();
    assert!(out.status.success(), "page.mjs: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

#[test]
#[ignore = "slow: a real run copied to 200 students, rendered in Chromium and audited by Lighthouse (npm ci --prefix tests/browser)"]
fn a_class_of_200_is_filtered_and_accessible_in_chromium() {
    let tools = node_tools();
    let dir = tempfile::tempdir().unwrap();
    let report = class_report(dir.path());
    let class = dir.path().join("class.json");
    fs::write(&class, report.to_string()).unwrap();
    let site = dir.path().join("site");
    fs::create_dir(&site).unwrap();
    let html = site.join("report.html");
    let merged = grader()
        .current_dir(root())
        .arg("merge")
        .arg(&class)
        .args(["--cases", "cases", "--html"])
        .arg(&html)
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(1), "{}", text(&merged.stderr));

    // What a person sees: every student, the lab's column order, and the
    // filter agreeing with the JSON report.
    let url = format!("file://{}", html.display());
    let checks = [
        ("timeout", ""),
        ("fail", "campus-4x4/solve"),
        ("crash", "big-16x16/solve"),
        ("pass", "campus-4x4/legal"),
        ("", ""),
    ];
    let mut args = vec![url.as_str()];
    for (verdict, test) in &checks {
        args.extend(["--filter", verdict, test]);
    }
    let seen = page(&tools, &args);
    assert_eq!(seen["errors"], Value::Array(Vec::new()), "{seen}");
    assert_eq!(
        seen["scripted"], true,
        "the policy let the filter run: {seen}"
    );
    assert_eq!(seen["rows"]["rows"], CLASS_SIZE, "{seen}");
    let columns: Vec<&str> = seen["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(columns.first(), Some(&"campus-4x4/legal"), "{columns:?}");
    assert_eq!(columns.last(), Some(&"big-16x16/solve"), "{columns:?}");
    for (seen, (verdict, test)) in seen["filters"].as_array().unwrap().iter().zip(checks) {
        let expected = students_with(&report, verdict, test);
        assert!(
            expected > 0,
            "the fixture has students with {verdict} on {test:?}"
        );
        assert_eq!(seen["rows"], expected, "{verdict} on {test:?}: {seen}");
        assert_eq!(seen["students"], expected, "{verdict} on {test:?}: {seen}");
        assert_eq!(
            seen["count"],
            format!("{expected} of {CLASS_SIZE} students shown"),
            "{seen}"
        );
    }
    // One coordinate system: each marked cell sits under the axis labels
    // the message names it by, counted from 0; no sideways scroll on a
    // phone (390 px) or a desktop (1400 px): the matrix and the boards
    // scroll inside their own boxes. Screenshots in target/screenshots/.
    let shots = root().join("target/screenshots");
    fs::create_dir_all(&shots).unwrap();
    for width in ["390", "1400"] {
        let shot = shots.join(format!("report-{width}.png"));
        let seen = page(
            &tools,
            &[
                &url,
                "--width",
                width,
                "--screenshot",
                shot.to_str().unwrap(),
            ],
        );
        assert_eq!(seen["sideways"], 0, "{width} px: {}", seen["wide"]);
        let marks = seen["marks"].as_array().unwrap();
        assert!(!marks.is_empty(), "{seen}");
        for mark in marks {
            let cell = format!("(row {}, col {})", mark["row"], mark["col"]).replace('"', "");
            assert_eq!(mark["title"], cell, "{mark}");
            // Named as a cell, or as the cell legal was asked about.
            let asked = format!("legal(board, {}, {}, ", mark["row"], mark["col"]).replace('"', "");
            let message = mark["message"].as_str().unwrap();
            assert!(
                message.contains(&cell) || message.contains(&asked),
                "the message does not name the marked cell {cell}: {mark}"
            );
        }
    }
    let plain = page(&tools, &[&url, "--no-script"]);
    assert_eq!(plain["scripted"], false, "{plain}");
    assert_eq!(plain["rows"]["rows"], CLASS_SIZE, "{plain}");
    assert_eq!(plain["rows"]["students"], CLASS_SIZE, "{plain}");
    println!(
        "page height of {CLASS_SIZE} students at 1280 px: {} px",
        seen["height"]
    );

    // Lighthouse's accessibility audit, in the same Chromium.
    let (_server, port) = serve(&site);
    let audit = dir.path().join("lighthouse.json");
    let out = Command::new("timeout")
        .arg("300")
        .arg("node")
        .arg(tools.join("node_modules/lighthouse/cli/index.js"))
        .arg(format!("http://127.0.0.1:{port}/report.html"))
        .args([
            "--only-categories=accessibility",
            "--chrome-flags=--headless --no-sandbox --disable-gpu",
            "--output=json",
            "--quiet",
        ])
        .arg(format!("--output-path={}", audit.display()))
        .env("CHROME_PATH", chromium())
        .output()
        .unwrap();
    assert!(out.status.success(), "lighthouse: {}", text(&out.stderr));
    let result: Value = serde_json::from_str(&fs::read_to_string(&audit).unwrap()).unwrap();
    let score = result["categories"]["accessibility"]["score"]
        .as_f64()
        .expect("an accessibility score");
    let failed: Vec<String> = result["audits"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, a)| a["score"].as_f64().is_some_and(|s| s < 1.0))
        .map(|(id, a)| format!("{id}: {}", a["title"]))
        .collect();
    println!("lighthouse accessibility: {score}; below 1: {failed:?}");
    assert!(score >= 0.95, "accessibility {score} < 0.95: {failed:#?}");
}
