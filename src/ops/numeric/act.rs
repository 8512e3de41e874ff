//! The element-wise activations, as functions the vectorised kernels
//! inline.

use super::{Scalar, kernels};
use crate::ops::{Stats, Unary};

/// `u` on every value of `out`, in place; the stats of the result.
pub(super) fn unary<F: Scalar>(u: Unary, out: &mut [F]) -> Stats {
    match u {
        Unary::Relu => kernels::map_mut(out, relu),
        Unary::Gelu => kernels::map_mut(out, gelu),
        Unary::GeluTanh => kernels::map_mut(out, gelu_tanh),
        Unary::Silu => kernels::map_mut(out, silu),
        Unary::Tanh => kernels::map_mut(out, tanh),
    }
}

#[inline(always)]
pub(super) fn relu<F: Scalar>(v: F) -> F {
    v.max(F::zero())
}

/// ½·x·(1 + erf(x/√2)).
#[inline(always)]
pub(super) fn gelu<F: Scalar>(v: F) -> F {
    let r = F::of(std::f64::consts::FRAC_1_SQRT_2);
    F::of(0.5) * v * (F::one() + (v * r).erf())
}

/// ½·x·(1 + tanh(u)) = x·σ(2u), with u = √(2/π)·(x + 0.044715·x³).
#[inline(always)]
pub(super) fn gelu_tanh<F: Scalar>(v: F) -> F {
    let c = F::of(-2.0 * (2.0 / std::f64::consts::PI).sqrt());
    let k = F::of(0.044_715);
    v / (F::one() + (c * (v + k * v * v * v)).exp_fast())
}

/// c·tanh(x/c), in f64 (a soft cap is one op on scores or logits: no
/// fast form is needed).
#[inline]
pub(super) fn soft_cap<F: Scalar>(v: F, cap: f64) -> F {
    F::of(cap * (v.f64() / cap).tanh())
}

/// tanh(x), in f64 (BERT's pooler: one op on B vectors).
#[inline]
pub(super) fn tanh<F: Scalar>(v: F) -> F {
    F::of(v.f64().tanh())
}

pub(super) fn silu<F: Scalar>(v: F) -> F {
    v / (F::one() + (-v).exp_fast())
}
