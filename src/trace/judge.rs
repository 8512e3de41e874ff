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

/// The output shape of `op` on operands of `shapes`, or why it refuses
/// them: `scores refused its operands: …`.
///
/// # Errors
/// The detail line of an `op-shapes` failure.
pub fn op_shapes(op: &Op, shapes: &[&[usize]]) -> Result<Shape, String> {
    op.infer(shapes)
        .map_err(|e| format!("{} refused its operands: {e}", op.kind()))
}

/// A stream tensor at `path` of `shape` against the stream shape `want`.
///
/// # Errors
/// The detail line of a `stream` failure.
pub fn stream(path: &str, shape: &[usize], want: &[usize]) -> Result<(), String> {
    if shape == want {
        return Ok(());
    }
    Err(format!(
        "stream tensor {path} is {}, not {}",
        fmt_shape(shape),
        fmt_shape(want)
    ))
}

/// The values at `path`, summarised by `stats` (none in shape-only runs).
///
/// # Errors
/// The detail line of a `finite` failure.
pub fn finite(path: &str, stats: Option<&Stats>) -> Result<(), String> {
    match stats {
        Some(s) if !s.finite => Err(format!("{path} holds non-finite values (NaN or ±inf)")),
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
) -> Result<ResidualCheck, (ResidualCheck, String)> {
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
    let detail = format!(
        "residual add {}: both operands must be {}",
        check.operands(),
        fmt_shape(expect.0)
    );
    Err((check, detail))
}
