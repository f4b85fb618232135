//! The rules for a student's `Cargo.toml` (defence in depth: the box that
//! builds the crate is the real line; these refuse, with a message saying
//! why, what would reach outside the crate or run the student's code at
//! build time if the box were missing or had a hole):
//!
//! | refused | because |
//! |---|---|
//! | a manifest over [`MAX_MANIFEST_BYTES`] (by its size on disk, before reading) | a 1 GB sparse manifest was quoted whole into the report |
//! | `[patch]` (any), `[replace]` | they swap a dependency for a folder of the submission, build script included |
//! | a `[workspace]` with anything in it, and any other `workspace` key (`package.workspace`, `x.workspace = true`) | inherited dependencies resolve to paths the grader never checked; the grader writes its own empty `[workspace]` (an empty one of the student's is the same and accepted) |
//! | a target `path` (`[lib]`, `[[bin]]`, ...) that is absolute or climbs out with `..` | `[lib] path = "/..."` compiles any file the compiler's user can read |
//! | a build script (`build.rs`, `package.build`), a `proc-macro` library | code that runs at build time |
//! | a `path`/`git` dependency other than `sudoku-lab` | it could carry either of the above |
//!
//! Registry dependencies resolve only from the local cache (`--offline`):
//! published code, not the student's.

use std::path::{Component, Path};

use super::build::failure::BuildFailure;

/// The largest `Cargo.toml` the grader reads, in bytes.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 64 << 10;

/// The student's `Cargo.toml`, checked by the rules of this module and
/// adjusted for building a copy of the crate elsewhere: a `cdylib` named
/// `lib_name`, `sudoku-lab` from `lab_crate`, and the grader's own empty
/// `[workspace]`, so that the copy is a workspace of its own.
///
/// # Errors
/// [`BuildFailure::Invalid`] naming the rule broken and what to do.
pub(crate) fn rewrite_manifest(
    text: &str,
    crate_dir: &Path,
    lab_crate: &Path,
    lib_name: &str,
) -> Result<String, BuildFailure> {
    use toml_edit::{Array, DocumentMut, Item, Table, value};
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        BuildFailure::Invalid(format!(
            "Cargo.toml is not valid TOML: {}",
            e.to_string().trim()
        ))
    })?;
    if !doc.contains_key("package") {
        return Err(BuildFailure::Invalid(
            "Cargo.toml has no [package]: the submission must be a library crate".to_string(),
        ));
    }
    refuse_build_time_code(&doc, crate_dir)?;
    refuse_outside_references(&doc)?;
    let lib = doc
        .entry("lib")
        .or_insert(Item::Table(Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| BuildFailure::Invalid("[lib] in Cargo.toml is not a table".to_string()))?;
    lib.insert("name", value(lib_name));
    let mut types = Array::new();
    types.push("cdylib");
    lib.insert("crate-type", value(types));

    let mut tables: Vec<&mut dyn toml_edit::TableLike> = Vec::new();
    let mut targets = Vec::new();
    for (key, item) in doc.iter_mut() {
        match key.get() {
            "dependencies" | "dev-dependencies" | "build-dependencies" => {
                if let Some(t) = item.as_table_like_mut() {
                    tables.push(t);
                }
            }
            "target" => targets.push(item),
            _ => {}
        }
    }
    for target in targets {
        if let Some(t) = target.as_table_like_mut() {
            for (_, platform) in t.iter_mut() {
                if let Some(p) = platform.as_table_like_mut() {
                    for (key, deps) in p.iter_mut() {
                        let is_deps = matches!(
                            key.get(),
                            "dependencies" | "dev-dependencies" | "build-dependencies"
                        );
                        match deps.as_table_like_mut() {
                            Some(d) if is_deps => tables.push(d),
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    for deps in tables {
        for (name, dep) in deps.iter_mut() {
            let Some(dep) = dep.as_table_like_mut() else {
                continue;
            };
            let package = dep
                .get("package")
                .and_then(|p| p.as_str())
                .unwrap_or(name.get())
                .to_string();
            if package == "sudoku-lab" {
                dep.insert("path", value(lab_crate.to_string_lossy().as_ref()));
                dep.remove("version");
                dep.remove("git");
            } else if dep.contains_key("path") || dep.contains_key("git") {
                return Err(BuildFailure::Invalid(format!(
                    "the dependency `{}` comes from a path or git: the grader builds without a sandbox, so only `sudoku-lab` and crates.io crates are allowed; move that code into your crate",
                    name.get()
                )));
            }
        }
    }
    // The student's own `[workspace]` was refused above: this one is ours.
    doc.insert("workspace", Item::Table(Table::new()));
    Ok(doc.to_string())
}

/// Refuses what would run the student's own code at build time, outside
/// the sandbox: a build script or a proc-macro library.
fn refuse_build_time_code(
    doc: &toml_edit::DocumentMut,
    crate_dir: &Path,
) -> Result<(), BuildFailure> {
    let build_key = doc
        .get("package")
        .and_then(|p| p.get("build"))
        .map(|b| b.as_bool() != Some(false));
    let has_build_script = match build_key {
        Some(declared) => declared,
        None => crate_dir.join("build.rs").is_file(),
    };
    if has_build_script {
        return Err(BuildFailure::Invalid(
            "the crate has a build script (build.rs): build scripts run outside the sandbox, so the grader refuses them; remove it".to_string(),
        ));
    }
    let proc_macro = doc
        .get("lib")
        .and_then(|l| l.get("proc-macro"))
        .and_then(|p| p.as_bool())
        == Some(true);
    if proc_macro {
        return Err(BuildFailure::Invalid(
            "the crate is a proc-macro library: submit a `cdylib` that exports the lab's functions instead".to_string(),
        ));
    }
    Ok(())
}

/// Refuses what would reach outside the crate folder: `[patch]`,
/// `[replace]`, any `workspace` key, and target paths that leave the crate.
fn refuse_outside_references(doc: &toml_edit::DocumentMut) -> Result<(), BuildFailure> {
    let refuse = |message: String| Err(BuildFailure::Invalid(format!("Cargo.toml: {message}")));
    if doc.contains_key("patch") {
        return refuse(
            "[patch] is not allowed: it replaces a dependency with other code (the grader builds against its own sudoku-lab); remove the section".to_string(),
        );
    }
    if doc.contains_key("replace") {
        return refuse(
            "[replace] is not allowed: it replaces a dependency with other code; remove the section".to_string(),
        );
    }
    // An empty `[workspace]` (a crate that stands alone, as the lab's
    // examples do) says nothing the grader's own does not; any content is
    // the student's workspace, and refused.
    let own_workspace = doc
        .get("workspace")
        .is_some_and(|w| w.as_table_like().is_none_or(|t| !t.is_empty()));
    let inherited = doc
        .iter()
        .filter(|(key, _)| *key != "workspace")
        .find_map(|(key, item)| match item.as_table_like() {
            Some(table) if key != "workspace" => find_key(table, "workspace", key),
            _ => None,
        });
    if own_workspace || inherited.is_some() {
        let what = match inherited {
            Some(key) if !own_workspace => format!("`{key}`"),
            _ => "a [workspace] of its own".to_string(),
        };
        return refuse(format!(
            "the crate has {what}: the grader builds each crate as a workspace of its own, so nothing can be inherited from a workspace; write the values (and dependencies) out in the crate's own Cargo.toml (an empty [workspace] is fine)"
        ));
    }
    for (section, item) in doc.iter() {
        let targets: Vec<&dyn toml_edit::TableLike> = match section {
            "lib" => item.as_table_like().into_iter().collect(),
            "bin" | "example" | "test" | "bench" => match item.as_array_of_tables() {
                Some(array) => array
                    .iter()
                    .map(|t| t as &dyn toml_edit::TableLike)
                    .collect(),
                None => Vec::new(),
            },
            _ => continue,
        };
        for target in targets {
            let Some(path) = target.get("path") else {
                continue;
            };
            let inside = path.as_str().is_some_and(|p| stays_inside(Path::new(p)));
            if !inside {
                return refuse(format!(
                    "[{section}] path = {} leaves the crate folder: a target's path must be relative and inside the crate (e.g. \"src/lib.rs\")",
                    path.to_string().trim()
                ));
            }
        }
    }
    Ok(())
}

/// Whether `path` is relative and never climbs above where it starts.
fn stays_inside(path: &Path) -> bool {
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

/// The dotted path of the first key named `name` at any depth of `table`
/// (in tables, inline tables and arrays of tables).
fn find_key(table: &dyn toml_edit::TableLike, name: &str, prefix: &str) -> Option<String> {
    for (key, item) in table.iter() {
        let here = if prefix.is_empty() {
            key.to_string()
        } else {
            format!("{prefix}.{key}")
        };
        if key == name {
            return Some(here);
        }
        let found = match item {
            toml_edit::Item::Table(t) => find_key(t, name, &here),
            toml_edit::Item::Value(toml_edit::Value::InlineTable(t)) => find_key(t, name, &here),
            toml_edit::Item::ArrayOfTables(array) => {
                array.iter().find_map(|t| find_key(t, name, &here))
            }
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn the_manifest_is_rewritten_for_a_copy() {
        let text = r#"
[package]
name = "student"
version = "0.1.0"
edition = "2024"

[lib]
crate-type = ["rlib"]

[dependencies]
sudoku-lab = { path = "../../lab" }
"#;
        let out = rewrite_manifest(
            text,
            Path::new("/subs/alice"),
            Path::new("/grader/lab"),
            "alice_1",
        )
        .expect("rewrites");
        let doc: toml::Table = toml::from_str(&out).expect("valid TOML");
        assert_eq!(doc["lib"]["name"].as_str(), Some("alice_1"));
        assert_eq!(
            doc["lib"]["crate-type"].as_array().map(|a| a.len()),
            Some(1)
        );
        assert_eq!(doc["lib"]["crate-type"][0].as_str(), Some("cdylib"));
        assert_eq!(
            doc["dependencies"]["sudoku-lab"]["path"].as_str(),
            Some("/grader/lab")
        );
        assert!(doc["workspace"].as_table().is_some_and(|t| t.is_empty()));

        let err = rewrite_manifest("[package\nname=", Path::new("/x"), Path::new("/l"), "x")
            .expect_err("bad TOML");
        assert!(
            err.to_string().contains("Cargo.toml is not valid TOML"),
            "{err}"
        );
        let err = rewrite_manifest("[dependencies]\n", Path::new("/x"), Path::new("/l"), "x")
            .expect_err("no package");
        assert!(err.to_string().contains("no [package]"), "{err}");
    }

    #[test]
    fn a_manifest_that_once_panicked_toml_edit_is_an_error() {
        // toml_edit 0.23 panicked on this ("all items have spans"); a
        // student's Cargo.toml must never crash the grader.
        let err = rewrite_manifest("==\n.=", Path::new("/x"), Path::new("/l"), "x")
            .expect_err("bad TOML");
        assert!(
            err.to_string().contains("Cargo.toml is not valid TOML"),
            "{err}"
        );
    }

    #[test]
    fn code_that_runs_at_build_time_is_refused() {
        let package = "[package]\nname = \"s\"\nversion = \"0.1.0\"\n";
        let refuse = |text: &str, dir: &Path| {
            rewrite_manifest(text, dir, Path::new("/l"), "s")
                .expect_err("refused")
                .to_string()
        };
        let nowhere = Path::new("/nonexistent-crate");
        let err = refuse(&format!("{package}build = \"gen.rs\"\n"), nowhere);
        assert!(err.contains("build script"), "{err}");
        let err = refuse(&format!("{package}[lib]\nproc-macro = true\n"), nowhere);
        assert!(err.contains("proc-macro"), "{err}");
        let err = refuse(
            &format!("{package}[dependencies]\nhelper = {{ path = \"../h\" }}\n"),
            nowhere,
        );
        assert!(err.contains("`helper` comes from a path or git"), "{err}");
        let err = refuse(
            &format!(
                "{package}[build-dependencies]\nx = {{ git = \"https://example.invalid/x\" }}\n"
            ),
            nowhere,
        );
        assert!(err.contains("`x` comes from a path or git"), "{err}");

        let dir = tempfile::tempdir().expect("temp dir");
        fs::write(dir.path().join("build.rs"), "fn main() {}\n").expect("write");
        let err = refuse(package, dir.path());
        assert!(err.contains("build script"), "{err}");
        // `build = false` turns an existing build.rs off: accepted.
        assert!(
            rewrite_manifest(
                &format!("{package}build = false\n"),
                dir.path(),
                Path::new("/l"),
                "s"
            )
            .is_ok()
        );
    }

    #[test]
    fn what_reaches_outside_the_crate_is_refused() {
        let package = "[package]\nname = \"s\"\nversion = \"0.1.0\"\n";
        let nowhere = Path::new("/nonexistent-crate");
        let refused = |extra: &str, phrase: &str| {
            let err = rewrite_manifest(&format!("{package}{extra}"), nowhere, Path::new("/l"), "s")
                .expect_err(extra)
                .to_string();
            assert!(err.contains(phrase), "{extra:?}: {err}");
        };
        refused(
            "[patch.crates-io]\nlibc = { path = \"vendor/libc\" }\n",
            "[patch]",
        );
        refused(
            "[replace]\n\"libc:0.2.0\" = { path = \"x\" }\n",
            "[replace]",
        );
        refused("[workspace]\nmembers = []\n", "a [workspace] of its own");
        refused(
            "[package.metadata]\nworkspace = 1\n",
            "`package.metadata.workspace`",
        );
        refused(
            "[workspace]\nmembers = [\"helper\"]\n[workspace.dependencies]\nh = { path = \"helper\" }\n",
            "a [workspace] of its own",
        );
        refused(
            "[dependencies]\nhelper = { workspace = true }\n",
            "`dependencies.helper.workspace`",
        );
        refused(
            "[dependencies]\nhelper.workspace = true\n",
            "`dependencies.helper.workspace`",
        );
        refused("[lints]\nworkspace = true\n", "`lints.workspace`");
        let inherited = "[package]\nname = \"s\"\nversion.workspace = true\n";
        let err = rewrite_manifest(inherited, nowhere, Path::new("/l"), "s").expect_err("inherits");
        assert!(
            err.to_string().contains("`package.version.workspace`"),
            "{err}"
        );
        refused("[lib]\npath = \"/etc/shadow\"\n", "leaves the crate folder");
        refused(
            "[lib]\npath = \"src/../../x.rs\"\n",
            "leaves the crate folder",
        );
        refused("[lib]\npath = 7\n", "leaves the crate folder");
        refused(
            "[[bin]]\nname = \"b\"\npath = \"/srv/x.rs\"\n",
            "[bin] path",
        );
        // An empty [workspace] is the grader's own; inside the crate is fine.
        let alone = format!("{package}[workspace]\n");
        assert!(rewrite_manifest(&alone, nowhere, Path::new("/l"), "s").is_ok());
        let ok = format!("{package}[lib]\npath = \"src/../src/lib.rs\"\n");
        assert!(rewrite_manifest(&ok, nowhere, Path::new("/l"), "s").is_ok());
    }
}
