//! The count questions, each counted by [`Budget`] on the model or on the
//! variant its mistake imagines; nothing here is a number of its own.

use super::{Column, CountQuestion, Value};
use crate::budget::{Budget, thousands};
use crate::config::{Act, Mlp, ModelConfig};

/// The row of `b` named `path`, counted.
fn row(b: &Budget, path: &str) -> u64 {
    b.by_component
        .iter()
        .find(|r| r.path == path)
        .map_or(0, |r| r.count)
}

fn of(cfg: &ModelConfig) -> Option<Budget> {
    Budget::of(cfg).ok()
}

/// The questions on `ours` (the lab's model) and GPT-2 small, in order.
#[must_use]
pub fn questions(ours: &Budget, gpt2: &Budget) -> Vec<CountQuestion> {
    let mut out = vec![mlp(ours)];
    out.extend(swiglu_matched(ours));
    out.extend(gpt2_questions(gpt2));
    // A mistake that equals the truth on this model names nothing.
    for q in &mut out {
        let t = q.truth;
        q.mistakes.retain(|(v, _)| *v != t);
    }
    out
}

fn mlp(b: &Budget) -> CountQuestion {
    let c = &b.config;
    let (d, f) = (c.d_model, c.mlp.d_ff);
    let gated = c.mlp.act.is_gated();
    let one = row(b, "block.mlp.up.weight");
    let mut mistakes = vec![(
        Value::Count(one),
        format!(
            "{} counts only W1 (d·d_ff = {d}·{f}); the MLP has {} matrices of that size",
            thousands(one),
            if gated { "three" } else { "two" }
        ),
    )];
    let other = ModelConfig {
        mlp: Mlp {
            act: if gated { c.mlp.act } else { Act::Swiglu },
            d_ff: if gated { 4 * d } else { f },
            ..c.mlp.clone()
        },
        ..c.clone()
    };
    if let Some(o) = of(&other) {
        let says = if gated {
            format!(
                "SwiGLU kept at d_ff = 4·d = {}; this one's d_ff is {f}",
                4 * d
            )
        } else {
            format!(
                "three matrices, as SwiGLU at d_ff = {f} (3·d·d_ff); this MLP ({}) has two",
                c.mlp.act
            )
        };
        mistakes.push((
            Value::Count(o.block.mlp_weights),
            format!("{} is {says}", thousands(o.block.mlp_weights)),
        ));
    }
    if c.mlp_bias() {
        mistakes.push((
            Value::Count(b.block.mlp),
            format!(
                "{} includes the biases; the row counts the matrices only",
                thousands(b.block.mlp)
            ),
        ));
    }
    CountQuestion {
        ask: "This model: how many MLP weights in one block (matrices, no biases)?".into(),
        hides: vec!["FFN weights / block", "FFN : attention"],
        column: Column::ThisModel,
        truth: Value::Count(b.block.mlp_weights),
        formula: format!("{} matrices of d·d_ff = {d}·{f}", if gated { 3 } else { 2 }),
        mistakes,
    }
}

fn swiglu_matched(b: &Budget) -> Option<CountQuestion> {
    let c = &b.config;
    if c.mlp.act.is_gated() {
        return None;
    }
    let (d, f) = (c.d_model, c.mlp.d_ff);
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let matched = ((2.0 * f as f64) / 3.0).round().max(1.0) as usize;
    let swiglu = |d_ff| ModelConfig {
        mlp: Mlp {
            act: Act::Swiglu,
            d_ff,
            ..c.mlp.clone()
        },
        ..c.clone()
    };
    let truth = of(&swiglu(matched))?.block.mlp_weights;
    let kept = of(&swiglu(f))?.block.mlp_weights;
    Some(CountQuestion {
        ask: format!(
            "This model's MLP as SwiGLU (three matrices) at the matched width d_ff' = round(2/3·{f}) = {matched}: how many MLP weights per block?"
        ),
        hides: Vec::new(),
        column: Column::ThisModel,
        truth: Value::Count(truth),
        formula: format!("3·d·d_ff' = 3·{d}·{matched}"),
        mistakes: vec![
            (
                Value::Count(kept),
                format!(
                    "{} is SwiGLU kept at d_ff = {f} (3·{d}·{f}); the matched width is {matched}",
                    thousands(kept)
                ),
            ),
            (
                Value::Count(b.block.mlp_weights),
                format!(
                    "{} is the two-matrix MLP at d_ff = {f}; SwiGLU has three at {matched}",
                    thousands(b.block.mlp_weights)
                ),
            ),
        ],
    })
}

fn gpt2_questions(g: &Budget) -> Vec<CountQuestion> {
    let d = g.config.d_model;
    let no_o = g.block.attention_weights - row(g, "block.attn.out.weight");
    let wte = row(g, "wte");
    let mut out = vec![CountQuestion {
        ask: format!(
            "GPT-2 small (d = {d}): how many attention weights in one block (matrices, no biases)?"
        ),
        hides: vec!["attention weights / block", "FFN : attention"],
        column: Column::Gpt2Small,
        truth: Value::Count(g.block.attention_weights),
        formula: format!("4·d² = 4·{d}²"),
        mistakes: vec![(
            Value::Count(no_o),
            format!(
                "{} is 3·d²: q, k and v, but the output projection O is a fourth d×d matrix",
                thousands(no_o)
            ),
        )],
    }];
    let mut total = vec![(
        Value::Count(g.non_embedding.minus_position),
        format!(
            "{} leaves out wpe (nanoGPT's count); the total counts it",
            thousands(g.non_embedding.minus_position)
        ),
    )];
    if g.config.vocab.tied && wte > 0 {
        let head = g.total + wte;
        total.push((
            Value::Count(head),
            format!(
                "{} adds a separate LM head (V·d = {}); GPT-2 ties it to wte, so it adds nothing",
                thousands(head),
                thousands(wte)
            ),
        ));
    }
    out.push(CountQuestion {
        ask: "GPT-2 small: how many parameters in all?".into(),
        hides: vec!["total parameters", "non-embedding"],
        column: Column::Gpt2Small,
        truth: Value::Count(g.total),
        formula: "L·block + wte + wpe + ln_f".into(),
        mistakes: total,
    });
    let (aw, mw) = (g.block.attention_weights, g.block.mlp_weights);
    #[allow(clippy::cast_precision_loss)]
    let param_share = 100.0 * mw as f64 / (aw + mw) as f64;
    out.push(CountQuestion {
        ask: format!("GPT-2 small at T = {}: what share of one block's FLOPs is the FFN's, in %?", g.flops.seq),
        hides: vec!["  FFN share of FLOPs"],
        column: Column::Gpt2Small,
        truth: Value::Percent(g.flops.ffn_share * 100.0),
        formula: "FFN matmul FLOPs / (all matmul FLOPs + the score and weighted-sum products)".into(),
        mistakes: vec![(
            Value::Percent(param_share),
            format!("{param_share:.1}% is the FFN's share of the parameters; QKᵀ and the weighted sum cost FLOPs with no weights, so its FLOP share is lower"),
        )],
    });
    out
}
