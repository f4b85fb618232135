//! Reading a cases folder's `grader.toml`: the defaults for its cases.

use serde::Deserialize;
use std::path::Path;
use toml::Spanned;

use super::error::CaseError;
use super::model::{CaseConfig, FindEmptyPolicy};
use super::span::{line_col, toml_error};

/// The file name of a folder's defaults.
pub const CONFIG_FILE: &str = "grader.toml";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    time_limit_ms: Option<Spanned<u64>>,
    time_limit_factor: Option<Spanned<u64>>,
    time_limit_floor_ms: Option<Spanned<u64>>,
    memory_limit_mb: Option<Spanned<u64>>,
    find_empty_policy: Option<FindEmptyPolicy>,
    python_modules: Option<Spanned<Vec<Spanned<String>>>>,
}

/// Parses the text of a `grader.toml`; `file` names it in errors.
pub fn parse_config(file: &Path, text: &str) -> Result<CaseConfig, CaseError> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| toml_error(file, text, &e, None))?;
    let defaults = CaseConfig::default();
    let positive_or_none = |value: Option<Spanned<u64>>, key: &str| match value {
        None => Ok(None),
        Some(v) if *v.get_ref() > 0 => Ok(Some(*v.get_ref())),
        Some(v) => {
            let (line, column) = line_col(text, v.span().start);
            Err(CaseError::Invalid {
                file: file.to_path_buf(),
                line,
                column,
                case: None,
                message: format!(
                    "`{key}` must be at least 1: set a positive number or remove the line"
                ),
            })
        }
    };
    let positive = |value: Option<Spanned<u64>>, key: &str, default: u64| {
        positive_or_none(value, key).map(|v| v.unwrap_or(default))
    };
    Ok(CaseConfig {
        time_limit_ms: positive_or_none(raw.time_limit_ms, "time_limit_ms")?,
        time_limit_factor: positive(
            raw.time_limit_factor,
            "time_limit_factor",
            defaults.time_limit_factor,
        )?,
        time_limit_floor_ms: positive(
            raw.time_limit_floor_ms,
            "time_limit_floor_ms",
            defaults.time_limit_floor_ms,
        )?,
        memory_limit_mb: positive(
            raw.memory_limit_mb,
            "memory_limit_mb",
            defaults.memory_limit_mb,
        )?,
        find_empty_policy: raw.find_empty_policy.unwrap_or(defaults.find_empty_policy),
        python_modules: module_names(file, text, raw.python_modules)?,
    })
}

/// The longest module name `python_modules` takes.
const MODULE_NAME_CAP: usize = 64;

/// `python_modules`: each a top-level Python module name (letters, digits,
/// `_`, not starting with a digit), listed once.
fn module_names(
    file: &Path,
    text: &str,
    names: Option<Spanned<Vec<Spanned<String>>>>,
) -> Result<Vec<String>, CaseError> {
    let mut found: Vec<String> = Vec::new();
    for name in names.map(Spanned::into_inner).unwrap_or_default() {
        let (line, column) = line_col(text, name.span().start);
        let name = name.into_inner();
        let valid = !name.is_empty()
            && name.len() <= MODULE_NAME_CAP
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        let problem = if !valid {
            Some(format!(
                "`python_modules` holds {name:?}, which is no top-level module name: write the name \
                 you import, such as \"numpy\" (a package's submodules come with it)"
            ))
        } else if found.contains(&name) {
            Some(format!("`python_modules` lists {name:?} twice: remove one"))
        } else {
            None
        };
        if let Some(message) = problem {
            return Err(CaseError::Invalid {
                file: file.to_path_buf(),
                line,
                column,
                case: None,
                message,
            });
        }
        found.push(name);
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<CaseConfig, String> {
        parse_config(Path::new("cases/grader.toml"), text).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_and_values() {
        assert_eq!(parse("").unwrap(), CaseConfig::default());
        let c = parse(
            "# limits\ntime_limit_ms = 2000\nmemory_limit_mb = 64\nfind_empty_policy = \"first\"\n",
        )
        .unwrap();
        assert_eq!(c.time_limit_ms, Some(2000));
        assert_eq!(c.memory_limit_mb, 64);
        assert_eq!(c.find_empty_policy, FindEmptyPolicy::First);
        let c = parse("time_limit_factor = 5\ntime_limit_floor_ms = 100\n").unwrap();
        assert_eq!(
            (c.time_limit_ms, c.time_limit_factor, c.time_limit_floor_ms),
            (None, 5, 100)
        );
    }

    #[test]
    fn python_modules_are_top_level_names() {
        let c = parse("python_modules = [\"numpy\", \"sortedcontainers\"]\n").unwrap();
        assert_eq!(c.python_modules, ["numpy", "sortedcontainers"]);
        assert_eq!(
            parse("python_modules = [\"numpy\", \"numpy.linalg\"]\n").unwrap_err(),
            "cases/grader.toml:1:28: `python_modules` holds \"numpy.linalg\", which is no top-level module name: write the name you import, such as \"numpy\" (a package's submodules come with it)"
        );
        assert!(
            parse("\npython_modules = [\"os\", \"os\"]\n")
                .unwrap_err()
                .starts_with("cases/grader.toml:2:25: `python_modules` lists \"os\" twice")
        );
        assert!(parse("python_modules = \"numpy\"\n").is_err());
    }

    #[test]
    fn refuses_unknown_keys_bad_values_and_zero() {
        let e = parse("time_limit_ms = 10\ntime_limit = 5\n").unwrap_err();
        assert!(
            e.starts_with("cases/grader.toml:2:1: unknown field `time_limit`"),
            "{e}"
        );
        let e = parse("find_empty_policy = \"random\"\n").unwrap_err();
        assert!(
            e.starts_with("cases/grader.toml:1:21: unknown variant `random`"),
            "{e}"
        );
        assert_eq!(
            parse("\nmemory_limit_mb = 0\n").unwrap_err(),
            "cases/grader.toml:2:19: `memory_limit_mb` must be at least 1: set a positive number or remove the line"
        );
    }
}
