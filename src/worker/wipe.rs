//! Freed memory is wiped in every process of the box, so a test forked
//! from the box's init or from the test zygote inherits no request of an
//! earlier test.
//!
//! Init and the zygote read each test's request (its boards, hidden cases
//! among them) into their heap, then fork the test child. A child's code
//! can walk the heap it inherited without a file or `/proc` (from `sbrk`
//! down by the arena's size), so bytes merely freed are bytes handed to
//! every later test. The global allocator therefore zeroes every block it
//! frees (and, through the default `realloc`, the old block of one that
//! grows), once [`enable`] was called: the worker's entry point calls it
//! first thing; the grader's own process, which never forks student code
//! from its heap, keeps the plain allocator's speed.
//!
//! Buffers that live on (a `BufReader`'s) are dropped and made anew after
//! each request by their owners (`init.rs`, `test_zygote.rs`); what is
//! still alive at a fork is the current test's own request.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

use zeroize::Zeroize;

/// Whether freed blocks are wiped (set once, by the worker).
static WIPING: AtomicBool = AtomicBool::new(false);

/// The system allocator, wiping each block it frees once [`enable`]d.
pub(super) struct WipingAllocator;

#[global_allocator]
static ALLOCATOR: WipingAllocator = WipingAllocator;

/// Wipes every block freed from now on, in this process and its children.
pub(super) fn enable() {
    WIPING.store(true, Ordering::SeqCst);
}

// SAFETY: every call is forwarded to `System` with the same arguments; a
// block is written (zeroed, within its own `layout.size()` bytes) only
// while it is still allocated, just before `System` frees it.
unsafe impl GlobalAlloc for WipingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if WIPING.load(Ordering::Relaxed) && layout.size() > 0 {
            // SAFETY: `ptr` is a live block of `layout.size()` bytes that
            // this allocator handed out (the caller's contract); it is
            // ours until freed below. Zeroize's writes are volatile, so
            // they are not dropped as stores before a free.
            unsafe { std::slice::from_raw_parts_mut(ptr, layout.size()) }.zeroize();
        }
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }
}
