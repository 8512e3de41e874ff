//! The linear layer (alone, or with its activation in one pass) and the
//! norms, on whole tensors.

use super::act::{gelu, gelu_tanh, relu, silu, tanh};
use super::heads::relayout;
use super::{CHECKED, Scalar, flat, kernels, matmul, slice_mut};
use crate::config::NormKind;
use crate::ops::{NormAxis, Stats, Unary};
use ndarray::{ArrayD, ArrayViewD, Ix2, IxDyn};

/// x (…, k) · W (k, n) + b (n) → (…, n), as one (rows, k) · (k, n) product.
pub(super) fn linear<F: Scalar>(
    x: &ArrayD<F>,
    w: &ArrayViewD<F>,
    b: Option<&ArrayViewD<F>>,
    out: &[usize],
) -> (ArrayD<F>, Option<Stats>) {
    let mut y = product(x, w, out);
    let stats = b.map(|b| {
        let b = flat(b);
        kernels::rows_stats(slice_mut(&mut y), b.len(), |_, r| add_to(r, &b))
    });
    (y, stats)
}

/// x (…, k) · W (k, n) → (…, n), as one (rows, k) · (k, n) product.
pub(super) fn product<F: Scalar>(x: &ArrayD<F>, w: &ArrayViewD<F>, out: &[usize]) -> ArrayD<F> {
    let k = w.shape()[0];
    let x2 = x.to_shape((x.len() / k.max(1), k)).expect(CHECKED);
    let w2 = w.view().into_dimensionality::<Ix2>().expect(CHECKED);
    let y = matmul::product(F::one(), &x2.view(), &w2, true);
    y.into_shape_with_order(IxDyn(out)).expect(CHECKED)
}

/// `r += b`, value by value.
#[inline(always)]
pub(super) fn add_to<F: Scalar>(r: &mut [F], b: &[F]) {
    r.iter_mut().zip(b).for_each(|(v, &b)| *v += b);
}

/// `act(x·W + b)` as [`linear`] and then [`unary`], with the bias, the
/// activation and both stats in one pass over each row of the product.
pub(super) fn linear_act<F: Scalar>(
    x: &ArrayD<F>,
    w: &ArrayViewD<F>,
    b: Option<&ArrayViewD<F>>,
    out: &[usize],
    u: Unary,
) -> (ArrayD<F>, Stats, Stats) {
    let mut y = product(x, w, out);
    let (n, b) = (out[out.len() - 1], b.map(flat));
    let bias = |_: usize, r: &mut [F]| {
        if let Some(b) = &b {
            add_to(r, b);
        }
    };
    let ys = slice_mut(&mut y);
    let (pre, post) = match u {
        Unary::Relu => kernels::rows_stats_then(ys, n, bias, relu),
        Unary::Gelu => kernels::rows_stats_then(ys, n, bias, gelu),
        Unary::GeluTanh => kernels::rows_stats_then(ys, n, bias, gelu_tanh),
        Unary::Silu => kernels::rows_stats_then(ys, n, bias, silu),
        Unary::Tanh => kernels::rows_stats_then(ys, n, bias, tanh),
    };
    (y, pre, post)
}

pub(super) fn norm<F: Scalar>(
    x: &ArrayD<F>,
    kind: NormKind,
    axis: NormAxis,
    eps: f64,
    g: &ArrayViewD<F>,
    b: Option<&ArrayViewD<F>>,
) -> (ArrayD<F>, Option<Stats>) {
    let (g, b) = (flat(g), b.map(flat));
    // Gemma's RMSNorm stores w and scales by 1 + w.
    let (kind, g) = match kind {
        NormKind::RmsNormPlusOne => {
            let one: Vec<F> = g.iter().map(|w| F::one() + *w).collect();
            (NormKind::RmsNorm, std::borrow::Cow::Owned(one))
        }
        kind => (kind, g),
    };
    match axis {
        NormAxis::Feature => {
            // Into a fresh buffer: the input is read once, not copied first.
            let mut y = ArrayD::zeros(x.raw_dim());
            let (x, eps) = (flat(x), F::of(eps));
            let stats = kernels::norm_rows(&x, slice_mut(&mut y), kind, eps, &g, b.as_deref());
            (y, Some(stats))
        }
        // The norm-over-seq fault: normalise each (b, ·, j) column over T,
        // as rows of the tensor permuted to (B, d, T), then permute back.
        NormAxis::Seq => (
            across(x, [0, 2, 1], [0, 2, 1], kind, eps, &g, b.as_deref()),
            None,
        ),
        // The norm-over-batch fault: normalise each (·, t, j) column over B,
        // as rows of the tensor permuted to (T, d, B), then permute back.
        NormAxis::Batch => (
            across(x, [1, 2, 0], [2, 0, 1], kind, eps, &g, b.as_deref()),
            None,
        ),
    }
}

/// A norm of x (B, T, d) over the axis `to` puts last: rows of x permuted
/// by `to`, normalised, permuted back by `back`, then `· γ + β` on d.
fn across<F: Scalar>(
    x: &ArrayD<F>,
    to: [usize; 3],
    back: [usize; 3],
    kind: NormKind,
    eps: f64,
    g: &[F],
    b: Option<&[F]>,
) -> ArrayD<F> {
    let shape = x.shape().to_vec();
    let rows = relayout(x.view().permuted_axes(IxDyn(&to)), &to.map(|a| shape[a]));
    let n = shape[to[2]];
    let mut y = ArrayD::zeros(rows.raw_dim());
    let ones = vec![F::one(); n];
    kernels::norm_rows(
        &flat(&rows),
        slice_mut(&mut y),
        kind,
        F::of(eps),
        &ones,
        None,
    );
    let mut y = relayout(y.view().permuted_axes(IxDyn(&back)), &shape);
    let d = shape[2];
    kernels::rows_mut(slice_mut(&mut y), d, |_, r| {
        for (j, v) in r.iter_mut().enumerate() {
            *v = *v * g[j] + b.map_or(F::zero(), |b| b[j]);
        }
    });
    y
}
