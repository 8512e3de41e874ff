//! Token and position embeddings and the LM head, for a config with a
//! vocabulary. The traced forward starts at x0 (B, T, d), so these weights
//! are built for counting only (see [`crate::budget`]).
//!
//! ```text
//! x0 = wte[idx] + wpe[0..T]        logits = x·W_head   (W_head = wteᵀ when tied)
//! ```
//!
//! # Shapes
//! - wte: (V, d); wpe: (context, d); W_head: (d, V), absent when tied

use super::Builder;
use crate::config::PosEmb;
use crate::ops::{Backend, Init};
use crate::trace::recorder::Param;

/// The vocabulary-sized weights of a GPT-style model.
pub struct Embeddings<T> {
    /// Token embeddings (V, d): row i is token i's vector.
    pub wte: Param<T>,
    /// `None` with rotary positions.
    pub wpe: Option<Param<T>>,
    /// `None` when tied to `wte`.
    pub lm_head: Option<Param<T>>,
}

impl<T: Clone> Embeddings<T> {
    /// `wte`, `wpe` (learned positions) and, untied, `lm_head.weight`; `None` without a vocabulary.
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>) -> Option<Self> {
        let c = b.cfg;
        let v = c.vocab?;
        let (d, std) = (c.d_model, Builder::<B>::STD);
        Some(Self {
            wte: b.param("wte", &[v, d], &["V", "d"], Init::Normal(std)),
            wpe: (c.pos_emb == PosEmb::Learned)
                .then(|| b.param("wpe", &[c.positions(), d], &["ctx", "d"], Init::Normal(std))),
            lm_head: (!c.tied)
                .then(|| b.param("lm_head.weight", &[d, v], &["d", "V"], Init::Normal(std))),
        })
    }

    /// wte, wpe, then the head if untied.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        std::iter::once(&self.wte)
            .chain(self.wpe.as_ref())
            .chain(self.lm_head.as_ref())
    }
}
