//! rust-extern: the seed's listing in Rust, written directly against the C
//! ABI of SPEC 2a with `#[unsafe(no_mangle)] pub extern "C" fn` and no
//! helper crate.
//!
//! Correct. Expected: legal pass, find_empty pass (also under the policy
//! "first"), solve pass.

use std::slice;

/// The board's cells, or `None` for a null pointer or a box size outside
/// 2..=5.
///
/// # Safety
/// A non-null `board` must point to `n^4` readable bytes.
unsafe fn cells<'a>(board: *const u8, n: usize) -> Option<&'a [u8]> {
    if board.is_null() || !(2..=5).contains(&n) {
        return None;
    }
    // SAFETY: non-null, and the caller promises n^4 readable bytes.
    Some(unsafe { slice::from_raw_parts(board, n.pow(4)) })
}

fn is_legal(b: &[u8], n: usize, r: usize, c: usize, v: u8) -> bool {
    let side = n * n;
    if (0..side).any(|i| b[r * side + i] == v || b[i * side + c] == v) {
        return false;
    }
    let (br, bc) = (n * (r / n), n * (c / n));
    (br..br + n).all(|i| (bc..bc + n).all(|j| b[i * side + j] != v))
}

fn first_empty(b: &[u8], n: usize) -> Option<(usize, usize)> {
    let side = n * n;
    b.iter().position(|&x| x == 0).map(|k| (k / side, k % side))
}

fn search(b: &mut [u8], n: usize) -> bool {
    let side = n * n;
    let Some((r, c)) = first_empty(b, n) else {
        return true;
    };
    for v in 1..=side as u8 {
        if is_legal(b, n, r, c, v) {
            b[r * side + c] = v;
            if search(b, n) {
                return true;
            }
            b[r * side + c] = 0;
        }
    }
    false
}

/// The lab's `legal`.
///
/// # Safety
/// `board` must point to `n^4` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn legal(board: *const u8, n: usize, r: usize, c: usize, v: u8) -> bool {
    // SAFETY: the caller promises n^4 readable bytes.
    match unsafe { cells(board, n) } {
        Some(b) if r < n * n && c < n * n => is_legal(b, n, r, c, v),
        _ => false,
    }
}

/// The lab's `find_empty`: the first empty cell in reading order.
///
/// # Safety
/// `board` must point to `n^4` readable bytes; `r` and `c` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn find_empty(board: *const u8, n: usize, r: *mut usize, c: *mut usize) -> bool {
    // SAFETY: the caller promises n^4 readable bytes.
    let Some(b) = (unsafe { cells(board, n) }) else {
        return false;
    };
    match first_empty(b, n) {
        Some((row, col)) if !r.is_null() && !c.is_null() => {
            // SAFETY: non-null, and the caller promises they are writable.
            unsafe {
                r.write(row);
                c.write(col);
            }
            true
        }
        _ => false,
    }
}

/// The lab's `solve`, in place.
///
/// # Safety
/// `board` must point to `n^4` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn solve(board: *mut u8, n: usize) -> bool {
    if board.is_null() || !(2..=5).contains(&n) {
        return false;
    }
    // SAFETY: non-null, and the caller promises n^4 writable bytes.
    let b = unsafe { slice::from_raw_parts_mut(board, n.pow(4)) };
    search(b, n)
}

/// The version of the lab's C ABI this library implements.
#[unsafe(no_mangle)]
pub extern "C" fn sudoku_abi_version() -> u32 {
    1
}
