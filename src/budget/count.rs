//! Parameter accounting from the weights the model builds.
//!
//! The model of a config is built on the shape-only backend, so counting
//! GPT-2 XL allocates nothing. Each parameter's formula comes from its own
//! axis names and shape: a (d_ff, d) weight of (3072, 768) reads
//! `d·d_ff = 768·3,072 = 2,359,296`. A group adds its parameters' terms:
//! four (d, d) weights read `4·d² = 4·768² = 2,359,296`.

use super::thousands;
use crate::config::ModelConfig;
use crate::model::embed::Embeddings;
use crate::model::{Builder, Model};
use crate::ops::shape::ShapeOnly;
use crate::shape::Axis;

/// One built parameter: its name, shape and axis names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    /// e.g. `block1.attn.q_proj.weight`.
    pub name: String,
    /// Its shape, e.g. `[64, 64]`.
    pub shape: Vec<usize>,
    /// e.g. `["d", "d"]`.
    pub axes: Vec<String>,
}

impl Counted {
    /// The number of scalars: the product of the shape.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.shape.iter().map(|&n| n as u64).product()
    }

    /// A bias: a linear layer's b or a LayerNorm's β.
    #[must_use]
    pub fn is_bias(&self) -> bool {
        self.name.ends_with(".bias")
    }

    /// A weight matrix, which costs 2 FLOPs per element per token.
    #[must_use]
    pub fn is_matrix(&self) -> bool {
        self.shape.len() == 2
    }

    /// The block number, for a parameter inside a block.
    #[must_use]
    pub fn block(&self) -> Option<usize> {
        crate::trace::block_of(&self.name)
    }

    /// The layer it belongs to: `block1.attn`, `block1.ln_2`, `ln_f`, `wte`.
    #[must_use]
    pub fn component(&self) -> String {
        let keep = if self.block().is_some() { 2 } else { 1 };
        let parts: Vec<&str> = self.name.split('.').take(keep).collect();
        parts.join(".")
    }

    /// Its factors as (symbol, size), in a fixed order: V, ctx, d, kv·hd, d_ff.
    fn factors(&self) -> Vec<(String, usize)> {
        const ORDER: [&str; 6] = ["V", "ctx", "d", "h·hd", "kv·hd", "d_ff"];
        let mut f: Vec<(String, usize)> = self
            .axes
            .iter()
            .zip(&self.shape)
            .map(|(a, &n)| (a.clone(), n))
            .collect();
        f.sort_by_key(|(s, _)| ORDER.iter().position(|o| o == s).unwrap_or(ORDER.len()));
        f
    }
}

/// The symbol of an axis in formulas: `ff` reads `d_ff`, and `kv·hd` reads
/// `d` when there are as many K/V heads as query heads.
fn symbol(cfg: &ModelConfig, axis: &Axis) -> String {
    match axis {
        Axis::Hidden => "d_ff".into(),
        Axis::Product(p)
            if matches!(p.as_slice(), [Axis::KvHeads, Axis::HeadDim])
                && cfg.attention.kv_heads == cfg.attention.heads
                && cfg.attn_width() == cfg.d_model =>
        {
            "d".into()
        }
        a => a.to_string(),
    }
}

/// Every parameter of `cfg`'s model as built, in build order: the blocks,
/// the final norm, then (with a vocabulary) wte, wpe and an untied head.
#[must_use]
pub fn built(cfg: &ModelConfig) -> Vec<Counted> {
    let backend = ShapeOnly(cfg.dtype);
    let model = Model::build(cfg, &backend);
    let b = Builder::new(&backend, cfg, &model.arch, crate::model::Source::Seeded);
    let embed = Embeddings::new(&b);
    model
        .params()
        .into_iter()
        .chain(embed.iter().flat_map(Embeddings::params))
        .map(|p| Counted {
            name: p.name.clone(),
            shape: p.t.clone(),
            axes: p.axes.iter().map(|a| symbol(cfg, a)).collect(),
        })
        .collect()
}

/// The sum of the counts.
#[must_use]
pub fn sum<'a>(params: impl IntoIterator<Item = &'a Counted>) -> u64 {
    params.into_iter().map(Counted::count).sum()
}

const SUPERSCRIPT: [&str; 4] = ["", "", "²", "³"];

/// `d²`, `d·d_ff`, or with sizes `768²`, `768·3,072`.
fn product(factors: &[(String, usize)], sizes: bool) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < factors.len() {
        let run = factors[i..]
            .iter()
            .take_while(|f| f.0 == factors[i].0)
            .count();
        let base = if sizes {
            thousands(factors[i].1 as u64)
        } else {
            factors[i].0.clone()
        };
        match SUPERSCRIPT.get(run) {
            Some(sup) => out.push(format!("{base}{sup}")),
            None => out.extend(std::iter::repeat_n(base, run)),
        }
        i += run;
    }
    out.join("·")
}

/// The formula of a sum of parameters, like terms added:
/// `4·d² + 4·d = 4·768² + 4·768 = 2,362,368`, or `d = 768` for one vector.
#[must_use]
pub fn formula<'a>(params: impl IntoIterator<Item = &'a Counted>) -> String {
    let mut terms: Vec<(Vec<(String, usize)>, u64)> = Vec::new();
    let mut total = 0;
    for p in params {
        total += p.count();
        let f = p.factors();
        match terms.iter_mut().find(|(t, _)| *t == f) {
            Some((_, k)) => *k += 1,
            None => terms.push((f, 1)),
        }
    }
    // Highest degree first; a stable sort keeps build order among equals.
    terms.sort_by_key(|(f, _)| std::cmp::Reverse(f.len()));
    if let [(f, 1)] = terms.as_slice()
        && f.len() <= 1
    {
        return match f.first() {
            Some((s, _)) => format!("{s} = {}", thousands(total)),
            None => thousands(total),
        };
    }
    let side = |sizes: bool| {
        let parts: Vec<String> = terms
            .iter()
            .map(|(f, k)| {
                let coef = if *k > 1 {
                    format!("{k}·")
                } else {
                    String::new()
                };
                format!("{coef}{}", product(f, sizes))
            })
            .collect();
        parts.join(" + ")
    };
    if terms.is_empty() {
        return "0".into();
    }
    format!("{} = {} = {}", side(false), side(true), thousands(total))
}
