//! Trace speed: GPT-2-small numerically, GPT-2 XL and a LLaMA-2-70B-sized
//! config shape-only, and the bare matmuls of GPT-2-small's forward, once
//! through `gemm` (what the numeric backend uses) and once through
//! ndarray's matrixmultiply, to measure the tracing overhead and the choice
//! of matmul.

use criterion::{Criterion, criterion_group, criterion_main};
use ndarray::{Array2, ArrayD, ArrayView2, linalg::general_mat_mul};
use rayon::prelude::*;
use shapetrace::model::Model;
use shapetrace::ops::Backend;
use shapetrace::ops::numeric::{Numeric, matmul::matmul};
use shapetrace::trace::recorder::Recorder;
use shapetrace::{ModeChoice, ModelConfig, Request};
use std::hint::black_box;
use std::time::Duration;

fn gpt2_small(seq: usize) -> ModelConfig {
    let mut c = shapetrace::config::preset::by_name("gpt2-small").unwrap();
    c.seq = seq;
    c
}

fn numeric(c: &mut Criterion) {
    let mut g = c.benchmark_group("gpt2-small numeric");
    g.sample_size(10).measurement_time(Duration::from_secs(30));
    let req = Request {
        mode: ModeChoice::Numeric,
        ..Request::default()
    };
    for seq in [128, 1024] {
        let cfg = gpt2_small(seq);
        g.bench_function(format!("trace T={seq} (build + forward)"), |b| {
            b.iter(|| shapetrace::trace_request(black_box(&cfg), &req).unwrap());
        });
        let backend = Numeric::<f32>::new();
        let model = Model::build(&cfg, &backend);
        let x0 = shapetrace::model::input(&cfg, &backend);
        g.bench_function(format!("forward T={seq} (weights built)"), |b| {
            b.iter(|| {
                let mut rec = Recorder::new(&backend, cfg.stream_shape(), false, false);
                model.forward(&mut rec, x0.clone()).unwrap();
                rec.finish()
            });
        });
    }
    g.finish();
}

/// GPT-2-small's products at (1, T, 768): per block four (T,d)·(d,d), one
/// (T,d)·(d,4d), one (T,4d)·(4d,d), then per head (T,hd)·(hd,T) and (T,T)·(T,hd).
struct Products {
    x: Array2<f32>,
    h: Array2<f32>,
    w: Array2<f32>,
    up: Array2<f32>,
    down: Array2<f32>,
    q: Array2<f32>,
    s: Array2<f32>,
}

impl Products {
    fn new(t: usize) -> Self {
        let b = Numeric::<f32>::new();
        let m = |r: usize, c: usize, seed: u64| {
            let a: ArrayD<f32> = b.normal(&[r, c], seed);
            a.into_dimensionality().unwrap()
        };
        Self {
            x: m(t, 768, 1),
            h: m(t, 3072, 2),
            w: m(768, 768, 3),
            up: m(768, 3072, 4),
            down: m(3072, 768, 5),
            q: m(t, 64, 6),
            s: m(t, t, 7),
        }
    }

    /// Every product of 12 blocks; `heads_at_once` runs the 12 heads'
    /// products side by side, as the numeric backend does.
    fn run(
        &self,
        mm: impl Fn(&Array2<f32>, ArrayView2<f32>, bool) -> Array2<f32> + Sync,
        heads_at_once: bool,
    ) {
        for _ in 0..12 {
            for _ in 0..4 {
                black_box(mm(&self.x, self.w.view(), true));
            }
            black_box(mm(&self.x, self.up.view(), true));
            black_box(mm(&self.h, self.down.view(), true));
            let head = |_| {
                black_box(mm(&self.q, self.q.t(), !heads_at_once));
                black_box(mm(&self.s, self.q.view(), !heads_at_once));
            };
            if heads_at_once {
                (0..12).into_par_iter().for_each(head);
            } else {
                (0..12).for_each(head);
            }
        }
    }
}

fn bare_matmuls(c: &mut Criterion) {
    let mut g = c.benchmark_group("gpt2-small bare matmuls");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    let p = Products::new(1024);
    g.bench_function("T=1024 gemm", |b| {
        b.iter(|| {
            p.run(
                |a, w, threads| {
                    let mut y = Array2::zeros((a.nrows(), w.ncols()));
                    matmul(1.0, &a.view(), &w, &mut y.view_mut(), threads);
                    y
                },
                true,
            );
        });
    });
    g.bench_function("T=1024 matrixmultiply", |b| {
        b.iter(|| {
            p.run(
                |a, w, _| {
                    let mut y = Array2::zeros((a.nrows(), w.ncols()));
                    general_mat_mul(1.0, a, &w, 0.0, &mut y);
                    y
                },
                false,
            );
        });
    });
    g.finish();
}

fn shape_only(c: &mut Criterion) {
    let xl = shapetrace::config::preset::by_name("gpt2-xl").unwrap();
    // LLaMA-2-70B: 80 blocks, d 8192, 64 heads, 8 K/V heads, SwiGLU 28672,
    // RMSNorm, rotary positions, T 4096.
    let mut l70 = xl.clone();
    (l70.d_model, l70.heads, l70.kv_heads, l70.d_ff, l70.layers) = (8192, 64, 8, 28672, 80);
    (l70.seq, l70.context, l70.vocab, l70.tied) = (4096, 4096, Some(32000), false);
    l70.act = shapetrace::config::Act::Swiglu;
    l70.norm = shapetrace::config::NormKind::RmsNorm;
    l70.bias = false;
    l70.pos_emb = shapetrace::config::PosEmb::Rope;
    let req = Request {
        mode: ModeChoice::ShapeOnly,
        ..Request::default()
    };
    for (name, cfg) in [("gpt2-xl", xl), ("llama-2-70b-sized", l70)] {
        c.bench_function(&format!("shape-only trace {name}"), |b| {
            b.iter(|| shapetrace::trace_request(black_box(&cfg), &req).unwrap());
        });
    }
}

criterion_group!(benches, shape_only, numeric, bare_matmuls);
criterion_main!(benches);
