//! The why of a step another program recorded (a student's PyTorch
//! module, exported): from the op's name and its shapes alone, since no
//! model of ours stands behind it. An op we cannot explain says so.
//!
//! ```text
//! matmul (2,4,4,16)·(2,4,16,4) → (2,4,4,4)    why-foreign-matmul
//! view   (2,4,64) → (2,4,4,16)                 why-foreign-reshape
//! einsum …                                     why-foreign-matmul
//! index_select …                               why-foreign-other
//! ```

use super::Why;
use crate::shape::fmt_shape;

/// The why of a recorded step `op` on inputs of `ins` shapes giving `out`,
/// with the stream's (B, T, d).
#[must_use]
pub fn foreign(op: &str, ins: &[&[usize]], out: &[usize], stream: &[usize]) -> Why {
    let shape = fmt_shape(out);
    let from = ins
        .first()
        .map_or_else(|| "?".to_string(), |s| fmt_shape(s));
    let last = |s: &[usize]| s.last().copied().unwrap_or(0);
    let all: Vec<String> = ins.iter().map(|s| fmt_shape(s)).collect();
    let at = |i: usize| out.get(i).copied().unwrap_or(0);
    match op {
        "input" => Why::new("why-input")
            .arg("B", at(0))
            .arg("T", at(1))
            .arg("d", at(2))
            .arg("shape", shape),
        "linear" => Why::new("why-foreign-linear")
            .arg("rows", ins.first().map_or(0, |s| last(s)))
            .arg("cols", last(out))
            .arg("from", from)
            .arg("shape", shape),
        "matmul" | "bmm" | "einsum" | "baddbmm" | "mm" | "scaled_dot_product_attention" => {
            Why::new("why-foreign-matmul")
                .arg("op", op)
                .arg("ins", all.join(" · "))
                .arg("shape", shape)
        }
        "view" | "reshape" | "flatten" | "unflatten" | "contiguous" | "unsqueeze" | "squeeze" => {
            Why::new("why-foreign-reshape")
                .arg("op", op)
                .arg("n", out.iter().product::<usize>())
                .arg("from", from)
                .arg("shape", shape)
        }
        "transpose" | "permute" | "t" | "swapaxes" | "mT" => Why::new("why-foreign-transpose")
            .arg("op", op)
            .arg("from", from)
            .arg("shape", shape),
        "softmax" | "log_softmax" => Why::new("why-foreign-softmax")
            .arg("n", last(out))
            .arg("shape", shape),
        "layernorm" | "rmsnorm" => Why::new("why-norm")
            .arg(
                "norm",
                if op == "layernorm" {
                    "LayerNorm"
                } else {
                    "RMSNorm"
                },
            )
            .arg("d", last(out))
            .arg("T", at(1))
            .arg("B", at(0))
            .arg("shape", shape),
        "gelu" | "relu" | "silu" | "gelu_tanh" => Why::new("why-act")
            .arg("act", op.to_uppercase())
            .arg("ff", last(out))
            .arg("shape", shape),
        "add" => Why::new("why-add")
            .arg("stream", all.first().cloned().unwrap_or_default())
            .arg("update", all.get(1).cloned().unwrap_or_default())
            .arg("shape", shape)
            .arg("d", stream.last().copied().unwrap_or(0)),
        _ => Why::new("why-foreign-other")
            .arg("op", op)
            .arg(
                "ins",
                if all.is_empty() {
                    "no recorded inputs".into()
                } else {
                    all.join(", ")
                },
            )
            .arg("shape", shape),
    }
}
