//! The count questions, each counted by [`Budget`] on the model or on the
//! variant its mistake imagines; nothing here is a number of its own.

use super::{Column, CountQuestion, Value};
use crate::budget::{Budget, thousands};
use crate::config::{Act, Mlp, ModelConfig};
use crate::why::Why;

/// A formula that reads the same in every language.
fn plain(text: String) -> Why {
    Why::new("lab-count-plain").arg("text", text)
}

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
    let yes = if gated { "yes" } else { "no" };
    let mut mistakes = vec![(
        Value::Count(one),
        Why::new("lab-count-only-w1")
            .arg("n", thousands(one))
            .arg("d", d)
            .arg("f", f)
            .arg("gated", yes),
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
        let n = thousands(o.block.mlp_weights);
        let says = if gated {
            Why::new("lab-count-swiglu-kept-4d")
                .arg("n", n)
                .arg("f4", 4 * d)
                .arg("f", f)
        } else {
            Why::new("lab-count-three-matrices")
                .arg("n", n)
                .arg("f", f)
                .arg("act", c.mlp.act.to_string())
        };
        mistakes.push((Value::Count(o.block.mlp_weights), says));
    }
    if c.mlp_bias() {
        mistakes.push((
            Value::Count(b.block.mlp),
            Why::new("lab-count-biases").arg("n", thousands(b.block.mlp)),
        ));
    }
    CountQuestion {
        ask: Why::new("lab-count-ask-mlp"),
        hides: vec!["FFN weights / block", "FFN : attention"],
        column: Column::ThisModel,
        truth: Value::Count(b.block.mlp_weights),
        formula: Why::new("lab-count-formula-mlp")
            .arg("k", if gated { 3 } else { 2 })
            .arg("d", d)
            .arg("f", f),
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
        ask: Why::new("lab-count-ask-swiglu")
            .arg("f", f)
            .arg("matched", matched),
        hides: Vec::new(),
        column: Column::ThisModel,
        truth: Value::Count(truth),
        formula: plain(format!("3·d·d_ff' = 3·{d}·{matched}")),
        mistakes: vec![
            (
                Value::Count(kept),
                Why::new("lab-count-swiglu-kept")
                    .arg("n", thousands(kept))
                    .arg("d", d)
                    .arg("f", f)
                    .arg("matched", matched),
            ),
            (
                Value::Count(b.block.mlp_weights),
                Why::new("lab-count-two-matrix")
                    .arg("n", thousands(b.block.mlp_weights))
                    .arg("f", f)
                    .arg("matched", matched),
            ),
        ],
    })
}

fn gpt2_questions(g: &Budget) -> Vec<CountQuestion> {
    let d = g.config.d_model;
    let no_o = g.block.attention_weights - row(g, "block.attn.out.weight");
    let wte = row(g, "wte");
    let mut out = vec![CountQuestion {
        ask: Why::new("lab-count-ask-attn").arg("d", d),
        hides: vec!["attention weights / block", "FFN : attention"],
        column: Column::Gpt2Small,
        truth: Value::Count(g.block.attention_weights),
        formula: plain(format!("4·d² = 4·{d}²")),
        mistakes: vec![(
            Value::Count(no_o),
            Why::new("lab-count-no-o").arg("n", thousands(no_o)),
        )],
    }];
    let mut total = vec![(
        Value::Count(g.non_embedding.minus_position),
        Why::new("lab-count-no-wpe").arg("n", thousands(g.non_embedding.minus_position)),
    )];
    if g.config.vocab.tied && wte > 0 {
        let head = g.total + wte;
        total.push((
            Value::Count(head),
            Why::new("lab-count-lm-head")
                .arg("n", thousands(head))
                .arg("vd", thousands(wte)),
        ));
    }
    out.push(CountQuestion {
        ask: Why::new("lab-count-ask-total"),
        hides: vec!["total parameters", "non-embedding"],
        column: Column::Gpt2Small,
        truth: Value::Count(g.total),
        formula: plain("L·block + wte + wpe + ln_f".into()),
        mistakes: total,
    });
    let (aw, mw) = (g.block.attention_weights, g.block.mlp_weights);
    #[allow(clippy::cast_precision_loss)]
    let param_share = 100.0 * mw as f64 / (aw + mw) as f64;
    out.push(CountQuestion {
        ask: Why::new("lab-count-ask-share").arg("T", g.flops.seq),
        hides: vec!["  FFN share of FLOPs"],
        column: Column::Gpt2Small,
        truth: Value::Percent(g.flops.ffn_share * 100.0),
        formula: Why::new("lab-count-formula-share"),
        mistakes: vec![(
            Value::Percent(param_share),
            Why::new("lab-count-param-share").arg("p", format!("{param_share:.1}")),
        )],
    });
    out
}
