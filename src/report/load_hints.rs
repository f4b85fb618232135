//! What to do about a library the loader refused (a symbol nothing
//! defines, a file that is no shared library): worded from the test
//! child's finding ([`refused`]), told apart once from the loader's own
//! reason. The hints of a build error and of a Python import are the
//! judge's (`grader_judge::words::load_hints`), shared with the browser
//! check.

use crate::protocol::LoaderRefusal;

pub(crate) use grader_judge::words::load_hints::{build_hint, missing_module};

/// What to do about a library the loader refused (`refusal`, the test
/// child's finding from the loader's own reason, see `worker::library`): an
/// undefined symbol is named, with what defines one in the lab's builds; a
/// file that is no shared library says how to build one.
pub(crate) fn refused(refusal: &LoaderRefusal, kind: Option<&str>) -> String {
    match refusal {
        LoaderRefusal::UndefinedSymbol { name } => match kind {
            Some("c") => format!(
                "your code calls `{name}`, but neither your file nor the libraries the grader \
                 links it with (the C library, the maths library `-lm`, threads) define it: check \
                 its spelling, or write the function (a declaration alone is not enough)"
            ),
            Some("library") => format!(
                "your library calls `{name}`, which it does not define and no library it was \
                 linked with provides: link the library that defines it when you build the .so \
                 (`-lm` for `sqrt`, `pow`, `floor`), or hand in the C source instead"
            ),
            _ => format!(
                "your library calls `{name}`, which nothing it was linked with defines: check its \
                 spelling and how it is declared"
            ),
        },
        LoaderRefusal::NotALibrary => "the file is not a shared library for this machine \
             (x86-64 Linux): build it with `cc -shared -fPIC` (C) or as a `cdylib` crate (Rust), on \
             Linux"
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbol_nothing_defines_is_named_with_what_links_one() {
        let sqrt = LoaderRefusal::UndefinedSymbol {
            name: "sqrt".into(),
        };
        let c = refused(&sqrt, Some("c"));
        assert!(c.starts_with("your code calls `sqrt`"), "{c}");
        assert!(c.contains("`-lm`"), "{c}");
        let so = refused(&sqrt, Some("library"));
        assert!(so.contains("link the library that defines it"), "{so}");
        let elf = refused(&LoaderRefusal::NotALibrary, Some("library"));
        assert!(elf.contains("cc -shared -fPIC"), "{elf}");
        // The loader's words alone decide nothing here: the hint comes
        // from the test child's finding, never from the message.
        let message = "cannot load your library: undefined symbol: sqrt";
        assert_eq!(build_hint(message, Some("c")), None);
    }
}
