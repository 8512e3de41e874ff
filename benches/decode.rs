//! One decode step of TinyLlama-1.1B's shape (22 blocks, d 2048, 32 heads,
//! 4 K/V heads, SwiGLU 5632, vocab 32000) at a key/value cache of 256:
//! one new token, ids (1, 1) → logits (1, 1, 32000), every block's
//! attention reading its cache (1, 4, 256, 64) and writing the new key
//! and value into it, every step recorded with its stats, as `shapetrace
//! trace --decode` runs it.
//!
//! The prompt, id t = (7919 t + 1) mod 32000 for t < 256 as
//! `scripts/bench_decode_torch.py` feeds transformers, is prefilled once,
//! outside the timed loop; each timed step starts from a copy of that
//! cache (the copy is timed too: 11.5 MB, a few milliseconds beside a
//! step that reads 4.4 GB of weights).
//!
//! With `SHAPETRACE_TINYLLAMA=DIR` the weights are the checkpoint in DIR
//! (`scripts/make_tinyllama_checkpoint.py DIR`), widened to f32 at the
//! first forward and kept, as transformers loads them; otherwise they are
//! seeded, of the same shapes (tests/fixtures/hf/tinyllama-1.1b.json).
//! `scripts/bench_decode_pairs.sh` runs this and the transformers script
//! back to back.
//!
//! Run:  SHAPETRACE_TINYLLAMA=/work/tinyllama cargo bench --bench decode

use criterion::{Criterion, criterion_group, criterion_main};
use ndarray::Array2;
use shapetrace::Overlay;
use shapetrace::load::resolve;
use shapetrace::model::decode::Kv;
use shapetrace::model::{Model, Source};
use shapetrace::ops::numeric::Numeric;
use shapetrace::plan::{ModeChoice, Request};
use shapetrace::trace::recorder::{Recorder, Watch};
use std::hint::black_box;
use std::time::Duration;

/// As the binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "common/tinyllama.rs"]
mod common;
/// The cache a step reads: the prompt's positions.
const CACHE: usize = common::SEQ;

fn decode_step(c: &mut Criterion) {
    common::as_the_binary();
    let (src, dir) = common::sources();
    let req = Request {
        mode: ModeChoice::Numeric,
        max_memory: Some(64 << 30),
        ..Request::default()
    };
    let (cfg, req) = resolve(&Overlay::default(), &src, req).expect("the TinyLlama model");
    assert_eq!((cfg.layers, cfg.d_model, cfg.seq), (22, 2048, CACHE));
    let backend = Numeric::<f32>::new();
    let source = req
        .weights
        .as_deref()
        .map_or(Source::Seeded, Source::Loaded);
    let model = Model::build_lm(&cfg, &backend, source);
    let prompt = req.tokens.as_deref().expect("the ids").clone();
    drop(req);

    // The prefill, once: every block's cache holds the prompt's 256.
    let mut prefilled = Kv::empty(model.blocks.len());
    let mut rec = Recorder::new(&backend, cfg.stream_shape(), Watch::default()).in_dtype(cfg.dtype);
    model
        .pass(&mut rec, &cfg, &mut prefilled, 0, Some(&prompt))
        .expect("the prefill runs");
    drop(rec.finish());
    let next = Array2::from_elem((1, 1), 1_i64);

    let mut g = c.benchmark_group("decode");
    g.sample_size(10).measurement_time(Duration::from_secs(30));
    let weights = if dir.is_some() {
        "checkpoint weights, widened once"
    } else {
        "seeded weights"
    };
    g.bench_function(
        format!("TinyLlama one step, cache {CACHE} ({weights})"),
        |b| {
            b.iter(|| {
                let mut kv = prefilled.clone();
                let mut rec = Recorder::new(&backend, cfg.stream_shape(), Watch::default())
                    .in_dtype(cfg.dtype);
                let logits = model
                    .pass(&mut rec, &cfg, &mut kv, 1, Some(black_box(&next)))
                    .expect("the step runs");
                (logits, rec.finish())
            });
        },
    );
    g.finish();
}

criterion_group!(benches, decode_step);
criterion_main!(benches);
