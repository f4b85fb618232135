//! How a submission id is shown in the terminal, the CSV and the HTML.
//!
//! An id is the name of a student's entry: anything a file system allows.
//! Two ids can look the same on screen and differ in bytes (a Cyrillic
//! `а` beside a Latin `a`, a zero-width character), so a reader could take
//! one student's row for another's. Every id that holds a character
//! outside printable ASCII, or a backslash (which could fake an escape),
//! is shown escaped ([`shown`]: `\u{430}`, `\\`), whatever else is in the
//! run; and [`notes`] names, once per run, each escaped id and each pair
//! of ids that look alike (the same [`skeleton`]: `aIice` and `alice`).
//! The JSON report keeps the id as it is (a program reads it); the views
//! for people show this.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::text::visible_line;

/// Whether `id` is shown escaped: it holds a character outside printable
/// ASCII, or a backslash.
pub(crate) fn needs_escape(id: &str) -> bool {
    id.chars().any(|ch| !(' '..='~').contains(&ch) || ch == '\\')
}

/// `id` as the views for people show it: as it is when it is printable
/// ASCII without a backslash; else every other character as `\u{HEX}` and
/// a backslash as `\\` (so no id can spell another's escape).
pub(crate) fn shown(id: &str) -> Cow<'_, str> {
    if !needs_escape(id) {
        return Cow::Borrowed(id);
    }
    let mut out = String::with_capacity(id.len() + 8);
    let mut one = [0u8; 4];
    for ch in id.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(ch),
            // Control characters as every other view shows them (`\e`,
            // `\r`, `\n`, ...).
            _ if ch.is_control() => out.push_str(&visible_line(ch.encode_utf8(&mut one))),
            other => out.push_str(&format!("\\u{{{:x}}}", u32::from(other))),
        }
    }
    Cow::Owned(out)
}

/// What `id` looks like: lower case, with characters that look alike in
/// common fonts folded to one (`0`/`O` to `o`, `1`/`I`/`|` to `l`, `rn`
/// to `m`, `vv` to `w`, Cyrillic and Greek letters to the Latin ones they
/// look like), and invisible characters dropped. Two ids with one
/// skeleton can be taken for each other.
pub(crate) fn skeleton(id: &str) -> String {
    let mut folded = String::with_capacity(id.len());
    for ch in id.chars() {
        if let Some(latin) = look_alike(ch) {
            folded.push(latin);
        } else if ch.is_control() || invisible(ch) {
            continue;
        } else {
            folded.extend(ch.to_lowercase());
        }
    }
    folded.replace("rn", "m").replace("vv", "w")
}

/// The Latin letter or digit `ch` looks like, when it is one of the common
/// look-alikes.
fn look_alike(ch: char) -> Option<char> {
    let latin = match ch {
        '0' | 'O' | 'о' | 'О' | 'ο' | 'Ο' | 'ө' => 'o',
        '1' | 'I' | 'l' | '|' | 'і' | 'І' | 'ӏ' | 'Ι' | 'ι' => 'l',
        'а' | 'А' | 'α' | 'Α' => 'a',
        'В' | 'Β' | 'ь' => 'b',
        'с' | 'С' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'Е' | 'ё' | 'Ε' => 'e',
        'Н' | 'Η' | 'һ' => 'h',
        'ј' | 'Ј' => 'j',
        'К' | 'к' | 'Κ' | 'κ' => 'k',
        'М' | 'м' | 'Μ' => 'm',
        'п' | 'Ν' | 'η' => 'n',
        'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
        'ԛ' => 'q',
        'ѕ' | 'Ѕ' => 's',
        'Т' | 'т' | 'Τ' | 'τ' => 't',
        'υ' | 'ս' => 'u',
        'ν' | 'ѵ' => 'v',
        'ѡ' | 'ԝ' => 'w',
        'х' | 'Х' | 'Χ' | 'χ' => 'x',
        'у' | 'У' | 'Υ' | 'γ' => 'y',
        'Ζ' => 'z',
        _ => return None,
    };
    Some(latin)
}

/// Characters that take no room on screen: zero-width spaces and joiners,
/// bidi marks and overrides, the BOM, soft hyphens, variation selectors.
fn invisible(ch: char) -> bool {
    matches!(ch,
        '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' | '\u{feff}' | '\u{fe00}'..='\u{fe0f}')
}

/// The notes a view prints once under its table: each escaped id, and
/// each set of ids that look alike, in the order of `ids`. Empty when
/// every id is plain and unlike every other.
pub(crate) fn notes<'a>(ids: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let ids: Vec<&str> = ids.into_iter().collect();
    let mut by_look: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for &id in &ids {
        let alike = by_look.entry(skeleton(id)).or_default();
        if !alike.contains(&id) {
            alike.push(id);
        }
    }
    let mut notes = Vec::new();
    let mut told: Vec<String> = Vec::new();
    for &id in &ids {
        let look = skeleton(id);
        let alike: Vec<&str> = by_look
            .get(&look)
            .map(|a| a.iter().copied().filter(|&other| other != id).collect())
            .unwrap_or_default();
        if needs_escape(id) {
            let mut note = format!(
                "the id `{}` is shown escaped: it holds characters outside printable ASCII \
                 (or a backslash)",
                shown(id)
            );
            if !alike.is_empty() {
                note.push_str(&format!(", and looks like {}", listed(&alike)));
            }
            notes.push(note);
        } else if !alike.is_empty() && !told.contains(&look) {
            let mut all = vec![id];
            all.extend(alike.iter().copied().filter(|a| !needs_escape(a)));
            if all.len() > 1 {
                notes.push(format!(
                    "the ids {} look alike: they are different students",
                    listed(&all)
                ));
            }
        }
        told.push(look);
    }
    notes
}

/// `ids` shown and quoted, joined with commas.
fn listed(ids: &[&str]) -> String {
    ids.iter()
        .map(|id| format!("`{}`", shown(id)))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_outside_printable_ascii_are_escaped_and_told() {
        let cyrillic = "\u{430}\u{430}\u{430}-x";
        assert_eq!(shown("aaa-x"), "aaa-x");
        assert_eq!(shown(cyrillic), "\\u{430}\\u{430}\\u{430}-x");
        assert_ne!(shown(cyrillic), shown("aaa-x"));
        // A backslash cannot spell another id's escape.
        assert_eq!(shown("\\u{430}aa-x"), "\\\\u{430}aa-x");
        assert_ne!(shown("\\u{430}aa-x"), shown("\u{430}aa-x"));
        assert_eq!(shown("zero\u{200b}width"), "zero\\u{200b}width");
        assert_eq!(shown("tab\there"), "tab\\there");
        assert_eq!(shown("esc\u{1b}[2K"), "esc\\e[2K");
        let notes = notes(["aaa-x", cyrillic]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("`\\u{430}\\u{430}\\u{430}-x` is shown escaped")
                && notes[0].contains("looks like `aaa-x`"),
            "{notes:?}"
        );
    }

    #[test]
    fn ascii_look_alikes_are_named_once_and_plain_ids_not_at_all() {
        assert_eq!(skeleton("aIice"), skeleton("alice"));
        assert_eq!(skeleton("m0rris"), skeleton("rnorris"));
        assert_eq!(skeleton("b\u{200b}ob"), skeleton("bob"));
        assert_ne!(skeleton("bob"), skeleton("rob"));
        let notes = notes(["alice", "aIice", "bob", "carol"]);
        assert_eq!(
            notes,
            ["the ids `alice`, `aIice` look alike: they are different students"]
        );
        assert!(super::notes(["alice", "bob"]).is_empty());
    }
}
