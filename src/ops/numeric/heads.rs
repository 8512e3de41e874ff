//! Splitting and merging heads: by strides where the memory allows, by a
//! copy with the stats on the way where it does not.

use super::{CHECKED, Scalar, flat, kernels, slice_mut};
use crate::ops::Stats;
use ndarray::{ArrayD, ArrayViewD, IxDyn};

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
