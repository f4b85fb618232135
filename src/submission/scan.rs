//! Source rules, checked before a compiler sees a student's file: the
//! plain ways of reading another file at compile time are refused with a
//! message naming the line.
//!
//! | language | refused | because |
//! |---|---|---|
//! | C | `#include`/`#include_next`/`#import`/`#embed` of an absolute path, a path with `..`, or a macro | it reads any file the compiler's user can read (the hidden cases, `/etc/shadow`) or never ends (`/dev/zero`) |
//! | C | `incbin` anywhere (`__asm__(".incbin ...")`) | the assembler pastes any file into the library |
//! | Rust | `include!`, `include_str!`, `include_bytes!` | the same, for rustc |
//! | Rust | a `path = ...` attribute (`#[path]`, also inside `cfg_attr`) | a module read from any file |
//!
//! Comments are removed first (they may hide a directive: `#/**/include`),
//! and backslash-newlines joined. This is defence in depth, not the line: a
//! determined student can still build a path the text does not show
//! (string pasting in `asm`, a registry proc-macro that makes identifiers);
//! the box the compiler runs in, which holds no file worth reading, stops
//! those.

use std::path::Path;

use super::build::failure::BuildFailure;

/// Refuses a C source that reads another file at compile time.
///
/// # Errors
/// [`BuildFailure::Invalid`] naming `shown` (the student's file name), the
/// line and what to do.
pub(crate) fn refuse_c_reads(source: &[u8], shown: &str) -> Result<(), BuildFailure> {
    let text = String::from_utf8_lossy(source)
        .replace("\\\r\n", "")
        .replace("\\\n", "");
    let code = strip_comments(&text, false);
    for (index, line) in code.lines().enumerate() {
        let refuse = |what: &str| {
            Err(BuildFailure::Invalid(format!(
                "{shown}:{}: {what}: the grader refuses compile-time reads of other files; keep everything in your one source file (and #include \"sudoku_lab.h\" or system headers by name)",
                index + 1
            )))
        };
        if line.to_ascii_lowercase().contains("incbin") {
            return refuse("`.incbin` pastes a file into the library");
        }
        let Some(directive) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let directive = directive.trim_start();
        let name_len = directive
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(directive.len());
        let (name, argument) = directive.split_at(name_len);
        if !matches!(name, "include" | "include_next" | "import" | "embed") {
            continue;
        }
        let argument = argument.trim();
        let path = match argument.chars().next() {
            Some('"') => argument[1..].split('"').next().unwrap_or(""),
            Some('<') => argument[1..].split('>').next().unwrap_or(""),
            _ => return refuse(&format!("`#{name}` of a macro")),
        };
        if path.starts_with('/') || path.split(['/', '\\']).any(|part| part == "..") {
            return refuse(&format!("`#{name}` of {path:?}, outside the submission"));
        }
    }
    Ok(())
}

/// Refuses a Rust source file (`shown`, its path in the crate) that reads
/// another file at compile time.
///
/// # Errors
/// [`BuildFailure::Invalid`] naming the file, the line and what to do.
pub(crate) fn refuse_rust_reads(source: &[u8], shown: &Path) -> Result<(), BuildFailure> {
    let text = String::from_utf8_lossy(source);
    let code = strip_comments(&text, true);
    let words = identifiers(&code);
    let line_of = |offset: usize| code[..offset].matches('\n').count() + 1;
    let refuse = |offset: usize, what: &str| {
        Err(BuildFailure::Invalid(format!(
            "{}:{}: {what}: the grader refuses compile-time reads of other files; put the code or data in the crate's sources",
            shown.display(),
            line_of(offset)
        )))
    };
    for &(offset, word) in &words {
        let after = code[offset + word.len()..].trim_start();
        match word {
            "include" | "include_str" | "include_bytes" if after.starts_with('!') => {
                return refuse(offset, &format!("`{word}!` reads a file at compile time"));
            }
            "path" if after.starts_with('=') && inside_attribute(&code, offset) => {
                return refuse(offset, "a `path` attribute reads a module from any file");
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether `offset` lies inside `#[...]` or `#![...]`: the nearest `[`
/// before it, not closed before it, follows a `#` (or `#!`).
fn inside_attribute(code: &str, offset: usize) -> bool {
    let before = &code[..offset];
    let mut depth = 0i32;
    for (i, c) in before.char_indices().rev() {
        match c {
            ']' => depth += 1,
            '[' if depth > 0 => depth -= 1,
            '[' => {
                let head = before[..i].trim_end();
                let head = head.strip_suffix('!').unwrap_or(head).trim_end();
                if head.ends_with('#') {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// Every identifier-like word of `code` with its byte offset.
fn identifiers(code: &str) -> Vec<(usize, &str)> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in code
        .char_indices()
        .chain(std::iter::once((code.len(), ' ')))
    {
        let part = c.is_alphanumeric() || c == '_';
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push((s, &code[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    words
}

/// `text` with comments replaced by a space (newlines kept, so lines keep
/// their numbers). `rust`: block comments nest, raw strings (`r#"..."#`)
/// are known, and the insides of string literals are blanked too (so a
/// word in a string is not code); for C, string literals are kept (an
/// `#include "..."` needs its path).
fn strip_comments(text: &str, rust: bool) -> String {
    let nested = rust;
    let bytes = text.as_bytes();
    // Cut only next to ASCII bytes, so the result is UTF-8 again.
    let mut out: Vec<u8> = Vec::with_capacity(text.len());
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let c = bytes[i];
        if let Some(q) = quote {
            let blank = |b: u8| if rust && b != b'\n' { b' ' } else { b };
            if c == b'\\' && i + 1 < bytes.len() {
                out.extend([blank(c), blank(bytes[i + 1])]);
                i += 2;
                continue;
            }
            if c == q || (c == b'\n' && !rust) {
                quote = None;
                out.push(c);
            } else {
                out.push(blank(c));
            }
            i += 1;
            continue;
        }
        if rust && (c == b'r' || (c == b'b' && bytes.get(i + 1) == Some(&b'r'))) {
            // A raw string: r"...", r#"..."#, br##"..."##; not part of a word.
            let word_before =
                i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
            let start = if c == b'b' { i + 2 } else { i + 1 };
            let hashes = bytes[start..].iter().take_while(|&&b| b == b'#').count();
            if !word_before && bytes.get(start + hashes) == Some(&b'"') {
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let body = start + hashes + 1;
                let end = bytes[body..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(bytes.len(), |p| body + p + close.len());
                out.push(b'"');
                out.extend(
                    bytes[i + 1..end]
                        .iter()
                        .map(|&b| if b == b'\n' { b } else { b' ' }),
                );
                i = end;
                continue;
            }
        }
        match (c, bytes.get(i + 1)) {
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                out.push(b' ');
            }
            (b'/', Some(b'*')) => {
                let mut depth = 1;
                i += 2;
                while i < bytes.len() && depth > 0 {
                    match (bytes[i], bytes.get(i + 1)) {
                        (b'*', Some(b'/')) => {
                            depth -= 1;
                            i += 2;
                        }
                        (b'/', Some(b'*')) if nested => {
                            depth += 1;
                            i += 2;
                        }
                        (b'\n', _) => {
                            out.push(b'\n');
                            i += 1;
                        }
                        _ => i += 1,
                    }
                }
                out.push(b' ');
            }
            // A Rust lifetime (`'a`) is not a character literal: only a
            // quote closed within a few bytes starts one.
            (b'\'', _) if !rust || bytes[i + 1..].iter().take(12).any(|&b| b == b'\'') => {
                quote = Some(c);
                out.push(b'\'');
                i += 1;
            }
            (b'"', _) => {
                quote = Some(c);
                out.push(b'"');
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c_refused(source: &str) -> String {
        refuse_c_reads(source.as_bytes(), "x.c")
            .expect_err(source)
            .to_string()
    }

    #[test]
    fn c_reads_of_other_files_are_refused() {
        for source in [
            "#include \"/etc/shadow\"\n",
            "#include </autograder/source/cases/hidden.toml>\n",
            "  #  include \"../other-student.c\"\n",
            "#/**/include \"/dev/zero\"\n",
            "#inc\\\nlude \"/etc/shadow\"\n",
            "#define P \"/etc/shadow\"\n#include P\n",
            "__asm__(\".incbin \\\"/etc/shadow\\\"\");\n",
            "#embed \"/etc/passwd\"\n",
        ] {
            let err = c_refused(source);
            assert!(err.contains("x.c:"), "{source:?}: {err}");
        }
        assert!(c_refused("int x;\n#include \"/etc/shadow\"\n").starts_with("x.c:2:"));
    }

    #[test]
    fn ordinary_c_is_accepted() {
        let source = "#include <stdio.h>\n#include \"sudoku_lab.h\"\n#include <sys/types.h>\n// #include \"/etc/shadow\" in a comment\n/* .incbin */\nconst char *s = \"#include \\\"/x\\\"\";\nint main(void) { return 0; }\n";
        assert!(refuse_c_reads(source.as_bytes(), "x.c").is_ok());
    }

    fn rust_refused(source: &str) -> String {
        refuse_rust_reads(source.as_bytes(), Path::new("src/lib.rs"))
            .expect_err(source)
            .to_string()
    }

    #[test]
    fn rust_reads_of_other_files_are_refused() {
        for source in [
            "const S: &str = include_str!(\"/etc/shadow\");\n",
            "static B: &[u8] = core::include_bytes! (\"/x\");\n",
            "include!(\"/autograder/source/cases/x.rs\");\n",
            "#[path = \"/etc/shadow\"]\nmod m;\n",
            "#[cfg_attr(unix, path = \"/x.rs\")]\nmod m;\n",
            "#![doc = \"x\"]\n# [ path = \"../x.rs\" ]\nmod m;\n",
            "const A: &str = r#\"\\\"#; const B: &str = include_str!(\"/etc/shadow\"); //\";\n",
        ] {
            let err = rust_refused(source);
            assert!(err.starts_with("src/lib.rs:"), "{source:?}: {err}");
        }
        assert!(
            rust_refused("fn f() {}\n\nconst S: &str = include_str!(\"/x\");\n")
                .starts_with("src/lib.rs:3:")
        );
    }

    #[test]
    fn ordinary_rust_is_accepted() {
        let source = "//! include_str!(\"/x\") in a doc\n/* #[path = \"/x\"] /* nested */ */\nfn f<'a>(path: &'a str) -> usize { let include = 1; let path = path.len(); path + include }\nconst S: &str = \"include_str!(x)\";\nfn g(c: char) -> bool { c == '\"' }\nconst R: &str = r#\"include_str!(\"/x\")\"#;\n";
        assert!(
            refuse_rust_reads(source.as_bytes(), Path::new("src/lib.rs")).is_ok(),
            "{:?}",
            refuse_rust_reads(source.as_bytes(), Path::new("src/lib.rs"))
        );
    }
}
