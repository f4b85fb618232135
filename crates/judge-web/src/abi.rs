//! The module's C ABI: JSON in, JSON out, through the module's own memory.
//!
//! The host (JavaScript) asks [`alloc`] for `len` bytes, writes the input
//! JSON there, calls an entry point with `(ptr, len)`, frees the input
//! with [`dealloc`], and reads the answer at the pointer and length packed
//! into the returned `u64` (pointer in the high 32 bits, length in the low
//! 32), which it frees with [`dealloc`] too. Every answer is
//! `{"ok": VALUE}` or `{"error": "what went wrong, and what to do"}`: no
//! input makes an entry point trap.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// `len` bytes of the module's memory for the host to fill; never null
/// (an empty request gets a dangling, aligned pointer it must not read).
#[unsafe(no_mangle)]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast::<u8>()
}

/// Frees `len` bytes at `ptr` given out by [`alloc`] or by an answer.
///
/// # Safety
/// `ptr` and `len` must be exactly those of one [`alloc`] or one answer,
/// not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: usize) {
    let slice = std::ptr::slice_from_raw_parts_mut(ptr, len);
    // SAFETY: the caller passes back a boxed slice of `len` bytes this
    // module gave out (`Box::into_raw`), once.
    drop(unsafe { Box::from_raw(slice) });
}

/// Runs `entry` on the JSON at `ptr..ptr+len` and packs its answer.
///
/// # Safety
/// `ptr..ptr+len` must be memory the host filled after [`alloc`]`(len)`.
pub(crate) unsafe fn call<I, O>(
    ptr: *const u8,
    len: usize,
    entry: fn(I) -> Result<O, String>,
) -> u64
where
    I: DeserializeOwned,
    O: Serialize,
{
    let input = if len == 0 {
        &[][..]
    } else {
        // SAFETY: the host wrote `len` bytes at `ptr`, from `alloc(len)`.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    };
    let answer = match serde_json::from_slice::<I>(input) {
        Ok(input) => entry(input),
        Err(error) => Err(format!(
            "the engine sent the judge a request it cannot read ({error}); this is the page's bug, please report it"
        )),
    };
    pack(answer)
}

/// The answer as `{"ok": ...}` or `{"error": ...}`, leaked for the host.
fn pack<O: Serialize>(answer: Result<O, String>) -> u64 {
    #[derive(Serialize)]
    #[serde(rename_all = "snake_case")]
    enum Answer<O> {
        Ok(O),
        Error(String),
    }
    let answer = match answer {
        Ok(value) => Answer::Ok(value),
        Err(message) => Answer::Error(message),
    };
    let bytes = serde_json::to_vec(&answer).unwrap_or_else(|error| {
        format!("{{\"error\":\"the judge could not write its answer: {error}\"}}").into_bytes()
    });
    let len = bytes.len();
    // A boxed slice of `len` bytes: `dealloc(ptr, len)` frees it.
    let ptr = Box::into_raw(bytes.into_boxed_slice()).cast::<u8>();
    ((ptr as usize as u64) << 32) | len as u64
}
