//! The devices' communication, done in memory: every device's part is
//! at hand, so an all-reduce is a sum, an all-gather a concatenation and
//! a reduce-scatter a sum and a slice.

use super::Scalar;
use crate::ops::{Op, OpError};
use ndarray::{ArrayD, ArrayViewD, Axis, Slice, concatenate};

/// `op` on `parts` (device order) with the all-reduce's bias `b`, whose
/// shapes the caller has judged.
pub(super) fn collective<F: Scalar>(
    op: &Op,
    parts: &[ArrayViewD<F>],
    b: Option<ArrayViewD<F>>,
) -> Result<ArrayD<F>, OpError> {
    let first = parts
        .first()
        .ok_or_else(|| OpError("no device's part".into()))?;
    if let Some(p) = parts.iter().find(|p| p.shape() != first.shape()) {
        return Err(OpError(format!(
            "the devices' parts differ in shape: {:?} and {:?}",
            first.shape(),
            p.shape()
        )));
    }
    let whole = match op {
        Op::AllReduce { devices }
        | Op::AllGather { devices, .. }
        | Op::ReduceScatter { devices, .. } => *devices,
        _ => 1,
    };
    if parts.len() != whole && whole > 1 {
        return Err(OpError(format!(
            "{} needs every one of the {whole} devices' parts, got {}",
            op.kind(),
            parts.len()
        )));
    }
    let plus_b = |mut y: ArrayD<F>| {
        if let Some(b) = &b {
            y += b;
        }
        y
    };
    let sum = || {
        let mut y = first.to_owned();
        for p in &parts[1..] {
            y += p;
        }
        y
    };
    let slice = |y: ArrayViewD<F>, devices: usize, axis: usize, rank: usize| {
        let n = y.shape()[axis] / devices;
        let cut = Slice::from(rank * n..(rank + 1) * n);
        y.slice_axis(Axis(axis), cut).to_owned()
    };
    Ok(match op {
        Op::AllReduce { .. } => plus_b(sum()),
        Op::AllGather { axis, .. } => {
            concatenate(Axis(*axis), parts).map_err(|e| OpError(format!("all_gather: {e}")))?
        }
        Op::ReduceScatter {
            devices,
            axis,
            rank,
        } => plus_b(slice(sum().view(), *devices, *axis, *rank)),
        Op::Scatter {
            devices,
            axis,
            rank,
        } => plus_b(slice(first.clone(), *devices, *axis, *rank)),
        // Point to point: the one part is the tensor sent, or received.
        Op::Send { .. } | Op::Recv { .. } => first.to_owned(),
        op => return Err(OpError(format!("{} is no communication step", op.kind()))),
    })
}
