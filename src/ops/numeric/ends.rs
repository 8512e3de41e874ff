//! The two ends of a language model and the casts between dtypes: the
//! token and position embeddings, the tied LM head, and rounding to bf16
//! or f16.

use super::{CHECKED, Scalar, matmul};
use crate::config::DType;
use ndarray::{ArrayD, ArrayViewD, Axis, Ix2, IxDyn, s};

/// `wte[ids]`: row `ids[b, t]` of the table for every token.
///
/// # Shapes
/// - ids: (B, T), whole numbers in 0..V; table: (V, d) → (B, T, d)
pub(super) fn gather<F: Scalar>(
    ids: &ArrayD<F>,
    table: &ArrayViewD<F>,
    out: &[usize],
) -> ArrayD<F> {
    let table = table.view().into_dimensionality::<Ix2>().expect(CHECKED);
    let (v, d) = table.dim();
    let mut y = Vec::with_capacity(ids.len() * d);
    for id in ids {
        // The run refuses ids outside 0..V before the trace; a row of NaN
        // would be caught by `finite` if one ever came through.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let i = id.f64() as usize;
        if i < v && id.f64() >= 0.0 {
            y.extend(table.row(i).iter().copied());
        } else {
            y.extend(std::iter::repeat_n(F::nan(), d));
        }
    }
    ArrayD::from_shape_vec(IxDyn(out), y).expect(CHECKED)
}

/// `table[id − from]` for the ids this device's rows `from..from + V/N`
/// hold, a row of zeros for every other id: one device's part of a
/// vocabulary-parallel lookup.
///
/// # Shapes
/// - ids: (B, T); table: (V/N, d) → (B, T, d)
pub(super) fn gather_part<F: Scalar>(
    ids: &ArrayD<F>,
    table: &ArrayViewD<F>,
    from: usize,
    masks: bool,
    out: &[usize],
) -> ArrayD<F> {
    let table = table.view().into_dimensionality::<Ix2>().expect(CHECKED);
    let (rows, d) = table.dim();
    let mut y = Vec::with_capacity(ids.len() * d);
    for id in ids {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let i = id.f64() as usize;
        match i.checked_sub(from).filter(|&r| r < rows && id.f64() >= 0.0) {
            Some(r) => y.extend(table.row(r).iter().copied()),
            None if masks => y.extend(std::iter::repeat_n(F::zero(), d)),
            // vocab-no-mask: the id masked to row 0, its vector kept.
            None => y.extend(table.row(0).iter().copied()),
        }
    }
    ArrayD::from_shape_vec(IxDyn(out), y).expect(CHECKED)
}

/// `x` with zeros after it along `axis`, up to `out`'s size there.
///
/// # Shapes
/// - x: (…, n, …) → (…, to, …)
pub(super) fn pad<F: Scalar>(x: &ArrayD<F>, axis: usize, out: &[usize]) -> ArrayD<F> {
    let mut y = ArrayD::zeros(IxDyn(out));
    let n = x.shape()[axis];
    y.slice_axis_mut(ndarray::Axis(axis), ndarray::Slice::from(0..n))
        .assign(x);
    y
}

/// `wpe[offset..offset + t]`: `t` rows, one per position, after the
/// `offset` rows before position 0 (OPT's 2).
///
/// # Shapes
/// - wpe: (context + offset, d) → (t, d)
pub(super) fn positions<F: Scalar>(wpe: &ArrayViewD<F>, offset: usize, t: usize) -> ArrayD<F> {
    wpe.slice(s![offset..offset + t, ..]).to_owned().into_dyn()
}

/// `tok_emb + pos_emb`, the positions broadcast over the batch.
///
/// # Shapes
/// - tok: (B, T, d), pos: (T, d) → (B, T, d)
pub(super) fn add_positions<F: Scalar>(tok: &ArrayD<F>, pos: &ArrayD<F>) -> ArrayD<F> {
    let mut y = tok.as_standard_layout().into_owned();
    for mut row in y.axis_iter_mut(Axis(0)) {
        row += pos;
    }
    y
}

/// The tied head: `x·wteᵀ`, the token embedding read transposed, so no
/// (d, V) copy is made.
///
/// # Shapes
/// - x: (B, T, d), wte: (V, d) → (B, T, V)
pub(super) fn lm_head_tied<F: Scalar>(
    x: &ArrayD<F>,
    wte: &ArrayViewD<F>,
    out: &[usize],
) -> ArrayD<F> {
    let d = wte.shape()[1];
    let x = x.as_standard_layout();
    let x2 = x
        .view()
        .into_shape_with_order((x.len() / d.max(1), d))
        .expect(CHECKED);
    let w = wte.view().into_dimensionality::<Ix2>().expect(CHECKED);
    let y = matmul::product(F::one(), &x2, &w.t(), true);
    y.into_shape_with_order(IxDyn(out)).expect(CHECKED)
}

/// The values rounded to `to`, as a framework stores them: bf16 keeps 8
/// significant bits and f32's range, f16 11 bits and a range up to 65504.
pub(super) fn cast<F: Scalar>(mut y: ArrayD<F>, to: DType) -> ArrayD<F> {
    #[allow(clippy::cast_possible_truncation)]
    let round: fn(f64) -> f64 = match to {
        DType::BF16 => |v| f64::from(half::bf16::from_f32(v as f32).to_f32()),
        DType::F16 => |v| f64::from(half::f16::from_f32(v as f32).to_f32()),
        DType::F32 => |v| f64::from(v as f32),
        DType::F64 | DType::I64 => return y,
    };
    y.mapv_inplace(|v| F::of(round(v.f64())));
    y
}

/// Columns `lo..hi` of every `period` of the last axis, side by side: a
/// fused projection's q, k, v (or gate, up), in one copy.
///
/// # Shapes
/// - x: (…, W) → (…, (hi − lo)·W/period)
pub(super) fn columns<F: Scalar>(
    x: &ArrayD<F>,
    lo: usize,
    hi: usize,
    period: usize,
    out: &[usize],
) -> ArrayD<F> {
    let w = x.shape().last().copied().unwrap_or(0);
    let x = x.as_standard_layout();
    let rows = x.as_slice().expect(CHECKED).chunks_exact(w.max(1));
    let mut y = Vec::with_capacity(out.iter().product());
    for row in rows {
        for block in row.chunks_exact(period) {
            y.extend_from_slice(&block[lo..hi]);
        }
    }
    ArrayD::from_shape_vec(IxDyn(out), y).expect(CHECKED)
}

/// Row `id` of wtt for every token: BERT's token types, all `id`.
///
/// # Shapes
/// - wtt: (types, d) → (B, T, d)
pub(super) fn token_type<F: Scalar>(wtt: &ArrayViewD<F>, id: usize, out: &[usize]) -> ArrayD<F> {
    let row = wtt.slice(s![id, ..]);
    let mut y = ArrayD::zeros(IxDyn(out));
    for mut r in y.rows_mut() {
        r.assign(&row);
    }
    y
}

/// Each sequence's first token, as BERT's pooler reads it.
///
/// # Shapes
/// - x: (B, T, d) → (B, d)
pub(super) fn first_token<F: Scalar>(x: &ArrayD<F>) -> ArrayD<F> {
    x.slice(s![.., 0, ..]).to_owned().into_dyn()
}

/// The key/value cache after writing `new`'s n rows at positions from
/// `at` on: the cache's rows kept, row i written to slot at + i, or to
/// slot (at + i) mod w in a ring of w slots under a sliding window of w,
/// where a later position overwrites the one w before it.
///
/// # Shapes
/// - cache: (B, kv, S, hd) or none; new: (B, kv, n, hd) → out (B, kv, S', hd)
pub(super) fn kv_cache<F: Scalar>(
    cache: Option<&ArrayD<F>>,
    new: &ArrayD<F>,
    (window, at): (Option<usize>, usize),
    out: &[usize],
) -> ArrayD<F> {
    let mut y = ArrayD::zeros(IxDyn(out));
    if let Some(c) = cache {
        let held = c.shape()[2];
        y.slice_mut(s![.., .., ..held, ..]).assign(c);
    }
    for i in 0..new.shape()[2] {
        let p = at + i;
        let slot = window.map_or(p, |w| p % w.max(1));
        y.slice_mut(s![.., .., slot, ..])
            .assign(&new.slice(s![.., .., i, ..]));
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn a_devices_part_of_the_lookup_is_its_rows_and_zeros_elsewhere() {
        // Rows 2..4 of a vocabulary of 4: ids 2 and 3 are this device's.
        let part = array![[20.0f32, 21.0], [30.0, 31.0]].into_dyn();
        let ids = array![[3.0f32, 0.0, 2.0]].into_dyn();
        let y = gather_part(&ids, &part.view(), 2, true, &[1, 3, 2]);
        assert_eq!(
            y.iter().copied().collect::<Vec<_>>(),
            [30.0, 31.0, 0.0, 0.0, 20.0, 21.0]
        );
        // Unmasked, id 0 (another device's) takes this device's row 0.
        let y = gather_part(&ids, &part.view(), 2, false, &[1, 3, 2]);
        assert_eq!(y.iter().nth(2), Some(&20.0));
        let padded = pad(&part, 0, &[3, 2]);
        assert_eq!(
            padded.iter().copied().collect::<Vec<_>>(),
            [20.0, 21.0, 30.0, 31.0, 0.0, 0.0]
        );
    }

    #[test]
    fn gather_takes_each_ids_row() {
        let wte = array![[0.0f32, 1.0], [10.0, 11.0], [20.0, 21.0]].into_dyn();
        let ids = array![[2.0f32, 0.0]].into_dyn();
        let y = gather(&ids, &wte.view(), &[1, 2, 2]);
        assert_eq!(
            y.iter().copied().collect::<Vec<_>>(),
            [20.0, 21.0, 0.0, 1.0]
        );
        // An id past V gives NaN, never a panic.
        let y = gather(&array![[3.0f32]].into_dyn(), &wte.view(), &[1, 1, 2]);
        assert!(y.iter().all(|v| v.is_nan()));
    }

    #[test]
    fn the_tied_head_reads_wte_transposed() {
        let wte = array![[1.0f32, 0.0], [0.0, 1.0], [1.0, 1.0]].into_dyn();
        let x = array![[[2.0f32, 3.0]]].into_dyn();
        let y = lm_head_tied(&x, &wte.view(), &[1, 1, 3]);
        assert_eq!(y.iter().copied().collect::<Vec<_>>(), [2.0, 3.0, 5.0]);
    }

    #[test]
    fn casts_round_to_the_target_precision() {
        let x = array![1.0f32 + 1.0 / 512.0, 70000.0].into_dyn();
        let bf = cast(x.clone(), DType::BF16);
        // bf16 keeps 8 significant bits: 1 + 2⁻⁹ rounds to 1.
        assert_eq!(bf[0], 1.0);
        let h = cast(x, DType::F16);
        assert_eq!(h[0], 1.0 + 1.0 / 512.0);
        assert!(h[1].is_infinite(), "70000 is past f16's 65504");
    }

    #[test]
    fn a_ring_cache_writes_position_p_to_slot_p_mod_w_and_stops_growing() {
        // Rows hold their position: row p of new is p, every value.
        let rows = |from: usize, n: usize| {
            ndarray::Array::from_shape_fn((1, 1, n, 2), |(_, _, t, _)| (from + t) as f64).into_dyn()
        };
        // The prefill of 5 positions into a ring of 2: slots hold 4, 3.
        let ring = super::kv_cache(None, &rows(0, 5), (Some(2), 0), &[1, 1, 2, 2]);
        assert_eq!(
            ring.iter().step_by(2).copied().collect::<Vec<_>>(),
            [4.0, 3.0]
        );
        // Position 5 overwrites position 3, in slot 1.
        let next = super::kv_cache(Some(&ring), &rows(5, 1), (Some(2), 5), &[1, 1, 2, 2]);
        assert_eq!(
            next.iter().step_by(2).copied().collect::<Vec<_>>(),
            [4.0, 5.0]
        );
        // Without a window the cache appends: 0..5, then 5.
        let all = super::kv_cache(None, &rows(0, 5), (None, 0), &[1, 1, 5, 2]);
        let grown = super::kv_cache(Some(&all), &rows(5, 1), (None, 5), &[1, 1, 6, 2]);
        let want: Vec<f64> = (0..6).map(f64::from).collect();
        assert_eq!(grown.iter().step_by(2).copied().collect::<Vec<_>>(), want);
    }
}
