//! Attention's core in one pass over row tiles of each head: the scores
//! q·kᵀ/√hd and their stats, the exps and the weights' stats, and the
//! weighted sum of the exps, while the tile is in cache; each context row is
//! then multiplied by one over its exps' sum. No (B, h, T, S) tensor is
//! built: the trace keeps only stats of tensors that large. The context's
//! stats are one pass over it at the end.

use super::moments::{Moments, stats};
use super::softmax::softmax_parts;
use super::{CHECKED, Scalar, matmul::matmul};
use crate::ops::{Masking, Stats};
use ndarray::{Array4, ArrayD, ArrayView2, ArrayViewMut2, ArrayViewMut3, s};
use rayon::prelude::*;

/// Rows of one tile: a (ROWS, S) tile of f32 scores is 1 MiB at S = 1024,
/// half the L2 cache of the machine the README measures.
pub const ROWS: usize = 256;

/// What [`attention`] gives: the stats of the scores and of the weights,
/// the context and its stats.
pub struct Core<F> {
    /// Stats of the scores q·kᵀ/√hd, (B, h, T, S), before the mask.
    pub scores: Stats,
    /// Stats of the weights softmax(mask(scores)), (B, h, T, S).
    pub weights: Stats,
    /// The context weights·v, (B, h, T, hv).
    pub context: ArrayD<F>,
    /// Stats of the context.
    pub context_stats: Stats,
}

/// softmax(mask(q·kᵀ · scale))·v, head by head in parallel.
///
/// The context is written with the heads side by side, as merging them
/// lays it out, and handed back as a (B, h, T, hv) view of that memory: the
/// merge that follows is a reshape, with no copy.
///
/// # Shapes
/// - q: (B, h, T, hd), k: (B, h, S, hd), v: (B, h, S, hv), any strides
/// - context: (B, h, T, hv), held in (B, T, h, hv) row-major memory
pub fn attention<F: Scalar>(
    q: &ArrayD<F>,
    k: &ArrayD<F>,
    v: &ArrayD<F>,
    scale: F,
    mask: Masking,
) -> Core<F> {
    let (b, h, t) = (q.shape()[0], q.shape()[1], q.shape()[2]);
    let (len, hv) = (k.shape()[2], v.shape()[3]);
    // Read here, on the caller's thread: a test's broken bound, 0 else.
    let short = broken::tile_bound();
    let mut merged = Array4::zeros((b, t, h, hv));
    // One head has both cores to itself; many share them a head each.
    let threads = b * h == 1;
    // A (ROWS, S) tile of scores, reused by every head a thread runs.
    let new_tile = || vec![F::zero(); ROWS * len];
    let head = |tile: &mut Vec<F>, (i, mut out): (usize, ArrayViewMut2<F>)| {
        let (bi, hi) = (i / h.max(1), i % h.max(1));
        let qi = q.slice(s![bi, hi, .., ..]);
        let kt = k.slice(s![bi, hi, .., ..]).reversed_axes(); // (hd, S)
        let vi = v.slice(s![bi, hi, .., ..]); // (S, hv)
        let (mut sc, mut wt) = (Moments::EMPTY, Moments::EMPTY);
        for r0 in (0..t).step_by(ROWS) {
            let rows = ROWS.min(t - r0);
            let buf = &mut tile[..rows * len];
            let mut st = ArrayViewMut2::from_shape((rows, len), &mut *buf).expect(CHECKED);
            matmul(
                scale,
                &qi.slice(s![r0..r0 + rows, ..]),
                &kt,
                &mut st,
                threads,
            );
            // The tile holds each row's exps; the weights are exps · inv.
            let soft = softmax_parts(buf, t, len, mask, r0, false, false);
            // Row r0 + j, at position r0 + j + (S − T) (bottom right), weighs
            // keys up to its position; past the tile's last row every
            // weight is an exact 0, so those keys are skipped.
            let behind = if mask == Masking::TopLeft {
                0
            } else {
                len.saturating_sub(t)
            };
            let live = if mask.masks() {
                (r0 + rows + behind).min(len) - short
            } else {
                len
            };
            let w = ArrayView2::from_shape((rows, len), &*buf).expect(CHECKED);
            let mut ct = out.slice_mut(s![r0..r0 + rows, ..]); // (rows, hv), rows h·hv apart
            matmul(
                F::one(),
                &w.slice(s![.., ..live]),
                &vi.slice(s![..live, ..]),
                &mut ct,
                threads,
            );
            for (mut c, row) in ct.rows_mut().into_iter().zip(soft) {
                c.map_inplace(|v| *v *= row.inv);
                sc = Moments::merge(sc, row.scores);
                wt = Moments::merge(wt, row.weights);
            }
        }
        (sc, wt)
    };
    // (B, T, h, hv) seen as (B, h, T, hv): one (T, hv) view a head.
    let heads: Vec<ArrayViewMut2<F>> = merged
        .view_mut()
        .permuted_axes([0, 2, 1, 3])
        .into_outer_iter_mut()
        .flat_map(ArrayViewMut3::into_outer_iter_mut)
        .collect();
    let parts: Vec<_> = if b * h > 1 {
        // A tile for each job rayon splits off, reused by its heads.
        let parts = heads.into_par_iter().enumerate();
        parts.map_init(new_tile, head).collect()
    } else {
        let mut tile = new_tile();
        let parts = heads.into_iter().enumerate();
        parts.map(|x| head(&mut tile, x)).collect()
    };
    let (sc, wt): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
    let context_stats = stats(merged.as_slice().expect("a fresh array is row-major"));
    Core {
        scores: Moments::total(sc),
        weights: Moments::total(wt),
        context: merged.permuted_axes([0, 2, 1, 3]).into_dyn(),
        context_stats,
    }
}

/// A wrong tile bound a test may turn on, to see `reference` fail: the
/// weighted sum of a masked tile then stops one key short, dropping the
/// last row's own key. Only in the library's unit tests; always 0 else.
#[cfg(test)]
pub(crate) mod broken {
    use std::cell::Cell;

    thread_local! {
        static SHORT: Cell<bool> = const { Cell::new(false) };
    }

    /// Keys the masked tiles of attention on this thread stop short: 1
    /// while a [`Short`] lives, else 0.
    pub(crate) fn tile_bound() -> usize {
        SHORT.with(|s| usize::from(s.get()))
    }

    /// While it lives, fused attention on this thread stops one key short.
    pub(crate) struct Short;

    impl Short {
        /// Turns the broken bound on for this thread.
        pub(crate) fn on() -> Self {
            SHORT.with(|s| s.set(true));
            Self
        }
    }

    impl Drop for Short {
        fn drop(&mut self) {
            SHORT.with(|s| s.set(false));
        }
    }
}

/// Outside the unit tests the tile bound is never broken.
#[cfg(not(test))]
mod broken {
    /// 0: the bound as written.
    #[inline(always)]
    pub(super) const fn tile_bound() -> usize {
        0
    }
}
