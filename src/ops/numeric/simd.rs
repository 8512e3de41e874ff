//! The vector-unit plumbing the kernels share: [`vectorised!`], and lanes
//! of independent accumulators so reductions vectorise.

use super::Scalar;

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

pub(super) use vectorised;

/// Lanes of independent accumulators, so reductions vectorise.
pub const LANES: usize = 16;

/// Folds `x` into [`LANES`] independent accumulators, so the loop vectorises.
#[inline(always)]
pub fn lanes<F: Scalar>(x: &[F], init: F, step: impl Fn(F, F) -> F) -> [F; LANES] {
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

/// Runs `f(block, n)` on each LANES-long block of `x` in order, where the
/// block's first `n` values are `x`'s. The last, short block is copied into
/// one padded with `pad`, and back, so it also runs on the vector unit
/// rather than one value at a time; `f` must leave the padding out of what
/// it gathers (or `pad` must change nothing).
#[inline(always)]
pub fn blocks_mut<F: Copy>(x: &mut [F], pad: F, mut f: impl FnMut(&mut [F; LANES], usize)) {
    let mut blocks = x.chunks_exact_mut(LANES);
    for b in &mut blocks {
        f(b.try_into().expect("chunks are LANES long"), LANES);
    }
    let rest = blocks.into_remainder();
    if !rest.is_empty() {
        let mut last = [pad; LANES];
        last[..rest.len()].copy_from_slice(rest);
        f(&mut last, rest.len());
        rest.copy_from_slice(&last[..rest.len()]);
    }
}

/// [`blocks_mut`] for reading: `f` sees each block, the last padded.
#[inline(always)]
pub fn blocks<F: Copy>(x: &[F], pad: F, mut f: impl FnMut(&[F; LANES])) {
    let mut blocks = x.chunks_exact(LANES);
    for b in &mut blocks {
        f(b.try_into().expect("chunks are LANES long"));
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        let mut last = [pad; LANES];
        last[..rest.len()].copy_from_slice(rest);
        f(&last);
    }
}

/// `op` over the lanes pairwise (lane l with l + 8, then with l + 4, …):
/// four dependent steps, in the same order on every vector unit.
#[inline(always)]
pub fn fold_lanes<F: Copy>(mut a: [F; LANES], op: impl Fn(F, F) -> F) -> F {
    let mut half = LANES / 2;
    while half > 0 {
        for l in 0..half {
            a[l] = op(a[l], a[l + half]);
        }
        half /= 2;
    }
    a[0]
}

/// The sum of `x`.
#[inline(always)]
pub fn lane_sum<F: Scalar>(x: &[F]) -> F {
    fold_lanes(lanes(x, F::zero(), |a, v| a + v), |a, b| a + b)
}

#[cfg(test)]
mod tests {
    use super::{LANES, blocks, blocks_mut, fold_lanes};

    /// Every value is visited once, in order; the padded block's changes
    /// to its padding never reach the slice, which keeps its length.
    #[test]
    fn blocks_visit_each_value_once_and_keep_the_padding_out() {
        let mut x: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let mut counts = Vec::new();
        blocks_mut(&mut x, -1.0, |b, n| {
            counts.push(n);
            b.iter_mut().for_each(|v| *v *= 2.0);
        });
        assert_eq!(counts, [LANES, 3]);
        assert_eq!(x, (0..19).map(|i| 2.0 * i as f32).collect::<Vec<_>>());
        let mut seen = Vec::new();
        blocks(&x[..3], 7.0, |b| seen.extend_from_slice(b));
        assert_eq!(seen[..4], [0.0, 2.0, 4.0, 7.0]);
        assert_eq!(seen.len(), LANES);
        let lanes: [f32; LANES] = std::array::from_fn(|l| l as f32);
        assert_eq!(fold_lanes(lanes, |a, b| a + b), 120.0);
        assert_eq!(fold_lanes(lanes, f32::max), 15.0);
    }
}
