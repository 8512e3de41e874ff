//! Splitting and merging heads: by strides where the memory allows, by a
//! copy with the stats on the way where it does not; and the products of
//! each head, one op at a time.

use super::{CHECKED, Scalar, flat, kernels, matmul, moments, slice_mut};
use crate::ops::Stats;
use ndarray::{ArrayD, ArrayViewD, ArrayViewMut2, IxDyn, s};

/// x read as (A, B, C, D), row-major, copied as (A, C, B, D) into a new
/// array of `shape`, one (B, D) slab at a time, with the stats on the way:
/// the transpose of merging heads.
pub(super) fn swap_middle<F: Scalar>(
    x: &ArrayD<F>,
    [a, b, c, d]: [usize; 4],
    shape: &[usize],
) -> (ArrayD<F>, Stats) {
    let src = flat(x);
    let mut y = ArrayD::zeros(IxDyn(&[a, c, b, d]));
    let stats = kernels::rows_stats(slice_mut(&mut y), b * d, |r, slab| {
        let (ai, ci) = (r / c.max(1), r % c.max(1));
        for (bi, row) in slab.chunks_exact_mut(d.max(1)).enumerate() {
            let at = ((ai * b + bi) * c + ci) * d;
            row.copy_from_slice(&src[at..at + d]);
        }
    });
    (y.into_shape_with_order(IxDyn(shape)).expect(CHECKED), stats)
}

/// (B,T,h·hd) → (B,T,h,hd) → (B,h,T,hd) of a row-major `x`, by strides
/// alone: the values stay where they are and the per-head products read
/// them in place.
pub(super) fn split_heads<F: Scalar>(x: ArrayD<F>, out: &[usize]) -> ArrayD<F> {
    x.into_shape_with_order(IxDyn(&[out[0], out[2], out[1], out[3]]))
        .expect(CHECKED)
        .permuted_axes(IxDyn(&[0, 2, 1, 3]))
}

/// (B,h,T,hd) → (B,T,h·hd) of an `x` whose memory already holds the heads
/// side by side (the fused attention's context): a reshape, no copy.
/// `Err(x)` when its memory is laid out otherwise.
pub(super) fn merge_in_place<F: Scalar>(
    x: ArrayD<F>,
    out: &[usize],
) -> Result<ArrayD<F>, ArrayD<F>> {
    let swapped = IxDyn(&[0, 2, 1, 3]);
    if x.ndim() != 4 || !x.view().permuted_axes(swapped.clone()).is_standard_layout() {
        return Err(x);
    }
    Ok(x.permuted_axes(swapped)
        .into_shape_with_order(IxDyn(out))
        .expect(CHECKED))
}

/// `view` (any strides) copied into a new row-major array of `shape`.
pub(super) fn relayout<F: Scalar>(view: ArrayViewD<F>, shape: &[usize]) -> ArrayD<F> {
    let mut y = ArrayD::zeros(view.raw_dim());
    y.assign(&view);
    y.into_shape_with_order(IxDyn(shape)).expect(CHECKED)
}

/// `alpha · a[b,h] · c[b,h]` (with c transposed when `ct`) for every batch
/// and head of rank-4 arrays, written straight into the output; the heads
/// run in parallel, each product on one thread.
pub(super) fn per_head<F: Scalar>(
    mut y: ArrayD<F>,
    a: &ArrayD<F>,
    c: &ArrayD<F>,
    ct: bool,
    alpha: F,
) -> (ArrayD<F>, Stats) {
    let out = y.shape().to_vec();
    let heads = out[1];
    let size = out[2] * out[3];
    let one = |i: usize, yi: &mut [F]| {
        let (bi, hi) = (i / heads, i % heads);
        let ai = a.slice(s![bi, hi, .., ..]);
        let ci = c.slice(s![bi, hi, .., ..]);
        let ci = if ct { ci.reversed_axes() } else { ci };
        let mut yi = ArrayViewMut2::from_shape((out[2], out[3]), yi).expect(CHECKED);
        matmul::matmul(alpha, &ai, &ci, &mut yi, out[0] * heads == 1);
        moments::Moments::of(yi.as_slice().expect("a row-major chunk"))
    };
    let parts = kernels::map_rows(slice_mut(&mut y), size, true, one);
    (y, moments::Moments::total(parts))
}
