//! `grader check`'s experiment on a C library (`WorkerRequest::reference_legal`):
//! the student's `solve` run with the grader's own `legal` in place of the
//! student's, everything else the student's.
//!
//! A C submission is built `cc -O2 -shared -fPIC`: `legal` is a global,
//! interposable symbol, so a call to it from `solve` goes through the
//! library's PLT and its GOT slot (an `R_X86_64_JUMP_SLOT` relocation, or
//! `R_X86_64_GLOB_DAT` under `-fno-plt`). After loading, in the test child
//! only, [`redirect_legal`] finds those slots in the library's file (read
//! here, in the box: the file is student input) and points them at
//! [`reference_legal`], the lab's rule with the lab's C signature. A call
//! that does not go through such a slot (a `static` or inlined `legal`, a
//! Rust crate's direct call) is not redirected: with no slot at all the
//! experiment is not possible and nothing is claimed.
//!
//! Every check here fails closed: an unexpected file, a slot that does not
//! hold the loaded `legal`, a slot outside the library's writable
//! segments, each makes the experiment "not possible". [`reference_legal`]
//! answers false, and counts as strange, any call whose arguments are not
//! the lab's for this test (another `n`, a cell off the board, a digit
//! outside 1..=N), without reading the board: a run with a strange call
//! proves nothing. x86-64 Linux only.
//!
//! The redirect can be seen by the student's code (the address its slot
//! now holds differs from `legal`'s own; an answer of the grader's
//! `legal` differs from the student's), so a `solve` can behave well only
//! under it: `grader check` words the run as what happened, never as
//! proof (`runner::legal_swap`).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The test's `n`: the only one [`reference_legal`] answers for.
static TEST_N: AtomicUsize = AtomicUsize::new(0);
/// Calls of [`reference_legal`].
static CALLS: AtomicU64 = AtomicU64::new(0);
/// Of those, calls with arguments outside the lab's.
static STRANGE: AtomicU64 = AtomicU64::new(0);

/// The largest library file read, in bytes (the build's own cap is far
/// below it).
const MAX_LIBRARY_BYTES: u64 = 256 << 20;

/// How many times the student's code called [`reference_legal`], and how
/// many of those calls had arguments outside the lab's.
pub(crate) fn calls() -> (u64, u64) {
    (
        CALLS.load(Ordering::Relaxed),
        STRANGE.load(Ordering::Relaxed),
    )
}

/// The lab's rule on a board of `n x n` boxes: true iff digit `v` is not
/// already in row `r`, column `c` or the box of `(r, c)`, the cell itself
/// not counted (as `sudoku_reference::BoardRules::conflicts`). `cells` holds the
/// `n^4` cells; `r`, `c` are below `n*n`.
pub(crate) fn legal_by_the_rule(cells: &[u8], n: usize, r: usize, c: usize, v: u8) -> bool {
    let side = n * n;
    let at = |i: usize, j: usize| cells.get(i * side + j).copied();
    let (br, bc) = (n * (r / n), n * (c / n));
    let in_line =
        (0..side).any(|i| (i != c && at(r, i) == Some(v)) || (i != r && at(i, c) == Some(v)));
    let in_box =
        (br..br + n).any(|i| (bc..bc + n).any(|j| (i, j) != (r, c) && at(i, j) == Some(v)));
    !(in_line || in_box)
}

/// The grader's `legal`, with the lab's C signature
/// (`bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v)`):
/// [`legal_by_the_rule`] on the board the student's `solve` passes.
pub(crate) extern "C" fn reference_legal(
    board: *const u8,
    n: usize,
    r: usize,
    c: usize,
    v: u8,
) -> bool {
    CALLS.fetch_add(1, Ordering::Relaxed);
    let side = n.saturating_mul(n);
    let lab_arguments = n == TEST_N.load(Ordering::Relaxed)
        && !board.is_null()
        && r < side
        && c < side
        && (1..=side).contains(&usize::from(v));
    if !lab_arguments {
        STRANGE.fetch_add(1, Ordering::Relaxed);
        return false;
    }
    // SAFETY: the lab's ABI: `board` points at the n^4 cells of a board of
    // this test's `n` (checked above), as it does for the student's own
    // `legal`, which reads the same cells; the slice lives for this call.
    let cells = unsafe { std::slice::from_raw_parts(board, side * side) };
    legal_by_the_rule(cells, n, r, c, v)
}

/// Points the GOT slots through which the library at `file` calls
/// `legal` at [`reference_legal`], for a test of boxes of side `n`.
/// `loaded_legal` is the address of the library's own `legal` as the
/// loader resolved it (`dlsym`), which tells where the library was loaded
/// and what each slot must hold now. Returns how many slots were
/// redirected (at least one).
///
/// # Errors
/// Why the experiment is not possible, in a sentence: nothing was changed
/// then (or, if a later slot failed, the run must not be judged).
pub(crate) fn redirect_legal(
    file: &std::path::Path,
    loaded_legal: usize,
    n: usize,
) -> Result<usize, String> {
    TEST_N.store(n, Ordering::Relaxed);
    redirect(file, loaded_legal)
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn redirect(file: &std::path::Path, loaded_legal: usize) -> Result<usize, String> {
    use std::io::Read;
    let mut data = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_LIBRARY_BYTES).read_to_end(&mut data))
        .map_err(|err| format!("cannot read the library: {err}"))?;
    let slots = legal_slots(&data, loaded_legal)?;
    for slot in &slots {
        write_slot(slot, reference_legal as *const () as usize)?;
    }
    Ok(slots.len())
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn redirect(_file: &std::path::Path, _loaded_legal: usize) -> Result<usize, String> {
    Err("the grader's legal stands in only on x86-64 Linux".to_string())
}

/// One GOT slot that holds `legal`'s address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    /// The slot's address in this process.
    pub address: usize,
    /// Whether it lies in the library's RELRO range (made read-only by the
    /// loader after relocation).
    pub relro: bool,
}

/// The slots of the ELF file `data`, loaded so that its `legal` is at
/// `loaded_legal`, through which its code calls `legal`.
///
/// # Errors
/// Why there are none that can be trusted.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub(crate) fn legal_slots(data: &[u8], loaded_legal: usize) -> Result<Vec<Slot>, String> {
    use object::read::elf::{ElfFile64, ProgramHeader};
    use object::{Endianness, elf};
    use object::{Object, ObjectSymbol, ObjectSymbolTable, RelocationFlags, RelocationTarget};

    let file = ElfFile64::<Endianness>::parse(data)
        .map_err(|err| format!("the library is not an ELF file the grader can read: {err}"))?;
    if file.architecture() != object::Architecture::X86_64 {
        return Err("the library is not an x86-64 library".to_string());
    }
    let symbols = file
        .dynamic_symbol_table()
        .ok_or("the library has no dynamic symbol table")?;
    let legal = symbols
        .symbols()
        .find(|s| s.name() == Ok("legal") && s.is_definition())
        .ok_or("the library defines no dynamic symbol legal")?;
    // Where the library was loaded: its `legal` is at `loaded_legal`.
    let base = (loaded_legal as u64).wrapping_sub(legal.address());
    if base % 4096 != 0 {
        return Err("the library's legal is not where its file says".to_string());
    }
    let endian = file.endian();
    let headers = file.elf_program_headers();
    let within = |offset: u64, p_type: u32, writable: bool| {
        headers.iter().any(|ph| {
            ph.p_type(endian) == p_type
                && (!writable || ph.p_flags(endian) & elf::PF_W != 0)
                && offset >= ph.p_vaddr(endian)
                && offset.saturating_add(8) <= ph.p_vaddr(endian).saturating_add(ph.p_memsz(endian))
        })
    };
    let relocations = file
        .dynamic_relocations()
        .ok_or("the library has no dynamic relocations")?;
    let mut slots = Vec::new();
    for (offset, relocation) in relocations {
        let RelocationFlags::Elf { r_type } = relocation.flags() else {
            continue;
        };
        if r_type != elf::R_X86_64_JUMP_SLOT && r_type != elf::R_X86_64_GLOB_DAT {
            continue;
        }
        let RelocationTarget::Symbol(index) = relocation.target() else {
            continue;
        };
        let named_legal = symbols
            .symbol_by_index(index)
            .is_ok_and(|s| s.name() == Ok("legal"));
        if !named_legal {
            continue;
        }
        if offset % 8 != 0 || !within(offset, elf::PT_LOAD, true) {
            return Err("a slot for legal lies outside the library's writable data".to_string());
        }
        let address = base.wrapping_add(offset) as usize;
        // SAFETY: the address lies in one of the library's own writable
        // PT_LOAD segments (checked above), which the loader mapped (the
        // library is loaded: its `legal` is at `loaded_legal`), 8-aligned.
        let holds = unsafe { std::ptr::read_volatile(address as *const usize) };
        if holds != loaded_legal {
            return Err("a slot for legal does not hold the library's legal".to_string());
        }
        slots.push(Slot {
            address,
            relro: within(offset, elf::PT_GNU_RELRO, false),
        });
    }
    if slots.is_empty() {
        return Err(
            "solve does not call legal through the library's PLT (a static or inlined legal, \
             or code built without -fPIC)"
                .to_string(),
        );
    }
    Ok(slots)
}

/// Writes `value` into `slot`, making its page writable for the write when
/// it is in the RELRO range, and read-only again after.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn write_slot(slot: &Slot, value: usize) -> Result<(), String> {
    let page = slot.address & !4095;
    if slot.relro {
        protect(page, libc::PROT_READ | libc::PROT_WRITE)?;
    }
    // SAFETY: `slot` was checked by `legal_slots`: an aligned GOT slot of
    // the loaded library holding its `legal`, writable now (a RELRO page
    // was just made so). No other thread calls through it: the test child
    // runs the student's code only after this, on this thread.
    unsafe { std::ptr::write_volatile(slot.address as *mut usize, value) };
    if slot.relro {
        protect(page, libc::PROT_READ)?;
    }
    Ok(())
}

/// `mprotect` of the page at `page`.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn protect(page: usize, protection: libc::c_int) -> Result<(), String> {
    // SAFETY: `page` is the page-aligned start of a page of the loaded
    // library's RELRO data (holding its GOT); changing its protection
    // touches no memory of Rust's.
    let status = unsafe { libc::mprotect(page as *mut libc::c_void, 4096, protection) };
    if status == 0 {
        Ok(())
    } else {
        Err(format!(
            "cannot change the GOT page's protection: {}",
            std::io::Error::last_os_error()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sudoku_lab::Board;
    use sudoku_reference::BoardRules;

    #[test]
    fn the_rule_is_the_labs() {
        let campus = [1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0];
        let board = Board::from_cells(2, campus.to_vec()).expect("a board");
        for r in 0..4 {
            for c in 0..4 {
                for v in 1..=4 {
                    assert_eq!(
                        legal_by_the_rule(&campus, 2, r, c, v),
                        !board.conflicts(r, c, v),
                        "({r}, {c}) = {v}"
                    );
                }
            }
        }
    }

    /// `source` built as the grader builds a C submission, with `extra`
    /// flags, and loaded as a test child loads it.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    fn built(
        dir: &std::path::Path,
        name: &str,
        source: &std::path::Path,
        extra: &[&str],
    ) -> (std::path::PathBuf, crate::worker::library::CLibrary) {
        let so = dir.join(name);
        let output = std::process::Command::new("cc")
            .args(["-O2", "-shared", "-fPIC", "-I"])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/lab/include"))
            .args(extra)
            .arg("-o")
            .arg(&so)
            .arg(source)
            .output()
            .expect("cc runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let library = crate::worker::library::CLibrary::load(&so, &so).expect("loads");
        (so, library)
    }

    /// A `legal` without the column check, its `solve` the listing's: on
    /// the campus clash (no solution: two 1s in row 0) its own `legal`
    /// lets `solve` answer true; with the grader's `legal` in its slot,
    /// `solve` answers false and leaves the board, as the listing does. Built as the grader builds (lazy binding,
    /// the PLT's jump slot), with `-z now` (full RELRO: the slot's page is
    /// read-only after loading) and with `-fno-plt` (a GLOB_DAT slot).
    #[test]
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    fn the_graders_legal_takes_the_slot_of_the_students() {
        use sudoku_lab::Sudoku;
        let dir = tempfile::tempdir().expect("temp dir");
        let source = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/submissions/bug-legal-no-column.c"
        );
        let campus = [1, 0, 0, 4, 0, 4, 1, 0, 2, 0, 0, 3, 0, 3, 2, 0];
        let clash = [1, 1, 2, 0, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0];
        for (name, flags) in [
            ("lazy.so", &[][..]),
            ("now.so", &["-Wl,-z,relro,-z,now"][..]),
            ("noplt.so", &["-fno-plt"][..]),
        ] {
            let (so, library) = built(dir.path(), name, source.as_ref(), flags);
            // Its own legal misses the column: 3 at (0, 1) clashes with
            // the 3 at (3, 1).
            let board = Board::from_cells(2, campus.to_vec()).expect("a board");
            assert!(library.legal(&board, 0, 1, 3), "{name}: the bug is there");
            let mut board = Board::from_cells_unchecked_values(2, clash.to_vec()).expect("a board");
            assert!(
                library.solve(&mut board),
                "{name}: its own legal lets solve answer true"
            );
            let slots = library.stand_in_legal(&so, 2).expect("a slot for legal");
            assert!(slots >= 1, "{name}");
            let before = calls().0;
            let mut board = Board::from_cells_unchecked_values(2, clash.to_vec()).expect("a board");
            assert!(
                !library.solve(&mut board),
                "{name}: with the grader's legal"
            );
            assert_eq!(board.cells(), clash, "{name}");
            assert!(
                calls().0 > before,
                "{name}: solve called the grader's legal"
            );
            // The grader's own tests of legal still reach the student's.
            let board = Board::from_cells(2, campus.to_vec()).expect("a board");
            assert!(library.legal(&board, 0, 1, 3), "{name}");
        }
    }

    /// A `solve` that checks the rules through a `static` helper never
    /// calls `legal` through a slot: the experiment is not possible.
    #[test]
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    fn without_a_slot_for_legal_nothing_is_redirected() {
        let dir = tempfile::tempdir().expect("temp dir");
        let source = dir.path().join("inline.c");
        let listing = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/submissions/c-listing.c"
        ))
        .expect("the listing");
        // The listing's legal becomes a static helper that solve calls;
        // legal itself only forwards to it.
        let inline = listing
            .replacen("bool legal(", "static bool rules_hold(", 1)
            .replace("if (legal(board,", "if (rules_hold(board,")
            + "\nbool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {\n    return rules_hold(board, n, r, c, v);\n}\n";
        assert!(
            inline.contains("if (rules_hold(board,"),
            "the listing calls legal in solve"
        );
        std::fs::write(&source, inline).expect("write");
        let (so, library) = built(dir.path(), "inline.so", &source, &[]);
        let refused = library.stand_in_legal(&so, 2).expect_err("no slot");
        assert!(refused.contains("does not call legal through"), "{refused}");
    }

    #[test]
    fn strange_arguments_are_answered_false_and_counted() {
        TEST_N.store(2, Ordering::Relaxed);
        let empty = [0u8; 16];
        let (_, strange) = calls();
        assert!(reference_legal(empty.as_ptr(), 2, 0, 0, 1));
        assert!(!reference_legal(empty.as_ptr(), 3, 0, 0, 1), "another n");
        assert!(
            !reference_legal(empty.as_ptr(), 2, 4, 0, 1),
            "off the board"
        );
        assert!(!reference_legal(empty.as_ptr(), 2, 0, 0, 5), "digit 5");
        assert!(!reference_legal(std::ptr::null(), 2, 0, 0, 1), "no board");
        assert!(calls().1 >= strange + 4);
    }
}
