//! Which glibc an executable needs, read from its ELF file: the highest
//! `GLIBC_x.y` version among the versions it needs from `libc.so.6` and
//! the other glibc libraries (the `.gnu.version_r` section, what `objdump
//! -T` shows per symbol), parsed with the `object` crate. `grader package`
//! uses it to say at build time which Gradescope base images can run the
//! binaries it packs.
//!
//! A static build is no way out for the grader: the worker loads student
//! libraries with `dlopen`, which a static musl binary cannot do ("Dynamic
//! loading not supported"), so the binaries stay dynamic and glibc's
//! version is what decides where they run.

use anyhow::Context;
use object::Endianness;
use object::elf::{EM_X86_64, FileHeader64};
use object::read::elf::FileHeader;
use std::fmt;
use std::path::Path;

/// A glibc version, `major.minor` (`2.34`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct GlibcVersion {
    /// 2 for every glibc since 1997.
    pub major: u32,
    /// The release.
    pub minor: u32,
}

impl fmt::Display for GlibcVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl GlibcVersion {
    /// Parses a version node name: `GLIBC_2.34` and `GLIBC_2.2.5` (a patch
    /// level counts as its minor release); `None` for anything else
    /// (`GLIBC_PRIVATE`, `GCC_3.0`).
    pub fn from_node(name: &str) -> Option<Self> {
        let version = name.strip_prefix("GLIBC_")?;
        let mut parts = version.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        if parts.any(|p| p.parse::<u32>().is_err()) {
            return None;
        }
        Some(Self { major, minor })
    }
}

/// Gradescope's Ubuntu base images for autograders and their glibc.
pub const GRADESCOPE_IMAGES: [(&str, GlibcVersion); 3] = [
    (
        "ubuntu-18.04",
        GlibcVersion {
            major: 2,
            minor: 27,
        },
    ),
    (
        "ubuntu-20.04",
        GlibcVersion {
            major: 2,
            minor: 31,
        },
    ),
    (
        "ubuntu-22.04",
        GlibcVersion {
            major: 2,
            minor: 35,
        },
    ),
];

/// What an executable needs from the C library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Needs {
    /// The highest glibc version it names, and the node that names it;
    /// `None` when it names none (static, or no glibc symbol versions).
    pub glibc: Option<(GlibcVersion, String)>,
    /// Whether it has a program interpreter (a dynamic executable).
    pub dynamic: bool,
}

/// Reads what the ELF executable at `path` needs.
///
/// # Errors
/// When the file cannot be read or is not a 64-bit x86-64 ELF file (the
/// machine Gradescope runs).
pub fn needs(path: &Path) -> anyhow::Result<Needs> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    needs_of(&data).with_context(|| {
        format!(
            "{} is not an x86-64 Linux executable that can be inspected",
            path.display()
        )
    })
}

/// [`needs`] for the bytes of an ELF file.
///
/// # Errors
/// When `data` is not a 64-bit x86-64 ELF file, or its version sections
/// are malformed.
pub fn needs_of(data: &[u8]) -> anyhow::Result<Needs> {
    let header = FileHeader64::<Endianness>::parse(data).context("not a 64-bit ELF file")?;
    let endian = header.endian().context("bad ELF byte order")?;
    anyhow::ensure!(
        header.e_machine(endian) == EM_X86_64,
        "built for ELF machine {}, not x86-64",
        header.e_machine(endian)
    );
    let dynamic = header
        .program_headers(endian, data)
        .context("bad ELF program headers")?
        .iter()
        .any(|ph| ph.p_type.get(endian) == object::elf::PT_INTERP);
    let sections = header
        .sections(endian, data)
        .context("bad ELF section headers")?;
    let mut highest: Option<(GlibcVersion, String)> = None;
    if let Some((mut needed, link)) = sections
        .gnu_verneed(endian, data)
        .context("bad .gnu.version_r")?
    {
        let strings = sections
            .strings(endian, data, link)
            .context("bad string table of .gnu.version_r")?;
        while let Some((_, mut nodes)) = needed.next().context("bad .gnu.version_r entry")? {
            while let Some(node) = nodes.next().context("bad .gnu.version_r node")? {
                let name = node
                    .name(endian, strings)
                    .context("bad version node name")?;
                let name = String::from_utf8_lossy(name);
                if let Some(version) = GlibcVersion::from_node(&name) {
                    if highest.as_ref().is_none_or(|(v, _)| version > *v) {
                        highest = Some((version, name.into_owned()));
                    }
                }
            }
        }
    }
    Ok(Needs {
        glibc: highest,
        dynamic,
    })
}

/// The Gradescope images whose glibc is at least `needed` (all of them for
/// `None`).
pub fn images_for(needed: Option<GlibcVersion>) -> Vec<&'static str> {
    GRADESCOPE_IMAGES
        .iter()
        .filter(|(_, has)| needed.is_none_or(|n| n <= *has))
        .map(|(name, _)| *name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_nodes_parse() {
        let v = |major, minor| Some(GlibcVersion { major, minor });
        assert_eq!(GlibcVersion::from_node("GLIBC_2.34"), v(2, 34));
        assert_eq!(GlibcVersion::from_node("GLIBC_2.2.5"), v(2, 2));
        assert_eq!(GlibcVersion::from_node("GLIBC_PRIVATE"), None);
        assert_eq!(GlibcVersion::from_node("GCC_3.0"), None);
        assert_eq!(GlibcVersion::from_node("GLIBC_2.x"), None);
        assert!(v(2, 9) < v(2, 27), "compared as numbers, not text");
    }

    #[test]
    fn images_by_glibc() {
        let v = |minor| Some(GlibcVersion { major: 2, minor });
        assert_eq!(
            images_for(None),
            ["ubuntu-18.04", "ubuntu-20.04", "ubuntu-22.04"]
        );
        assert_eq!(
            images_for(v(27)),
            ["ubuntu-18.04", "ubuntu-20.04", "ubuntu-22.04"]
        );
        assert_eq!(images_for(v(28)), ["ubuntu-20.04", "ubuntu-22.04"]);
        assert_eq!(images_for(v(34)), ["ubuntu-22.04"]);
        assert!(images_for(v(36)).is_empty());
    }

    /// Compiles `source` with `cc ARGS` in a temp folder; the output file.
    fn compiled(dir: &Path, source: &str, args: &[&str]) -> std::path::PathBuf {
        let c = dir.join("x.c");
        let out = dir.join("x.out");
        std::fs::write(&c, source).unwrap();
        let run = std::process::Command::new("cc")
            .args(args)
            .arg("-o")
            .arg(&out)
            .arg(&c)
            .output()
            .expect("cc is needed (Debian: apt-get install gcc libc6-dev)");
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        out
    }

    #[test]
    fn a_library_calling_puts_needs_the_oldest_glibc() {
        // puts has had one version since x86-64's first glibc: GLIBC_2.2.5.
        let dir = tempfile::tempdir().unwrap();
        let lib = compiled(
            dir.path(),
            "#include <stdio.h>\nvoid hello(void) { puts(\"hi\"); }\n",
            &["-shared", "-fPIC"],
        );
        let needs = needs(&lib).unwrap();
        assert_eq!(
            needs.glibc,
            Some((
                GlibcVersion { major: 2, minor: 2 },
                "GLIBC_2.2.5".to_string()
            ))
        );
        assert!(!needs.dynamic, "a library has no interpreter");
    }

    #[test]
    fn the_test_binary_needs_what_objdump_shows() {
        let exe = std::env::current_exe().unwrap();
        let objdump = std::process::Command::new("objdump")
            .arg("-T")
            .arg(&exe)
            .output()
            .expect("objdump is needed (Debian: apt-get install binutils)");
        let listed = String::from_utf8_lossy(&objdump.stdout);
        let highest = listed
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
            .filter_map(GlibcVersion::from_node)
            .max();
        let needs = needs(&exe).unwrap();
        assert_eq!(needs.glibc.map(|(v, _)| v), highest);
        assert!(needs.dynamic);
    }

    #[test]
    fn a_static_executable_needs_no_glibc_version() {
        let dir = tempfile::tempdir().unwrap();
        let exe = compiled(
            dir.path(),
            "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n",
            &["-static"],
        );
        let needs = needs(&exe).unwrap();
        assert_eq!(needs.glibc, None);
        assert!(!needs.dynamic);
        assert_eq!(images_for(None).len(), GRADESCOPE_IMAGES.len());
    }

    #[test]
    fn not_an_elf_file_is_an_error() {
        let err = needs_of(b"#!/bin/sh\necho hi\n").unwrap_err();
        assert!(
            format!("{err:#}").contains("not a 64-bit ELF file"),
            "{err:#}"
        );
    }
}
