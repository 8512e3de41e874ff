//! [`Moments`]: the count, min, max, mean and spread of a chunk of values,
//! taken in one vectorised pass and merged across chunks, rows and heads in
//! a fixed order, so the stats a trace records do not depend on threads.

use super::Scalar;
use super::chunks::{CHUNK, PAR_MIN};
use super::simd::{LANES, blocks, fold_lanes, vectorised};
use crate::ops::Stats;
use rayon::prelude::*;

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
    pub const EMPTY: Self = Self {
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
    pub(super) fn of_inline<F: Scalar>(c: &[F]) -> Self {
        const W: usize = LANES;
        let Some(&shift) = c.first() else {
            return Self::EMPTY;
        };
        let (mut lo, mut hi) = ([shift; W], [shift; W]);
        let (mut s1, mut s2) = ([F::zero(); W], [F::zero(); W]);
        // Padding with K changes no lane: K is within [lo, hi], K − K = 0.
        blocks(c, shift, |b| {
            for l in 0..W {
                let v = b[l];
                lo[l] = if v < lo[l] { v } else { lo[l] };
                hi[l] = if v > hi[l] { v } else { hi[l] };
                let d = v - shift;
                s1[l] += d;
                s2[l] += d * d;
            }
        });
        Self::from_lanes(c.len(), shift, lo, hi, s1, s2)
    }

    /// The moments of `n` values from lanes of their min and max, and of
    /// Σ(x−K) and Σ(x−K)² for a shift K. The lanes are folded pairwise in
    /// F (a few dependent steps, not sixteen), then widened to f64.
    #[inline(always)]
    pub(super) fn from_lanes<F: Scalar>(
        n: usize,
        shift: F,
        lo: [F; LANES],
        hi: [F; LANES],
        s1: [F; LANES],
        s2: [F; LANES],
    ) -> Self {
        // `min` and `max` pass over a NaN lane, which only a NaN shift
        // makes (comparisons never take a NaN in); the sums carry NaN and
        // ±inf into `finite`.
        let (min, max) = (fold_lanes(lo, F::min).f64(), fold_lanes(hi, F::max).f64());
        let (s1, s2) = (
            fold_lanes(s1, |a, b| a + b).f64(),
            fold_lanes(s2, |a, b| a + b).f64(),
        );
        let n = n as f64;
        Self {
            n,
            min,
            max,
            mean: shift.f64() + s1 / n.max(1.0),
            m2: (s2 - s1 * s1 / n.max(1.0)).max(0.0),
            // NaN and ±inf reach the shifted sum (inf − inf is NaN too).
            finite: min.is_finite() && max.is_finite() && s1.is_finite(),
        }
    }

    /// The moments of `a`'s values and `b`'s together.
    pub fn merge(a: Self, b: Self) -> Self {
        if b.n == 0.0 {
            return a;
        }
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

    /// The stats of the parts' union, merged in order.
    pub fn total(parts: impl IntoIterator<Item = Moments>) -> Stats {
        let m = parts.into_iter().fold(Self::EMPTY, Self::merge);
        Stats {
            min: m.min,
            max: m.max,
            mean: m.mean,
            std: (m.m2 / m.n.max(1.0)).sqrt(),
            finite: m.finite,
        }
    }

    /// The largest value (−∞ for none).
    pub fn max(&self) -> f64 {
        self.max
    }

    /// The moments of `n` zeros.
    pub fn zeros(n: usize) -> Self {
        if n == 0 {
            return Self::EMPTY;
        }
        Self {
            n: n as f64,
            min: 0.0,
            max: 0.0,
            mean: 0.0,
            m2: 0.0,
            finite: true,
        }
    }

    /// The moments of these values each times `k`.
    pub fn scaled(self, k: f64) -> Self {
        let (a, b) = (self.min * k, self.max * k);
        let (min, max) = if k < 0.0 { (b, a) } else { (a, b) };
        Self {
            n: self.n,
            min,
            max,
            mean: self.mean * k,
            m2: self.m2 * k * k,
            finite: self.finite && min.is_finite() && max.is_finite(),
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

#[cfg(test)]
mod tests {
    use super::Moments;

    /// Merging in an empty chunk, on either side, changes nothing; the
    /// spread of two chunks is their union's.
    #[test]
    fn merging_keeps_min_max_and_spread_and_ignores_empty_chunks() {
        let a = Moments::of(&[5.0_f64, 7.0]);
        let b = Moments::of(&[1.0_f64, 3.0, 9.0]);
        let (two, whole) = (
            Moments::total([a, b]),
            Moments::total([Moments::of(&[5.0_f64, 7.0, 1.0, 3.0, 9.0])]),
        );
        assert_eq!(
            (two.min, two.max, two.mean),
            (whole.min, whole.max, whole.mean)
        );
        assert!((two.std - whole.std).abs() < 1e-15 && (two.std - 8f64.sqrt()).abs() < 1e-15);
        // An empty part whose lanes are not ±inf: min 1, max 0 from n = 0.
        let lanes = |v: f32| [v; super::LANES];
        let odd = Moments::from_lanes(0, 0.0, lanes(1.0), lanes(0.0), lanes(0.0), lanes(0.0));
        for parts in [
            [a, odd],
            [odd, a],
            [a, Moments::EMPTY],
            [Moments::zeros(0), a],
        ] {
            let s = Moments::total(parts);
            assert_eq!((s.min, s.max, s.mean, s.std), (5.0, 7.0, 6.0, 1.0));
        }
        let s = Moments::total([a.scaled(-2.0)]);
        assert_eq!((s.min, s.max, s.mean, s.std), (-14.0, -10.0, -12.0, 2.0));
    }
}
