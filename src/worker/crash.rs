//! The library test child's crash handler: when the student's code ends
//! the process with SIGSEGV, SIGBUS, SIGFPE or SIGILL, one `crash_site`
//! line on the protocol fd says where the faulting instruction was (the
//! student's function and the offset into it, an offset of the library,
//! or another file), and the signal then ends the process exactly as it
//! would have without the handler.
//!
//! Three steps, all inside the box:
//!
//! 1. [`Functions::read`]: the function symbols of the student's `.so`
//!    (`.symtab` if the build kept it, else `.dynsym`), read with the
//!    `object` crate before any student code runs: by the test zygote once
//!    (every child inherits the table), or by a test child of init. The
//!    lab's exported functions (`legal`, `find_empty`, `solve`, global)
//!    name every offset in their range; among other names at one address
//!    a global one beats a local one (a `static` alias, a clone's name), so
//!    a symbol planted at `solve`'s address never renames a crash in it.
//!    Which names may be written at all is `runner::crash_site`'s
//!    ([`nameable`]), the parser's own check.
//! 2. [`install`], before the library is loaded: the handler for the four
//!    signals, on an alternate signal stack (so a stack overflow can run
//!    it), keeping each signal's previous disposition (Rust's handler for
//!    SIGSEGV and SIGBUS, which tells a stack overflow).
//! 3. [`arm`], after loading: the library's load base and address range
//!    and the ranges of the other loaded files, from `dl_iterate_phdr`.
//!
//! Every call into the student's library is made through [`student_call`],
//! which marks it: a fault in the grader's program or at no file's address
//! during one was reached from the student's code (a jump or call through
//! a bad pointer, a return address overwritten), and the line says
//! `reached`, so the message says so instead of naming the grader's program
//! as the place of the crash.
//!
//! The handler is async-signal-safe: it allocates nothing and takes no
//! lock (it reads the armed table, formats into a stack buffer, and calls
//! `write`, `sigaction` and `tgkill`). It puts the previous disposition
//! back first, writes the line only for a fault the kernel raised (once
//! per process), and returns: the faulting instruction runs again and
//! faults again, now under the previous disposition. A signal sent by a
//! process is sent again to this thread instead (it is blocked until the
//! handler returns). The write watch (`crates/watch`) installs its own
//! SIGSEGV handler during a watched `solve` and hands a fault that is not
//! its own back to the disposition from before the watch: this one.
//!
//! The line is student-process evidence (student code can write fd 3 and
//! overwrite this table): the grader uses it to word a crash, never to
//! decide one, and accepts only its exact format
//! ([`crate::runner::crash_site`]). On another architecture than x86-64
//! nothing is installed.

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::runner::crash_site::{file_name_ok, nameable};

/// The lab's functions, by the names a library exports them under.
const LAB_FUNCTIONS: [&str; 3] = ["legal", "find_empty", "solve"];

/// Set while a call of the student's code runs ([`student_call`]): a fault
/// outside the library then was reached from it.
static IN_STUDENT_CALL: AtomicBool = AtomicBool::new(false);

/// Runs `call` (a call into the student's library) marked as such for the
/// crash handler: a fault in the grader's program or at no file's address
/// during it was reached from the student's code, and the line says so.
pub(super) fn student_call<T>(call: impl FnOnce() -> T) -> T {
    IN_STUDENT_CALL.store(true, Ordering::SeqCst);
    let result = call();
    IN_STUDENT_CALL.store(false, Ordering::SeqCst);
    result
}

/// A library file larger than this is not read (the grader refuses a
/// larger `.so` upload; a built one is far smaller).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// A library with more function symbols than this gets no table (a C
/// submission has tens, a Rust one thousands).
const MAX_FUNCTIONS: usize = 200_000;

/// One function of the library: its range of offsets from the load base.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Function {
    start: u64,
    end: u64,
    /// Its name when it may be shown ([`nameable`]), else empty.
    name: Box<str>,
    /// Which name wins at one start ([`Rank`]).
    rank: Rank,
}

/// Among names at one address, the lower wins: the lab's own exported
/// names first, then other global symbols, then local ones (a `static`
/// function, a compiler's clone, a symbol planted with `.set`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// A global symbol named `legal`, `find_empty` or `solve`.
    Lab,
    /// Another global (or weak) symbol.
    Global,
    /// A local symbol.
    Local,
}

/// The library's function symbols, sorted by start, one per start; and the
/// lab's exported functions, which name any offset in their range first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Functions {
    sorted: Vec<Function>,
    lab: Vec<Function>,
}

impl Functions {
    /// [`Functions::read`] of the file at `path`; `None` when it cannot
    /// be opened.
    pub(super) fn read_path(path: &Path) -> Option<Functions> {
        Functions::read(&File::open(path).ok()?)
    }

    /// [`Functions::read_path`], kept for the rest of the process (which
    /// ends after its last test): every test forked from it arms the
    /// handler with the same table, without a copy.
    pub(super) fn read_path_for_good(path: &Path) -> Option<&'static Functions> {
        Self::read_path(path).map(|functions| &*Box::leak(Box::new(functions)))
    }

    /// Reads the function symbols of the ELF file `file` (read whole, from
    /// its start, into memory: at most [`MAX_FILE_BYTES`], so a hostile
    /// file costs no more than its size): `.symtab` when it has functions,
    /// else `.dynsym`. `None` for a file that is not a 64-bit ELF, is too
    /// large, or has too many functions.
    pub(super) fn read(file: &File) -> Option<Functions> {
        use object::read::{Object, ObjectSymbol, SymbolKind};
        use std::io::Read;
        // Read to its end rather than sized by `fstat`: the test child's
        // filters refuse `statx`.
        let mut data = Vec::new();
        file.take(MAX_FILE_BYTES + 1).read_to_end(&mut data).ok()?;
        if data.len() as u64 > MAX_FILE_BYTES {
            return None;
        }
        let elf =
            object::read::elf::ElfFile64::<object::Endianness, &[u8]>::parse(&data[..]).ok()?;
        type Found<'a> = (u64, u64, Option<&'a str>, bool);
        let functions = |symbols: &mut dyn Iterator<Item = Found<'_>>| {
            symbols
                .filter(|&(_, size, _, _)| size > 0)
                .take(MAX_FUNCTIONS + 1)
                .map(|(start, size, name, global)| {
                    let name = name.filter(|n| nameable(n)).unwrap_or("");
                    let rank = match (global, LAB_FUNCTIONS.contains(&name)) {
                        (true, true) => Rank::Lab,
                        (true, false) => Rank::Global,
                        (false, _) => Rank::Local,
                    };
                    Function {
                        start,
                        end: start.saturating_add(size),
                        name: name.into(),
                        rank,
                    }
                })
                .collect::<Vec<_>>()
        };
        let of_kind =
            |symbol: &object::read::elf::ElfSymbol64<'_, '_, object::Endianness, &[u8]>| {
                symbol.kind() == SymbolKind::Text && symbol.is_definition()
            };
        let mut found = functions(
            &mut elf
                .symbols()
                .filter(of_kind)
                .map(|s| (s.address(), s.size(), s.name().ok(), s.is_global())),
        );
        if found.is_empty() {
            found = functions(
                &mut elf
                    .dynamic_symbols()
                    .filter(of_kind)
                    .map(|s| (s.address(), s.size(), s.name().ok(), s.is_global())),
            );
        }
        if found.len() > MAX_FUNCTIONS {
            return None;
        }
        Some(Functions::from_unsorted(found))
    }

    /// Sorts by start and keeps one function per start: the best
    /// [`Rank`], then a named one; sets the lab's exported functions
    /// apart.
    fn from_unsorted(mut functions: Vec<Function>) -> Functions {
        functions.sort_by(|a, b| {
            (a.start, a.rank, a.name.is_empty(), &a.name).cmp(&(
                b.start,
                b.rank,
                b.name.is_empty(),
                &b.name,
            ))
        });
        let lab = functions
            .iter()
            .filter(|f| f.rank == Rank::Lab)
            .take(LAB_FUNCTIONS.len())
            .cloned()
            .collect();
        functions.dedup_by_key(|f| f.start);
        Functions {
            sorted: functions,
            lab,
        }
    }

    /// The function whose range holds `offset`, and the offset into it: a
    /// lab function exported under its name when one's range holds it (no
    /// other symbol inside it overrides it), else the nearest start. A
    /// search without allocation (the crash handler calls it).
    fn at(&self, offset: u64) -> Option<(&Function, u64)> {
        if let Some(lab) = self
            .lab
            .iter()
            .find(|f| f.start <= offset && offset < f.end)
        {
            return Some((lab, offset - lab.start));
        }
        let after = self.sorted.partition_point(|f| f.start <= offset);
        let function = self.sorted.get(after.checked_sub(1)?)?;
        (offset < function.end).then_some((function, offset - function.start))
    }
}

/// A file other than the student's library, by its address range.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Mapped {
    start: usize,
    end: usize,
    name: MappedName,
}

/// How the crash line names a file other than the student's library.
#[derive(Clone, Debug, PartialEq, Eq)]
enum MappedName {
    /// The worker program itself (the grader's).
    Program,
    /// A library, by its file name ([`file_name_ok`]).
    Library(Box<str>),
    /// A file whose name may not be written.
    Unnamed,
}

/// Everything the handler needs, fixed before the test runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Armed {
    /// The student's library's load base (`dlpi_addr`): symbol values are
    /// offsets from it.
    base: usize,
    /// The lowest and highest address of its loaded segments.
    start: usize,
    end: usize,
    /// Read once per process that loads the library (the zygote, or a
    /// child of init) and shared by every test forked from it: never
    /// copied per test.
    functions: Option<&'static Functions>,
    others: Vec<Mapped>,
}

/// The crash line's capacity, in bytes (the longest line is about 130).
const LINE_CAP: usize = 256;

/// A line formatted without allocating.
struct Line {
    bytes: [u8; LINE_CAP],
    len: usize,
}

impl Line {
    fn new() -> Line {
        Line {
            bytes: [0; LINE_CAP],
            len: 0,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(LINE_CAP - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&bytes[..n]);
        self.len += n;
    }

    fn push_decimal(&mut self, value: u32) {
        let mut digits = [0u8; 10];
        let mut at = digits.len();
        let mut rest = value;
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        self.push(&digits[at..]);
    }

    fn push_hex(&mut self, value: u64) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut digits = [0u8; 16];
        let mut at = digits.len();
        let mut rest = value;
        loop {
            at -= 1;
            digits[at] = HEX[(rest & 15) as usize];
            rest >>= 4;
            if rest == 0 {
                break;
            }
        }
        self.push(b"0x");
        self.push(&digits[at..]);
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl Armed {
    /// Formats the crash line for `signal` at instruction pointer `ip`:
    /// `{"type":"crash_site","site":"SIGNAL PLACE"}` and a newline, where
    /// PLACE is `in NAME+0xOFF`, `at 0xOFF` (the library, no function),
    /// `lib FILE`, `program`, `file` (another file, not named) or
    /// `unknown` (no loaded file); `program reached` and `unknown reached`
    /// when `reached`: the fault came during a call of the student's code
    /// ([`student_call`]), which brought the instruction pointer there.
    /// Async-signal-safe.
    fn describe(&self, signal: u32, ip: usize, reached: bool, line: &mut Line) {
        line.push(b"{\"type\":\"crash_site\",\"site\":\"");
        line.push_decimal(signal);
        line.push(b" ");
        if (self.start..self.end).contains(&ip) {
            // Wrapping: a hostile ELF may put a segment below its base, and
            // nothing in a signal handler may panic.
            let offset = ip.wrapping_sub(self.base) as u64;
            match self.functions.as_ref().and_then(|f| f.at(offset)) {
                Some((function, into)) if !function.name.is_empty() => {
                    line.push(b"in ");
                    line.push(function.name.as_bytes());
                    line.push(b"+");
                    line.push_hex(into);
                }
                _ => {
                    line.push(b"at ");
                    line.push_hex(offset);
                }
            }
        } else {
            match self.others.iter().find(|m| (m.start..m.end).contains(&ip)) {
                Some(Mapped {
                    name: MappedName::Library(name),
                    ..
                }) => {
                    line.push(b"lib ");
                    line.push(name.as_bytes());
                }
                Some(Mapped {
                    name: MappedName::Program,
                    ..
                }) if reached => line.push(b"program reached"),
                Some(Mapped {
                    name: MappedName::Program,
                    ..
                }) => line.push(b"program"),
                Some(_) => line.push(b"file"),
                None if reached => line.push(b"unknown reached"),
                None => line.push(b"unknown"),
            }
        }
        line.push(b"\"}\n");
    }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub(super) use handler::{arm, install};

/// Elsewhere the crash handler is not installed: a crash is told as
/// before, by its signal alone.
#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
pub(super) fn install() {}

/// Elsewhere there is nothing to arm.
#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
pub(super) fn arm(_load_path: &Path, _functions: Option<&'static Functions>) {}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod handler {
    use std::cell::UnsafeCell;
    use std::ffi::CStr;
    use std::path::Path;
    use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

    use crate::protocol::PROTOCOL_FD;
    use crate::worker::crash::{Armed, Functions, Line, Mapped, MappedName, file_name_ok};

    /// The signals handled, in the order of [`PREVIOUS`].
    const SIGNALS: [libc::c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL];

    /// The size of the signal stack installed when the thread has none.
    const ALT_STACK: usize = 64 << 10;

    /// Each signal's disposition from before [`install`].
    struct Previous(UnsafeCell<[libc::sigaction; 4]>);

    // SAFETY: [`install`] writes each slot once, by the `sigaction` call
    // that installs the handler of that signal, before the handler can run
    // for it (and only once per process: `INSTALLED`); the handler only
    // reads it.
    unsafe impl Sync for Previous {}

    // SAFETY: an all-zero sigaction is a valid value (SIG_DFL, no flags,
    // empty mask); each slot is overwritten before any use.
    static PREVIOUS: Previous = Previous(UnsafeCell::new(unsafe { std::mem::zeroed() }));

    /// Set by the first [`install`]: a second would save this handler as
    /// its own previous disposition.
    static INSTALLED: AtomicBool = AtomicBool::new(false);

    /// Set by the first fault reported: one line per process.
    static REPORTED: AtomicBool = AtomicBool::new(false);

    /// The table [`arm`] leaked for the handler (null until then).
    static ARMED: AtomicPtr<Armed> = AtomicPtr::new(std::ptr::null_mut());

    /// Installs the handler for SIGSEGV, SIGBUS, SIGFPE and SIGILL, with a
    /// signal stack if this thread has none. Call before loading the
    /// library. Best effort: the handler only words a crash, so a call
    /// that fails leaves that signal as it was, and the test runs on.
    pub(crate) fn install() {
        if INSTALLED.swap(true, Ordering::SeqCst) {
            return;
        }
        ensure_alt_stack();
        for (slot, &signal) in SIGNALS.iter().enumerate() {
            // SAFETY: a zeroed sigaction is a valid "no flags, empty mask".
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            action.sa_sigaction = on_fault as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            // SAFETY: `sa_mask` is a valid sigset_t inside `action`; the
            // previous disposition goes to its own slot of `PREVIOUS`,
            // which the handler reads only once it is installed (see
            // `Previous`); the handler is async-signal-safe.
            unsafe {
                libc::sigfillset(&mut action.sa_mask);
                let previous = PREVIOUS.0.get().cast::<libc::sigaction>().add(slot);
                libc::sigaction(signal, &action, previous);
            }
        }
    }

    /// Gives this thread a signal stack when it has none (the Rust runtime
    /// gives the main thread one; a fork keeps it).
    fn ensure_alt_stack() {
        // SAFETY: a zeroed stack_t is a valid out-value.
        let mut current: libc::stack_t = unsafe { std::mem::zeroed() };
        // SAFETY: queries only (a null new stack).
        if unsafe { libc::sigaltstack(std::ptr::null(), &mut current) } != 0
            || current.ss_flags & libc::SS_DISABLE == 0
        {
            return;
        }
        // SAFETY: a fresh anonymous mapping; it is never unmapped (the
        // process ends after its one test).
        let memory = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                ALT_STACK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if memory == libc::MAP_FAILED {
            return;
        }
        let stack = libc::stack_t {
            ss_sp: memory,
            ss_flags: 0,
            ss_size: ALT_STACK,
        };
        // SAFETY: `stack` describes the mapping above, which lives as long
        // as the process.
        unsafe { libc::sigaltstack(&stack, std::ptr::null_mut()) };
    }

    /// Fixes where the student's library (loaded from `load_path`, the
    /// name it was `dlopen`ed by) and every other loaded file lie, with
    /// the library's `functions`, for the handler. Call after loading,
    /// before the test. Without the library among the loaded files the
    /// handler stays unarmed (a crash is told by its signal alone).
    pub(crate) fn arm(load_path: &Path, functions: Option<&'static Functions>) {
        use std::os::unix::ffi::OsStrExt;
        let mut files: Vec<(usize, usize, usize, Vec<u8>)> = Vec::new();
        // SAFETY: the callback only reads the `dl_phdr_info` the loader
        // passes (valid during the call) and pushes to the Vec it is given.
        unsafe {
            libc::dl_iterate_phdr(Some(each_file), (&raw mut files).cast());
        }
        let wanted = load_path.as_os_str().as_bytes();
        let Some(index) = files.iter().position(|f| f.3 == wanted) else {
            return;
        };
        let (base, start, end, _) = files.remove(index);
        let others = files
            .into_iter()
            .enumerate()
            .map(|(i, (_, start, end, name))| Mapped {
                start,
                end,
                name: mapped_name(i, &name),
            })
            .collect();
        let armed = Box::new(Armed {
            base,
            start,
            end,
            functions,
            others,
        });
        ARMED.store(Box::into_raw(armed), Ordering::SeqCst);
    }

    /// How the crash line names the `index`th loaded file (the first, with
    /// no name, is the program) by its path `name`.
    fn mapped_name(index: usize, name: &[u8]) -> MappedName {
        if name.is_empty() {
            return if index == 0 {
                MappedName::Program
            } else {
                MappedName::Unnamed
            };
        }
        let file = name.rsplit(|&b| b == b'/').next().unwrap_or(name);
        match std::str::from_utf8(file) {
            Ok(file) if file_name_ok(file) => MappedName::Library(file.into()),
            _ => MappedName::Unnamed,
        }
    }

    /// `dl_iterate_phdr`'s callback: pushes the file's base, the range of
    /// its loaded segments and its name to the Vec behind `data`.
    ///
    /// # Safety
    /// `info` is the loader's valid `dl_phdr_info`; `data` is the
    /// `Vec<(usize, usize, usize, Vec<u8>)>` [`arm`] passed.
    unsafe extern "C" fn each_file(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut libc::c_void,
    ) -> libc::c_int {
        // SAFETY: per the contract.
        let (info, files) = unsafe {
            (
                &*info,
                &mut *data.cast::<Vec<(usize, usize, usize, Vec<u8>)>>(),
            )
        };
        let base = info.dlpi_addr as usize;
        let headers: &[libc::Elf64_Phdr] = if info.dlpi_phdr.is_null() {
            &[]
        } else {
            // SAFETY: the loader's program headers, `dlpi_phnum` of them.
            unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) }
        };
        let (mut start, mut end) = (usize::MAX, 0usize);
        for header in headers.iter().filter(|h| h.p_type == libc::PT_LOAD) {
            let from = base.wrapping_add(header.p_vaddr as usize);
            start = start.min(from);
            end = end.max(from.wrapping_add(header.p_memsz as usize));
        }
        let name = if info.dlpi_name.is_null() {
            Vec::new()
        } else {
            // SAFETY: the loader's NUL-terminated name of the file.
            unsafe { CStr::from_ptr(info.dlpi_name) }
                .to_bytes()
                .to_vec()
        };
        if start < end {
            files.push((base, start, end, name));
        }
        0
    }

    /// The handler (see the module doc).
    extern "C" fn on_fault(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        context: *mut libc::c_void,
    ) {
        let Some(slot) = SIGNALS.iter().position(|&s| s == signal) else {
            return;
        };
        // SAFETY: the slot was written when this handler was installed for
        // `signal` (see `Previous`); sigaction is async-signal-safe.
        unsafe {
            let previous = PREVIOUS.0.get().cast::<libc::sigaction>().add(slot);
            libc::sigaction(signal, previous, std::ptr::null_mut());
        }
        // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
        let code = unsafe { (*info).si_code };
        if code <= 0 {
            // Sent by a process (kill, raise, sigqueue): no fault comes
            // again on return, so send it again, to this thread; it is
            // blocked until this handler returns.
            // SAFETY: tgkill to this very thread; integer arguments only.
            unsafe {
                libc::syscall(
                    libc::SYS_tgkill,
                    libc::getpid(),
                    libc::syscall(libc::SYS_gettid),
                    signal,
                );
            }
            return;
        }
        if REPORTED.swap(true, Ordering::SeqCst) {
            return;
        }
        let armed = ARMED.load(Ordering::SeqCst);
        if armed.is_null() {
            return;
        }
        // SAFETY: for an SA_SIGINFO handler `context` is the interrupted
        // thread's ucontext; REG_RIP indexes its instruction pointer.
        let ip = unsafe {
            (*context.cast::<libc::ucontext_t>()).uc_mcontext.gregs[libc::REG_RIP as usize]
        } as usize;
        let mut line = Line::new();
        let reached = crate::worker::crash::IN_STUDENT_CALL.load(Ordering::SeqCst);
        // SAFETY: `arm` leaked the table and never frees it.
        unsafe { &*armed }.describe(signal as u32, ip, reached, &mut line);
        let _ = crate::worker::sys::write_all(PROTOCOL_FD, line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(start: u64, end: u64, name: &str) -> Function {
        ranked(start, end, name, Rank::Global)
    }

    fn ranked(start: u64, end: u64, name: &str, rank: Rank) -> Function {
        let rank = if rank == Rank::Global && LAB_FUNCTIONS.contains(&name) {
            Rank::Lab
        } else {
            rank
        };
        Function {
            start,
            end,
            name: name.into(),
            rank,
        }
    }

    fn table() -> Armed {
        Armed {
            base: 0x7000_0000,
            start: 0x7000_0000,
            end: 0x7000_4000,
            functions: Some(Box::leak(Box::new(Functions::from_unsorted(vec![
                function(0x1200, 0x1280, "solve"),
                function(0x1100, 0x1150, "legal"),
                function(0x1100, 0x1150, ""),
                function(0x1300, 0x1310, ""),
            ])))),
            others: vec![
                Mapped {
                    start: 0x1000,
                    end: 0x9000,
                    name: MappedName::Program,
                },
                Mapped {
                    start: 0x7100_0000,
                    end: 0x7120_0000,
                    name: MappedName::Library("libc.so.6".into()),
                },
            ],
        }
    }

    fn line(armed: &Armed, signal: u32, ip: usize) -> String {
        reached_line(armed, signal, ip, false)
    }

    fn reached_line(armed: &Armed, signal: u32, ip: usize, reached: bool) -> String {
        let mut line = Line::new();
        armed.describe(signal, ip, reached, &mut line);
        String::from_utf8(line.as_bytes().to_vec()).expect("ASCII")
    }

    fn site(armed: &Armed, signal: u32, ip: usize) -> String {
        site_of(&line(armed, signal, ip))
    }

    fn site_of(text: &str) -> String {
        match serde_json::from_str(text.trim_end()) {
            Ok(crate::protocol::WorkerMessage::CrashSite { site }) => site,
            other => panic!("{text:?}: {other:?}"),
        }
    }

    #[test]
    fn the_line_names_the_function_whose_range_holds_the_offset() {
        let armed = table();
        assert_eq!(site(&armed, 11, 0x7000_111c), "11 in legal+0x1c");
        assert_eq!(site(&armed, 8, 0x7000_1200), "8 in solve+0x0");
        // Between functions, past one's end, and in a function not named.
        assert_eq!(site(&armed, 11, 0x7000_1150), "11 at 0x1150");
        assert_eq!(site(&armed, 11, 0x7000_10ff), "11 at 0x10ff");
        assert_eq!(site(&armed, 4, 0x7000_1305), "4 at 0x1305");
        // Other files, and none.
        assert_eq!(site(&armed, 11, 0x7100_0040), "11 lib libc.so.6");
        assert_eq!(site(&armed, 7, 0x2000), "7 program");
        assert_eq!(site(&armed, 11, 0), "11 unknown");
        // During a call of the student's code: reached from it.
        let reached = |ip| site_of(&reached_line(&armed, 11, ip, true));
        assert_eq!(reached(0x2000), "11 program reached");
        assert_eq!(reached(0), "11 unknown reached");
        assert_eq!(reached(0x7100_0040), "11 lib libc.so.6");
        assert_eq!(reached(0x7000_111c), "11 in legal+0x1c");
        // No symbols read: by offset.
        let bare = Armed {
            functions: None,
            ..table()
        };
        assert_eq!(site(&bare, 11, 0x7000_111c), "11 at 0x111c");
        assert!(line(&armed, 11, 0x7000_111c).ends_with("\"}\n"));
        // A segment below the base (a hostile ELF): an offset, no panic.
        let below = Armed {
            base: 0x7000_1000,
            ..table()
        };
        assert_eq!(site(&below, 11, 0x7000_0010), "11 at 0xfffffffffffff010");
    }

    /// A local symbol, or a global one other than the lab's, at or inside
    /// an exported lab function never names a fault in it.
    #[test]
    fn the_labs_exported_names_win_over_local_and_clone_names() {
        let armed = Armed {
            functions: Some(Box::leak(Box::new(Functions::from_unsorted(vec![
                ranked(0x1200, 0x1280, "legal.part.0", Rank::Local),
                ranked(0x1200, 0x1280, "legal", Rank::Local),
                function(0x1200, 0x1280, "solve"),
                function(0x1200, 0x1280, "a_helper"),
                ranked(0x1210, 0x1220, "legal.cold", Rank::Local),
                function(0x1100, 0x1150, "legal"),
                ranked(0x1400, 0x1410, "solve.cold", Rank::Local),
                ranked(0x1500, 0x1510, "aaa", Rank::Local),
                function(0x1500, 0x1510, "zzz"),
            ])))),
            ..table()
        };
        assert_eq!(site(&armed, 11, 0x7000_1204), "11 in solve+0x4");
        assert_eq!(site(&armed, 11, 0x7000_1214), "11 in solve+0x14");
        assert_eq!(site(&armed, 11, 0x7000_1104), "11 in legal+0x4");
        // A clone of its own range keeps its name; a global name beats a
        // local one at one start.
        assert_eq!(site(&armed, 11, 0x7000_1404), "11 in solve.cold+0x4");
        assert_eq!(site(&armed, 11, 0x7000_1504), "11 in zzz+0x4");
    }

    #[test]
    fn every_line_the_handler_writes_is_one_the_grader_accepts() {
        let armed = table();
        for ip in [0, 0x2000, 0x7000_111c, 0x7000_1150, 0x7100_0040, usize::MAX] {
            for signal in [4, 7, 8, 11] {
                for reached in [false, true] {
                    let site = site_of(&reached_line(&armed, signal, ip, reached));
                    assert!(
                        crate::runner::crash_site::CrashSite::parse(&site).is_some(),
                        "{site:?}"
                    );
                }
            }
        }
    }

    /// The symbols of a real library built as the grader builds a C
    /// submission: each function's range, as `.symtab` gives it.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_symbols_of_a_built_library_are_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        let so = dir.path().join("lib.so");
        let output = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-O2", "-I"])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/lab/include"))
            .arg("-o")
            .arg(&so)
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/submissions/c-listing.c"
            ))
            .output()
            .expect("cc runs");
        assert!(output.status.success(), "{output:?}");
        let functions = Functions::read(&File::open(&so).expect("opens")).expect("an ELF file");
        for name in ["legal", "find_empty", "solve"] {
            let function = functions
                .sorted
                .iter()
                .find(|f| &*f.name == name)
                .unwrap_or_else(|| panic!("{name} in {functions:?}"));
            assert!(function.end > function.start);
            let inside = function.start + (function.end - function.start) / 2;
            assert_eq!(
                functions.at(inside).map(|(f, into)| (&*f.name, into)),
                Some((name, inside - function.start))
            );
        }
        let not_elf = dir.path().join("not.so");
        std::fs::write(&not_elf, b"#!/bin/sh\n").expect("writes");
        assert_eq!(Functions::read(&File::open(&not_elf).expect("opens")), None);
    }
}
