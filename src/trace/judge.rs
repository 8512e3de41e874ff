//! One judge per rule that a single step can break. The recorder asks
//! these while the model runs, and stops the forward at the first step
//! one refuses; [`crate::check`] asks the same ones of a finished or
//! replayed trace, so both say the same thing in the same words.
//!
//! - `op-shapes`: an op accepts its operands' shapes ([`op_shapes`]);
//!   the `bias-w1-64` fault stops here;
//! - `stream`: a tensor at a sublayer interface is (B,T,d) ([`stream`]);
//!   a sublayer's output is an interface judged before its residual add,
//!   so the `down-to-ff` fault (W2 of (d_ff, d_ff)) stops here, not at
//!   `residual`;
//! - `residual`: both operands of a residual add are (B,T,d) in the
//!   input dtype ([`residual`]); `ffn-no-down` and `attn-no-merge` stop
//!   here (their last step is no interface);
//! - `finite`: every value is finite ([`finite`]); `softmax-no-max`
//!   stops here, at the attention weights.

use super::ResidualCheck;
use crate::config::DType;
use crate::ops::{Op, Shape, Stats, fmt_shape};
use crate::why::Why;

/// A judge's message: its `at` is empty, so it reads alone; a check puts
/// `path: ` there ([`at`]).
fn said(key: &str) -> Why {
    Why::new(key).arg("at", "")
}

/// A judge's message `why` as the detail of a check, after `path: `.
#[must_use]
pub fn at(why: &Why, path: &str) -> Why {
    why.clone().arg("at", format!("{path}: "))
}

/// The output shape of `op` on operands of `shapes`, or why it refuses
/// them: `scores refused its operands: …`.
///
/// # Errors
/// The detail line of an `op-shapes` failure.
pub fn op_shapes(op: &Op, shapes: &[&[usize]]) -> Result<Shape, Why> {
    op.infer(shapes).map_err(|e| {
        said("judge-op-refused")
            .arg("op", op.kind().to_string())
            .arg("error", e.to_string())
    })
}

/// A stream tensor at `path` of `(shape, dtype)` against the stream's
/// shape and dtype `want`.
///
/// # Errors
/// The detail line of a `stream` failure.
pub fn stream(path: &str, got: (&[usize], DType), want: (&[usize], DType)) -> Result<(), Why> {
    if got.0 != want.0 {
        return Err(said("judge-stream-shape")
            .arg("path", path)
            .arg("got", fmt_shape(got.0))
            .arg("want", fmt_shape(want.0)));
    }
    if got.1 != want.1 {
        return Err(said("judge-stream-dtype")
            .arg("path", path)
            .arg("got", fmt_shape(got.0))
            .arg("dtype", got.1.to_string())
            .arg("want", want.1.to_string()));
    }
    Ok(())
}

/// The dtype `op` gives on operands of `dtypes`: as PyTorch, a matrix
/// product (projections, scores, weights·v, the LM head) needs one dtype
/// for all its operands, and element-wise ops promote.
///
/// # Errors
/// The detail line of an `op-shapes` failure naming both dtypes.
pub fn op_dtype(op: &Op, dtypes: &[DType]) -> Result<DType, Why> {
    if let Op::Cast { to } = op {
        return Ok(*to);
    }
    let floats: Vec<DType> = dtypes
        .iter()
        .copied()
        .filter(|d| *d != DType::I64)
        .collect();
    let matmul = matches!(
        op,
        Op::Linear | Op::Scores { .. } | Op::WeightedSum | Op::LmHead { .. }
    );
    if matmul && let Some(other) = floats.iter().find(|d| **d != floats[0]) {
        return Err(said("judge-op-dtype")
            .arg("op", op.kind().to_string())
            .arg("a", floats[0].to_string())
            .arg("b", other.to_string()));
    }
    Ok(floats
        .iter()
        .copied()
        .reduce(DType::promote)
        .unwrap_or(DType::I64))
}

/// The values at `path`, summarised by `stats` (none in shape-only runs).
///
/// # Errors
/// The detail line of a `finite` failure.
pub fn finite(path: &str, stats: Option<&Stats>) -> Result<(), Why> {
    match stats {
        Some(s) if !s.finite => Err(said("judge-finite").arg("path", path)),
        _ => Ok(()),
    }
}

/// The residual add `stream + update` against the stream shape and the
/// input dtype `expect`: the operands, judged.
///
/// # Errors
/// The operands, and the detail line of a `residual` failure.
pub fn residual(
    stream: (&[usize], DType),
    update: (&[usize], DType),
    expect: (&[usize], DType),
) -> Result<ResidualCheck, (ResidualCheck, Why)> {
    let ok = stream.0 == expect.0
        && update.0 == expect.0
        && stream.1 == expect.1
        && update.1 == expect.1;
    let check = ResidualCheck {
        stream: stream.0.to_vec(),
        update: update.0.to_vec(),
        stream_dtype: stream.1,
        update_dtype: update.1,
        ok,
    };
    if ok {
        return Ok(check);
    }
    let detail = if stream.0 == expect.0 && update.0 == expect.0 {
        said("judge-residual-dtype")
            .arg("stream", fmt_shape(stream.0))
            .arg("stream_dtype", stream.1.to_string())
            .arg("update", fmt_shape(update.0))
            .arg("update_dtype", update.1.to_string())
            .arg("want", expect.1.to_string())
    } else {
        said("judge-residual-shape")
            .arg("operands", check.operands())
            .arg("want", fmt_shape(expect.0))
    };
    Err((check, detail))
}
