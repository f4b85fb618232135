//! What a box's processes can see: ONE definition per kind of process
//! ([`DEFINITION`]), from which both sides of the box are built.
//!
//! - **The mount namespace** (`worker/mounts.rs`): with namespaces, the
//!   box's init makes a private root, an empty file system holding the
//!   union of its kinds' views and nothing else of the host (each path
//!   bound in read-only, the work folder writable, the box's own `/proc`,
//!   a private `/tmp`), and moves into it.
//! - **Landlock** (`worker/landlock.rs`): every run is held to its own
//!   kind's view, path by path, with and without namespaces. Without a
//!   mount namespace (a container without `CAP_SYS_ADMIN`, a non-root
//!   `grader check`) it is the only line, and the grader says once what it
//!   cannot hide ([`without_mount_namespace`]).
//!
//! A view is a list of (path, [`Access`]) entries. The host's part (the
//! toolchain of the kind, the system libraries those load) is found once
//! per grader run, outside any box, by asking the tools themselves: the C
//! compiler for its programs, its own folder and its header and library
//! folders (`-print-prog-name`, `-print-file-name`, `-v`), `rustc --print
//! sysroot` for Rust, the interpreter for its standard library, and the
//! dynamic loader (`ld.so --list`) and `ldconfig -p` for the libraries.
//! The box's part (its `lab/`, `code/` and `work/` folders) is added when
//! the box is made ([`HostView::for_box`]). The design guide's box section
//! (`docs/guide/design.md`) is generated from [`DEFINITION`]
//! ([`readme_section`], checked by a test).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

pub use crate::protocol::{Access, View, ViewEntry, ViewKind};

/// The `PATH` every build runs with: where the C compiler finds `as` and
/// `ld`, and rustc finds `cc`.
pub const BUILD_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// A piece of a view, resolved against the host and the box.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    /// The ELF loader of each program the view runs, its cache
    /// (`/etc/ld.so.cache`), and the folders of the libraries the loader
    /// knows (`ldconfig -p`) and the programs load (`ld.so --list`).
    SystemLibraries,
    /// The C compiler: its driver (as found on `PATH`), its own folder
    /// (`cc1`, `collect2`, `libgcc`, the crt files), `as` and `ld`, and the
    /// folders of the files a link needs (`crt1.o`, `libc.so`).
    CCompiler,
    /// The folders the C compiler searches for `#include <...>`.
    CHeaders,
    /// The Rust toolchain's sysroot (`rustc --print sysroot`): cargo,
    /// rustc, the standard library.
    RustToolchain,
    /// The Python interpreter (found once, see `worker::python`), the
    /// folders on its `sys.path` (the standard library, `lib-dynload`),
    /// and the modules the cases allow (`python_modules`): each one's
    /// folder and the libraries its extension modules load.
    Python,
    /// The box's `lab/`: the lab crate and header, read-only.
    Lab,
    /// The box's `code/`: what the tests load, read-only.
    Code,
    /// The box's `work/`: the box user's copy of the submission, build
    /// products and temporaries.
    Work,
    /// `/dev/null` (read and write), `/dev/zero` and `/dev/urandom`.
    Devices,
}

/// THE definition: what each kind of process sees. Nothing else of the
/// host is in a box: no `/etc` beyond the loader's cache, no `/opt`,
/// `/home`, `/srv`, `/root`, `/usr/local/share`, no other headers or
/// tools.
pub const DEFINITION: [(ViewKind, &[Part]); 4] = [
    (
        ViewKind::CBuild,
        &[
            Part::SystemLibraries,
            Part::CCompiler,
            Part::CHeaders,
            Part::Lab,
            Part::Work,
            Part::Devices,
        ],
    ),
    (
        ViewKind::RustBuild,
        &[
            Part::SystemLibraries,
            Part::RustToolchain,
            Part::CCompiler,
            Part::Lab,
            Part::Work,
            Part::Devices,
        ],
    ),
    (
        ViewKind::LibraryTest,
        &[Part::SystemLibraries, Part::Code, Part::Devices],
    ),
    (
        ViewKind::PythonTest,
        &[
            Part::SystemLibraries,
            Part::Python,
            Part::Code,
            Part::Devices,
        ],
    ),
];

/// What every box's root holds besides its views, for the box's init
/// itself: its own `/proc` (init reads each run's CPU time there; it
/// shows the box's processes only), the device nodes of
/// [`Part::Devices`] (init gives each run `/dev/null` as stdin), and an
/// empty, read-only `/tmp` (nothing of the host's: builds keep their
/// temporaries in the work folder, `TMPDIR`).
pub const FRAME: [&str; 5] = ["/proc", "/dev/null", "/dev/zero", "/dev/urandom", "/tmp"];

/// The parts of `kind`'s view.
pub fn parts(kind: ViewKind) -> &'static [Part] {
    DEFINITION
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(&[], |(_, parts)| parts)
}

impl Part {
    /// What the part is, for the design guide's table.
    pub fn describe(self) -> &'static str {
        match self {
            Part::SystemLibraries => {
                "the ELF loader, its cache `/etc/ld.so.cache` and the folders of the libraries it knows (`ldconfig -p`) and the programs of the view load (`ld.so --list`)"
            }
            Part::CCompiler => {
                "the C compiler's driver (as found on `PATH`), its own folder (`cc1`, `collect2`, `libgcc`, crt files), `as`, `ld`, and the folders of the files a link needs (`crt1.o`, `libc.so`)"
            }
            Part::CHeaders => "the folders `cc` searches for `#include <...>`",
            Part::RustToolchain => {
                "the Rust toolchain's sysroot (`rustc --print sysroot`: cargo, rustc, the standard library)"
            }
            Part::Python => {
                "the interpreter and its `sys.path` folders (the standard library, `lib-dynload`); the modules `grader.toml` allows (`python_modules`) and the libraries their extension modules load"
            }
            Part::Lab => "the box's `lab/` (the lab crate and header)",
            Part::Code => "the box's `code/` (the library or `.py` the tests load)",
            Part::Work => "the box's `work/` (the submission's private copy, build products)",
            Part::Devices => "`/dev/null`, `/dev/zero`, `/dev/urandom`",
        }
    }

    /// How the part's paths may be used, for the design guide's table.
    fn access_text(self) -> &'static str {
        match self {
            Part::SystemLibraries => "read (the loader: execute)",
            Part::CCompiler | Part::RustToolchain => "read, execute",
            Part::Python => "read (the interpreter: execute)",
            Part::CHeaders | Part::Lab | Part::Code => "read",
            Part::Work => "read, write",
            Part::Devices => "read (`/dev/null`: write)",
        }
    }
}

impl ViewKind {
    /// How the design guide's table names the kind.
    pub fn name(self) -> &'static str {
        match self {
            ViewKind::CBuild => "C build (`cc`)",
            ViewKind::RustBuild => "Rust build (`cargo`, `rustc`, the linker `cc`)",
            ViewKind::LibraryTest => "library test (C, Rust, `.so`)",
            ViewKind::PythonTest => "Python test",
        }
    }
}

/// The table of what each kind of process sees, generated from
/// [`DEFINITION`]; the design guide (`docs/guide/design.md`) holds it
/// between `<!-- box-view -->` and `<!-- /box-view -->` (a test checks it).
pub fn readme_section() -> String {
    let mut all: Vec<Part> = DEFINITION
        .iter()
        .flat_map(|(_, parts)| parts.iter().copied())
        .collect();
    all.sort();
    all.dedup();
    let mut out = String::from("| what | access |");
    for (kind, _) in &DEFINITION {
        out.push_str(&format!(" {} |", kind.name()));
    }
    out.push_str("\n|---|---|");
    for _ in &DEFINITION {
        out.push_str("---|");
    }
    out.push('\n');
    for part in all {
        out.push_str(&format!("| {} | {} |", part.describe(), part.access_text()));
        for (_, parts) in &DEFINITION {
            out.push_str(if parts.contains(&part) {
                " yes |"
            } else {
                " |"
            });
        }
        out.push('\n');
    }
    out
}

/// The host's part of a view: the paths of its toolchain and system
/// libraries, found once; the box's folders are added by
/// [`HostView::for_box`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostView {
    /// The kind of process.
    pub kind: ViewKind,
    /// The host's entries.
    pub entries: Vec<ViewEntry>,
}

/// The C compiler's paths, as the compiler reports them (found once per
/// grader run, outside any box: no student input reaches it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CTools {
    /// Programs the build executes: the driver as named on `PATH`, `as`,
    /// `ld`.
    pub programs: Vec<PathBuf>,
    /// Folders it executes from: the compiler's own folder (`cc1`).
    pub program_dirs: Vec<PathBuf>,
    /// Folders of the files a link reads (`crt1.o`, `libc.so`, `libgcc`).
    pub link_dirs: Vec<PathBuf>,
    /// The `#include <...>` folders.
    pub headers: Vec<PathBuf>,
}

/// The Rust toolchain's paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustTools {
    /// `rustc --print sysroot`.
    pub sysroot: PathBuf,
    /// `cargo` and `rustc` in it.
    pub programs: Vec<PathBuf>,
}

/// What the host offers for the views (each `Err` says what is missing).
#[derive(Clone, Copy, Debug)]
pub struct Tools<'a> {
    /// The C compiler (C builds, and the linker of Rust builds).
    pub c: Result<&'a CTools, &'a str>,
    /// The Rust toolchain.
    pub rust: Result<&'a RustTools, &'a str>,
    /// The Python interpreter.
    pub python: Result<&'a crate::protocol::PythonInterpreter, &'a str>,
}

impl HostView {
    /// Resolves `kind`'s view on this host with `tools`.
    ///
    /// # Errors
    /// When a tool the view needs is missing (a grader fault, said by the
    /// build or test that needs it).
    pub fn resolve(kind: ViewKind, tools: Tools<'_>) -> Result<HostView, String> {
        let mut entries = Vec::new();
        let mut programs: Vec<PathBuf> = Vec::new();
        let add = |entries: &mut Vec<ViewEntry>, path: &Path, access: Access| {
            entries.push(ViewEntry {
                path: path.to_path_buf(),
                access,
            });
        };
        for part in parts(kind) {
            match part {
                Part::CCompiler => {
                    let c = tools.c.map_err(str::to_string)?;
                    for program in &c.programs {
                        add(&mut entries, program, Access::Exec);
                    }
                    for dir in &c.program_dirs {
                        add(&mut entries, dir, Access::Exec);
                    }
                    for dir in &c.link_dirs {
                        add(&mut entries, dir, Access::Read);
                    }
                    programs.extend(c.programs.iter().cloned());
                    for dir in &c.program_dirs {
                        programs.extend(executables_in(dir));
                    }
                }
                Part::CHeaders => {
                    let c = tools.c.map_err(str::to_string)?;
                    for dir in &c.headers {
                        add(&mut entries, dir, Access::Read);
                    }
                }
                Part::RustToolchain => {
                    let rust = tools.rust.map_err(str::to_string)?;
                    add(&mut entries, &rust.sysroot, Access::Exec);
                    programs.extend(rust.programs.iter().cloned());
                }
                Part::Python => {
                    let python = tools.python.map_err(str::to_string)?;
                    add(&mut entries, &python.executable, Access::Exec);
                    for dir in &python.read_dirs {
                        add(&mut entries, dir, Access::Read);
                    }
                    programs.push(python.executable.clone());
                    for library in module_libraries(python) {
                        add(&mut entries, &library, Access::Read);
                    }
                }
                Part::Devices => {
                    for (path, access) in [
                        ("/dev/null", Access::Device),
                        ("/dev/zero", Access::Read),
                        ("/dev/urandom", Access::Read),
                    ] {
                        if Path::new(path).exists() {
                            add(&mut entries, Path::new(path), access);
                        }
                    }
                }
                Part::SystemLibraries | Part::Lab | Part::Code | Part::Work => {}
            }
        }
        if parts(kind).contains(&Part::SystemLibraries) {
            entries.extend(system_libraries(&programs));
        }
        Ok(HostView {
            kind,
            entries: dedup(entries),
        })
    }

    /// The view of a box whose folder is `dir`: the host's entries and the
    /// box's own folders its kind sees.
    pub fn for_box(&self, dir: &Path) -> View {
        let mut entries = self.entries.clone();
        for part in parts(self.kind) {
            let (sub, access) = match part {
                Part::Lab => ("lab", Access::Read),
                Part::Code => ("code", Access::Read),
                Part::Work => ("work", Access::Write),
                _ => continue,
            };
            entries.push(ViewEntry {
                path: dir.join(sub),
                access,
            });
        }
        View {
            kind: self.kind,
            entries: dedup(entries),
        }
    }
}

/// The most extension modules of the allowed Python modules whose
/// libraries are asked for.
const MODULE_EXTENSIONS_CAP: usize = 2000;

/// The libraries the extension modules (`*.so`) of the Python modules
/// the cases allow load (`ld.so --list`, by the interpreter's loader), by
/// the paths the loader names: each is an entry of its own, so that a
/// library reached through a link outside the library folders (Debian's
/// `libblas.so.3` -> `/etc/alternatives/...`) resolves in the box as on
/// the host (`chain`).
fn module_libraries(python: &crate::protocol::PythonInterpreter) -> Vec<PathBuf> {
    let Some(loader) = &python.loader else {
        return Vec::new();
    };
    let mut extensions = Vec::new();
    for origin in python.modules.values() {
        let mut todo: Vec<PathBuf> = match origin.file_name() {
            Some(f) if f == "__init__.py" => {
                origin.parent().map(Path::to_path_buf).into_iter().collect()
            }
            _ => {
                extensions.push(origin.clone());
                Vec::new()
            }
        };
        while let Some(dir) = todo.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                if kind.is_dir() {
                    todo.push(path);
                } else if kind.is_file() && path.extension().is_some_and(|e| e == "so") {
                    extensions.push(path);
                }
            }
            if extensions.len() > MODULE_EXTENSIONS_CAP {
                break;
            }
        }
    }
    extensions.retain(|p| p.extension().is_some_and(|e| e == "so"));
    extensions.truncate(MODULE_EXTENSIONS_CAP);
    let pairs: Vec<(PathBuf, PathBuf)> = extensions
        .into_iter()
        .map(|so| (so, loader.clone()))
        .collect();
    let libraries: BTreeSet<PathBuf> = libraries_of(&pairs).into_iter().collect();
    libraries.into_iter().collect()
}

/// Entries sorted by path, each path once with its widest access.
fn dedup(entries: Vec<ViewEntry>) -> Vec<ViewEntry> {
    let mut by_path: BTreeMap<PathBuf, Access> = BTreeMap::new();
    for entry in entries {
        by_path
            .entry(entry.path)
            .and_modify(|a| *a = (*a).max(entry.access))
            .or_insert(entry.access);
    }
    by_path
        .into_iter()
        .map(|(path, access)| ViewEntry { path, access })
        .collect()
}

/// Every entry of `views`, each path once with its widest access: what a
/// box's private root holds.
pub fn union(views: &[View]) -> Vec<ViewEntry> {
    dedup(
        views
            .iter()
            .flat_map(|v| v.entries.iter().cloned())
            .collect(),
    )
}

/// The regular executable files directly in `dir` (`cc1`, `collect2`).
fn executables_in(dir: &Path) -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .collect();
    found.sort();
    found
}

/// [`Part::SystemLibraries`] for a view that runs `programs`: each one's
/// ELF loader, the loader's cache, the folders of the libraries `ldconfig
/// -p` lists and of those each program loads. A view that runs nothing of
/// its own (a library test: the box's process is already running) gets
/// the grader's own loader.
fn system_libraries(programs: &[PathBuf]) -> Vec<ViewEntry> {
    let mut loaders: BTreeSet<PathBuf> = BTreeSet::new();
    let mut dirs: BTreeSet<PathBuf> = cache_dirs().iter().cloned().collect();
    let own = std::env::current_exe().ok();
    let with_loaders: Vec<(PathBuf, PathBuf)> = programs
        .iter()
        .chain(own.iter())
        .filter_map(|p| Some((p.clone(), loader_of(p)?)))
        .collect();
    // A program without a search path of its own (RPATH, RUNPATH) loads
    // its libraries from the loader's cache and default folders: only the
    // others are asked.
    let searching: Vec<(PathBuf, PathBuf)> = with_loaders
        .iter()
        .filter(|(p, _)| has_search_path(p))
        .cloned()
        .collect();
    for library in libraries_of(&searching) {
        if let Some(dir) = library.parent() {
            dirs.insert(dir.to_path_buf());
        }
    }
    loaders.extend(with_loaders.into_iter().map(|(_, loader)| loader));
    let mut entries: Vec<ViewEntry> = loaders
        .into_iter()
        .map(|path| ViewEntry {
            path,
            access: Access::Exec,
        })
        .collect();
    entries.extend(dirs.into_iter().map(|path| ViewEntry {
        path,
        access: Access::Read,
    }));
    if Path::new("/etc/ld.so.cache").is_file() {
        entries.push(ViewEntry {
            path: "/etc/ld.so.cache".into(),
            access: Access::Read,
        });
    }
    entries
}

/// Whether the ELF file `program` names folders of its own to load
/// libraries from (`DT_RPATH` or `DT_RUNPATH` in its dynamic section);
/// true when that cannot be told (then it is asked).
fn has_search_path(program: &Path) -> bool {
    use std::io::{Read, Seek};
    let read = || -> Option<bool> {
        let mut file = std::fs::File::open(program).ok()?;
        let mut head = vec![0u8; 1 << 12];
        let n = file.read(&mut head).ok()?;
        head.truncate(n);
        if head.get(..6)? != b"\x7fELF\x02\x01" {
            return None;
        }
        let u16_at =
            |b: &[u8], at: usize| Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?));
        let u64_at =
            |b: &[u8], at: usize| Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?));
        let phoff = usize::try_from(u64_at(&head, 32)?).ok()?;
        let (size, count) = (
            usize::from(u16_at(&head, 54)?),
            usize::from(u16_at(&head, 56)?),
        );
        for i in 0..count {
            let at = phoff + i * size;
            if u64_at(&head, at)? & 0xffff_ffff != 2 {
                continue;
            }
            let offset = u64_at(&head, at + 8)?;
            let length = usize::try_from(u64_at(&head, at + 32)?).ok()?.min(1 << 16);
            file.seek(std::io::SeekFrom::Start(offset)).ok()?;
            let mut dynamic = vec![0u8; length];
            file.read_exact(&mut dynamic).ok()?;
            for entry in dynamic.chunks_exact(16) {
                match u64_at(entry, 0)? {
                    0 => return Some(false),
                    15 | 29 => return Some(true),
                    _ => {}
                }
            }
            return Some(false);
        }
        Some(false)
    };
    read().unwrap_or(true)
}

/// The ELF program interpreter of `program` (its `PT_INTERP`), for a
/// 64-bit little-endian ELF file; `None` for anything else (a static
/// binary, a script).
pub fn loader_of(program: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(program)
        .ok()?
        .take(1 << 16)
        .read_to_end(&mut head)
        .ok()?;
    if head.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let u16_at = |at: usize| Some(u16::from_le_bytes(head.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(head.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(head.get(at..at + 8)?.try_into().ok()?));
    let phoff = usize::try_from(u64_at(32)?).ok()?;
    let (size, count) = (usize::from(u16_at(54)?), usize::from(u16_at(56)?));
    for i in 0..count {
        let at = phoff + i * size;
        if u32_at(at)? == 3 {
            let offset = usize::try_from(u64_at(at + 8)?).ok()?;
            let length = usize::try_from(u64_at(at + 32)?).ok()?;
            let name = head.get(offset..offset + length)?;
            let name = name.split(|&b| b == 0).next()?;
            let path = PathBuf::from(std::str::from_utf8(name).ok()?);
            return path.is_absolute().then_some(path);
        }
    }
    None
}

/// The libraries the `(program, its loader)` pairs load, as `loader
/// --list` names them (the loader maps them and stops before any of the
/// program's code runs; run by the grader on the host's own tools only,
/// side by side). Cached per program.
fn libraries_of(programs: &[(PathBuf, PathBuf)]) -> Vec<PathBuf> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Vec<PathBuf>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let missing: Vec<&(PathBuf, PathBuf)> = {
        let known = lock(cache);
        programs
            .iter()
            .filter(|(p, _)| !known.contains_key(p))
            .collect()
    };
    let commands = missing
        .iter()
        .map(|(program, loader)| {
            let mut command = Command::new(loader);
            command.arg("--list").arg(program).env_clear();
            command
        })
        .collect();
    let outputs = run_all(commands);
    let mut known = lock(cache);
    for ((program, _), output) in missing.into_iter().zip(outputs) {
        let found = output
            .map(|out| parse_list(&String::from_utf8_lossy(&out.stdout)))
            .unwrap_or_default();
        known.insert(program.clone(), found);
    }
    programs
        .iter()
        .flat_map(|(p, _)| known.get(p).cloned().unwrap_or_default())
        .collect()
}

/// The library paths in `ld.so --list` output (`libc.so.6 =>
/// /lib/x86_64-linux-gnu/libc.so.6 (0x...)`, `/lib64/ld-linux-x86-64.so.2
/// (0x...)`).
fn parse_list(text: &str) -> Vec<PathBuf> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let path = match line.split_once("=>") {
                Some((_, right)) => right.trim(),
                None => line,
            };
            let path = path.split(" (0x").next()?.trim();
            path.starts_with('/').then(|| PathBuf::from(path))
        })
        .collect()
}

/// The folders of the libraries in the loader's cache (`ldconfig -p`),
/// found once.
fn cache_dirs() -> &'static [PathBuf] {
    static DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    DIRS.get_or_init(|| {
        for ldconfig in ["/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig"] {
            let Ok(out) = Command::new(ldconfig)
                .arg("-p")
                .env_clear()
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output()
            else {
                continue;
            };
            if !out.status.success() {
                continue;
            }
            let dirs: BTreeSet<PathBuf> = parse_list(&String::from_utf8_lossy(&out.stdout))
                .into_iter()
                .filter_map(|p| p.parent().map(Path::to_path_buf))
                .collect();
            return dirs.into_iter().collect();
        }
        Vec::new()
    })
}

/// Runs `commands` side by side (no stdin); each one's output, `None`
/// when it could not be started.
fn run_all(commands: Vec<Command>) -> Vec<Option<std::process::Output>> {
    let children: Vec<_> = commands
        .into_iter()
        .map(|mut c| {
            c.stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .ok()
        })
        .collect();
    children
        .into_iter()
        .map(|child| child.and_then(|c| c.wait_with_output().ok()))
        .collect()
}

/// Files a C link reads: a folder of the compiler's library search path
/// that holds one of them is in the view.
const LINK_FILES: [&str; 8] = [
    "crt1.o",
    "crti.o",
    "crtbeginS.o",
    "libc.so",
    "libc_nonshared.a",
    "libgcc.a",
    "libgcc_s.so",
    "libm.so",
];

/// Programs of the compiler's own (a folder of its program search path
/// that holds one of them is in the view).
const COMPILER_PROGRAMS: [&str; 3] = ["cc1", "collect2", "lto-wrapper"];

/// Finds the C compiler's paths by asking `cc` (the grader's own calls,
/// side by side, outside any box, with no student input):
/// `-print-search-dirs` for its own folder, its programs and its library
/// folders (`as` and `ld` are looked for as the driver does: on its program
/// path, then on the build's `PATH`), and `-v -E` for its `#include <...>`
/// folders.
///
/// # Errors
/// When `cc` does not run.
pub fn probe_c(cc: &Path) -> Result<CTools, String> {
    let ask = |args: &[&str]| {
        let mut command = Command::new(cc);
        command
            .args(args)
            .env_clear()
            .env("PATH", BUILD_PATH)
            .env("LC_ALL", "C");
        command
    };
    let outputs = run_all(vec![
        ask(&["-print-search-dirs"]),
        ask(&["-xc", "-E", "-v", "/dev/null"]),
    ]);
    let text = |i: usize, stderr: bool| -> Result<String, String> {
        let out = outputs[i]
            .as_ref()
            .ok_or_else(|| format!("cannot run {}", cc.display()))?;
        let bytes = if stderr { &out.stderr } else { &out.stdout };
        Ok(String::from_utf8_lossy(bytes).into_owned())
    };
    let search = text(0, false)?;
    let dirs_of = |key: &str| -> Vec<PathBuf> {
        search
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|list| {
                list.trim()
                    .trim_start_matches('=')
                    .split(':')
                    .filter(|d| !d.is_empty())
                    .filter_map(|d| Path::new(d).canonicalize().ok())
                    .filter(|d| d.is_dir())
                    .collect()
            })
            .unwrap_or_default()
    };
    let holding = |dirs: Vec<PathBuf>, files: &[&str]| -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = dirs
            .into_iter()
            .filter(|d| files.iter().any(|f| d.join(f).exists()))
            .collect();
        found.sort();
        found.dedup();
        found
    };
    let mut program_dirs = dirs_of("programs:");
    program_dirs.extend(dirs_of("install:"));
    let program_dirs = holding(program_dirs, &COMPILER_PROGRAMS);
    let link_dirs = holding(dirs_of("libraries:"), &LINK_FILES);
    let program_path: Vec<PathBuf> = search
        .lines()
        .find_map(|l| l.strip_prefix("programs:"))
        .map(|list| {
            list.trim()
                .trim_start_matches('=')
                .split(':')
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default();
    let mut programs = vec![cc.to_path_buf()];
    for tool in ["as", "ld"] {
        let found = program_path
            .iter()
            .map(|dir| dir.join(tool))
            .find(|p| p.is_file())
            .or_else(|| find_on(Path::new(tool), BUILD_PATH));
        programs.extend(found);
    }
    let stderr = text(1, true)?;
    let headers: Vec<PathBuf> = stderr
        .lines()
        .skip_while(|l| !l.starts_with("#include <...> search starts here"))
        .skip(1)
        .take_while(|l| !l.starts_with("End of search list"))
        .map(|l| PathBuf::from(l.trim()))
        .filter(|p| p.is_absolute() && p.is_dir())
        .collect();
    if headers.is_empty() {
        return Err(format!(
            "{} names no #include <...> folders (`cc -v -E`): is the C library's development package (libc6-dev) installed?",
            cc.display()
        ));
    }
    if link_dirs.is_empty() {
        return Err(format!(
            "{} names no folder holding crt1.o or libc.so (`cc -print-search-dirs`): is the C library's development package (libc6-dev) installed?",
            cc.display()
        ));
    }
    Ok(CTools {
        programs,
        program_dirs,
        link_dirs,
        headers,
    })
}

/// `program` looked up on `path` (a `PATH` value).
fn find_on(program: &Path, path: &str) -> Option<PathBuf> {
    if program.as_os_str().is_empty() {
        return None;
    }
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// How the box makes a path resolve as on the host: the symbolic links
/// met on the way (each recreated in the box's root with the same target)
/// and the real path they lead to (bound in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain {
    /// (a link's path, its target as stored), in the order met.
    pub links: Vec<(PathBuf, PathBuf)>,
    /// The path with every link resolved.
    pub real: PathBuf,
}

/// Resolves `path` on the host link by link (at most 40 links).
///
/// # Errors
/// When a component does not exist or there are too many links.
pub fn chain(path: &Path) -> io::Result<Chain> {
    let mut links = Vec::new();
    let mut done = PathBuf::from("/");
    let mut todo: Vec<std::ffi::OsString> = Vec::new();
    let push_front = |todo: &mut Vec<std::ffi::OsString>, p: &Path| {
        let parts: Vec<std::ffi::OsString> = p
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_owned()),
                Component::ParentDir => Some("..".into()),
                _ => None,
            })
            .collect();
        for part in parts.into_iter().rev() {
            todo.push(part);
        }
    };
    if !path.is_absolute() {
        return Err(io::Error::other(format!(
            "{} is not absolute",
            path.display()
        )));
    }
    push_front(&mut todo, path);
    let mut budget = 40;
    while let Some(part) = todo.pop() {
        if part == ".." {
            done.pop();
            continue;
        }
        let next = done.join(&part);
        let meta = std::fs::symlink_metadata(&next)?;
        if meta.file_type().is_symlink() {
            budget -= 1;
            if budget == 0 {
                return Err(io::Error::from_raw_os_error(libc::ELOOP));
            }
            let target = std::fs::read_link(&next)?;
            links.push((next, target.clone()));
            if target.is_absolute() {
                done = PathBuf::from("/");
            }
            push_front(&mut todo, &target);
        } else {
            done = next;
        }
    }
    Ok(Chain { links, real: done })
}

/// Whether `path` lies in `view` (at or beneath one of its entries, by
/// real paths).
pub fn covers(view: &View, path: &Path) -> bool {
    let real = |p: &Path| chain(p).map_or_else(|_| p.to_path_buf(), |c| c.real);
    let path = real(path);
    view.entries.iter().any(|e| path.starts_with(real(&e.path)))
}

/// What a box without a mount namespace cannot hide, said once: Landlock
/// holds each process to its view's contents, but not to names.
pub fn without_mount_namespace() -> &'static str {
    "sandbox: no mount namespace, so each box's view of the files (docs/guide/design.md, \"The box\") is enforced by Landlock alone: its processes can read, list and run only what their view lists, but can still tell whether a path exists elsewhere (its name and metadata, never its contents)"
}

/// Locks a mutex, ignoring poisoning (the data is a plain cache).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_design_guides_box_section_is_generated_from_the_definition() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/design.md");
        let guide = std::fs::read_to_string(&path).expect("docs/guide/design.md");
        let start = "<!-- box-view -->\n";
        let end = "<!-- /box-view -->";
        let at = guide
            .find(start)
            .expect("the design guide marks the box view")
            + start.len();
        let len = guide[at..].find(end).expect("the end mark");
        let expected = readme_section();
        if std::env::var_os("GRADER_UPDATE_DOCS").is_some() {
            let updated = format!("{}{expected}{}", &guide[..at], &guide[at + len..]);
            std::fs::write(&path, updated).expect("write docs/guide/design.md");
            return;
        }
        assert_eq!(
            &guide[at..at + len],
            expected,
            "docs/guide/design.md's box view differs from sandbox::view::DEFINITION (GRADER_UPDATE_DOCS=1 cargo test --lib the_design_guides_box_section writes it); it is:\n{expected}"
        );
    }

    #[test]
    fn every_kind_has_a_view_and_none_sees_the_hosts_homes() {
        for (kind, parts) in DEFINITION {
            assert!(!parts.is_empty(), "{kind:?}");
        }
        let tools = Tools {
            c: Err("none"),
            rust: Err("none"),
            python: Err("none"),
        };
        let view = HostView::resolve(ViewKind::LibraryTest, tools).expect("no tools needed");
        for entry in &view.entries {
            for forbidden in [
                "/etc/passwd",
                "/opt",
                "/home",
                "/root",
                "/srv",
                "/usr/local/share",
            ] {
                assert!(
                    !entry.path.starts_with(forbidden) && entry.path != Path::new("/"),
                    "{entry:?}"
                );
            }
        }
        assert!(
            view.entries
                .iter()
                .any(|e| e.path == Path::new("/etc/ld.so.cache")),
            "{view:?}"
        );
        assert!(HostView::resolve(ViewKind::CBuild, tools).is_err());
    }

    #[test]
    fn the_c_compiler_names_its_folders() {
        let cc = find_on(Path::new("cc"), BUILD_PATH).expect("CI has cc");
        let c = probe_c(&cc).expect("cc answers");
        assert!(
            c.headers.iter().any(|h| h.join("stdio.h").is_file()),
            "{c:?}"
        );
        assert!(c.programs.len() >= 3, "the driver, as and ld: {c:?}");
        assert!(!c.link_dirs.is_empty(), "{c:?}");
        for dir in c.headers.iter().chain(&c.link_dirs) {
            assert!(
                !dir.starts_with("/etc") && dir != Path::new("/usr"),
                "{dir:?}"
            );
        }
    }

    #[test]
    fn links_are_followed_one_by_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().canonicalize().expect("real");
        std::fs::create_dir_all(base.join("real/inner")).expect("mkdir");
        std::fs::write(base.join("real/inner/file"), "x").expect("write");
        std::os::unix::fs::symlink("real", base.join("rel")).expect("link");
        std::os::unix::fs::symlink(base.join("rel/inner"), base.join("abs")).expect("link");
        let found = chain(&base.join("abs/file")).expect("resolves");
        assert_eq!(found.real, base.join("real/inner/file"));
        assert_eq!(
            found.links,
            vec![
                (base.join("abs"), base.join("rel/inner")),
                (base.join("rel"), PathBuf::from("real")),
            ]
        );
        assert!(chain(&base.join("missing")).is_err());
    }

    #[test]
    fn the_loaders_list_is_read() {
        let text = "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f)\n";
        assert_eq!(
            parse_list(text),
            vec![
                PathBuf::from("/lib/x86_64-linux-gnu/libc.so.6"),
                PathBuf::from("/lib64/ld-linux-x86-64.so.2")
            ]
        );
        let own = std::env::current_exe().expect("exe");
        assert!(loader_of(&own).is_some_and(|l| l.is_absolute()));
        // rustc finds its driver library beside it (`$ORIGIN/../lib`); the
        // C compiler's programs use the loader's cache.
        if let Ok(sysroot) = Command::new("rustc").args(["--print", "sysroot"]).output() {
            let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
            assert!(has_search_path(&sysroot.join("bin/rustc")));
        }
        if let Some(cc) = find_on(Path::new("cc"), BUILD_PATH) {
            assert!(!has_search_path(&cc.canonicalize().expect("real")));
        }
    }
}
