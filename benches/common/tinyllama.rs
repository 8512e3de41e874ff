//! What the TinyLlama benches share: the checkpoint (or its seeded shape)
//! and the ids the transformers scripts feed.

use shapetrace::load::Sources;
use std::path::PathBuf;

/// The positions of the prompt: T of the forward, the cache of a step.
pub const SEQ: usize = 256;
const VOCAB: usize = 32000;

/// The ids of `scripts/bench_tinyllama_torch.py` and
/// `scripts/bench_decode_torch.py`, id t = (7919 t + 1) mod 32000, as
/// `--tokens` takes them.
fn ids() -> String {
    (0..SEQ)
        .map(|t| ((7919 * t + 1) % VOCAB).to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The checkpoint in `SHAPETRACE_TINYLLAMA` (its config.json the model),
/// else the seeded weights of tests/fixtures/hf/tinyllama-1.1b.json's
/// shapes, with the ids; and the checkpoint's folder, if given.
pub fn sources() -> (Sources, Option<PathBuf>) {
    let dir = std::env::var_os("SHAPETRACE_TINYLLAMA").map(PathBuf::from);
    let src = Sources {
        config: dir
            .is_none()
            .then(|| "tests/fixtures/hf/tinyllama-1.1b.json".into()),
        weights: dir.clone(),
        tokens: Some(ids()),
        ..Sources::default()
    };
    (src, dir)
}

/// Keeps freed memory as the binary does.
pub fn as_the_binary() {
    #[allow(unsafe_code)]
    // SAFETY: before the model is built, and before any thread but this
    // one allocates (criterion runs the groups on this thread).
    unsafe {
        shapetrace::allocator::keep_freed_memory();
    }
}
