//! The why of the step where the forward stopped: what went wrong, with
//! its numbers, from the check that stopped it and the operands' shapes.
//!
//! # Shapes (the lesson's faults)
//! - `ffn-no-down`: resid_2 of (2,4,64) + (2,4,256): the hidden layer came back
//! - `attn-no-merge`: resid_1 of (2,4,64) + (2,4,4,16): the heads came back
//! - `bias-w1-64`: x·W1 + b1 of (2,4,64)·(64,256) + (64): b1 too short

use super::Why;
use crate::config::DType;
use crate::ops::OpKind;
use crate::shape::fmt_shape;

/// The why of a failure of check `check` (its name, e.g. `residual`) at
/// `path` (a step of `op`) on `operands` (each one's path, shape and
/// dtype), with the stream's (B, T, d) and dtype. Plain names and shapes,
/// so the trace, which asks for this, is not imported back.
#[must_use]
pub fn failure(
    check: &str,
    op: OpKind,
    path: &str,
    operands: &[(&str, &[usize], DType)],
    (stream, stream_dtype): (&[usize], DType),
) -> Why {
    let shape = |i: usize| operands.get(i).map_or(&[][..], |o| o.1);
    let name = |i: usize| operands.get(i).map_or("?", |o| o.0);
    let dtype = |i: usize| operands.get(i).map_or(stream_dtype, |o| o.2);
    let want = fmt_shape(stream);
    let same_shapes = operands.iter().all(|o| o.1 == stream);
    match (check, op) {
        // Right shapes, wrong dtype: a 16-bit model's f32 leaked out.
        ("residual", _) if same_shapes => Why::new("why-fail-residual-dtype")
            .arg("path", path)
            .arg("stream", dtype(0).as_str())
            .arg("update", dtype(1).as_str())
            .arg("update_path", name(1))
            .arg("want", stream_dtype.as_str()),
        ("stream", _) if shape(0) == stream && dtype(0) != stream_dtype => {
            Why::new("why-fail-stream-dtype")
                .arg("path", path)
                .arg("got", dtype(0).as_str())
                .arg("want", stream_dtype.as_str())
                .arg("shape", want.clone())
        }
        ("op-shapes", _)
            if operands
                .iter()
                .any(|o| o.2 != dtype(0) && o.2 != DType::I64) =>
        {
            let other = operands
                .iter()
                .find(|o| o.2 != dtype(0))
                .map_or(("?", stream_dtype), |o| (o.0, o.2));
            Why::new("why-fail-matmul-dtype")
                .arg("path", path)
                .arg("a", name(0))
                .arg("a_dtype", dtype(0).as_str())
                .arg("b", other.0)
                .arg("b_dtype", other.1.as_str())
        }
        ("residual", _) => {
            let update = shape(1);
            let last = name(1).rsplit('.').next().unwrap_or("");
            let key = if update.len() == 4 {
                "why-fail-residual-heads"
            } else if last == "act" {
                "why-fail-residual-hidden"
            } else {
                "why-fail-residual"
            };
            Why::new(key)
                .arg("stream", fmt_shape(shape(0)))
                .arg("update", fmt_shape(update))
                .arg("update_path", name(1))
                .arg("want", want)
                .arg("path", path)
        }
        ("op-shapes", OpKind::Linear) => linear(operands, path),
        // A linear whose W does not map back to d_model (down-to-ff).
        ("stream", OpKind::Linear) => {
            let w = shape(1);
            Why::new("why-fail-stream-linear")
                .arg("path", path)
                .arg("want", want)
                .arg("w", fmt_shape(w))
                .arg("w_path", name(1))
                .arg("rows", w.first().copied().unwrap_or(0))
                .arg("cols", w.get(1).copied().unwrap_or(0))
                .arg("d", stream.last().copied().unwrap_or(0))
        }
        ("stream", _) => Why::new("why-fail-stream")
            .arg("path", path)
            .arg("want", want)
            .arg("shape", fmt_shape(shape(0))),
        ("finite", OpKind::Softmax) => Why::new("why-fail-finite-softmax").arg("path", path),
        ("finite", _) => Why::new("why-fail-finite").arg("path", path),
        _ => {
            let shapes: Vec<String> = operands.iter().map(|o| fmt_shape(o.1)).collect();
            Why::new("why-fail-op")
                .arg("op", op.as_str())
                .arg("path", path)
                .arg("shapes", shapes.join(", "))
                .arg("check", check)
        }
    }
}

/// x·W + b refused: the bias does not match W's columns, or x's last
/// axis does not match W's rows.
fn linear(operands: &[(&str, &[usize], DType)], path: &str) -> Why {
    let shape = |i: usize| operands.get(i).map_or(&[][..], |o| o.1);
    let (x, w, b) = (shape(0), shape(1), shape(2));
    let rows = w.first().copied().unwrap_or(0);
    let cols = w.get(1).copied().unwrap_or(0);
    let x_last = x.last().copied().unwrap_or(0);
    if x_last == rows && operands.len() > 2 {
        let bias = operands.get(2).map_or("b", |o| o.0);
        return Why::new("why-fail-bias")
            .arg("bias_path", bias)
            .arg("bias", b.first().copied().unwrap_or(0))
            .arg("cols", cols)
            .arg("rows", rows)
            .arg("path", path);
    }
    Why::new("why-fail-linear")
        .arg("x", fmt_shape(x))
        .arg("w", fmt_shape(w))
        .arg("x_last", x_last)
        .arg("rows", rows)
        .arg("path", path)
}
