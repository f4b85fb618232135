//! Trimming compiler output to what a student needs
//! ([`trim_compiler_output`]): errors with their context and notes,
//! warnings and progress dropped, the build's own folders removed from
//! paths, at most [`MAX_MESSAGE_LINES`] lines.

use std::path::Path;

/// At most this many lines of compiler output reach the student.
pub(super) const MAX_MESSAGE_LINES: usize = 40;

/// Compiler output cut down to what a student needs: progress lines
/// (`Compiling ...`) dropped; if there are errors, only the error blocks
/// (each diagnostic with its context lines and notes), warnings dropped;
/// each of `strip` (absolute build folders) removed from paths; at most
/// [`MAX_MESSAGE_LINES`] lines.
pub(super) fn trim_compiler_output(output: &str, strip: &[&Path]) -> String {
    let mut prefixes: Vec<String> = strip
        .iter()
        .filter(|p| p.is_absolute() && p.as_os_str().len() > 1)
        .map(|p| format!("{}/", p.display()))
        .collect();
    // Longest first, so a folder inside another is stripped whole.
    prefixes.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let lines: Vec<String> = output
        .lines()
        .filter(|line| !is_progress(line))
        .map(|line| {
            let mut line = line.trim_end().to_string();
            for prefix in &prefixes {
                line = line.replace(prefix.as_str(), "");
            }
            line
        })
        .collect();

    // Split into blocks: a diagnostic header and the lines after it.
    // Context lines before a header ("In function ...") belong to it.
    let mut blocks: Vec<(Severity, Vec<String>)> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for line in lines {
        match severity(&line) {
            Some(Severity::Note) if pending.is_empty() && !blocks.is_empty() => {
                if let Some(last) = blocks.last_mut() {
                    last.1.push(line);
                }
            }
            Some(sev) => {
                pending.push(line);
                blocks.push((sev, std::mem::take(&mut pending)));
            }
            None if is_lead_in(&line) => pending.push(line),
            None => match blocks.last_mut() {
                Some(last) if pending.is_empty() => last.1.push(line),
                _ => pending.push(line),
            },
        }
    }
    let has_errors = blocks.iter().any(|(sev, _)| *sev == Severity::Error);
    let mut kept: Vec<String> = if has_errors {
        blocks
            .into_iter()
            .filter(|(sev, _)| *sev == Severity::Error)
            .flat_map(|(_, lines)| lines)
            .collect()
    } else {
        blocks
            .into_iter()
            .flat_map(|(_, lines)| lines)
            .chain(pending)
            .collect()
    };
    kept.retain(|l| !l.trim().is_empty());
    if kept.len() > MAX_MESSAGE_LINES {
        let more = kept.len() - MAX_MESSAGE_LINES;
        kept.truncate(MAX_MESSAGE_LINES);
        kept.push(format!("... ({more} more lines)"));
    }
    kept.join("\n")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Severity {
    Error,
    Warning,
    Note,
}

/// The severity of a diagnostic header line, `error: ...` or
/// `file:line:col: error: ...` (gcc, rustc's short format, the linker).
pub(super) fn severity(line: &str) -> Option<Severity> {
    let rest = line.trim_start();
    let starts = |word: &str| {
        rest.starts_with(word)
            || line.contains(&format!(": {word}:"))
            || line.contains(&format!(": {word}["))
    };
    if starts("error") || starts("fatal error") {
        Some(Severity::Error)
    } else if starts("warning") {
        Some(Severity::Warning)
    } else if starts("note") || starts("help") {
        Some(Severity::Note)
    } else {
        None
    }
}

/// gcc's "In function 'solve':" and "In file included from" lines, which
/// introduce the diagnostic that follows.
pub(super) fn is_lead_in(line: &str) -> bool {
    line.contains(": In function")
        || line.contains(": In file included from")
        || line.starts_with("In file included from")
        || line.contains(": At top level:")
}

/// cargo's progress lines, which say nothing about the student's code.
pub(super) fn is_progress(line: &str) -> bool {
    const WORDS: [&str; 12] = [
        "Compiling",
        "Checking",
        "Locking",
        "Blocking",
        "Updating",
        "Downloading",
        "Downloaded",
        "Finished",
        "Building",
        "Adding",
        "Running",
        "Fresh",
    ];
    let trimmed = line.trim_start();
    line.starts_with(' ') && WORDS.iter().any(|w| trimmed.starts_with(&format!("{w} ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimming_keeps_errors_and_drops_warnings_and_progress() {
        let output = "\
   Compiling sudoku-lab v0.1.0 (/src/lab)
/tmp/b/work/x/crate/src/lib.rs:3:9: warning: unused variable: `x`
/tmp/b/work/x/crate/src/lib.rs:22:28: error[E0308]: mismatched types: expected `bool`, found `usize`
warning: `x` (lib) generated 1 warning
error: could not compile `x` (lib) due to 1 previous error
";
        let trimmed = trim_compiler_output(output, &[Path::new("/tmp/b/work/x/crate")]);
        assert_eq!(
            trimmed,
            "src/lib.rs:22:28: error[E0308]: mismatched types: expected `bool`, found `usize`\n\
             error: could not compile `x` (lib) due to 1 previous error"
        );
    }

    #[test]
    fn trimming_keeps_gcc_context_and_notes_of_errors_only() {
        let output = "\
s.c: In function 'legal':
s.c:3:9: warning: unused variable 'k' [-Wunused-variable]
    3 |     int k;
      |         ^
s.c: In function 'solve':
s.c:9:5: error: 'x' undeclared (first use in this function)
    9 |     x = 1;
      |     ^
s.c:9:5: note: each undeclared identifier is reported only once
";
        let trimmed = trim_compiler_output(output, &[]);
        assert_eq!(
            trimmed,
            "s.c: In function 'solve':\n\
             s.c:9:5: error: 'x' undeclared (first use in this function)\n\
             \x20   9 |     x = 1;\n\
             \x20     |     ^\n\
             s.c:9:5: note: each undeclared identifier is reported only once"
        );
    }

    #[test]
    fn trimming_caps_the_length_and_keeps_output_without_errors() {
        let many: String = (0..100)
            .map(|i| format!("s.c:{i}:1: error: bad {i}\n"))
            .collect();
        let trimmed = trim_compiler_output(&many, &[]);
        assert_eq!(trimmed.lines().count(), MAX_MESSAGE_LINES + 1);
        assert!(trimmed.ends_with("... (60 more lines)"), "{trimmed}");
        let odd = "ld: cannot find -lfoo\nsomething else\n";
        assert_eq!(
            trim_compiler_output(odd, &[]),
            "ld: cannot find -lfoo\nsomething else"
        );
    }
}
