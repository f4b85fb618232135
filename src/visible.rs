//! Student text made safe to show: every control character (terminal
//! escapes, carriage returns that overwrite a line, OSC 52 clipboard and
//! OSC 8 link sequences, bidi overrides) is made visible instead of being
//! interpreted by the reader's terminal, editor or spreadsheet.
//!
//! Everything a student controls goes through [`visible`] before a
//! terminal view prints it: program output, compiler errors, file names.
//! Newlines and tabs are kept (they only move the cursor forward).

use std::borrow::Cow;

/// `text` with each control character shown as an escape: `\e` for ESC,
/// `\r`, `\u{7f}`, `\u{202e}` (bidi overrides and other format characters)
/// and so on. `\n` and `\t` are kept. Returns the text unchanged (no copy)
/// when there is nothing to escape.
pub(crate) fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for ch in text.chars() {
        if !needs_escape(ch) {
            out.push(ch);
            continue;
        }
        match ch {
            '\x1b' => out.push_str("\\e"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            other => out.push_str(&format!("\\u{{{:x}}}", other as u32)),
        }
    }
    Cow::Owned(out)
}

/// One line of student text for a one-line view (a summary row, a name):
/// [`visible`], with newlines and tabs escaped too.
pub(crate) fn visible_line(text: &str) -> Cow<'_, str> {
    let shown = visible(text);
    if !shown.contains(['\n', '\t']) {
        return shown;
    }
    Cow::Owned(shown.replace('\n', "\\n").replace('\t', "\\t"))
}

fn needs_escape(ch: char) -> bool {
    if ch == '\n' || ch == '\t' {
        return false;
    }
    ch.is_control() || is_format_control(ch)
}

/// Unicode format characters that reorder or hide text: bidi embeddings,
/// overrides and isolates, zero-width joiners, the BOM.
fn is_format_control(ch: char) -> bool {
    matches!(ch, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_not_copied() {
        assert!(matches!(
            visible("solve returned false\n\tat r1c2"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn escapes_are_shown_not_interpreted() {
        assert_eq!(
            visible("\x1b[2K\r21/21 all passed"),
            "\\e[2K\\r21/21 all passed"
        );
        assert_eq!(visible("\x1b]52;c;aGk=\x07"), "\\e]52;c;aGk=\\u{7}");
        assert_eq!(visible("a\u{202e}b\u{7f}"), "a\\u{202e}b\\u{7f}");
    }

    #[test]
    fn one_line_views_escape_newlines() {
        assert_eq!(visible_line("alice\nbob 21/21\t"), "alice\\nbob 21/21\\t");
    }
}
