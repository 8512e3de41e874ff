//! A mixture of experts' routing, numerically: the top-k choice, its
//! renormalised weights, each expert's batch of tokens and the weighted
//! combine back onto the tokens.
//!
//! # Shapes
//! - probs: (B, T, E); ids, weights: (B, T, k)
//! - dispatch: x (B, T, d) → (n_e, d), the tokens that chose expert e, in
//!   token order (at most `capacity` of them)
//! - combine: ids, weights, y_e (n_e, d) for every e → (B, T, d); or the
//!   experts' rows packed in expert order, (B·T·k, d)
//! - all-to-all parts: a device's rows for each device's expert, and the
//!   experts' outputs cut back into each device's rows
//!
//! Dispatch and combine walk the tokens in the same order, so row r of
//! expert e's batch is the r-th token that chose e in both.

use super::Scalar;
use ndarray::{ArrayBase, ArrayD, Data, IxDyn};

/// The `k` largest entries of each row of `probs` (…, E), largest first
/// (ties to the lower index), as expert ids (…, k).
pub(super) fn top_k<F: Scalar>(probs: &ArrayD<F>, k: usize, out: &[usize]) -> ArrayD<F> {
    let e = probs.shape().last().copied().unwrap_or(0);
    let rows = probs.as_standard_layout();
    let flat = rows.as_slice().unwrap_or(&[]);
    let mut ids = Vec::with_capacity(flat.len() / e.max(1) * k);
    for row in flat.chunks_exact(e.max(1)) {
        let mut order: Vec<usize> = (0..e).collect();
        // Stable: equal probabilities keep the lower expert first.
        order.sort_by(|&a, &b| row[b].f64().total_cmp(&row[a].f64()));
        ids.extend(order[..k].iter().map(|&i| F::of(i as f64)));
    }
    ArrayD::from_shape_vec(IxDyn(out), ids).unwrap_or_else(|_| ArrayD::zeros(IxDyn(out)))
}

/// The chosen probabilities of each token over their sum: probs (…, E),
/// ids (…, k) → (…, k).
pub(super) fn route_weights<F: Scalar>(probs: &ArrayD<F>, ids: &ArrayD<F>) -> ArrayD<F> {
    let e = probs.shape().last().copied().unwrap_or(1).max(1);
    let k = ids.shape().last().copied().unwrap_or(1).max(1);
    let (p, i) = (probs.as_standard_layout(), ids.as_standard_layout());
    let (p, i) = (p.as_slice().unwrap_or(&[]), i.as_slice().unwrap_or(&[]));
    let mut w = Vec::with_capacity(i.len());
    for (row, chosen) in p.chunks_exact(e).zip(i.chunks_exact(k)) {
        // An id outside 0..E (never from top_k) picks NaN, caught by `finite`.
        let picked: Vec<f64> = chosen
            .iter()
            .map(|&j| row.get(expert(j)).map_or(f64::NAN, |p| p.f64()))
            .collect();
        let sum: f64 = picked.iter().sum();
        w.extend(picked.iter().map(|v| F::of(v / sum)));
    }
    ArrayD::from_shape_vec(IxDyn(ids.shape()), w).unwrap_or_else(|_| ids.clone())
}

/// The tokens (flat index b·T + t) that chose `e`, in token order, at
/// most `capacity` of them.
fn routed<F: Scalar>(ids: &[F], k: usize, e: usize, capacity: Option<usize>) -> Vec<usize> {
    let tokens = ids
        .chunks_exact(k.max(1))
        .enumerate()
        .filter(|(_, chosen)| chosen.iter().any(|&j| expert(j) == e))
        .map(|(t, _)| t);
    tokens.take(capacity.unwrap_or(usize::MAX)).collect()
}

/// The rows of x (B, T, d) whose tokens chose expert `e`: (n_e, d).
pub(super) fn dispatch<F: Scalar, S: Data<Elem = F>, T: Data<Elem = F>>(
    x: &ArrayBase<S, IxDyn>,
    ids: &ArrayBase<T, IxDyn>,
    e: usize,
    capacity: Option<usize>,
) -> ArrayD<F> {
    let d = x.shape().last().copied().unwrap_or(0);
    let k = ids.shape().last().copied().unwrap_or(1);
    let (x, ids) = (x.as_standard_layout(), ids.as_standard_layout());
    let (x, ids) = (x.as_slice().unwrap_or(&[]), ids.as_slice().unwrap_or(&[]));
    let tokens = routed(ids, k, e, capacity);
    let rows: Vec<F> = tokens
        .iter()
        .flat_map(|&t| x[t * d..(t + 1) * d].iter().copied())
        .collect();
    ArrayD::from_shape_vec(IxDyn(&[tokens.len(), d]), rows)
        .unwrap_or_else(|_| ArrayD::zeros(IxDyn(&[0, d])))
}

/// y (B, T, d) = Σ over each token's chosen experts of weight · that
/// expert's row for the token; a token an expert dropped gets nothing
/// from it.
pub(super) fn combine<F: Scalar>(
    ids: &ArrayD<F>,
    weights: &ArrayD<F>,
    ys: &[&ArrayD<F>],
    capacity: Option<usize>,
    out: &[usize],
) -> ArrayD<F> {
    let d = out.last().copied().unwrap_or(0);
    let k = ids.shape().last().copied().unwrap_or(1).max(1);
    let (ids, w) = (ids.as_standard_layout(), weights.as_standard_layout());
    let (ids, w) = (ids.as_slice().unwrap_or(&[]), w.as_slice().unwrap_or(&[]));
    let mut y = vec![0.0f64; out.iter().product()];
    for (e, rows) in ys.iter().enumerate() {
        let rows = rows.as_standard_layout();
        let rows = rows.as_slice().unwrap_or(&[]);
        for (r, t) in routed(ids, k, e, capacity).into_iter().enumerate() {
            let slot = ids[t * k..(t + 1) * k].iter().position(|&j| expert(j) == e);
            let weight = slot.map_or(0.0, |s| w[t * k + s].f64());
            // An expert that gave fewer rows than were routed to it (never
            // from dispatch) leaves those tokens NaN, caught by `finite`.
            let src = rows.get(r * d..(r + 1) * d);
            for (i, o) in y[t * d..(t + 1) * d].iter_mut().enumerate() {
                *o += src.map_or(f64::NAN, |src| weight * src[i].f64());
            }
        }
    }
    let y: Vec<F> = y.into_iter().map(F::of).collect();
    ArrayD::from_shape_vec(IxDyn(out), y).unwrap_or_else(|_| ArrayD::zeros(IxDyn(out)))
}

/// The per-expert outputs packed in expert order, (Σ n_e, d), cut into
/// each expert's rows: expert e's are the next as many rows as tokens of
/// `ids` chose it.
pub(super) fn unpack<F: Scalar>(
    ids: &ArrayD<F>,
    packed: &ArrayD<F>,
    experts: usize,
) -> Vec<ArrayD<F>> {
    let k = ids.shape().last().copied().unwrap_or(1).max(1);
    let ids = ids.as_standard_layout();
    let ids = ids.as_slice().unwrap_or(&[]);
    let mut from = 0;
    (0..experts)
        .map(|e| {
            let n = routed(ids, k, e, None).len();
            let rows = rows(packed, from, n);
            from += n;
            rows
        })
        .collect()
}

/// Rows `from..from + n` of x (R, d), as far as x has them.
pub(super) fn rows<F: Scalar, S: Data<Elem = F>>(
    x: &ArrayBase<S, IxDyn>,
    from: usize,
    n: usize,
) -> ArrayD<F> {
    let r = x.shape().first().copied().unwrap_or(0);
    let (lo, hi) = (from.min(r), (from + n).min(r));
    x.slice_axis(ndarray::Axis(0), ndarray::Slice::from(lo..hi))
        .to_owned()
}

/// How many experts `ids` (…, k) could name: one past the largest id.
pub(super) fn experts_named<F: Scalar>(ids: &ArrayD<F>) -> usize {
    ids.iter()
        .map(|&j| expert(j))
        .filter(|&e| e != usize::MAX)
        .max()
        .map_or(0, |e| e + 1)
}

/// An expert id held as a float (exact: E is far below 2²⁴); a NaN or
/// negative id is no expert's (`usize::MAX`).
fn expert<F: Scalar>(j: F) -> usize {
    let v = j.f64();
    if v.is_nan() || v < 0.0 {
        return usize::MAX;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let e = v as usize;
    e
}
