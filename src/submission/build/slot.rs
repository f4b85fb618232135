//! Slot names: a file-name- and identifier-safe form of a student id
//! ([`slot_name`]), kept apart by a short hash of the whole id, for the
//! library name of a Rust crate.

/// A file-name- and identifier-safe form of a student id: lowercase ASCII
/// letters, digits and `_`, starting with a letter, at most 40 characters.
pub(super) fn slot_name(id: &str) -> String {
    let mut s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_lowercase()) {
        s.insert_str(0, "sub_");
    }
    s
}

/// 8 hex digits of FNV-1a over the id: keeps library names apart when two
/// ids have the same [`slot_name`].
pub(super) fn short_hash(id: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in id.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_names_are_safe_identifiers() {
        assert_eq!(slot_name("Alice Smith"), "alice_smith");
        assert_eq!(slot_name("42"), "sub_42");
        assert_eq!(slot_name("rust-trait"), "rust_trait");
        assert_ne!(short_hash("a-b"), short_hash("a_b"));
    }
}
