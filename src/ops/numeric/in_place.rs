//! The ops that keep their first operand's shape, computed into its
//! buffer: softmax (attention's and a router's), activations, rotary
//! positions, SwiGLU and the add.

use super::act::{gelu_tanh, silu, soft_cap, unary};
use super::{Scalar, flat, kernels, slice_mut, softmax};
use crate::ops::{Masking, Op, Stats};
use ndarray::ArrayD;

/// Ops that keep their first operand's shape, computed into its buffer.
pub(super) fn in_place<F: Scalar>(op: &Op, y: &mut ArrayD<F>, rest: &[&ArrayD<F>]) -> Stats {
    let shape = y.shape().to_vec();
    let out = slice_mut(y);
    match op {
        Op::Softmax { mask } => {
            let nd = shape.len();
            softmax::softmax_rows(out, shape[nd - 2], shape[nd - 1], *mask)
        }
        // Each token's row of E router logits: nothing is masked.
        Op::RouterSoftmax => {
            let nd = shape.len();
            softmax::softmax_rows(out, shape[nd - 2], shape[nd - 1], Masking::TwoWay)
        }
        Op::SoftmaxNoMax { mask } => {
            let nd = shape.len();
            softmax::naive_rows(out, shape[nd - 2], shape[nd - 1], *mask)
        }
        Op::Act(u) => unary(*u, out),
        Op::Rope {
            theta,
            scaling,
            dims,
            start,
        } => {
            let nd = shape.len();
            // The first `dims` features turn, with frequencies over `dims`
            // (GPT-NeoX's partial rotary); the rest pass as they are.
            let freq = |i| crate::config::RopeScaling::frequency(*scaling, *theta, i, *dims);
            kernels::rope_rows(out, (*start, shape[nd - 2]), shape[nd - 1], *dims, freq)
        }
        Op::SwiGlu => kernels::zip_mut(out, &flat(rest[0]), |g, u| silu(g) * u),
        Op::GeGlu => kernels::zip_mut(out, &flat(rest[0]), |g, u| gelu_tanh(g) * u),
        Op::SoftCap { cap } => kernels::map_mut(out, |v| soft_cap(v, *cap)),
        Op::Alibi => {
            let nd = shape.len();
            let (h, t, s) = (shape[nd - 3], shape[nd - 2], shape[nd - 1]);
            kernels::alibi_rows(out, &crate::ops::alibi_slopes(h), t, s)
        }
        Op::Scale { by } => {
            let by = F::of(*by);
            kernels::map_mut(out, |v| v * by)
        }
        Op::Add => kernels::zip_mut(out, &flat(rest[0]), |a, b| a + b),
        _ => unreachable!("in_place computes only the ops keeps_shape names"),
    }
}

/// Whether [`in_place`] computes `op`.
pub(super) fn keeps_shape(op: &Op) -> bool {
    matches!(
        op,
        Op::Softmax { .. }
            | Op::RouterSoftmax
            | Op::SoftmaxNoMax { .. }
            | Op::Act(_)
            | Op::SwiGlu
            | Op::GeGlu
            | Op::SoftCap { .. }
            | Op::Alibi
            | Op::Scale { .. }
            | Op::Add
            | Op::Rope { .. }
    )
}
