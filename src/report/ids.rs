//! How a submission id is shown in the terminal, the CSV, the HTML and
//! the Markdown summary.
//!
//! An id is the name of a student's entry: anything a file system allows.
//! Two ids can look the same on screen and differ in bytes (a Cyrillic
//! `а` beside a Latin `a`, a zero-width character, `e` and a combining
//! diaeresis beside a precomposed `ë`), so a reader could take one
//! student's row for another's. An id is shown escaped ([`Ids::shown`]:
//! every character outside printable ASCII as `\u{430}`, a backslash as
//! `\\`, control characters as `\e`, `\r`, ...) when
//!
//! - it looks like another id of the run (one [`skeleton`]), or
//! - on its own it could pass for another name ([`suspicious`]): a
//!   control or invisible character, a backslash (which could fake an
//!   escape), or Latin letters mixed with Cyrillic or Greek ones that look
//!   like Latin letters.
//!
//! A name in one script (`张伟`, `José`, `Иван`) is shown as it is, lined
//! up by display width. [`Ids::notes`] names, once per run, each escaped
//! id and each set of ids that look alike. The JSON report keeps every id
//! as it is (a program reads it).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use crate::visible::visible_line;

/// The ids of one run, and which of them look like another.
pub(crate) struct Ids<'a> {
    ids: Vec<&'a str>,
    alike: HashSet<&'a str>,
}

impl<'a> Ids<'a> {
    /// The run's ids.
    pub(crate) fn of(ids: impl IntoIterator<Item = &'a str>) -> Ids<'a> {
        let ids: Vec<&str> = ids.into_iter().collect();
        let mut by_look: BTreeMap<String, HashSet<&str>> = BTreeMap::new();
        for &id in &ids {
            by_look.entry(skeleton(id)).or_default().insert(id);
        }
        let alike = by_look
            .into_values()
            .filter(|same| same.len() > 1)
            .flatten()
            .collect();
        Ids { ids, alike }
    }

    /// Whether `id` is shown escaped in this run.
    pub(crate) fn escaped(&self, id: &str) -> bool {
        suspicious(id) || self.alike.contains(id)
    }

    /// `id` as this run's views for people show it.
    pub(crate) fn shown<'s>(&self, id: &'s str) -> Cow<'s, str> {
        if self.escaped(id) {
            Cow::Owned(escape(id))
        } else {
            visible_line(id)
        }
    }

    /// The notes a view prints once under its table: each escaped id,
    /// with the ids it looks like, in the run's order. Empty when no id is
    /// escaped.
    pub(crate) fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let mut told = HashSet::new();
        for &id in &self.ids {
            if !self.escaped(id) || !told.insert(id) {
                continue;
            }
            let look = skeleton(id);
            let others: Vec<String> = self
                .ids
                .iter()
                .filter(|&&other| other != id && skeleton(other) == look)
                .map(|other| format!("`{}`", self.shown(other)))
                .collect();
            let mut note = format!("the id `{}` is shown escaped", escape(id));
            if others.is_empty() {
                note.push_str(
                    ": it holds characters that could pass for another name (invisible or \
                     control characters, a backslash, or letters of two scripts)",
                );
            } else {
                note.push_str(&format!(
                    ": it looks like {}, a different student",
                    others.join(", ")
                ));
            }
            notes.push(note);
        }
        notes
    }
}

/// The ids of `report`'s submissions.
pub(crate) fn of_report(report: &super::Report) -> Ids<'_> {
    Ids::of(report.submissions.iter().map(|s| s.id.as_str()))
}

/// `id` as a view shows it before the rest of the run is known (a line
/// streamed as each student is graded): escaped when it is
/// [`suspicious`] on its own.
pub(crate) fn shown_alone(id: &str) -> Cow<'_, str> {
    if suspicious(id) {
        Cow::Owned(escape(id))
    } else {
        visible_line(id)
    }
}

/// Whether `id` could pass for another name on its own: it holds a control
/// or invisible character or a backslash, or mixes ASCII letters with
/// Cyrillic or Greek letters that look like Latin ones.
pub(crate) fn suspicious(id: &str) -> bool {
    let hidden = id
        .chars()
        .any(|ch| ch == '\\' || ch.is_control() || invisible(ch));
    let latin = id.chars().any(|ch| ch.is_ascii_alphabetic());
    let look_alike = id
        .chars()
        .any(|ch| !ch.is_ascii() && look_alike(ch).is_some());
    hidden || (latin && look_alike)
}

/// `id` escaped: printable ASCII as it is, a backslash as `\\`, control
/// characters as every other view shows them (`\e`, `\r`, ...), any other
/// character as `\u{HEX}`; so no escaped id can spell another's.
fn escape(id: &str) -> String {
    let mut out = String::with_capacity(id.len() + 8);
    let mut one = [0u8; 4];
    for ch in id.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(ch),
            _ if ch.is_control() => out.push_str(&visible_line(ch.encode_utf8(&mut one))),
            other => out.push_str(&format!("\\u{{{:x}}}", u32::from(other))),
        }
    }
    out
}

/// What `id` looks like: lower case, with characters that look alike in
/// common fonts folded to one (`0`/`O` to `o`, `1`/`I`/`|` to `l`, `rn`
/// to `m`, `vv` to `w`, Cyrillic and Greek letters to the Latin ones they
/// look like, accented Latin letters to their base), and invisible
/// characters and combining marks dropped. Two ids with one skeleton can
/// be taken for each other.
pub(crate) fn skeleton(id: &str) -> String {
    let mut folded = String::with_capacity(id.len());
    for ch in id.chars() {
        // Before lower-casing: a capital I looks like l, a small i does not.
        if let Some(latin) = look_alike(ch) {
            folded.push(latin);
            continue;
        }
        for ch in ch.to_lowercase() {
            if let Some(latin) = look_alike(ch).or_else(|| unaccented(ch)) {
                folded.push(latin);
            } else if !(ch.is_control() || invisible(ch) || combining(ch)) {
                folded.push(ch);
            }
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

/// The base letter of a lower-case accented Latin letter of Latin-1.
fn unaccented(ch: char) -> Option<char> {
    let base = match ch {
        'à'..='å' => 'a',
        'ç' => 'c',
        'è'..='ë' => 'e',
        'ì'..='ï' => 'i',
        'ñ' => 'n',
        'ò'..='ö' | 'ø' => 'o',
        'ù'..='ü' => 'u',
        'ý' | 'ÿ' => 'y',
        _ => return None,
    };
    Some(base)
}

/// A combining mark (drawn on the character before it).
fn combining(ch: char) -> bool {
    matches!(ch, '\u{300}'..='\u{36f}' | '\u{1ab0}'..='\u{1aff}' | '\u{20d0}'..='\u{20ff}')
}

/// Characters that take no room on screen: zero-width spaces and joiners,
/// bidi marks and overrides, the BOM, soft hyphens, variation selectors.
fn invisible(ch: char) -> bool {
    matches!(ch,
        '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' | '\u{feff}' | '\u{fe00}'..='\u{fe0f}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_of_one_run_are_escaped_and_told() {
        let cyrillic = "\u{430}\u{430}\u{430}-x";
        let run = Ids::of(["aaa-x", cyrillic, "bob"]);
        assert_eq!(run.shown("bob"), "bob");
        assert_eq!(run.shown(cyrillic), "\\u{430}\\u{430}\\u{430}-x");
        assert_eq!(run.shown("aaa-x"), "aaa-x");
        assert_ne!(run.shown(cyrillic), run.shown("aaa-x"));
        let notes = run.notes();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with("the id `aaa-x` is shown escaped: it looks like `\\u{430}"),
            "{notes:?}"
        );
        assert!(notes[1].contains("looks like `aaa-x`"), "{notes:?}");
        // ASCII look-alikes, a combining mark beside a precomposed letter.
        let run = Ids::of(["alice", "aIice", "Zoe\u{308}", "Zo\u{eb}", "carol"]);
        assert_eq!(run.shown("Zo\u{eb}"), "Zo\\u{eb}");
        assert_eq!(run.shown("Zoe\u{308}"), "Zoe\\u{308}");
        assert_eq!(run.notes().len(), 4, "{:?}", run.notes());
        assert!(!run.escaped("carol"));
    }

    #[test]
    fn a_name_in_one_script_is_shown_as_it_is_and_a_mixed_one_escaped() {
        let run = Ids::of(["张伟", "José", "Zoe\u{308}", "Иван", "ascii-student"]);
        for id in ["张伟", "José", "Zoe\u{308}", "Иван", "ascii-student"] {
            assert_eq!(run.shown(id), id, "{id}");
        }
        assert!(run.notes().is_empty(), "{:?}", run.notes());
        // Alone, with nothing to look like: still escaped.
        for (id, shown) in [
            ("p\u{430}ypal", "p\\u{430}ypal"),
            ("zero\u{200b}width", "zero\\u{200b}width"),
            ("\\u{430}aa-x", "\\\\u{430}aa-x"),
            ("esc\u{1b}[2K", "esc\\e[2K"),
        ] {
            assert_eq!(shown_alone(id), shown, "{id}");
            assert_eq!(Ids::of([id]).shown(id), shown, "{id}");
            assert_eq!(Ids::of([id]).notes().len(), 1, "{id}");
        }
        assert_eq!(shown_alone("two\nlines"), "two\\nlines");
    }

    #[test]
    fn skeletons_fold_what_looks_alike() {
        assert_eq!(skeleton("aIice"), skeleton("alice"));
        assert_eq!(skeleton("m0rris"), skeleton("rnorris"));
        assert_eq!(skeleton("b\u{200b}ob"), skeleton("bob"));
        assert_eq!(skeleton("Zoe\u{308}"), skeleton("Zo\u{eb}"));
        assert_ne!(skeleton("bob"), skeleton("rob"));
    }
}
