//! One setting of mimalloc, the allocator the binary and the benches use.
//!
//! A numeric forward frees tensors of a few sizes and takes the same sizes
//! again one block later: (T, d) for every norm, projection and residual
//! add, (T, 4d) for the MLP. mimalloc hands freed memory back to the OS
//! after a delay (1 s by default), so buffers freed between uses came back
//! as fresh pages the kernel faulted and zeroed again. Kept, they are
//! reused as they are. Measured on GPT-2-small against the C library's
//! malloc (`cargo bench --bench system_alloc`, README): no difference the
//! benches can tell from noise (0.86–1.10× at T 1024); the peak resident
//! memory of `trace --numeric` at T 1024 is 449 MB
//! (`scripts/peak_memory.sh`). Memory is not given back to the OS while
//! the process runs.

use libmimalloc_sys::{mi_option_get, mi_option_set, mi_option_t};

/// `mi_option_purge_delay`: its place in mimalloc's `mi_option_t` (the
/// pinned libmimalloc-sys builds mimalloc v3), which the crate does not
/// name. The test below checks it reads the purge delay's default, 1 s.
const PURGE_DELAY: mi_option_t = 15;

/// Makes mimalloc keep freed memory for reuse instead of purging it.
///
/// # Safety
/// Call it before any other thread allocates through mimalloc (first in
/// `main`): `mi_option_set` writes mimalloc's option table without
/// synchronisation, and allocating threads read it.
#[allow(unsafe_code)]
pub unsafe fn keep_freed_memory() {
    // SAFETY: PURGE_DELAY is in range and -1 is the documented "never";
    // the caller vouches that no other thread reads the table meanwhile.
    unsafe {
        mi_option_set(PURGE_DELAY, -1);
    }
}

/// mimalloc's purge delay in milliseconds; −1 for never.
#[must_use]
pub fn purge_delay() -> i64 {
    #[allow(unsafe_code)]
    // SAFETY: mi_option_get reads mimalloc's option table; in range.
    let ms = unsafe { mi_option_get(PURGE_DELAY) };
    #[allow(clippy::useless_conversion)] // c_long is 32 bits on Windows
    i64::from(ms)
}

#[cfg(test)]
mod tests {
    /// The option at PURGE_DELAY starts at 1000 ms, the purge delay's
    /// default in mimalloc v3 (no option near it defaults to 1000), and
    /// reads −1 once set.
    #[test]
    fn the_option_set_is_the_purge_delay() {
        assert_eq!(super::purge_delay(), 1000);
        #[allow(unsafe_code)]
        // SAFETY: this test binary allocates through the system allocator;
        // no other thread uses mimalloc.
        unsafe {
            super::keep_freed_memory();
        }
        assert_eq!(super::purge_delay(), -1);
    }
}
