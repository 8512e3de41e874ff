//! Trace speed: GPT-2-small numerically, GPT-2 XL and a LLaMA-2-70B-sized
//! config shape-only, and the bare matmuls of GPT-2-small's forward, once
//! through `gemm` (what the numeric backend uses) and once through
//! ndarray's matrixmultiply, to measure the tracing overhead and the choice
//! of matmul; and the linear layers' products alone, which
//! `scripts/bench_torch.py --linear` times in PyTorch.

use criterion::{Criterion, criterion_group, criterion_main};
use ndarray::{Array2, ArrayD, ArrayView2, ArrayViewMut2, linalg::general_mat_mul, s};
use rayon::prelude::*;
use shapetrace::model::Model;
use shapetrace::ops::Backend;
use shapetrace::ops::numeric::{Numeric, fused::ROWS, matmul::matmul};
use shapetrace::trace::recorder::{Recorder, Watch};
use shapetrace::{ModeChoice, ModelConfig, Request};
use std::hint::black_box;
use std::time::Duration;

/// As the binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
                let mut rec = Recorder::new(&backend, cfg.stream_shape(), Watch::default());
                model.forward(&mut rec, x0.clone()).unwrap();
                rec.finish()
            });
        });
    }
    g.finish();
}

/// GPT-2-small's products at (1, T, 768): per block four (T,d)·(d,d), one
/// (T,d)·(d,4d), one (T,4d)·(4d,d), then per head (T,hd)·(hd,T) and
/// (T,T)·(T,hd), the latter in row tiles over the keys the causal mask
/// leaves, as the forward does it. As in the forward, every block has its own weights and
/// every head its own operands, so no product finds its operand still in
/// cache from the one before; every output is allocated once, up front, so
/// the time is the multiplications alone: no allocation or zeroing.
struct Products {
    x: Array2<f32>,
    h: Array2<f32>,
    /// Per block: four (d,d), one (d,4d), one (4d,d).
    blocks: Vec<[Array2<f32>; 6]>,
    /// Per head: q (T,hd), k (T,hd) and the weights (T,T).
    heads: Vec<[Array2<f32>; 3]>,
}

/// A head's (T,T) scores and (T,hd) weighted sum.
type Pair = (Array2<f32>, Array2<f32>);

/// Where the products of [`Products::run`] are written.
struct Outputs {
    d: Array2<f32>,
    ff: Array2<f32>,
    /// Per head: the (T,T) scores and the (T,hd) weighted sum.
    heads: Vec<Pair>,
}

impl Products {
    fn new(t: usize) -> Self {
        let b = Numeric::<f32>::new();
        let m = |r: usize, c: usize, seed: u64| {
            let a: ArrayD<f32> = b.normal(&[r, c], seed).into_array();
            a.into_dimensionality().unwrap()
        };
        let d = 768;
        Self {
            x: m(t, d, 1),
            h: m(t, 4 * d, 2),
            blocks: (0..12)
                .map(|i| {
                    let s = 100 * i;
                    [
                        m(d, d, s + 3),
                        m(d, d, s + 4),
                        m(d, d, s + 5),
                        m(d, d, s + 6),
                        m(d, 4 * d, s + 7),
                        m(4 * d, d, s + 8),
                    ]
                })
                .collect(),
            heads: (0..12)
                .map(|i| [m(t, 64, 2000 + i), m(t, 64, 3000 + i), m(t, t, 4000 + i)])
                .collect(),
        }
    }

    fn outputs(&self) -> Outputs {
        let t = self.x.nrows();
        Outputs {
            d: Array2::zeros((t, 768)),
            ff: Array2::zeros((t, 3072)),
            heads: (0..12)
                .map(|_| (Array2::zeros((t, t)), Array2::zeros((t, 64))))
                .collect(),
        }
    }

    /// Every product of 12 blocks through `mm(a, b, threads, out)`;
    /// `heads_at_once` runs the 12 heads' products side by side, as the
    /// numeric backend does.
    fn run(
        &self,
        out: &mut Outputs,
        mm: impl Fn(ArrayView2<f32>, ArrayView2<f32>, bool, ArrayViewMut2<f32>) + Sync,
        heads_at_once: bool,
    ) {
        for [wq, wk, wv, wo, up, down] in &self.blocks {
            for w in [wq, wk, wv, wo] {
                mm(self.x.view(), w.view(), true, out.d.view_mut());
            }
            mm(self.x.view(), up.view(), true, out.ff.view_mut());
            mm(self.h.view(), down.view(), true, out.d.view_mut());
            let head = |([q, k, w], (scores, ctx)): (&[Array2<f32>; 3], &mut Pair)| {
                mm(q.view(), k.t(), !heads_at_once, scores.view_mut());
                // As the forward: in row tiles, each skipping the keys the
                // causal mask gives weight 0.
                let t = w.nrows();
                for r0 in (0..t).step_by(ROWS) {
                    let r1 = (r0 + ROWS).min(t); // row r1 − 1 weighs keys ..r1
                    let wt = w.slice(s![r0..r1, ..r1]);
                    let vt = q.slice(s![..r1, ..]);
                    mm(wt, vt, !heads_at_once, ctx.slice_mut(s![r0..r1, ..]));
                }
            };
            if heads_at_once {
                self.heads.par_iter().zip(&mut out.heads).for_each(head);
            } else {
                self.heads.iter().zip(&mut out.heads).for_each(head);
            }
            black_box(&out.d);
        }
    }

    /// The linear layers' products of [`Products::run`] alone: per block
    /// four (T,d)·(d,d), one (T,d)·(d,4d) and one (T,4d)·(4d,d), each
    /// block with its own weights, into the same preallocated outputs,
    /// through the crate's matmul on every core. `scripts/bench_torch.py
    /// --linear` times the same products in PyTorch.
    fn linear(&self, out: &mut Outputs) {
        for [wq, wk, wv, wo, up, down] in &self.blocks {
            let (x, h) = (self.x.view(), self.h.view());
            for w in [wq, wk, wv, wo] {
                matmul(1.0, &x, &w.view(), &mut out.d.view_mut(), true);
            }
            matmul(1.0, &x, &up.view(), &mut out.ff.view_mut(), true);
            matmul(1.0, &h, &down.view(), &mut out.d.view_mut(), true);
            black_box(&out.d);
        }
    }
}

fn bare_matmuls(c: &mut Criterion) {
    let mut g = c.benchmark_group("gpt2-small bare matmuls");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    let p = Products::new(1024);
    let mut out = p.outputs();
    g.bench_function("T=1024 gemm", |b| {
        b.iter(|| {
            p.run(
                &mut out,
                |a, w, threads, mut y| matmul(1.0, &a, &w, &mut y, threads),
                true,
            );
        });
    });
    g.bench_function("T=1024 matrixmultiply", |b| {
        b.iter(|| {
            p.run(
                &mut out,
                |a, w, _, mut y| general_mat_mul(1.0, &a, &w, 0.0, &mut y),
                false,
            );
        });
    });
    g.finish();
}

/// GPT-2-small's linear layers alone at T 1024 (no attention products),
/// the products `scripts/bench_torch.py --linear` times in PyTorch.
fn linear_matmuls(c: &mut Criterion) {
    let mut g = c.benchmark_group("gpt2-small linear matmuls");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    let p = Products::new(1024);
    let mut out = p.outputs();
    g.bench_function("T=1024 gemm", |b| b.iter(|| p.linear(&mut out)));
    g.finish();
}

fn shape_only(c: &mut Criterion) {
    #[allow(unsafe_code)]
    // SAFETY: the first benchmark of the binary, before rayon's or any
    // other thread exists.
    unsafe {
        shapetrace::allocator::keep_freed_memory(); // as the binary
    }
    let xl = shapetrace::config::preset::by_name("gpt2-xl").unwrap();
    // LLaMA-2-70B: 80 blocks, d 8192, 64 heads, 8 K/V heads, SwiGLU 28672,
    // RMSNorm, rotary positions, T 4096.
    let mut l70 = xl.clone();
    (
        l70.d_model,
        l70.attention.heads,
        l70.attention.kv_heads,
        l70.mlp.d_ff,
        l70.layers,
    ) = (8192, 64, 8, 28672, 80);
    (l70.seq, l70.positions.context) = (4096, Some(4096));
    (l70.vocab.size, l70.vocab.tied) = (Some(32000), false);
    l70.mlp.act = shapetrace::config::Act::Swiglu;
    l70.norms.kind = shapetrace::config::NormKind::RmsNorm;
    l70.bias = false;
    l70.positions.kind = shapetrace::config::PosEmb::Rope;
    let req = Request::shapes();
    for (name, cfg) in [("gpt2-xl", xl), ("llama-2-70b-sized", l70)] {
        c.bench_function(&format!("shape-only trace {name}"), |b| {
            b.iter(|| shapetrace::trace_request(black_box(&cfg), &req).unwrap());
        });
    }
}

criterion_group!(benches, shape_only, numeric, bare_matmuls, linear_matmuls);
criterion_main!(benches);
