//! The numbers of the Budget pictures, for every view that draws them
//! (the stepper's Budget tab, the HTML handout): one piece of code.
//!
//! - the parameters split into embeddings, attention, MLP and norms;
//! - one token's forward FLOPs split into the attention projections, the
//!   MLP's matmuls, attention's T-term (q·kᵀ and weights·v over the T keys)
//!   and the LM head;
//! - forward FLOPs per token against T on log axes, from T = 1 past the
//!   point where attention's T-term, 4·T·h·hd a block, equals the MLP's
//!   matmuls, 2·(MLP weights) a block: T* = d_ff for a plain MLP of 4·d.
//!   Under the causal mask a query reads (T+1)/2 keys on average, so the
//!   causal T-term catches up at 2·T* − 1 (≈ 2·T*).
//!
//! ```
//! use shapetrace::budget::pictures::{crossover, curves};
//! let b = shapetrace::Budget::of(&shapetrace::ModelConfig::default()).unwrap();
//! assert_eq!(crossover(&b), Some(256.0)); // d_ff of the lesson model
//! let c = curves(&b);
//! assert_eq!(c.attention.len(), 65);
//! ```

use super::Budget;

/// The parts of a whole, with their counts.
pub type Split = Vec<(&'static str, u64)>;

/// Parameters: embeddings (wte, wpe, an untied head), attention, MLP,
/// norms (the blocks' and the final one), and what is left (BERT's
/// token types, embedding norm and pooler) when there is any.
#[must_use]
pub fn params(b: &Budget) -> Split {
    let l = b.config.held_layers() as u64;
    let emb = b.total - b.non_embedding.minus_all_and_head;
    let (attn, mlp) = (l * b.block.attention, l * b.block.mlp);
    let norms = l * b.block.norms + b.final_norm();
    let other = b.total.saturating_sub(emb + attn + mlp + norms);
    let mut out = vec![
        ("embed", emb),
        ("attn", attn),
        ("MLP", mlp),
        ("norms", norms),
    ];
    if other > 0 {
        out.push(("other", other));
    }
    out
}

/// One token's forward FLOPs at the model's T: attention's projections,
/// the MLP's matmuls, attention's T-term (in full), the LM head.
#[must_use]
pub fn flops(b: &Budget) -> Split {
    let s = &b.flops.split;
    vec![
        ("qkvo", s.layers * s.attn_proj),
        ("MLP", s.layers * s.ffn),
        (
            "T-term",
            s.layers * b.flops.per_token_per_block.attention_full,
        ),
        ("head", s.head),
    ]
}

/// The T where attention's T-term (4·T·h·hd a block) equals the MLP's
/// matmuls: d_ff for a plain MLP; `None` without either.
#[must_use]
pub fn crossover(b: &Budget) -> Option<f64> {
    let per_t = 4 * (b.config.attn_width() as u64);
    let mlp = b.flops.split.ffn;
    #[allow(clippy::cast_precision_loss)]
    (per_t > 0 && mlp > 0).then(|| mlp as f64 / per_t as f64)
}

/// Forward FLOPs per token against T, every point as (log10 T, log10
/// FLOPs), with the bounds of both axes in log10.
#[derive(Debug, Clone, PartialEq)]
pub struct Curves {
    /// The largest T drawn: 4× the context, and past 4·T*, at least 8.
    pub t_max: f64,
    /// Attention's T-term of all blocks, L·4·T·h·hd.
    pub attention: Vec<(f64, f64)>,
    /// The MLP's matmuls of all blocks: flat in T.
    pub mlp: Vec<(f64, f64)>,
    /// Everything: projections, MLP, head and the T-term.
    pub total: Vec<(f64, f64)>,
    /// The lowest log10 FLOPs shown.
    pub y_min: f64,
    /// The highest log10 FLOPs shown.
    pub y_max: f64,
    /// T*, where the T-term equals the MLP's matmuls, if there is one.
    pub cross: Option<f64>,
}

/// The curves of `b`: 65 points from T = 1 to [`Curves::t_max`], evenly
/// spaced in log T.
#[must_use]
pub fn curves(b: &Budget) -> Curves {
    let s = &b.flops.split;
    let cross = crossover(b);
    #[allow(clippy::cast_precision_loss)]
    let (l, hw, mlp, fixed) = (
        s.layers as f64,
        b.config.attn_width() as f64,
        (s.layers * s.ffn) as f64,
        (s.layers * (s.attn_proj + s.ffn) + s.head) as f64,
    );
    // From T = 1 to 4× the context, and past the crossover.
    #[allow(clippy::cast_precision_loss)]
    let ctx = b.config.positions().max(b.config.seq) as f64;
    let t_max = (4.0 * ctx).max(4.0 * cross.unwrap_or(1.0)).max(8.0);
    let xs: Vec<f64> = (0..=64).map(|i| t_max.powf(f64::from(i) / 64.0)).collect();
    let attn = |tt: f64| l * 4.0 * tt * hw;
    let pts = |f: &dyn Fn(f64) -> f64| -> Vec<(f64, f64)> {
        xs.iter()
            .map(|&x| (x.log10(), f(x).max(1.0).log10()))
            .collect()
    };
    Curves {
        t_max,
        total: pts(&|x| fixed + attn(x)),
        attention: pts(&attn),
        mlp: pts(&|_| mlp),
        y_max: (fixed + attn(t_max)).max(mlp).max(10.0).log10().ceil(),
        y_min: attn(1.0).min(mlp).max(1.0).log10().floor(),
        cross,
    }
}

/// A count in few characters: 1.2M, 85.6k, 7.0B.
#[must_use]
pub fn short(n: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let x = n as f64;
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", x / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1}M", x / 1e6),
        _ => format!("{:.1}B", x / 1e9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_t_term_meets_the_mlp_at_t_star() {
        let b = Budget::of(&crate::ModelConfig::default()).unwrap();
        let c = curves(&b);
        let t_star = c.cross.unwrap();
        // At T*, L·4·T*·h·hd equals L·(MLP matmuls).
        #[allow(clippy::cast_precision_loss)]
        let at = 4.0 * t_star * b.config.attn_width() as f64;
        #[allow(clippy::cast_precision_loss)]
        let mlp = b.flops.split.ffn as f64;
        assert!((at - mlp).abs() < 1e-6, "{at} vs {mlp}");
        // The split adds up to the total.
        assert_eq!(params(&b).iter().map(|(_, n)| n).sum::<u64>(), b.total);
        assert!(c.t_max >= 4.0 * t_star);
        assert!(c.y_min < c.y_max);
    }
}
