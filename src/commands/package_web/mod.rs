//! `grader package web --cases DIR --out SITE`: the static folder of the
//! browser check, ready to publish on any static host (GitHub Pages, a
//! course site, a link from an LMS).
//!
//! What the folder holds:
//!
//! - `index.html`, the page's script and style (`web/page/`, built into
//!   grader), and `stub.py`, the stubs `grader init --lang python` writes;
//! - `engine/`: the browser check's engine (`web/engine/`), the judge
//!   compiled to WebAssembly (`engine/judge.wasm`) and the grader's Python
//!   harness; `check.mjs`, the Node runner (`node SITE/check.mjs FILE.py`);
//! - `sw.js`, the service worker that keeps the folder for offline use and
//!   adds the COOP/COEP headers a static host cannot set (through
//!   `coi-serviceworker.js`, vendored and pinned in `vendor.lock`);
//! - `pyodide/`: Pyodide's interpreter and standard library, copied from
//!   the pinned npm package and checked against its pinned checksums
//!   (`vendor.lock`), so the page loads nothing from a third-party host;
//! - `cases/`: the **public** cases only (a folder with a hidden case is
//!   refused: the page is public), with `cases/index.json` naming them;
//! - `manifest.json`: every file of the site and the site's version (the
//!   service worker caches what it names).
//!
//! The folder is written beside `SITE` and renamed into place, so a
//! failed run leaves an earlier site as it was.

mod site;
mod tar;
mod vendor;

use anyhow::{Context, bail};

use crate::cli::WebPackageArgs;
use crate::commands::package::toml_files;
use crate::exit;
use crate::runner::grade_plan::load_cases;

/// Runs `grader package web`.
pub fn run(args: &WebPackageArgs) -> anyhow::Result<u8> {
    let cases = load_cases(Some(&args.cases), true)?;
    let hidden: Vec<String> = cases
        .cases
        .iter()
        .filter(|c| c.hidden)
        .map(|c| format!("{} ({})", c.name, c.file.display()))
        .collect();
    if !hidden.is_empty() {
        bail!(
            "{} holds hidden case(s) {}: the web page is public, so anyone could read them. \
             Give --cases a folder with only the public case files (and grader.toml), \
             e.g. a copy of {} without the files that mark cases `hidden = true`",
            args.cases.display(),
            hidden.join(", "),
            args.cases.display()
        );
    }
    if cases.cases.is_empty() {
        bail!(
            "{} holds no cases: give --cases the course's folder of public case files",
            args.cases.display()
        );
    }
    site::check_out(&args.out)?;
    vendor::check_coi_serviceworker(site::COI_SERVICEWORKER.as_bytes())?;
    let pyodide = vendor::Pyodide::find(args.pyodide.as_deref())?;
    let judge = crate::web_engine::judge_wasm().map_err(anyhow::Error::msg)?;
    let case_files = toml_files(&args.cases)?;
    let mut files = site::Files::default();
    site::add_page(&mut files);
    files.add("engine/judge.wasm", judge.to_vec());
    for (path, bytes) in pyodide.files()? {
        files.add(&path, bytes);
    }
    for file in &case_files {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes =
            std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        files.add(&format!("cases/{name}"), bytes);
    }
    site::finish(&mut files, &case_files);
    site::write(&args.out, &files)?;
    println!(
        "wrote {}: the browser check with {} public cases from {} files, Pyodide {} ({} files, {:.1} MB)",
        args.out.display(),
        cases.cases.len(),
        case_files.len(),
        vendor::PINS.pyodide.version,
        files.len(),
        files.bytes() as f64 / 1e6
    );
    if !crate::quiet::is_quiet() {
        println!(
            "publish the folder as it is on any static host (GitHub Pages, a course site) and give students the address of its index.html"
        );
    }
    Ok(exit::SUCCESS)
}
