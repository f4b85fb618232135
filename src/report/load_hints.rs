//! What to do about a submission that did not build or load, when its
//! message shows a mistake the lab's setting explains: a Python import the
//! grader's interpreter cannot satisfy, a Rust name that the lab crate's
//! export macro defines as well. Each hint is worded by what the message
//! proves, with a condition where it proves less (the message is the
//! compiler's or the student's own process's, so it is read, never
//! trusted beyond its words).

/// The hint for `message`, the build or load error of a submission of
/// `kind` (`c`, `rust`, `python`, `library`), if one fits.
pub(crate) fn hint(message: &str, kind: Option<&str>) -> Option<String> {
    match kind {
        Some("python") => missing_module(message),
        Some("rust") => macro_name_clash(message),
        _ => None,
    }
}

/// The longest module or function name quoted back in a hint.
const NAME_CAP: usize = 60;

/// `ModuleNotFoundError: No module named 'numpy'`: the grader's Python is
/// started isolated (`-I -S`), so neither installed packages nor the
/// student's other files are on its path.
fn missing_module(message: &str) -> Option<String> {
    let line = message.lines().find(|l| {
        l.trim_start()
            .starts_with("ModuleNotFoundError: No module named '")
    })?;
    let name = line.split('\'').nth(1)?;
    if name.is_empty()
        || name.len() > NAME_CAP
        || !name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.')
    {
        return None;
    }
    let top = name.split('.').next().unwrap_or(name);
    Some(format!(
        "the grader's Python runs your one file with the standard library only: no installed \
         packages and no other file of yours, so `import {top}` cannot work there; write the lab \
         with lists and the standard library (the board is a list of rows)"
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
        let message = "importing sudoku.py raised ModuleNotFoundError:\nTraceback (most recent call last):\n  File \"sudoku.py\", line 8, in <module>\n    import numpy as np\nModuleNotFoundError: No module named 'numpy'";
        let said = hint(message, Some("python")).expect("a hint");
        assert!(said.contains("`import numpy` cannot work there"), "{said}");
        let dotted = "ModuleNotFoundError: No module named 'numpy.linalg'";
        assert!(
            hint(dotted, Some("python"))
                .unwrap()
                .contains("`import numpy`")
        );
        // Not Python, or not that error, or a name that is no module name:
        // nothing.
        assert_eq!(hint(message, Some("c")), None);
        assert_eq!(hint("SyntaxError: invalid syntax", Some("python")), None);
        let forged = "ModuleNotFoundError: No module named 'x; rm -rf'";
        assert_eq!(hint(forged, Some("python")), None);
    }

    #[test]
    fn a_name_the_export_macro_defines_too_is_named() {
        let message = "cargo build failed:\n\
            src/lib.rs:59:1: error[E0428]: the name `legal` is defined multiple times: `legal` redefined here\n\
            src/lib.rs:59:1: error[E0428]: the name `solve` is defined multiple times: `solve` redefined here\n\
            src/lib.rs:59:1: error[E0428]: the name `legal` is defined multiple times: `legal` redefined here";
        let said = hint(message, Some("rust")).expect("a hint");
        assert!(said.starts_with("`legal`, `solve` defined twice"), "{said}");
        assert!(said.contains("export_c_abi!"), "{said}");
        // Another name clashing is the student's own business.
        let other = "src/lib.rs:9:1: error[E0428]: the name `helper` is defined multiple times";
        assert_eq!(hint(other, Some("rust")), None);
        assert_eq!(hint(message, Some("python")), None);
    }
}
