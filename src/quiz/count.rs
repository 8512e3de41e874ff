//! The Budget tab's quiz: predict a row of the budget table before it is
//! shown. Every expected number, and every named wrong one, is counted by
//! [`Budget`] on the model (or on the variant the mistake imagines):
//!
//! - the MLP's weights: d·d_ff alone is only W1 (16,384 on the lesson
//!   model); 3·d·d_ff is three matrices, SwiGLU's (49,152);
//! - the MLP as SwiGLU at the matched width d_ff' = round(2/3·d_ff):
//!   3·d·d_ff' (32,832); SwiGLU kept at d_ff gives 49,152;
//! - GPT-2's attention weights 4·d²: 3·d² forgets the output projection O;
//! - GPT-2's total: a separate LM head on a tied model adds V·d too many;
//! - the FFN's share of FLOPs: its share of parameters (2/3) is not it.

use crate::budget::{Budget, thousands};
use crate::config::{Act, ModelConfig};
use crate::text::shown;

/// A number the student predicts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// An exact count.
    Count(u64),
    /// A percentage, e.g. 54.5.
    Percent(f64),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Count(n) => f.write_str(&thousands(*n)),
            Value::Percent(p) => write!(f, "{p:.1}%"),
        }
    }
}

/// Which column of the budget table a question is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// The lab's own model.
    ThisModel,
    /// GPT-2 small, beside it.
    Gpt2Small,
}

/// One count to predict.
#[derive(Debug, Clone, PartialEq)]
pub struct CountQuestion {
    /// The question as shown.
    pub ask: String,
    /// The budget table's row this question hides, e.g. `FFN weights / block`
    /// (none for a model the table does not show).
    pub row: Option<&'static str>,
    /// The column the row is hidden in.
    pub column: Column,
    /// The expected number, counted by the budget code.
    pub truth: Value,
    /// Where it comes from, e.g. `2·d·d_ff = 2·64·256`.
    pub formula: String,
    /// Named wrong numbers, each with what it counts.
    pub mistakes: Vec<(Value, String)>,
}

/// The judge's answer on a count.
#[derive(Debug, Clone, PartialEq)]
pub enum CountVerdict {
    /// The exact number.
    Right,
    /// Wrong, and what the number counts when the mistake is named.
    Wrong(String),
}

/// Why typed text is not a count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CountError {
    /// Not a whole number with grouped separators.
    #[error("'{}' is not an exact count; allowed: a whole number, e.g. 16384, 16,384 or 16_384", shown(.0))]
    NotCount(String),
    /// Not a percentage.
    #[error("'{}' is not a percentage; allowed: e.g. 54.5 or 54.5%", shown(.0))]
    NotPercent(String),
}

/// `16384`, `16,384` or `16_384`; separators only between groups of three.
///
/// # Errors
/// Anything else, `16.4k` and `1,63,84` included.
pub fn parse_count(text: &str) -> Result<u64, CountError> {
    let t = text.trim();
    let bad = || CountError::NotCount(t.into());
    let groups: Vec<&str> = t.split([',', '_']).collect();
    let ok = !groups[0].is_empty()
        && groups[0].len() <= if groups.len() > 1 { 3 } else { 20 }
        && groups[1..].iter().all(|g| g.len() == 3)
        && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_digit()));
    if !ok {
        return Err(bad());
    }
    groups.concat().parse().map_err(|_| bad())
}

/// `54.5`, `54.5%` or `55 %`: the value and its decimals.
fn parse_percent(text: &str) -> Result<(f64, i32), CountError> {
    let t = text.trim();
    let n = t.strip_suffix('%').unwrap_or(t).trim();
    let digits_ok = !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && n.matches('.').count() <= 1;
    let v: f64 = n
        .parse()
        .ok()
        .filter(|_| digits_ok)
        .ok_or_else(|| CountError::NotPercent(t.into()))?;
    let decimals = n.split_once('.').map_or(0, |(_, f)| f.len());
    Ok((v, i32::try_from(decimals).unwrap_or(9)))
}

/// Whether `v` (typed with `decimals`) is `truth` rounded to as many.
fn same_percent(v: f64, decimals: i32, truth: f64) -> bool {
    let scale = 10f64.powi(decimals);
    ((truth * scale).round() - v * scale).abs() < 1e-6
}

impl CountQuestion {
    /// Judges typed text.
    ///
    /// # Errors
    /// The text is not a count (or a percentage, when one is asked for).
    pub fn judge(&self, text: &str) -> Result<CountVerdict, CountError> {
        let hits = |want: Value| -> Result<bool, CountError> {
            Ok(match want {
                Value::Count(n) => parse_count(text)? == n,
                Value::Percent(p) => {
                    let (v, dec) = parse_percent(text)?;
                    same_percent(v, dec, p)
                }
            })
        };
        if hits(self.truth)? {
            return Ok(CountVerdict::Right);
        }
        for (v, says) in &self.mistakes {
            if hits(*v)? {
                return Ok(CountVerdict::Wrong(says.clone()));
            }
        }
        Ok(CountVerdict::Wrong(format!(
            "{} is not it: {} = {}",
            text.trim(),
            self.formula,
            self.truth
        )))
    }
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
    let (d, f) = (c.d_model, c.d_ff);
    let gated = c.act == Act::Swiglu;
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
        act: if gated { c.act } else { Act::Swiglu },
        d_ff: if gated { 4 * d } else { f },
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
                c.act
            )
        };
        mistakes.push((
            Value::Count(o.block.mlp_weights),
            format!("{} is {says}", thousands(o.block.mlp_weights)),
        ));
    }
    if c.bias {
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
        row: Some("FFN weights / block"),
        column: Column::ThisModel,
        truth: Value::Count(b.block.mlp_weights),
        formula: format!("{} matrices of d·d_ff = {d}·{f}", if gated { 3 } else { 2 }),
        mistakes,
    }
}

fn swiglu_matched(b: &Budget) -> Option<CountQuestion> {
    let c = &b.config;
    if c.act == Act::Swiglu {
        return None;
    }
    let (d, f) = (c.d_model, c.d_ff);
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let matched = ((2.0 * f as f64) / 3.0).round().max(1.0) as usize;
    let swiglu = |d_ff| ModelConfig {
        act: Act::Swiglu,
        d_ff,
        ..c.clone()
    };
    let truth = of(&swiglu(matched))?.block.mlp_weights;
    let kept = of(&swiglu(f))?.block.mlp_weights;
    Some(CountQuestion {
        ask: format!(
            "This model's MLP as SwiGLU (three matrices) at the matched width d_ff' = round(2/3·{f}) = {matched}: how many MLP weights per block?"
        ),
        row: None,
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
        row: Some("attention weights / block"),
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
    if g.config.tied && wte > 0 {
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
        row: Some("total parameters"),
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
        row: Some("  FFN share of FLOPs"),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson() -> Vec<CountQuestion> {
        let ours = Budget::of(&ModelConfig::default()).unwrap();
        let gpt2 = Budget::of(&crate::config::preset::by_name("gpt2-small").unwrap()).unwrap();
        questions(&ours, &gpt2)
    }

    fn wrong(q: &CountQuestion, text: &str) -> String {
        match q.judge(text).unwrap() {
            CountVerdict::Wrong(s) => s,
            CountVerdict::Right => panic!("{text} judged right"),
        }
    }

    #[test]
    fn counts_parse_strictly() {
        for t in ["16384", "16,384", "16_384", " 1,000,000 "] {
            assert!(parse_count(t).is_ok(), "{t}");
        }
        assert_eq!(parse_count("16,384"), Ok(16_384));
        for t in [
            "16.4k", "1,63,84", "16,38", ",384", "-5", "", "1e4", "16 384",
        ] {
            let e = parse_count(t).expect_err(t).to_string();
            assert!(e.contains("not an exact count"), "{t}: {e}");
        }
    }

    #[test]
    fn the_lesson_mistakes_are_named_and_the_truth_is_right() {
        let qs = lesson();
        let mlp = &qs[0];
        assert_eq!(mlp.judge("32,768"), Ok(CountVerdict::Right));
        assert!(wrong(mlp, "16,384").contains("only W1"));
        assert!(wrong(mlp, "49152").contains("three matrices"));
        assert!(wrong(mlp, "33,088").contains("biases"));
        assert!(wrong(mlp, "30000").contains("is not it"));
        let matched = &qs[1];
        assert_eq!(matched.judge("32_832"), Ok(CountVerdict::Right));
        assert!(wrong(matched, "49,152").contains("SwiGLU kept at d_ff = 256"));
        let attn = &qs[2];
        assert_eq!(attn.judge("2,359,296"), Ok(CountVerdict::Right));
        assert!(wrong(attn, "1,769,472").contains("output projection O"));
        let total = &qs[3];
        assert_eq!(total.judge("124,439,808"), Ok(CountVerdict::Right));
        assert!(wrong(total, "163,037,184").contains("separate LM head"));
        let share = &qs[4];
        assert_eq!(share.judge("54.5%"), Ok(CountVerdict::Right));
        assert!(wrong(share, "66.7").contains("share of the parameters"));
        assert!(share.judge("lots").is_err());
    }

    #[test]
    fn a_swiglu_model_counts_three_matrices_and_names_the_kept_width() {
        let cfg = ModelConfig {
            act: Act::Swiglu,
            d_ff: 171,
            ..ModelConfig::default()
        };
        let ours = Budget::of(&cfg).unwrap();
        let qs = questions(&ours, &ours);
        assert_eq!(qs[0].judge("32,832"), Ok(CountVerdict::Right));
        assert!(wrong(&qs[0], "49,152").contains("SwiGLU kept at d_ff = 4·d = 256"));
        assert!(wrong(&qs[0], "10,944").contains("only W1"));
    }
}
