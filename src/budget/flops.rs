//! Forward FLOPs, counted from the built weights and the trace's shapes.
//!
//! - A matrix product costs 2 FLOPs (a multiply and an add) per weight per
//!   token: `2·(4·d² + 2·d·d_ff)` per GPT block.
//! - The scores q·kᵀ (B,h,T,hd)·(B,h,hd,T) and the weighted sum w·v
//!   (B,h,T,T)·(B,h,T,hd) each cost 2·h·hd·T per token at full T, together
//!   `4·T·d`. With the causal mask exploited, query t reads t+1 keys: on
//!   average (T+1)/2, so `2·d·(T+1)` per token; within a sliding window
//!   of w it reads min(t+1, w) keys, the band.
//! - Training: nanoGPT's estimate_mfu counts `6·N + 12·L·H·Q·T` per token,
//!   with N the parameters minus the position embedding and Q = hd.

use crate::ops::{Masking, OpKind};
use crate::trace::Trace;
use serde::Serialize;

/// One block's forward FLOPs per token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BlockFlops {
    /// 2 per weight: the q, k, v, o and MLP matrices.
    pub matmul: u64,
    /// Scores and weighted sum over all T keys: 4·T·d.
    pub attention_full: u64,
    /// The same with the mask exploited: 2·d·(T+1) when causal, over the
    /// band within a sliding window.
    pub attention_causal: u64,
    /// `matmul + attention_full`.
    pub total: u64,
}

/// The parts the totals are made of, for tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Split {
    /// 2 × the attention matrices (q, k, v, o) of one block.
    pub attn_proj: u64,
    /// 2 × the MLP matrices of one block.
    pub ffn: u64,
    /// The LM head's logits, 2·V·d per token (tied or not); 0 without a vocabulary.
    pub head: u64,
    /// L, the number of blocks.
    pub layers: u64,
    /// 6·N of the training estimate.
    pub six_n: u64,
    /// 12·L·H·Q·T of the training estimate.
    pub attention_term: u64,
}

/// Forward and training FLOPs per token at T = `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Flops {
    /// T, the sequence length the attention terms are counted at.
    pub seq: usize,
    /// One block's forward FLOPs per token.
    pub per_token_per_block: BlockFlops,
    /// The MLP's share of one block's FLOPs.
    pub ffn_share: f64,
    /// `L · per_token_per_block.total` + the LM head.
    pub forward_per_token: u64,
    /// nanoGPT's estimate `6·N + 12·L·H·Q·T`.
    pub training_per_token: u64,
    /// The parts of the totals, for tables.
    #[serde(skip)]
    pub split: Split,
}

impl Flops {
    /// The forward FLOPs of the model per token with the causal mask exploited.
    #[must_use]
    pub fn forward_per_token_causal(&self) -> u64 {
        let b = self.per_token_per_block;
        self.split.layers * (b.matmul + b.attention_causal) + self.split.head
    }

    /// The forward FLOPs of one sequence of `seq` tokens: full and causal.
    #[must_use]
    pub fn forward_per_sequence(&self) -> (u64, u64) {
        let t = self.seq as u64;
        (
            t * self.forward_per_token,
            t * self.forward_per_token_causal(),
        )
    }

    /// The attention sublayer's share of one block's FLOPs.
    #[must_use]
    pub fn attention_share(&self) -> f64 {
        1.0 - self.ffn_share
    }
}

/// Scores and weighted-sum FLOPs of one block per token: (full, masked),
/// the mean over the blocks (which differ when only some have a window,
/// as Gemma 2's every other block).
///
/// Each op pairs T queries with S keys over hd: `2·B·h·hd·pairs`, where
/// pairs is T·S in full, or `Σ_t min(t+1, S)` under the causal mask, or
/// `Σ_t min(t+1, S, w)` within a sliding window of w: the band.
#[must_use]
pub fn attention_per_token(trace: &Trace) -> (u64, u64) {
    // By path (the first event of each, as `Trace::get`), once: a lookup
    // per op would scan the trace, quadratic in depth.
    let mut by_path = std::collections::HashMap::new();
    for e in &trace.events {
        by_path.entry(e.path.as_str()).or_insert(e);
    }
    let shape = |path: &str| {
        by_path
            .get(path)
            .map(|e| e.shape.clone())
            .unwrap_or_default()
    };
    let (mut full, mut causal, mut tokens) = (0u64, 0u64, 1u64);
    let mut blocks = std::collections::BTreeSet::new();
    for e in trace.events.iter() {
        let Some(block) = e.block() else {
            continue;
        };
        let first = e.inputs.first().map(|p| shape(p)).unwrap_or_default();
        // (B, h, T, S) and hd, from the op's output and its first operand.
        let (bhts, hd) = match e.op {
            OpKind::Scores => (e.shape.clone(), first.get(3).copied()),
            OpKind::WeightedSum => (first, e.shape.get(3).copied()),
            _ => continue,
        };
        let (Some(hd), [b, h, t, s]) = (hd, bhts.as_slice()) else {
            continue;
        };
        let [b, h, t, s, hd] = [*b, *h, *t, *s, hd].map(|n| n as u64);
        blocks.insert(block);
        let pairs_causal = match trace.masking_at(block) {
            Masking::Window(w) => (0..t).map(|q| (q + 1).min(s).min(w as u64)).sum(),
            // An encoder reads every key: nothing to exploit.
            Masking::TwoWay => t * s,
            _ if s >= t => t * (t + 1) / 2,
            _ => s * (s + 1) / 2 + (t - s) * s,
        };
        full += 2 * b * h * hd * t * s;
        causal += 2 * b * h * hd * pairs_causal;
        tokens = b * t;
    }
    let n = (blocks.len() as u64).max(1);
    (full / tokens / n, causal / tokens / n)
}

/// What the FLOPs are computed from.
pub struct Inputs {
    /// Weights in one block's attention matrices (q, k, v, o).
    pub attn_weights: u64,
    /// Weights in one block's MLP matrices that one token is multiplied by
    /// (a mixture's router and k experts).
    pub mlp_weights: u64,
    /// (full, causal) attention FLOPs per token, from [`attention_per_token`].
    pub attention: (u64, u64),
    /// L, the number of blocks.
    pub layers: usize,
    /// H, the query heads.
    pub heads: usize,
    /// Q = hd = d_model / heads.
    pub head_dim: usize,
    /// T.
    pub seq: usize,
    /// V·d, 0 without a vocabulary.
    pub vocab_d: u64,
    /// N: parameters minus the position embedding.
    pub n: u64,
}

/// The FLOPs of a model from its counts.
#[must_use]
pub fn flops(i: &Inputs) -> Flops {
    let n = |x: usize| x as u64;
    let (attn_proj, ffn) = (2 * i.attn_weights, 2 * i.mlp_weights);
    let block = BlockFlops {
        matmul: attn_proj + ffn,
        attention_full: i.attention.0,
        attention_causal: i.attention.1,
        total: attn_proj + ffn + i.attention.0,
    };
    #[allow(clippy::cast_precision_loss)]
    let ffn_share = if block.total == 0 {
        0.0
    } else {
        ffn as f64 / block.total as f64
    };
    let split = Split {
        attn_proj,
        ffn,
        head: 2 * i.vocab_d,
        layers: n(i.layers),
        six_n: 6 * i.n,
        attention_term: 12 * n(i.layers) * n(i.heads) * n(i.head_dim) * n(i.seq),
    };
    Flops {
        seq: i.seq,
        per_token_per_block: block,
        ffn_share,
        forward_per_token: split.layers * block.total + split.head,
        training_per_token: split.six_n + split.attention_term,
        split,
    }
}
