//! The files of a web site in memory, the page's own files (built into
//! grader from `web/page/`), the index files the page and the service
//! worker read, and the folder written in one step.

use anyhow::{Context, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::vendor::sha256_hex;

/// The page's files: path in the site, contents.
const PAGE: &[(&str, &str)] = &[
    ("index.html", include_str!("../../../web/page/index.html")),
    ("page.css", include_str!("../../../web/page/page.css")),
    ("page.mjs", include_str!("../../../web/page/page.mjs")),
    ("board.mjs", include_str!("../../../web/page/board.mjs")),
    ("coi-serviceworker.js", COI_SERVICEWORKER),
];

/// The vendored coi-serviceworker (checked against its pin before use).
pub(super) const COI_SERVICEWORKER: &str = include_str!("../../../web/page/coi-serviceworker.js");

/// The service worker; `@VERSION@` becomes the site's version, so a new
/// site is a new worker and the browser replaces the cached files.
const SERVICE_WORKER: &str = include_str!("../../../web/page/sw.js");

/// The name of the file listing the site (read by the service worker, and
/// by `grader package web` to know an earlier site it may replace).
pub(super) const MANIFEST: &str = "manifest.json";

/// A site's files by path (`/`-separated, relative to the site).
#[derive(Default)]
pub(super) struct Files(BTreeMap<String, Vec<u8>>);

impl Files {
    /// Adds (or replaces) the file at `path`.
    pub(super) fn add(&mut self, path: &str, bytes: impl Into<Vec<u8>>) {
        self.0.insert(path.to_string(), bytes.into());
    }

    /// How many files.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// Their total size in bytes.
    pub(super) fn bytes(&self) -> usize {
        self.0.values().map(Vec::len).sum()
    }
}

/// Adds the page's files and the Python stubs.
pub(super) fn add_page(files: &mut Files) {
    for (path, text) in PAGE {
        files.add(path, *text);
    }
    files.add("stub.py", crate::commands::init::PYTHON_STUB);
    for (path, text) in crate::web_engine::ENGINE_FILES {
        files.add(path, *text);
    }
}

/// Adds `cases/index.json` (the list of case file names: a static host
/// cannot list a folder), then `sw.js` and [`MANIFEST`], which name every
/// file and the site's version (a hash of all of them).
pub(super) fn finish(files: &mut Files, case_files: &[PathBuf]) {
    let names: Vec<String> = case_files
        .iter()
        .filter_map(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    files.add("cases/index.json", serde_json::json!(names).to_string());
    let mut hash = String::new();
    for (path, bytes) in &files.0 {
        hash.push_str(path);
        hash.push_str(&sha256_hex(bytes));
    }
    let version = sha256_hex(hash.as_bytes())[..16].to_string();
    files.add("sw.js", SERVICE_WORKER.replace("@VERSION@", &version));
    let mut listed: Vec<&String> = files.0.keys().collect();
    let manifest = MANIFEST.to_string();
    listed.push(&manifest);
    listed.sort();
    let body = serde_json::json!({
        "generator": format!("grader {}", env!("CARGO_PKG_VERSION")),
        "version": version,
        "files": listed,
    });
    files.add(MANIFEST, format!("{body:#}\n"));
}

/// Whether `out` can take a site: an earlier site or an empty folder to
/// replace (`true`), or a new name in an existing folder (`false`); and
/// the folder it goes in.
///
/// # Errors
/// When `out` is a file, a folder with other things in it, or its parent
/// folder does not exist: each message says what to do.
pub(super) fn check_out(out: &Path) -> anyhow::Result<(bool, PathBuf)> {
    let shown = out.display();
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        bail!(
            "cannot write in {}: it is not a folder; give --out a folder whose parent exists and you can write to",
            parent.display()
        );
    }
    if out.is_dir() {
        let mut entries = std::fs::read_dir(out)
            .with_context(|| format!("cannot read --out {shown}: give a folder you can write"))?;
        if entries.next().is_some() && !out.join(MANIFEST).is_file() {
            bail!(
                "--out {shown} already holds files that are not a site grader wrote: give a new folder (or an earlier site to replace)"
            );
        }
        Ok((true, parent))
    } else if out.exists() {
        bail!("--out {shown} is a file: give the name of a folder to write the site in")
    } else {
        Ok((false, parent))
    }
}

/// Writes `files` as the folder `out`: into a new folder beside it, then
/// renamed into place, replacing an earlier site (a folder with a
/// [`MANIFEST`]) or an empty folder, never anything else.
///
/// # Errors
/// When `out` is a file or a folder with other things in it, or the folder
/// `out` goes in does not exist or cannot be written: each message says
/// what to do.
pub(super) fn write(out: &Path, files: &Files) -> anyhow::Result<()> {
    let (replaced, parent) = check_out(out)?;
    let shown = out.display();
    let temp = tempfile::Builder::new()
        .prefix(".site-")
        .tempdir_in(&parent)
        .with_context(|| {
            format!(
                "cannot write in {}: give --out a folder whose parent exists and you can write to",
                parent.display()
            )
        })?;
    for (path, bytes) in &files.0 {
        let target = temp.path().join(path);
        if let Some(folder) = target.parent() {
            std::fs::create_dir_all(folder)
                .with_context(|| format!("cannot create {}", folder.display()))?;
        }
        std::fs::write(&target, bytes)
            .with_context(|| format!("cannot write {}", target.display()))?;
    }
    // A temporary folder is private (0700); a site is read by a web server.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot set the permissions of {}", temp.path().display()))?;
    let new = temp.keep();
    if replaced {
        let old = tempfile::Builder::new()
            .prefix(".old-site-")
            .tempdir_in(&parent)
            .with_context(|| format!("cannot write in {}", parent.display()))?;
        let aside = old.path().join("site");
        std::fs::rename(out, &aside)
            .with_context(|| format!("cannot move the earlier site {shown} aside"))?;
        if let Err(err) = std::fs::rename(&new, out) {
            let _ = std::fs::rename(&aside, out);
            let _ = std::fs::remove_dir_all(&new);
            return Err(err).with_context(|| format!("cannot write {shown}"));
        }
    } else if let Err(err) = std::fs::rename(&new, out) {
        let _ = std::fs::remove_dir_all(&new);
        return Err(err).with_context(|| format!("cannot write {shown}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_file_goes_into_the_site() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/engine");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let path = format!("engine/{name}");
            assert!(
                crate::web_engine::ENGINE_FILES
                    .iter()
                    .any(|(p, _)| *p == path),
                "web/engine/{name} is not in web_engine::ENGINE_FILES: add it there"
            );
        }
    }

    #[test]
    fn the_manifest_names_every_file_and_the_worker_its_version() {
        let mut files = Files::default();
        add_page(&mut files);
        finish(&mut files, &[PathBuf::from("cases/campus.toml")]);
        let manifest: serde_json::Value = serde_json::from_slice(&files.0[MANIFEST]).unwrap();
        let listed = manifest["files"].as_array().unwrap();
        assert_eq!(listed.len(), files.len());
        let version = manifest["version"].as_str().unwrap();
        let sw = String::from_utf8(files.0["sw.js"].clone()).unwrap();
        assert!(sw.contains(&format!("'{version}'")) && !sw.contains("@VERSION@"));
        assert_eq!(files.0["cases/index.json"], br#"["campus.toml"]"#);
    }
}
