//! A real size: TinyLlama-1.1B's shape (22 blocks, d 2048, 32 heads, 4 K/V
//! heads, SwiGLU 5632, RMSNorm, rotary positions, vocab 32000, untied LM
//! head), traced numerically in f32 from B 1, T 256 token ids to the
//! logits: embeddings, the blocks, the final norm and the LM head, every
//! step recorded with its stats, as `shapetrace trace` runs it.
//!
//! With `SHAPETRACE_TINYLLAMA=DIR` the weights are the checkpoint in DIR
//! (`scripts/make_tinyllama_checkpoint.py DIR` writes one; its config.json
//! is the model), the model `scripts/bench_tinyllama_torch.py DIR` times in
//! transformers; otherwise they are seeded, of the same shapes (the model
//! is tests/fixtures/hf/tinyllama-1.1b.json), so `cargo bench` runs
//! anywhere. Either way the ids are the script's, id t = (7919 t + 1) mod
//! 32000, and reading the checkpoint and building the model happen once,
//! outside the timed loop: the time is the forward. A checkpoint is timed
//! twice: under a limit that holds its weights in f32 (4.4 GB; widened at
//! the first forward and kept, as transformers loads them), and under one
//! just too small for that, which widens each weight as its op reads it,
//! every forward.
//!
//! The `linear products` group times one block's seven products alone at
//! T 256, (256, 2048) times q (2048, 2048), k and v (2048, 256), o (2048,
//! 2048), gate and up (2048, 5632), and (256, 5632) times down (5632,
//! 2048), seeded, into outputs allocated once, through the crate's matmul
//! on every core: what `scripts/bench_tinyllama_torch.py --linear` times
//! in PyTorch.
//!
//! Run:  SHAPETRACE_TINYLLAMA=/work/tinyllama cargo bench --bench tinyllama

use criterion::{Criterion, criterion_group, criterion_main};
use ndarray::{Array2, ArrayD};
use shapetrace::Overlay;
use shapetrace::load::resolve;
use shapetrace::model::{Model, Source};
use shapetrace::ops::Backend;
use shapetrace::ops::numeric::Numeric;
use shapetrace::ops::numeric::matmul::matmul;
use shapetrace::plan::{ModeChoice, Request};
use shapetrace::trace::recorder::{Recorder, Watch};
use std::hint::black_box;
use std::time::Duration;

/// As the binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "common/tinyllama.rs"]
mod common;
use common::SEQ;

fn tinyllama(c: &mut Criterion) {
    common::as_the_binary();
    let (src, dir) = common::sources();
    // 64 GiB holds the model in f32: a 16-bit checkpoint's weights are
    // widened at the first forward and kept, as transformers loads them.
    let kept = Request {
        mode: ModeChoice::Numeric,
        max_memory: Some(64 << 30),
        ..Request::default()
    };
    let (cfg, req) = resolve(&Overlay::default(), &src, kept).expect("the TinyLlama model");
    assert_eq!(
        (cfg.layers, cfg.d_model, cfg.batch, cfg.seq),
        (22, 2048, 1, SEQ)
    );
    let backend = Numeric::<f32>::new();
    let ids = backend.ids(req.tokens.as_deref().expect("the ids"));
    let mut runs = vec![(
        if dir.is_some() {
            "checkpoint weights, widened once"
        } else {
            "seeded weights"
        },
        req,
    )];
    // A limit just under that: the checkpoint's weights are widened by
    // each op that reads them, every forward (what the 4 GiB default does
    // for this model, in 2.6 GB where the f32 weights are 4.4 GB).
    if dir.is_some() {
        let streamed = Request {
            mode: ModeChoice::Numeric,
            max_memory: Some(cfg.numeric_bytes() - 1),
            ..Request::default()
        };
        let (_, req) = resolve(&Overlay::default(), &src, streamed).expect("the TinyLlama model");
        assert!(req.weights_held.is_some(), "widened op by op");
        runs.push(("checkpoint weights, widened per op", req));
    }

    let mut g = c.benchmark_group("tinyllama");
    g.sample_size(10).measurement_time(Duration::from_secs(60));
    for (weights, req) in runs {
        let source = req
            .weights
            .as_deref()
            .map_or(Source::Seeded, Source::Loaded);
        let model = Model::build_lm(&cfg, &backend, source);
        drop(req); // the model holds its own views of the mapping
        let ends = model.ends.as_ref().expect("a vocabulary");
        g.bench_function(format!("forward B=1 T={SEQ} ({weights})"), |b| {
            b.iter(|| {
                let mut rec = Recorder::new(&backend, cfg.stream_shape(), Watch::default())
                    .in_dtype(cfg.dtype);
                let logits = model
                    .forward_lm(&mut rec, ends, black_box(ids.clone()))
                    .unwrap();
                (logits, rec.finish())
            });
        });
    }
    g.finish();
}

/// One block's seven linear products at T 256, into outputs allocated once.
fn linear_products(c: &mut Criterion) {
    let b = Numeric::<f32>::new();
    let m = |r: usize, c: usize, seed: u64| -> Array2<f32> {
        let a: ArrayD<f32> = b.normal(&[r, c], seed).into_array();
        a.into_dimensionality().unwrap()
    };
    let (d, kv, ff) = (2048, 256, 5632);
    let (x, h) = (m(SEQ, d, 1), m(SEQ, ff, 2));
    let ws = [
        m(d, d, 3),
        m(d, kv, 4),
        m(d, kv, 5),
        m(d, d, 6),
        m(d, ff, 7),
        m(d, ff, 8),
    ];
    let down = m(ff, d, 9);
    let mut outs: Vec<Array2<f32>> = ws.iter().map(|w| Array2::zeros((SEQ, w.ncols()))).collect();
    let mut out_down = Array2::zeros((SEQ, d));
    let mut g = c.benchmark_group("tinyllama");
    g.sample_size(20).measurement_time(Duration::from_secs(20));
    g.bench_function(format!("linear products, one block, T={SEQ} gemm"), |bn| {
        bn.iter(|| {
            for (w, y) in ws.iter().zip(&mut outs) {
                matmul(1.0, &x.view(), &w.view(), &mut y.view_mut(), true);
            }
            matmul(1.0, &h.view(), &down.view(), &mut out_down.view_mut(), true);
            black_box(&out_down);
        });
    });
    g.finish();
}

criterion_group!(benches, linear_products, tinyllama);
criterion_main!(benches);
