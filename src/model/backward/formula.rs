//! Each gradient's formula in shapes, as the trace shows it: which rule
//! made it, on which operands, with their shapes and what is summed.
//!
//! ```text
//! grad.block1.mlp.up.weight = block1.ln_2ᵀ·grad.block1.mlp.up : (64,8)·(8,256) → (64,256), summed over B·T = 8
//! grad.block2.attn.scores = w ⊙ (dw − Σⱼ w·dw) : (2,4,4,4)
//! ```

use crate::ops::{Op, fmt_shape};

/// The term operand `i` of `op` (output `y`, gradient `dy`) sends back:
/// its rule in words and shapes. `ins` names each operand with its shape.
#[must_use]
pub fn term(op: &Op, i: usize, ins: &[(&str, &[usize])], y: (&str, &[usize])) -> String {
    let dy = format!("grad.{}", y.0);
    let (x, xs) = ins.get(i).copied().unwrap_or(("?", &[]));
    let shape_of = |j: usize| ins.get(j).map_or_else(String::new, |o| fmt_shape(o.1));
    let flat = |s: &[usize]| {
        let last = s.last().copied().unwrap_or(1);
        format!("({},{})", s.iter().product::<usize>() / last.max(1), last)
    };
    // xᵀ of x (…, n): (n, rows).
    let flat_t = |s: &[usize]| {
        let last = s.last().copied().unwrap_or(1);
        format!("({},{})", last, s.iter().product::<usize>() / last.max(1))
    };
    let (ys, yrows) = (fmt_shape(y.1), y.1.iter().rev().skip(1).product::<usize>());
    let (head_in, _) = ins.first().copied().unwrap_or(("?", &[]));
    let second = ins.get(1).map_or("?", |o| o.0);
    match (op, i) {
        (Op::Linear, 0) => format!(
            "{dy}·{second}ᵀ : {}·{}ᵀ → {}",
            flat(y.1),
            shape_of(1),
            fmt_shape(xs)
        ),
        (Op::Linear, 1) => format!(
            "{head_in}ᵀ·{dy} : {}·{} → {}, summed over B·T = {yrows}",
            flat_t(ins[0].1),
            flat(y.1),
            fmt_shape(xs)
        ),
        (Op::Linear, _) => format!("Σ {dy} over B·T = {yrows} rows : {ys} → {}", fmt_shape(xs)),
        (Op::LmHead { tied: true }, 0) => format!(
            "{dy}·{second} : {}·{} → {}",
            flat(y.1),
            shape_of(1),
            fmt_shape(xs)
        ),
        (Op::LmHead { tied: true }, _) => format!(
            "{dy}ᵀ·{head_in} : {}·{} → {}, summed over B·T = {yrows}",
            flat_t(y.1),
            flat(ins[0].1),
            fmt_shape(xs)
        ),
        (Op::LmHead { tied: false }, 0) => {
            format!(
                "{dy}·{second}ᵀ : {}·{}ᵀ → {}",
                flat(y.1),
                shape_of(1),
                fmt_shape(xs)
            )
        }
        (Op::LmHead { tied: false }, _) => format!(
            "{head_in}ᵀ·{dy} : {}·{} → {}, summed over B·T = {yrows}",
            flat_t(ins[0].1),
            flat(y.1),
            fmt_shape(xs)
        ),
        (Op::Norm { .. }, 0) => format!("(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂))/σ, dx̂ = {dy}⊙γ : {ys}"),
        (Op::Norm { .. }, 1) => format!("Σ {dy}⊙x̂ over {yrows} rows : {ys} → {}", fmt_shape(xs)),
        (Op::Norm { .. }, _) => format!("Σ {dy} over {yrows} rows : {ys} → {}", fmt_shape(xs)),
        (Op::SplitHeads { .. }, _) => format!("{dy} merged back : {ys} → {}", fmt_shape(xs)),
        (Op::MergeHeads(_), _) => format!("{dy} split back : {ys} → {}", fmt_shape(xs)),
        (Op::RepeatKv { rep, .. }, _) => format!(
            "Σ of {dy}'s {rep} copies of each K/V head : {ys} → {}",
            fmt_shape(xs)
        ),
        (Op::Rope { .. }, _) => format!("Rᵀ·{dy}, each pair turned back : {ys}"),
        (Op::Scores { head_dim }, 0) => format!(
            "{dy}·{second}/√{head_dim} : {ys}·{} → {}",
            shape_of(1),
            fmt_shape(xs)
        ),
        (Op::Scores { head_dim }, _) => format!(
            "{dy}ᵀ·{head_in}/√{head_dim} : {ys}ᵀ·{} → {}",
            shape_of(0),
            fmt_shape(xs)
        ),
        (Op::Softmax { .. } | Op::SoftmaxNoMax { .. } | Op::RouterSoftmax, _) => {
            format!("w ⊙ ({dy} − Σⱼ w·{dy}), w = {} : {ys}", y.0)
        }
        (Op::WeightedSum, 0) => {
            format!("{dy}·{second}ᵀ : {ys}·{}ᵀ → {}", shape_of(1), fmt_shape(xs))
        }
        (Op::WeightedSum, _) => format!(
            "{head_in}ᵀ·{dy} : {}ᵀ·{ys} → {}",
            shape_of(0),
            fmt_shape(xs)
        ),
        (Op::Act(u), _) => format!("{dy} ⊙ {}′({x}) : {ys}", Op::Act(*u).kind()),
        (Op::SwiGlu | Op::GeGlu, 0) => format!("{dy} ⊙ {second} ⊙ act′({x}) : {ys}"),
        (Op::SwiGlu | Op::GeGlu, _) => format!("{dy} ⊙ act({head_in}) : {ys}"),
        (Op::Add, _) => format!("{dy} : {ys}"),
        (Op::AddPositions, 0) => format!("{dy} : {ys}"),
        (Op::AddPositions, _) => format!("Σ {dy} over B : {ys} → {}", fmt_shape(xs)),
        (Op::Gather, _) => format!("row ids[b,t] += {dy}[b,t] : {ys} → {}", fmt_shape(xs)),
        (Op::Positions { .. }, _) => format!("row t += {dy}[t] : {ys} → {}", fmt_shape(xs)),
        (Op::TokenType { id }, _) => {
            format!("row {id} += Σ {dy} over B·T : {ys} → {}", fmt_shape(xs))
        }
        (Op::FirstToken, _) => format!("{dy} at token 0, 0 elsewhere : {ys} → {}", fmt_shape(xs)),
        (Op::SoftCap { cap }, _) => format!("{dy} ⊙ (1 − ({}/{cap})²) : {ys}", y.0),
        (Op::Scale { by }, _) => format!("{dy}·{by} : {ys}"),
        (Op::Alibi | Op::Cast { .. }, _) => format!("{dy} : {ys}"),
        (Op::Columns { lo, hi, .. }, _) => format!(
            "{dy} into columns {lo}..{hi}, 0 elsewhere : {ys} → {}",
            fmt_shape(xs)
        ),
        _ => format!("{dy} : {ys} → {}", fmt_shape(xs)),
    }
}
