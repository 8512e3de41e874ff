//! The element-wise and row-wise work of the numeric backend, on
//! contiguous row-major slices: one pass per row, in parallel (rayon) once
//! a tensor has [`PAR_MIN`] elements, serial below so small models pay no
//! thread hand-off.

use super::Scalar;
use super::chunks::{CHUNK, PAR_MIN};
use super::moments::Moments;
use super::simd::{fold_lanes, lane_sum, lanes, vectorised};
use crate::config::NormKind;
use crate::ops::Stats;
use rayon::prelude::*;

/// `f(i, row)` for each `width`-long row of `out`, in order: on every core
/// when `parallel` and `out` has [`PAR_MIN`] elements, else on this one.
pub fn map_rows<F: Scalar, R: Send>(
    out: &mut [F],
    width: usize,
    parallel: bool,
    f: impl Fn(usize, &mut [F]) -> R + Sync,
) -> Vec<R> {
    let width = width.max(1);
    let one = |(i, r): (usize, &mut [F])| f(i, r);
    if parallel && out.len() >= PAR_MIN {
        out.par_chunks_mut(width).enumerate().map(one).collect()
    } else {
        out.chunks_mut(width).enumerate().map(one).collect()
    }
}

/// Runs `f(i, row)` on each `width`-long row of `out`.
pub fn rows_mut<F: Scalar>(out: &mut [F], width: usize, f: impl Fn(usize, &mut [F]) + Sync) {
    map_rows(out, width, true, |i, r| row(&f, i, r));
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
    rows_total(out, width, |i, r| row_moments(&f, i, r))
}

/// Runs `f(i, row)` on each `width`-long row of `out`, where `f` hands
/// back the moments of what it left in its row: their stats.
fn rows_total<F: Scalar>(
    out: &mut [F],
    width: usize,
    f: impl Fn(usize, &mut [F]) -> Moments + Sync,
) -> Stats {
    Moments::total(map_rows(out, width, true, f))
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
    let parts = map_rows(out, width, true, |i, r| row_moments_twice(&f, &g, i, r));
    let (first, then): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
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
    // A named function, not a closure: a closure this long would not
    // inline into `row_moments`, and so would run without the vector unit.
    rows_total(out, d, |i, r| {
        norm_row(&x[i * d..i * d + r.len()], r, kind, eps, g, b)
    })
}

vectorised! {
    /// One row of [`norm_rows`], `y = (x − mean) / √(var + eps) · γ + β` (no
    /// mean for RMSNorm), and the moments of `y`, [`vectorised!`].
    fn norm_row<F: Scalar>(
        x: &[F],
        y: &mut [F],
        kind: NormKind,
        eps: F,
        g: &[F],
        b: Option<&[F]>,
    ) -> Moments {
        let n = F::of(x.len() as f64);
        let mean = match kind {
            NormKind::LayerNorm => lane_sum(x) / n,
            NormKind::RmsNorm | NormKind::RmsNormPlusOne => F::zero(),
        };
        let var = fold_lanes(
            lanes(x, F::zero(), |a, v| a + (v - mean) * (v - mean)),
            |a, b| a + b,
        ) / n;
        let inv = (var + eps).sqrt().recip();
        match b {
            Some(b) => {
                for (((y, &v), &g), &b) in y.iter_mut().zip(x).zip(g).zip(b) {
                    *y = (v - mean) * inv * g + b;
                }
            }
            None => {
                for ((y, &v), &g) in y.iter_mut().zip(x).zip(g) {
                    *y = (v - mean) * inv * g;
                }
            }
        }
        Moments::of_inline(y)
    }
}

/// ALiBi in place on (…, h, T, S) scores: head h adds `slopes[h]·(j − q)`
/// at query t and key j, where q = t + S − T is the query's own position
/// among the keys.
pub fn alibi_rows<F: Scalar>(out: &mut [F], slopes: &[f64], t_len: usize, s_len: usize) -> Stats {
    let per_head = (t_len * s_len).max(1);
    let heads = slopes.len().max(1);
    #[allow(clippy::cast_precision_loss)]
    rows_stats(out, s_len.max(1), |r, row| {
        let (head, t) = ((r * s_len / per_head) % heads, r % t_len.max(1));
        let m = slopes.get(head).copied().unwrap_or(0.0);
        let q = (t + s_len).saturating_sub(t_len) as f64;
        for (j, v) in row.iter_mut().enumerate() {
            *v += F::of(m * (j as f64 - q));
        }
    })
}

/// Rotary position embedding of each hd-long row of a (…, T, hd) tensor,
/// in place: row t, at position p = `start` + t, turns its pairs (i, i +
/// dims/2) of its first `dims` features by p·ω_i, with ω_i = `freq(i)`
/// (θ^(−2i/dims), unless rescaled); features from `dims` on are left as
/// they are.
pub fn rope_rows<F: Scalar>(
    out: &mut [F],
    (start, t_len): (usize, usize),
    hd: usize,
    dims: usize,
    freq: impl Fn(usize) -> f64,
) -> Stats {
    let half = dims.min(hd) / 2;
    // (T, hd/2) tables of cos and sin, in f64 then rounded once.
    let freqs: Vec<f64> = (0..half).map(freq).collect();
    let angle = |t: usize, i: usize| (start + t) as f64 * freqs[i];
    let cos: Vec<F> = (0..t_len * half)
        .map(|k| F::of(angle(k / half, k % half).cos()))
        .collect();
    let sin: Vec<F> = (0..t_len * half)
        .map(|k| F::of(angle(k / half, k % half).sin()))
        .collect();
    rows_stats(out, hd, |r, row| {
        let at = r % t_len.max(1) * half;
        let (x1, x2) = row[..2 * half].split_at_mut(half);
        for i in 0..half {
            let (a, b, c, s) = (x1[i], x2[i], cos[at + i], sin[at + i]);
            x1[i] = a * c - b * s;
            x2[i] = b * c + a * s;
        }
    })
}
