//! The crash line of a library test child (`crash_site` on fd 3, written
//! by the worker's crash handler, `worker/crash.rs`), parsed and worded.
//!
//! The line is student-process evidence: student code can write fd 3 too,
//! and can overwrite the handler's table. So it only ever words a crash
//! the grader decided from the wait status: its signal must be the one
//! that ended the process, its format must be exact (at most
//! [`MAX_SITE`] bytes, a known signal, lower-case hex, names of
//! identifier characters only), and anything else is ignored.
//!
//! It is also the one home of the name checks: which symbol and file
//! names the handler may write (`nameable`, `file_name_ok`) is what
//! the parser accepts, so the two sides cannot drift apart.

/// The longest site the grader reads.
pub const MAX_SITE: usize = 128;

/// The longest function or file name the handler writes and the grader
/// reads.
pub(crate) const MAX_NAME: usize = 64;

/// Where a crash was, as the test child's crash handler saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashSite {
    /// The signal the handler caught.
    pub signal: i32,
    /// The faulting instruction's place.
    pub place: Place,
}

/// The faulting instruction's place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// In a function of the student's library: its symbol (`legal`, or a
    /// compiler's clone of it, `legal.cold`) and the offset into it.
    Function {
        /// The symbol as the library names it.
        symbol: String,
        /// Bytes from its start.
        offset: u64,
    },
    /// In the student's library where no function symbol covers it: the
    /// offset from the library's load base.
    Library(u64),
    /// In another loaded library, by its file name.
    OtherLibrary(String),
    /// In the worker program (the grader's own code), outside any call of
    /// the student's functions.
    Program,
    /// In another loaded file the handler would not name.
    OtherFile,
    /// In no file loaded with the library.
    Unknown,
    /// In the worker program, or in no loaded file, while a call of the
    /// student's function was running: the student's code reached it (a
    /// jump or call through a bad pointer, a return address overwritten).
    ReachedProgram,
    /// In no file loaded with the library, while a call of the student's
    /// function was running.
    ReachedUnknown,
}

impl CrashSite {
    /// Parses a site: `SIGNAL PLACE`, with PLACE one of `in NAME+0xHEX`,
    /// `at 0xHEX`, `lib FILE`, `program`, `file`, `unknown`, `program
    /// reached` or `unknown reached` (during a call of the student's), and
    /// SIGNAL one of SIGILL, SIGFPE, SIGBUS, SIGSEGV by number. `None`
    /// for anything else.
    pub fn parse(site: &str) -> Option<CrashSite> {
        if site.len() > MAX_SITE {
            return None;
        }
        let (signal, place) = site.split_once(' ')?;
        if !matches!(signal, "4" | "7" | "8" | "11") {
            return None;
        }
        let signal: i32 = signal.parse().ok()?;
        let place = match place.split_once(' ') {
            Some(("in", function)) => {
                let (symbol, offset) = function.split_once('+')?;
                if !nameable(symbol) {
                    return None;
                }
                Place::Function {
                    symbol: symbol.to_string(),
                    offset: hex(offset)?,
                }
            }
            Some(("at", offset)) => Place::Library(hex(offset)?),
            Some(("lib", file)) if file_name_ok(file) => Place::OtherLibrary(file.to_string()),
            Some(("program", "reached")) => Place::ReachedProgram,
            Some(("unknown", "reached")) => Place::ReachedUnknown,
            None if place == "program" => Place::Program,
            None if place == "file" => Place::OtherFile,
            None if place == "unknown" => Place::Unknown,
            _ => return None,
        };
        Some(CrashSite { signal, place })
    }

    /// The place in words, to follow the signal's name: "in your function
    /// `legal`", "at offset 0x115c of your library", "outside your library
    /// (in libc.so.6)". The offset into a function is left out: it says
    /// nothing to a student, and it changes with the compiler's version
    /// (a report would then differ between two hosts).
    pub fn words(&self) -> String {
        match &self.place {
            Place::Function { symbol, .. } => {
                let function = symbol.split('.').next().unwrap_or(symbol);
                format!("in your function `{function}`")
            }
            Place::Library(offset) => format!("at offset {offset:#x} of your library"),
            Place::OtherLibrary(file) => format!("outside your library (in {file})"),
            Place::Program => {
                "outside your library (in the grader's test program, outside any call of your \
                 functions)"
                    .to_string()
            }
            Place::OtherFile => "outside your library".to_string(),
            Place::Unknown => {
                "outside your library, at an address outside every file loaded with it".to_string()
            }
            Place::ReachedProgram => {
                "outside your library, where your code jumped or called into the grader's test \
                 program (a bad function pointer, or a return address overwritten)"
                    .to_string()
            }
            Place::ReachedUnknown => {
                "outside your library, where your code jumped or called to an address outside \
                 every loaded file (a bad function pointer, or a return address overwritten)"
                    .to_string()
            }
        }
    }
}

/// `0x` and 1 to 16 lower-case hex digits.
fn hex(text: &str) -> Option<u64> {
    let digits = text.strip_prefix("0x")?;
    let ok = (1..=16).contains(&digits.len())
        && digits
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !ok {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

/// Whether a symbol name may be written in the crash line and read back:
/// an identifier, optionally with a compiler's clone suffix (`legal.cold`,
/// `solve.part.0`: lower-case letters and digits), at most [`MAX_NAME`]
/// bytes, and not a name of the toolchain's ([`toolchain_name`]).
pub(crate) fn nameable(name: &str) -> bool {
    let (identifier, suffix) = match name.split_once('.') {
        Some((identifier, suffix)) => (identifier, Some(suffix)),
        None => (name, None),
    };
    let plain_suffix = |suffix: &str| {
        suffix.split('.').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
    };
    let mut chars = identifier.bytes();
    name.len() <= MAX_NAME
        && chars
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && chars.all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && suffix.is_none_or(plain_suffix)
        && !toolchain_name(identifier)
}

/// A name the compiler, the C runtime or the Rust runtime puts into every
/// library, never the student's own: mangled names (`_R`, `_Z`), names C
/// reserves (`__x`, `_X`), the crt's helpers, the Rust runtime's shims.
fn toolchain_name(identifier: &str) -> bool {
    let reserved = identifier.starts_with("__")
        || identifier
            .strip_prefix('_')
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()));
    reserved
        || identifier.starts_with("rust_")
        || matches!(
            identifier,
            "frame_dummy" | "register_tm_clones" | "deregister_tm_clones" | "_init" | "_fini"
        )
}

/// Whether a library's file name may be written in the crash line and
/// read back: 1 to [`MAX_NAME`] bytes of letters, digits and `._+-`, not
/// `.` or `..`.
pub(crate) fn file_name_ok(file: &str) -> bool {
    (1..=MAX_NAME).contains(&file.len())
        && file != "."
        && file != ".."
        && file
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._+-".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handlers_sites_parse_and_read() {
        let words = |site: &str| CrashSite::parse(site).map(|s| (s.signal, s.words()));
        assert_eq!(
            words("11 in legal+0x1c"),
            Some((11, "in your function `legal`".to_string()))
        );
        assert_eq!(
            words("8 in find_empty.cold+0x4"),
            Some((8, "in your function `find_empty`".to_string()))
        );
        assert_eq!(
            words("7 at 0x115c"),
            Some((7, "at offset 0x115c of your library".to_string()))
        );
        assert_eq!(
            words("11 lib libc.so.6"),
            Some((11, "outside your library (in libc.so.6)".to_string()))
        );
        assert!(words("4 program").is_some_and(|(_, w)| w.contains("outside any call of your")));
        assert!(words("11 program reached").is_some_and(|(_, w)| {
            w.contains("your code jumped or called into the grader's test program")
        }));
        assert!(
            words("11 unknown reached")
                .is_some_and(|(_, w)| w.contains("your code jumped or called"))
        );
        assert!(words("11 file").is_some_and(|(_, w)| w == "outside your library"));
        assert!(words("11 unknown").is_some_and(|(_, w)| w.contains("every file loaded")));
    }

    #[test]
    fn forged_oversized_and_malformed_sites_are_ignored() {
        let long_name = format!("11 in {}+0x1", "a".repeat(MAX_NAME + 1));
        let oversized = format!("11 lib {}", "b".repeat(MAX_SITE));
        for bad in [
            "",
            "11",
            "11 ",
            " 11 in legal+0x1c",
            "11 in legal+0x1c ",
            "11  in legal+0x1c",
            "11 in legal+0x1C",
            "11 in legal+1c",
            "11 in legal+0x",
            "11 in legal+0x11111111111111111",
            "11 in legal",
            "11 in +0x1c",
            "11 in 1egal+0x1c",
            "11 in le`gal+0x1c",
            "11 in legal\n+0x1c",
            "11 in legal.+0x1c",
            "11 in legal.Cold+0x1c",
            "11 in your function `solve`+0x0",
            "6 in legal+0x1c",
            "9 at 0x1",
            "011 at 0x1",
            "+11 at 0x1",
            "11 at 1c",
            "11 at 0x-1",
            "11 lib ",
            "11 lib ..",
            "11 lib /lib/libc.so.6",
            "11 lib libc.so.6 extra",
            "11 lib lib c.so",
            "11 program ",
            "11 unknown x",
            "11 somewhere",
            "SIGSEGV in legal+0x1c",
            long_name.as_str(),
            oversized.as_str(),
            "11 in légal+0x1c",
            "11 in __rust_alloc+0x0",
            "11 in _ZN4core9panicking5panic17h0123456789abcdefE+0x0",
            "11 program reached ",
            "11 file reached",
            "11 reached",
        ] {
            assert_eq!(CrashSite::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn only_plain_names_are_kept() {
        for good in ["legal", "_helper", "box_ok2", "legal.cold", "solve.part.0"] {
            assert!(nameable(good), "{good}");
        }
        let long = "a".repeat(MAX_NAME + 1);
        for bad in [
            "",
            "9lives",
            "legal.",
            "a..b",
            "legal.Cold",
            "with space",
            "semi;colon",
            "_ZN4core9panicking5panic17h0123456789abcdefE",
            "_RNvCs1234_5crate5legal",
            "__rust_alloc",
            "__udivti3",
            "_Unwind_Resume",
            "rust_begin_unwind",
            "frame_dummy",
            long.as_str(),
            "lé",
        ] {
            assert!(!nameable(bad), "{bad}");
        }
        assert!(file_name_ok("libc.so.6") && file_name_ok("ld-linux-x86-64.so.2"));
        for bad in ["", ".", "..", "a/b", "lib c.so", "\"x"] {
            assert!(!file_name_ok(bad), "{bad}");
        }
    }
}
