//! The element-wise and row-wise work of the numeric backend, on
//! contiguous row-major slices: one pass per row, in parallel (rayon) once
//! a tensor has [`PAR_MIN`] elements, serial below so small models pay no
//! thread hand-off.

use super::Scalar;
use crate::config::NormKind;
use crate::ops::Stats;
use rayon::prelude::*;

/// Elements from which a kernel runs on every core.
pub const PAR_MIN: usize = 1 << 15;

/// Rows of this many elements split work that has no row structure.
const CHUNK: usize = 4096;

/// Compiles the function it wraps once per vector unit (AVX-512, AVX2 +
/// FMA, NEON, and plain) and picks the widest the CPU has at run time. The
/// default build targets plain x86-64, whose SSE2 runs the exp polynomial
/// at a quarter of AVX-512's speed. The closures and helpers the function
/// calls inline into each copy. No copy changes a result: Rust never fuses
/// a multiply and an add, and every reduction has its lanes spelled out.
macro_rules! vectorised {
    ($f:item) => {
        #[multiversion::multiversion(targets(
            "x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl",
            "x86_64+avx2+fma",
            "aarch64+neon"
        ))]
        $f
    };
}

/// Runs `f(i, row)` on each `width`-long row of `out`.
pub fn rows_mut<F: Scalar>(out: &mut [F], width: usize, f: impl Fn(usize, &mut [F]) + Sync) {
    let width = width.max(1);
    if out.len() >= PAR_MIN {
        out.par_chunks_mut(width)
            .enumerate()
            .for_each(|(i, r)| row(&f, i, r));
    } else {
        out.chunks_mut(width)
            .enumerate()
            .for_each(|(i, r)| row(&f, i, r));
    }
}

vectorised! {
    /// `f(i, r)`, vectorised: the kernels' closures inline here.
    fn row<F: Scalar, G: Fn(usize, &mut [F])>(f: &G, i: usize, r: &mut [F]) {
        f(i, r);
    }
}

vectorised! {
    /// `f(i, r)` and the moments of what it left in `r`, [`vectorised!`].
    fn row_moments<F: Scalar, G: Fn(usize, &mut [F])>(f: &G, i: usize, r: &mut [F]) -> Moments {
        f(i, r);
        Moments::of_inline(r)
    }
}

/// As [`rows_mut`], and the stats of what `f` left in `out`, taken from
/// each row while it is still in cache (the chunks are merged in order, so
/// the result does not depend on the threads).
pub fn rows_stats<F: Scalar>(
    out: &mut [F],
    width: usize,
    f: impl Fn(usize, &mut [F]) + Sync,
) -> Stats {
    let width = width.max(1);
    let one = |(i, r): (usize, &mut [F])| row_moments(&f, i, r);
    let parts: Vec<Moments> = if out.len() >= PAR_MIN {
        out.par_chunks_mut(width).enumerate().map(one).collect()
    } else {
        out.chunks_mut(width).enumerate().map(one).collect()
    };
    Moments::total(parts)
}

vectorised! {
    /// `f(i, r)`, then `g` on each value of `r`: the moments of `r` after
    /// each, [`vectorised!`].
    fn row_moments_twice<F: Scalar, G: Fn(usize, &mut [F]), H: Fn(F) -> F>(
        f: &G,
        g: &H,
        i: usize,
        r: &mut [F],
    ) -> (Moments, Moments) {
        f(i, r);
        let first = Moments::of_inline(r);
        r.iter_mut().for_each(|v| *v = g(*v));
        (first, Moments::of_inline(r))
    }
}

/// As [`rows_stats`], then `g` on every value of each row while it is in
/// cache: the stats of `out` after `f` and after `g`.
pub fn rows_stats_then<F: Scalar>(
    out: &mut [F],
    width: usize,
    f: impl Fn(usize, &mut [F]) + Sync,
    g: impl Fn(F) -> F + Sync,
) -> (Stats, Stats) {
    let width = width.max(1);
    let one = |(i, r): (usize, &mut [F])| row_moments_twice(&f, &g, i, r);
    let parts: Vec<(Moments, Moments)> = if out.len() >= PAR_MIN {
        out.par_chunks_mut(width).enumerate().map(one).collect()
    } else {
        out.chunks_mut(width).enumerate().map(one).collect()
    };
    let (first, then) = parts.into_iter().unzip();
    (Moments::total(first), Moments::total(then))
}

/// `out[i] = f(out[i])` for every element; the stats of the result.
pub fn map_mut<F: Scalar>(out: &mut [F], f: impl Fn(F) -> F + Sync) -> Stats {
    rows_stats(out, CHUNK, |_, r| r.iter_mut().for_each(|v| *v = f(*v)))
}

/// `out[i] = f(out[i], other[i])` for every element (equal lengths); the
/// stats of the result.
pub fn zip_mut<F: Scalar>(out: &mut [F], other: &[F], f: impl Fn(F, F) -> F + Sync) -> Stats {
    rows_stats(out, CHUNK, |i, r| {
        let o = &other[i * CHUNK..i * CHUNK + r.len()];
        r.iter_mut().zip(o).for_each(|(v, &w)| *v = f(*v, w));
    })
}

/// LayerNorm or RMSNorm of each row of `x` into `out` (the same length),
/// times γ, plus β.
pub fn norm_rows<F: Scalar>(
    x: &[F],
    out: &mut [F],
    kind: NormKind,
    eps: F,
    g: &[F],
    b: Option<&[F]>,
) -> Stats {
    let d = g.len();
    rows_stats(out, d, |i, r| {
        let x = &x[i * d..i * d + r.len()];
        let n = F::of(x.len() as f64);
        let mean = match kind {
            NormKind::LayerNorm => lane_sum(x) / n,
            NormKind::RmsNorm => F::zero(),
        };
        let var = lanes(x, F::zero(), |a, v| a + (v - mean) * (v - mean))
            .into_iter()
            .fold(F::zero(), |a, v| a + v)
            / n;
        let inv = (var + eps).sqrt().recip();
        match b {
            Some(b) => {
                for (((y, &v), &g), &b) in r.iter_mut().zip(x).zip(g).zip(b) {
                    *y = (v - mean) * inv * g + b;
                }
            }
            None => {
                for ((y, &v), &g) in r.iter_mut().zip(x).zip(g) {
                    *y = (v - mean) * inv * g;
                }
            }
        }
    })
}

/// Softmax of each row of a (…, T, S) tensor, in place; with `causal`,
/// row t keeps keys 0..=t and the rest are 0. The stats are taken in the
/// pass that normalises each row.
pub fn softmax_rows<F: Scalar>(out: &mut [F], t_len: usize, s_len: usize, causal: bool) -> Stats {
    let parts = softmax_parts(out, t_len, s_len, causal, 0, true);
    Moments::total(parts.into_iter().map(|(_, w)| w).collect())
}

/// The rows of [`softmax_rows`] from row `first` of their (…, T, S) tensor
/// on (row tiles need the global row for the mask): for each row the
/// [`Moments`] of its scores, read in the pass that finds their maximum,
/// and of its weights.
pub fn softmax_parts<F: Scalar>(
    out: &mut [F],
    t_len: usize,
    s_len: usize,
    causal: bool,
    first: usize,
    parallel: bool,
) -> Vec<(Moments, Moments)> {
    let width = s_len.max(1);
    let one = |(i, r): (usize, &mut [F])| {
        let keep = if causal {
            ((first + i) % t_len.max(1) + 1).min(r.len())
        } else {
            r.len()
        };
        softmax_row(r, keep)
    };
    if parallel && out.len() >= PAR_MIN {
        out.par_chunks_mut(width).enumerate().map(one).collect()
    } else {
        out.chunks_mut(width).enumerate().map(one).collect()
    }
}

vectorised! {
    /// Softmax of the first `keep` values of `r`, the rest set to 0: the
    /// moments of the row before (scores) and after (weights),
    /// [`vectorised!`].
    fn softmax_row<F: Scalar>(r: &mut [F], keep: usize) -> (Moments, Moments) {
        let (live, masked) = r.split_at_mut(keep);
        let seen = Moments::of_inline(live);
        let scores = Moments::merge(seen, Moments::of_inline(masked));
        // The largest live score (−∞ for none; NaN only through the exp).
        let max = F::of(seen.max);
        // The exps and their sum, in lanes as `lane_sum`.
        let mut sum = [F::zero(); LANES];
        let mut blocks = live.chunks_exact_mut(LANES);
        for b in &mut blocks {
            for l in 0..LANES {
                b[l] = (b[l] - max).exp_fast();
                sum[l] += b[l];
            }
        }
        for (l, v) in blocks.into_remainder().iter_mut().enumerate() {
            *v = (*v - max).exp_fast();
            sum[l] += *v;
        }
        let inv = sum.into_iter().fold(F::zero(), |a, v| a + v).recip();
        masked.iter_mut().for_each(|v| *v = F::zero());
        // Weights lie in [0, 1]: moments about 0 lose nothing.
        let (mut lo, mut hi, mut s1, mut s2) = (
            [F::one(); LANES],
            [F::zero(); LANES],
            [F::zero(); LANES],
            [F::zero(); LANES],
        );
        let mut blocks = live.chunks_exact_mut(LANES);
        for b in &mut blocks {
            for l in 0..LANES {
                let v = b[l] * inv;
                b[l] = v;
                lo[l] = if v < lo[l] { v } else { lo[l] };
                hi[l] = if v > hi[l] { v } else { hi[l] };
                s1[l] += v;
                s2[l] += v * v;
            }
        }
        for (l, v) in blocks.into_remainder().iter_mut().enumerate() {
            *v *= inv;
            lo[l] = if *v < lo[l] { *v } else { lo[l] };
            hi[l] = if *v > hi[l] { *v } else { hi[l] };
            s1[l] += *v;
            s2[l] += *v * *v;
        }
        if !masked.is_empty() {
            lo[0] = F::zero();
        }
        (scores, Moments::about_zero(r.len(), lo, hi, s1, s2))
    }
}

/// Rotary position embedding of each hd-long row of a (…, T, hd) tensor,
/// in place: row t turns its pairs (i, i + hd/2) by t·θ^(−2i/hd).
pub fn rope_rows<F: Scalar>(out: &mut [F], t_len: usize, hd: usize, theta: f64) -> Stats {
    let half = hd / 2;
    // (T, hd/2) tables of cos and sin, in f64 then rounded once.
    let angle = |t: usize, i: usize| t as f64 * theta.powf(-2.0 * i as f64 / hd as f64);
    let cos: Vec<F> = (0..t_len * half)
        .map(|k| F::of(angle(k / half, k % half).cos()))
        .collect();
    let sin: Vec<F> = (0..t_len * half)
        .map(|k| F::of(angle(k / half, k % half).sin()))
        .collect();
    rows_stats(out, hd, |r, row| {
        let at = r % t_len.max(1) * half;
        let (x1, x2) = row.split_at_mut(half);
        for i in 0..half {
            let (a, b, c, s) = (x1[i], x2[i], cos[at + i], sin[at + i]);
            x1[i] = a * c - b * s;
            x2[i] = b * c + a * s;
        }
    })
}

/// Lanes of independent accumulators, so reductions vectorise.
const LANES: usize = 16;

/// Folds `x` into [`LANES`] independent accumulators, so the loop vectorises.
#[inline(always)]
fn lanes<F: Scalar>(x: &[F], init: F, step: impl Fn(F, F) -> F) -> [F; LANES] {
    let mut acc = [init; LANES];
    let blocks = x.chunks_exact(LANES);
    let rest = blocks.remainder();
    for b in blocks {
        for l in 0..LANES {
            acc[l] = step(acc[l], b[l]);
        }
    }
    for (l, &v) in rest.iter().enumerate() {
        acc[l] = step(acc[l], v);
    }
    acc
}

/// The sum of `x`.
#[inline(always)]
fn lane_sum<F: Scalar>(x: &[F]) -> F {
    lanes(x, F::zero(), |a, v| a + v)
        .into_iter()
        .fold(F::zero(), |a, v| a + v)
}

/// Count, min, max, mean, sum of squared deviations, finite: one chunk's
/// moments, merged with Chan's formula so the variance stays exact.
#[derive(Clone, Copy)]
pub struct Moments {
    n: f64,
    min: f64,
    max: f64,
    mean: f64,
    m2: f64,
    finite: bool,
}

impl Moments {
    const EMPTY: Self = Self {
        n: 0.0,
        min: f64::INFINITY,
        max: f64::NEG_INFINITY,
        mean: 0.0,
        m2: 0.0,
        finite: true,
    };

    /// One pass over a chunk: 16 lanes of min, max, Σ(x−K) and Σ(x−K)²,
    /// shifted by the chunk's first value K so the variance stays exact.
    pub fn of<F: Scalar>(c: &[F]) -> Self {
        moments(c)
    }

    #[inline(always)]
    fn of_inline<F: Scalar>(c: &[F]) -> Self {
        const W: usize = LANES;
        let Some(&shift) = c.first() else {
            return Self::EMPTY;
        };
        let (mut lo, mut hi) = ([shift; W], [shift; W]);
        let (mut s1, mut s2) = ([F::zero(); W], [F::zero(); W]);
        let lanes = c.chunks_exact(W);
        let rest = lanes.remainder();
        for b in lanes {
            for l in 0..W {
                let v = b[l];
                lo[l] = if v < lo[l] { v } else { lo[l] };
                hi[l] = if v > hi[l] { v } else { hi[l] };
                let d = v - shift;
                s1[l] += d;
                s2[l] += d * d;
            }
        }
        for (l, &v) in rest.iter().enumerate() {
            lo[l] = if v < lo[l] { v } else { lo[l] };
            hi[l] = if v > hi[l] { v } else { hi[l] };
            s1[l] += v - shift;
            s2[l] += (v - shift) * (v - shift);
        }
        let n = c.len() as f64;
        let sum = |a: [F; W]| a.iter().map(|v| v.f64()).sum::<f64>();
        let (s1, s2) = (sum(s1), sum(s2));
        let min = lo.iter().map(|v| v.f64()).fold(f64::INFINITY, f64::min);
        let max = hi.iter().map(|v| v.f64()).fold(f64::NEG_INFINITY, f64::max);
        Self {
            n,
            min,
            max,
            mean: shift.f64() + s1 / n,
            m2: (s2 - s1 * s1 / n).max(0.0),
            // NaN and ±inf reach the shifted sum (inf − inf is NaN too).
            finite: min.is_finite() && max.is_finite() && s1.is_finite(),
        }
    }

    /// The moments of `n` values from lanes of min, max, Σx and Σx².
    #[inline(always)]
    fn about_zero<F: Scalar>(
        n: usize,
        lo: [F; LANES],
        hi: [F; LANES],
        s1: [F; LANES],
        s2: [F; LANES],
    ) -> Self {
        let sum = |a: [F; LANES]| a.iter().map(|v| v.f64()).sum::<f64>();
        let (s1, s2, n) = (sum(s1), sum(s2), n as f64);
        let min = lo.iter().map(|v| v.f64()).fold(f64::INFINITY, f64::min);
        let max = hi.iter().map(|v| v.f64()).fold(f64::NEG_INFINITY, f64::max);
        Self {
            n,
            min,
            max,
            mean: s1 / n.max(1.0),
            m2: (s2 - s1 * s1 / n.max(1.0)).max(0.0),
            finite: min.is_finite() && max.is_finite() && s1.is_finite(),
        }
    }

    fn merge(a: Self, b: Self) -> Self {
        if a.n == 0.0 {
            return b;
        }
        let n = a.n + b.n;
        let delta = b.mean - a.mean;
        Self {
            n,
            min: a.min.min(b.min),
            max: a.max.max(b.max),
            mean: a.mean + delta * b.n / n,
            m2: a.m2 + b.m2 + delta * delta * a.n * b.n / n,
            finite: a.finite && b.finite,
        }
    }
}

vectorised! {
    /// [`Moments::of`], [`vectorised!`].
    fn moments<F: Scalar>(c: &[F]) -> Moments {
        Moments::of_inline(c)
    }
}

/// Min, max, mean, population std and finiteness of `values`.
pub fn stats<F: Scalar>(values: &[F]) -> Stats {
    let parts: Vec<Moments> = if values.len() >= PAR_MIN {
        values.par_chunks(CHUNK).map(Moments::of).collect()
    } else {
        values.chunks(CHUNK).map(Moments::of).collect()
    };
    Moments::total(parts)
}

impl Moments {
    /// The stats of the parts' union, merged in order.
    pub fn total(parts: Vec<Moments>) -> Stats {
        let m = parts.into_iter().fold(Self::EMPTY, Self::merge);
        Stats {
            min: m.min,
            max: m.max,
            mean: m.mean,
            std: (m.m2 / m.n.max(1.0)).sqrt(),
            finite: m.finite,
        }
    }
}
