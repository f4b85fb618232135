//! Case files found on disk: the `.toml` files of the folders given
//! (sorted by name, `grader.toml` apart), each read and parsed by the judge
//! (`grader_judge::case::parse_file`), the folder's `grader.toml` setting
//! the defaults.

use std::path::{Path, PathBuf};

use grader_judge::case::{
    Answers, CONFIG_FILE, CaseConfig, CaseError, CaseSet, check_unique, parse_config, parse_file,
};

/// Loads the cases in `paths`: case files, or folders of them (their
/// `.toml` files sorted by name, `grader.toml` excepted). The `grader.toml`
/// of a folder given (or of a file's folder) sets the defaults; two that
/// disagree are refused. Case names must be unique across the set.
pub fn load(paths: &[PathBuf]) -> Result<CaseSet, CaseError> {
    let (files, config) = case_files(paths)?;
    let mut cases = Vec::new();
    for file in &files {
        let text = read(file)?;
        cases.extend(parse_file(file, &text, Answers::Check)?.cases);
    }
    check_unique(&cases)?;
    Ok(CaseSet { config, cases })
}

/// The case files `paths` stands for, in order, and the defaults from
/// their `grader.toml`.
pub(crate) fn case_files(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, CaseConfig), CaseError> {
    let mut files = Vec::new();
    let mut config: Option<(PathBuf, CaseConfig)> = None;
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|error| CaseError::Read {
            path: path.clone(),
            error,
        })?;
        let folder = if meta.is_dir() {
            let mut found = Vec::new();
            let entries = std::fs::read_dir(path).map_err(|error| CaseError::Read {
                path: path.clone(),
                error,
            })?;
            for entry in entries {
                let entry = entry.map_err(|error| CaseError::Read {
                    path: path.clone(),
                    error,
                })?;
                let p = entry.path();
                if p.is_file() && is_case_file(&p) {
                    found.push(p);
                }
            }
            if found.is_empty() {
                return Err(CaseError::NoCases { path: path.clone() });
            }
            found.sort();
            for f in found {
                if !files.contains(&f) {
                    files.push(f);
                }
            }
            path.clone()
        } else {
            if !files.contains(path) {
                files.push(path.clone());
            }
            path.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        let config_path = if folder.as_os_str().is_empty() {
            PathBuf::from(CONFIG_FILE)
        } else {
            folder.join(CONFIG_FILE)
        };
        if config_path.is_file() {
            let here = parse_config(&config_path, &read(&config_path)?)?;
            match &config {
                Some((first, seen)) if *seen != here && *first != config_path => {
                    return Err(CaseError::Invalid {
                        file: config_path,
                        line: 1,
                        column: 1,
                        case: None,
                        message: format!(
                            "its defaults differ from those of {}: load one folder at a time",
                            first.display()
                        ),
                    });
                }
                Some(_) => {}
                None => config = Some((config_path, here)),
            }
        }
    }
    if files.is_empty() {
        return Err(CaseError::NoCases {
            path: paths.first().cloned().unwrap_or_default(),
        });
    }
    Ok((files, config.map(|(_, c)| c).unwrap_or_default()))
}

/// True for a `.toml` file other than `grader.toml`.
fn is_case_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "toml")
        && path.file_name().is_some_and(|n| n != CONFIG_FILE)
}

pub(crate) fn read(path: &Path) -> Result<String, CaseError> {
    std::fs::read_to_string(path).map_err(|error| CaseError::Read {
        path: path.to_path_buf(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_folders_configs_and_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("grader.toml"),
            "time_limit_ms = 300\nfind_empty_policy = \"first\"\n",
        )
        .unwrap();
        std::fs::write(
            d.join("b.toml"),
            "[[case]]\nname = \"b1\"\npuzzle = \"1..4.41.2..3.32.\"\n",
        )
        .unwrap();
        std::fs::write(
            d.join("a.toml"),
            "\n[[case]]\nname = \"a1\"\npuzzle = \"1..4.41.2..3.32.\"\n",
        )
        .unwrap();
        std::fs::write(d.join("notes.txt"), "not a case").unwrap();
        let set = load(&[d.to_path_buf()]).unwrap();
        let names: Vec<&str> = set.cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a1", "b1"]);
        assert_eq!(set.cases[0].line, 2);
        assert_eq!(set.config.time_limit_ms, Some(300));
        // A single file takes its folder's defaults too.
        let one = load(&[d.join("b.toml")]).unwrap();
        assert_eq!(
            one.config.find_empty_policy,
            super::super::FindEmptyPolicy::First
        );
        // Duplicates across files name both places.
        std::fs::write(d.join("c.toml"), "[[case]]\nname = \"x\"\npuzzle = \"1..4.41.2..3.32.\"\n\n[[case]]\nname = \"a1\"\npuzzle = \"1..4.41.2..3.32.\"\n").unwrap();
        let e = load(&[d.to_path_buf()]).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "{}:5:1: case \"a1\": the name is already used at {}:2: give each case a unique name",
                d.join("c.toml").display(),
                d.join("a.toml").display()
            )
        );
        let empty = tempfile::tempdir().unwrap();
        assert!(
            load(&[empty.path().to_path_buf()])
                .unwrap_err()
                .to_string()
                .starts_with("no case files in")
        );
        assert!(
            load(&[d.join("missing.toml")])
                .unwrap_err()
                .to_string()
                .ends_with("missing.toml does not exist: give a folder of case files (.toml files with [[case]] tables, e.g. the bundled `cases`) or one case file")
        );
    }
}
