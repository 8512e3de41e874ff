//! Softmax over the last axis of a (…, T, S) tensor, masked as a
//! [`Masking`] says (row t reads `mask.keys(t, S)`), and the stats of its input (the scores) and its output
//! (the weights), taken in the passes that compute each row.

use super::Scalar;
use super::kernels::map_rows;
use super::moments::Moments;
use super::simd::{LANES, blocks_mut, fold_lanes, vectorised};
use crate::ops::{Masking, Stats};

/// One row of a softmax: the moments of its scores and of its weights, and
/// `inv`, one over the sum of its exps, which turns the exps into weights.
#[derive(Clone, Copy)]
pub struct Row<F> {
    pub scores: Moments,
    pub weights: Moments,
    pub inv: F,
}

/// Softmax of each row of a (…, T, S) tensor, in place; row t keeps the
/// keys `mask.keys(t, S)` and the rest are 0. Returns the weights' stats.
pub fn softmax_rows<F: Scalar>(out: &mut [F], t_len: usize, s_len: usize, mask: Masking) -> Stats {
    let rows = softmax_parts(out, t_len, s_len, mask, 0, true, true);
    Moments::total(rows.into_iter().map(|r| r.weights))
}

/// The `softmax-no-max` fault's softmax of each row, in place: `e^s / Σ e^s`
/// on the raw scores, without subtracting the row's maximum, masked keys
/// 0. In f32 e^s is +∞ past s ≈ 88.7, and then ∞/∞ is NaN; the stable
/// [`softmax_rows`] takes e^(s − max) ≤ 1 and gives the same weights
/// wherever this one does not overflow. Returns the weights' stats.
pub fn naive_rows<F: Scalar>(out: &mut [F], t_len: usize, s_len: usize, mask: Masking) -> Stats {
    for (i, r) in out.chunks_mut(s_len.max(1)).enumerate() {
        let keys = mask.keys(i % t_len.max(1), t_len, r.len());
        let (before, rest) = r.split_at_mut(keys.start);
        let (live, masked) = rest.split_at_mut(keys.len());
        before.fill(F::zero());
        let mut sum = F::zero();
        for v in live.iter_mut() {
            *v = v.exp(); // no max subtracted: +∞ past ≈ 88.7 in f32
            sum += *v;
        }
        for v in live.iter_mut() {
            *v = *v / sum;
        }
        masked.fill(F::zero());
    }
    super::moments::stats(out)
}

/// The rows of [`softmax_rows`], from row `first` of their (…, T, S)
/// tensor on (a row tile needs its rows' place for the mask).
///
/// With `normalise` false a row keeps its exps, e^(x − max) with masked
/// keys 0, and the caller multiplies by [`Row::inv`] later: attention
/// scales each context row (hv values) rather than each weight row (S).
/// The weights' moments are those of the normalised row either way.
pub fn softmax_parts<F: Scalar>(
    out: &mut [F],
    t_len: usize,
    s_len: usize,
    mask: Masking,
    first: usize,
    parallel: bool,
    normalise: bool,
) -> Vec<Row<F>> {
    map_rows(out, s_len, parallel, |i, r| {
        let keys = mask.keys((first + i) % t_len.max(1), t_len, r.len());
        // Keys before the window are masked as those after the query are.
        let (before, rest) = r.split_at_mut(keys.start);
        let row = exp_row(rest, keys.len(), normalise);
        let masked = Moments::zeros(before.len());
        let scores = Moments::merge(Moments::of_inline(before), row.scores);
        before.fill(F::zero());
        Row {
            scores,
            weights: Moments::merge(masked, row.weights),
            inv: row.inv,
        }
    })
}

vectorised! {
    /// The exps of the first `keep` values of `r` less their maximum, the
    /// rest set to 0, divided by their sum when `normalise`; the moments of
    /// the row's scores (read in the pass that finds the maximum) and of
    /// its weights (taken from the exps as they are made), [`vectorised!`].
    fn exp_row<F: Scalar>(r: &mut [F], keep: usize, normalise: bool) -> Row<F> {
        let (live, masked) = r.split_at_mut(keep);
        let seen = Moments::of_inline(live);
        let scores = Moments::merge(seen, Moments::of_inline(masked));
        // The largest live score (−∞ for none; NaN only through the exp).
        let max = F::of(seen.max());
        // The exps' moments are shifted by the first, K, as `Moments::of`:
        // nearly equal exps (attention near uniform) keep their spread.
        let shift = live.first().map_or(F::zero(), |&v| (v - max).exp_fast());
        let (mut lo, mut hi) = ([shift; LANES], [shift; LANES]);
        let (mut s1, mut s2, mut sum) = ([F::zero(); LANES], [F::zero(); LANES], [F::zero(); LANES]);
        // The padding of the last block (lanes n..) gathers nothing: it is
        // taken as K, neutral for lo, hi and the shifted sums, and left out
        // of the plain sum.
        blocks_mut(live, F::zero(), |b, n| {
            for l in 0..LANES {
                let e = (b[l] - max).exp_fast();
                let e = if l < n { e } else { shift };
                b[l] = e;
                lo[l] = if e < lo[l] { e } else { lo[l] };
                hi[l] = if e > hi[l] { e } else { hi[l] };
                let d = e - shift;
                s1[l] += d;
                s2[l] += d * d;
                sum[l] += if l < n { e } else { F::zero() };
            }
        });
        masked.fill(F::zero());
        // A row with no live key has no exps to scale: its weights are 0.
        let inv = if live.is_empty() {
            F::one()
        } else {
            fold_lanes(sum, |a, b| a + b).recip()
        };
        if normalise {
            for v in live.iter_mut() {
                *v *= inv;
            }
        }
        let exps = if live.is_empty() {
            Moments::EMPTY
        } else {
            Moments::from_lanes(keep, shift, lo, hi, s1, s2)
        };
        let weights = Moments::merge(exps, Moments::zeros(masked.len()));
        Row {
            scores,
            weights: weights.scaled(inv.f64()),
            inv,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Moments, exp_row, naive_rows, softmax_rows};
    use crate::ops::{Masking, Stats};

    /// Within f32 rounding of the values' range.
    fn close(a: Stats, b: Stats) -> bool {
        let scale = a.min.abs().max(a.max.abs());
        let near = |x: f64, y: f64| (x - y).abs() <= 1e-6 * scale;
        near(a.min, b.min) && near(a.max, b.max) && near(a.mean, b.mean) && near(a.std, b.std)
    }

    /// Rows left as exps are the softmax once times `inv`, and both ways
    /// report the moments of the normalised row, masked keys (0) included;
    /// the exps' own moments are not those, so the comparison can fail.
    #[test]
    fn exps_times_inv_are_the_weights_and_the_moments_are_the_weights() {
        let row: Vec<f32> = (0..37).map(|i| ((i * 7 % 11) as f32 - 5.0) * 0.7).collect();
        for keep in [1, 5, 16, 36, 37] {
            let (mut w, mut e) = (row.clone(), row.clone());
            let a = exp_row(&mut w, keep, true);
            let b = exp_row(&mut e, keep, false);
            assert_eq!(a.inv, b.inv, "keep {keep}");
            let scaled: Vec<f32> = e.iter().map(|v| v * b.inv).collect();
            assert_eq!(w, scaled, "keep {keep}");
            let sum: f32 = w.iter().sum();
            assert!(
                (sum - 1.0).abs() < 1e-6,
                "keep {keep}: weights sum to {sum}"
            );
            assert!(w[keep..].iter().all(|&v| v == 0.0), "keep {keep}");
            let read = Moments::total([Moments::of(&w)]);
            for got in [a.weights, b.weights] {
                assert!(close(Moments::total([got]), read), "keep {keep}");
            }
            let (scores, read_scores) = (
                Moments::total([a.scores]),
                Moments::total([Moments::of(&row)]),
            );
            assert!(
                close(scores, read_scores),
                "keep {keep}: {scores:?} against {read_scores:?}"
            );
            if keep > 1 {
                let exps = Moments::total([Moments::of(&e)]);
                assert!(!close(exps, read), "keep {keep}: exps pass for weights");
            }
        }
    }

    /// Nearly equal scores (attention near uniform) give nearly equal
    /// weights; their spread, a ten-thousandth of their mean, keeps four
    /// digits, where moments about 0 kept one.
    #[test]
    fn the_spread_of_nearly_uniform_weights_keeps_its_digits() {
        let row: Vec<f32> = (0..4096)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) * 2e-4)
            .collect();
        let mut w = row.clone();
        let got = Moments::total([exp_row(&mut w, 4096, true).weights]);
        let n = w.len() as f64;
        let mean = w.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        let var = w
            .iter()
            .map(|&v| (f64::from(v) - mean).powi(2))
            .sum::<f64>()
            / n;
        let rel = (got.std - var.sqrt()).abs() / var.sqrt();
        assert!(var.sqrt() < 1e-2 * mean, "the weights are nearly equal");
        assert!(
            rel < 1e-4,
            "std {} against {}: {rel:e}",
            got.std,
            var.sqrt()
        );
    }

    /// A row with no key kept has all-zero weights and nothing to scale;
    /// an empty row has no moments; a NaN score makes the weights NaN.
    #[test]
    fn rows_with_nothing_kept_or_a_nan_keep_their_meaning() {
        let mut r = vec![3.0_f32, -1.0];
        let none = exp_row(&mut r, 0, true);
        assert_eq!((r, none.inv), (vec![0.0, 0.0], 1.0));
        let w = Moments::total([none.weights]);
        assert_eq!(
            (w.min, w.max, w.mean, w.std, w.finite),
            (0.0, 0.0, 0.0, 0.0, true)
        );
        let empty = exp_row::<f32>(&mut [], 0, true);
        assert_eq!(Moments::total([empty.weights, none.weights]), w);
        let mut r = vec![0.5_f32, f32::NAN, 2.0];
        let nan = exp_row(&mut r, 3, true);
        assert!(!Moments::total([nan.weights]).finite);
        assert!(!Moments::total([nan.scores]).finite);
        // Causal rows over a whole tensor: 3 queries over 4 keys sit at
        // the last 3 positions, so row t (position t + 1) keeps t + 2 keys.
        let mut x: Vec<f32> = (0..12).map(|i| i as f32 * 0.1).collect();
        softmax_rows(&mut x, 3, 4, Masking::Causal);
        assert!(x[2..4].iter().all(|&v| v == 0.0) && x[0] < x[1]);
        assert!(x[4..8][3..].iter().all(|&v| v == 0.0) && x[4] < x[5]);
        assert!(x[8..12].iter().all(|&v| v > 0.0));
        // Aligned at the top left instead, row t keeps t + 1 keys.
        let mut x: Vec<f32> = (0..12).map(|i| i as f32 * 0.1).collect();
        softmax_rows(&mut x, 3, 4, Masking::TopLeft);
        assert_eq!(x[..4], [1.0, 0.0, 0.0, 0.0]);
        assert!(x[4..8][2..].iter().all(|&v| v == 0.0) && x[4] < x[5]);
    }

    /// A window of 2 keeps keys t−1 and t: row 0 keeps 1 key, rows 1..
    /// keep 2; the keys before the window are 0 as those after the query,
    /// and each row sums to 1. Causal rows would keep t + 1 keys.
    #[test]
    fn a_sliding_window_keeps_the_last_w_keys_of_each_row() {
        let x: Vec<f32> = (0..16).map(|i| (i % 5) as f32 * 0.3).collect();
        for f in [softmax_rows::<f32>, naive_rows::<f32>] {
            let mut w = x.clone();
            f(&mut w, 4, 4, Masking::Window(2));
            for (t, row) in w.chunks(4).enumerate() {
                let live: Vec<usize> = (0..4).filter(|&j| row[j] != 0.0).collect();
                let want: Vec<usize> = (t.saturating_sub(1)..=t).collect();
                assert_eq!(live, want, "row {t}: {row:?}");
                assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            }
            let mut c = x.clone();
            f(&mut c, 4, 4, Masking::Causal);
            assert_ne!(c, w, "the window changes rows 2 and 3");
        }
    }

    /// On scores past 88.7 the softmax without the max overflows f32 to
    /// NaN and the stable one does not; on small scores both agree.
    #[test]
    fn the_softmax_without_the_max_overflows_where_the_stable_one_does_not() {
        let big: Vec<f32> = vec![120.0, 90.0, 100.0, 30.0];
        let (mut naive, mut stable) = (big.clone(), big.clone());
        assert!(!naive_rows(&mut naive, 2, 2, Masking::Full).finite);
        assert!(naive.iter().any(|v| v.is_nan()));
        assert!(softmax_rows(&mut stable, 2, 2, Masking::Full).finite);
        assert!(stable.iter().all(|v| v.is_finite()));
        let small: Vec<f32> = vec![0.5, -1.0, 2.0, 0.25, 0.0, 1.0];
        let (mut naive, mut stable) = (small.clone(), small.clone());
        assert!(naive_rows(&mut naive, 2, 3, Masking::Causal).finite);
        softmax_rows(&mut stable, 2, 3, Masking::Causal);
        for (a, b) in naive.iter().zip(&stable) {
            assert!((a - b).abs() < 1e-6, "{naive:?} against {stable:?}");
        }
    }
}
