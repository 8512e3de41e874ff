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

/// The sum of `x`.
#[inline(always)]
pub fn lane_sum<F: Scalar>(x: &[F]) -> F {
    lanes(x, F::zero(), |a, v| a + v)
        .into_iter()
        .fold(F::zero(), |a, v| a + v)
}
