//! Which of the lab's functions a source file defines, read as text and
//! never run: how discovery tells the solution from the other sources of
//! an upload (a student's `main.py` that imports their `sudoku.py`, a
//! driver `main.c` beside the solution).
//!
//! - **Python** (`.py`): a `def legal(` at the start of a line (the top
//!   level of the module; a method or a nested function is indented).
//! - **A notebook** (`.ipynb`): the same, in the code cells as
//!   `notebook::to_python` takes them.
//! - **C** (`.c`): a function definition at file scope: the name, its
//!   parameter list, then `{` (a prototype ends in `;`), outside
//!   comments, string and character literals, preprocessor lines and
//!   braces.
//!
//! The file is the student's, so it is read as hostile: never through a
//! symbolic link, only a regular file, at most [`MAX_SCANNED_BYTES`]
//! (a notebook [`notebook::MAX_NOTEBOOK_BYTES`]). A file that cannot be
//! read so defines nothing here, and a prebuilt `.so` is not read at all.

use std::io::Read;
use std::path::Path;

use super::notebook;

/// The functions a solution defines, in the lab's order.
pub(crate) const LAB_FUNCTIONS: [&str; 3] = ["legal", "find_empty", "solve"];

/// The most bytes of a source read to find its definitions (the build's
/// own cap on a source file).
pub(crate) const MAX_SCANNED_BYTES: u64 = 1 << 20;

/// The lab's functions `path` defines at its top level, in the lab's
/// order; none when it is no source the grader reads or cannot be read
/// safely.
pub(crate) fn defined_in(path: &Path) -> Vec<&'static str> {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let cap = match extension {
        "py" | "c" => MAX_SCANNED_BYTES,
        "ipynb" => notebook::MAX_NOTEBOOK_BYTES,
        _ => return Vec::new(),
    };
    let Some(bytes) = read_plain_file(path, cap) else {
        return Vec::new();
    };
    match extension {
        "py" => python_defines(&String::from_utf8_lossy(&bytes)),
        "ipynb" => notebook::to_python(&bytes, "")
            .map(|converted| python_defines(&converted.source))
            .unwrap_or_default(),
        _ => c_defines(&String::from_utf8_lossy(&bytes)),
    }
}

/// The bytes of the regular file at `path`, opened without following a
/// link (nor waiting on a FIFO), when it holds at most `cap` bytes.
fn read_plain_file(path: &Path, cap: u64) -> Option<Vec<u8>> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > cap {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= cap).then_some(bytes)
}

/// The lab's functions defined by a `def NAME(` at the start of a line.
fn python_defines(source: &str) -> Vec<&'static str> {
    LAB_FUNCTIONS
        .into_iter()
        .filter(|name| {
            source.lines().any(|line| {
                line.strip_prefix("def")
                    .filter(|rest| rest.starts_with([' ', '\t']))
                    .and_then(|rest| rest.trim_start().strip_prefix(name))
                    .is_some_and(|rest| rest.trim_start().starts_with('('))
            })
        })
        .collect()
}

/// The lab's functions defined at file scope of a C source.
fn c_defines(source: &str) -> Vec<&'static str> {
    let code = c_code_only(source);
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            _ if depth == 0 && (c.is_ascii_alphabetic() || c == b'_') => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let word = &code[start..i];
                if let Some(name) = LAB_FUNCTIONS.into_iter().find(|n| *n == word) {
                    if defines_here(&bytes[i..]) && !found.contains(&name) {
                        found.push(name);
                    }
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    LAB_FUNCTIONS
        .into_iter()
        .filter(|n| found.contains(n))
        .collect()
}

/// Whether `rest`, what follows a name at file scope, is a parameter list
/// and then a body: `(...)` (balanced), then `{`.
fn defines_here(rest: &[u8]) -> bool {
    let mut i = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
    if rest.get(i) != Some(&b'(') {
        return false;
    }
    let mut parens = 0usize;
    while i < rest.len() {
        match rest[i] {
            b'(' => parens += 1,
            b')' => {
                parens -= 1;
                if parens == 0 {
                    break;
                }
            }
            b'{' | b'}' | b';' => return false,
            _ => {}
        }
        i += 1;
    }
    rest.get(i + 1..)
        .and_then(|after| after.iter().find(|b| !b.is_ascii_whitespace()))
        == Some(&b'{')
}

/// A C source with comments, the insides of string and character literals
/// and preprocessor lines blanked (newlines kept), so only code is left.
fn c_code_only(source: &str) -> String {
    let joined = source.replace("\\\r\n", "").replace("\\\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        match (c, bytes.get(i + 1)) {
            (b'/', Some(b'/')) | (b'#', _) if c == b'/' || line_start => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                out.push(b' ');
                continue;
            }
            (b'/', Some(b'*')) => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    if bytes[i] == b'\n' {
                        out.push(b'\n');
                    }
                    i += 1;
                }
                i += 2;
                out.push(b' ');
                continue;
            }
            (b'"' | b'\'', _) => {
                let quote = c;
                out.push(b' ');
                i += 1;
                while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push(b' ');
                line_start = false;
                continue;
            }
            _ => {}
        }
        if c == b'\n' {
            line_start = true;
        } else if !c.is_ascii_whitespace() {
            line_start = false;
        }
        out.push(if c.is_ascii() { c } else { b' ' });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_definitions_at_the_top_level_count() {
        let solution = "import sys\n\ndef legal(board, r, c, v, n=2):\n    return True\n\ndef  find_empty (board):\n    pass\n\ndef solve(board, n=2):\n    return False\n";
        assert_eq!(python_defines(solution), LAB_FUNCTIONS);
        let driver = "from sudoku import legal, find_empty, solve\n\nclass Game:\n    def solve(self):\n        return solve(self.board)\n\ndef main():\n    def legal(x):\n        pass\n    print(solve([[0]]))\n\ndef solver(board):\n    pass\n";
        assert_eq!(python_defines(driver), Vec::<&str>::new());
    }

    #[test]
    fn c_definitions_at_file_scope_count_and_prototypes_do_not() {
        let solution = "#include \"sudoku_lab.h\"\n#define solve(b) { }\nbool legal(const uint8_t *board, size_t n,\n           size_t r, size_t c, uint8_t v)\n{\n    return solve_helper(\"solve(\") ;\n}\nstatic bool find_empty (const uint8_t *b, size_t n, size_t *r, size_t *c) { return false; }\n/* bool solve(uint8_t *b, size_t n) { } */\nbool solve(uint8_t *board, size_t n) { if (legal(board, n, 0, 0, 1)) { return true; } return false; }\n";
        assert_eq!(c_defines(solution), LAB_FUNCTIONS);
        let driver = "#include <stdio.h>\nbool legal(const uint8_t *, size_t, size_t, size_t, uint8_t);\nbool solve(uint8_t *board, size_t n);\nint main(void) {\n    uint8_t b[16] = {0};\n    if (solve(b, 2)) { puts(\"solve(b) { }\"); }\n    return legal(b, 2, 0, 0, 1);\n}\n// bool find_empty(void) { }\n";
        assert_eq!(c_defines(driver), Vec::<&str>::new());
    }

    #[test]
    fn a_link_a_fifo_or_a_huge_file_defines_nothing() {
        let dir = tempfile::tempdir().expect("temp dir");
        let real = dir.path().join("real.py");
        std::fs::write(
            &real,
            "def legal(): pass\ndef find_empty(): pass\ndef solve(): pass\n",
        )
        .expect("write");
        assert_eq!(defined_in(&real), LAB_FUNCTIONS);
        let link = dir.path().join("link.py");
        std::os::unix::fs::symlink(&real, &link).expect("link");
        assert!(defined_in(&link).is_empty());
        let fifo = dir.path().join("fifo.py");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        assert!(defined_in(&fifo).is_empty());
        let huge = dir.path().join("huge.py");
        let mut text = "def legal(): pass\ndef find_empty(): pass\ndef solve(): pass\n".to_string();
        text.push_str(&"#".repeat(MAX_SCANNED_BYTES as usize));
        std::fs::write(&huge, text).expect("write");
        assert!(defined_in(&huge).is_empty());
    }
}
