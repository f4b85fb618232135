//! What to do about a submission that did not build or load, when what
//! went wrong is a mistake the lab's setting explains: a Python import the
//! grader's interpreter cannot satisfy (the harness's finding: the
//! module's name, as data), a Rust name that the lab crate's export macro
//! defines as well (read from the compiler's message, cargo's short
//! format being its only evidence; a student's own text can only make it
//! give advice or none). The grader's reports and the browser check both
//! word a load error's hint here.

/// The hint for the build error `message` of a submission of `kind`
/// (`c`, `rust`, `python`, `library`), if one fits: a Rust crate's names
/// that the export macro defines too.
pub fn build_hint(message: &str, kind: Option<&str>) -> Option<String> {
    match kind {
        Some("rust") => macro_name_clash(message),
        _ => None,
    }
}

/// The longest module or function name quoted back in a hint.
const NAME_CAP: usize = 60;

/// The hint for a Python import of `name` that found no module
/// (`ModuleNotFoundError`, the harness's finding): the grader's Python is
/// started isolated (`-I -S`), so neither installed packages nor the
/// student's other files are on its path, only the modules `allowed`
/// beyond the standard library (`grader.toml`'s `python_modules`). `None`
/// for a name that is no module name.
pub fn missing_module(name: &str, allowed: &[String]) -> Option<String> {
    if name.is_empty()
        || name.len() > NAME_CAP
        || !name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.')
    {
        return None;
    }
    let top = name.split('.').next().unwrap_or(name);
    let library = if allowed.is_empty() {
        "the standard library only".to_string()
    } else {
        let names: Vec<String> = allowed.iter().map(|m| format!("`{m}`")).collect();
        format!(
            "the standard library and the modules this course allows ({}) only",
            names.join(", ")
        )
    };
    Some(format!(
        "`import {top}` cannot work in the grader: its Python runs your one file with {library}, \
         no other installed package and no other file of yours; remove the import if you do not \
         use it, or write that part with lists and the standard library (the board is a list of \
         rows). (An instructor can allow a module installed on the grading machine in the cases' \
         grader.toml: python_modules = [\"{top}\"].)"
    ))
}

/// The names `sudoku_lab::export_c_abi!` defines at a crate's top level.
const MACRO_NAMES: [&str; 5] = [
    "legal",
    "find_empty",
    "solve",
    "sudoku_solve_traced",
    "sudoku_abi_version",
];

/// `error[E0428]: the name `legal` is defined multiple times` for a name
/// the lab crate's export macro defines.
fn macro_name_clash(message: &str) -> Option<String> {
    let mut clashing: Vec<&str> = Vec::new();
    for line in message.lines() {
        let Some(rest) = line.split("error[E0428]: the name `").nth(1) else {
            continue;
        };
        let Some(name) = rest.split('`').next() else {
            continue;
        };
        if MACRO_NAMES.contains(&name) && !clashing.contains(&name) {
            clashing.push(name);
        }
    }
    let names = clashing
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    (!clashing.is_empty()).then(|| {
        format!(
            "{names} defined twice: if your crate calls sudoku_lab::export_c_abi!, that macro \
             defines legal, find_empty and solve (the C functions) itself, so top-level functions \
             of yours with those names clash with it; write them as the methods of your \
             `impl Sudoku for ...` block, or give your own functions other names"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_python_cannot_import_is_named() {
        let said = missing_module("numpy", &[]).expect("a hint");
        assert!(
            said.starts_with("`import numpy` cannot work in the grader"),
            "{said}"
        );
        assert!(said.contains("with the standard library only"), "{said}");
        assert!(said.contains("python_modules = [\"numpy\"]"), "{said}");
        let allowed = missing_module("numpy", &["sortedcontainers".to_string()]).unwrap();
        assert!(
            allowed.contains("the modules this course allows (`sortedcontainers`) only"),
            "{allowed}"
        );
        assert!(
            missing_module("numpy.linalg", &[])
                .unwrap()
                .contains("`import numpy` cannot")
        );
        // A name that is no module name: nothing.
        assert_eq!(missing_module("x; rm -rf", &[]), None);
        assert_eq!(missing_module("", &[]), None);
    }

    #[test]
    fn a_name_the_export_macro_defines_too_is_named() {
        let message = "cargo build failed:\n\
            src/lib.rs:59:1: error[E0428]: the name `legal` is defined multiple times: `legal` redefined here\n\
            src/lib.rs:59:1: error[E0428]: the name `solve` is defined multiple times: `solve` redefined here\n\
            src/lib.rs:59:1: error[E0428]: the name `legal` is defined multiple times: `legal` redefined here";
        let said = build_hint(message, Some("rust")).expect("a hint");
        assert!(said.starts_with("`legal`, `solve` defined twice"), "{said}");
        assert!(said.contains("export_c_abi!"), "{said}");
        // Another name clashing is the student's own business.
        let other = "src/lib.rs:9:1: error[E0428]: the name `helper` is defined multiple times";
        assert_eq!(build_hint(other, Some("rust")), None);
        assert_eq!(build_hint(message, Some("python")), None);
    }
}
