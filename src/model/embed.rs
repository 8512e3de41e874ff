//! The two ends of a language model, for a config with a vocabulary: the
//! token and position embeddings before the blocks, the LM head after.
//!
//! ```text
//! x0     = wte[ids] + wpe[0..T]          (B, T) → (B, T, d)
//! logits = x·W_head                      (B, T, d) → (B, T, V)
//!          W_head = wteᵀ when tied
//! ```
//!
//! Family variants, each a step of its own: OPT's positions start at row
//! 2 of wpe (`wpe[2..T+2]`); Gemma scales the token vectors by √d
//! (`input = tok_emb·√d`); Gemma 2 soft-caps the logits
//! (`logits = c·tanh(lm_head/c)`).
//!
//! # Shapes
//! - ids: (B, T) int64; wte: (V, d); wpe: (context, d); W_head: (d, V),
//!   absent when tied

use super::Builder;
use crate::config::PosEmb;
use crate::ops::{Backend, Init, Op};
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// The vocabulary-sized weights of a GPT-style model.
pub struct Embeddings<T> {
    /// Token embeddings (V, d): row i is token i's vector.
    pub wte: Param<T>,
    /// `None` with rotary positions.
    pub wpe: Option<Param<T>>,
    /// `None` when tied to `wte`.
    pub lm_head: Option<Param<T>>,
    /// Rows of wpe before position 0 (OPT's 2).
    pub pos_offset: usize,
    /// √d when the token vectors are scaled (Gemma); `None` otherwise.
    pub scale: Option<f64>,
    /// The logits' soft cap, `Op::SoftCap` (Gemma 2's 30); `None` for none.
    pub cap: Option<Op>,
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
            pos_offset: c.pos_offset,
            #[allow(clippy::cast_precision_loss)]
            scale: c.embed_scale.then(|| (d as f64).sqrt()),
            cap: (c.logit_softcap > 0.0).then_some(Op::SoftCap {
                cap: c.logit_softcap,
            }),
        })
    }

    /// Records x0 from the token ids (B, T): `tokens`, `tok_emb = wte[ids]`
    /// (B, T, d), `pos_emb = wpe[0..T]` (T, d) and `input = tok_emb +
    /// pos_emb` (B, T, d). With rotary positions x0 is `wte[ids]` itself:
    /// the positions turn q and k inside attention.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn embed<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        ids: T,
    ) -> Result<Val<T>, Stop> {
        let ids = rec.tokens(ids)?; // (B, T) int64
        let (ids, wte) = (In::Act(&ids), In::Param(&self.wte));
        let scale = self.scale.map(|by| Op::Scale { by });
        let Some(wpe) = &self.wpe else {
            let Some(scale) = scale else {
                return rec.interface("input", &Op::Gather, &[ids, wte]); // x0 = wte[ids]: (B, T, d)
            };
            let tok = rec.op("tok_emb", &Op::Gather, &[ids, wte])?; // wte[ids]: (B, T, d)
            return rec.interface("input", &scale, &[In::Act(&tok)]); // x0 = wte[ids]·√d: (B, T, d)
        };
        let tok = rec.op("tok_emb", &Op::Gather, &[ids, wte])?; // wte[ids]: (B, T, d)
        let tok = match scale {
            Some(scale) => rec.op_owned("tok_emb.scaled", &scale, tok, &[])?, // wte[ids]·√d
            None => tok,
        };
        let at = Op::Positions {
            offset: self.pos_offset,
        };
        let pos = rec.op("pos_emb", &at, &[In::Param(wpe), ids])?; // wpe[o..o+T]: (T, d)
        let sum = [In::Act(&tok), In::Act(&pos)];
        rec.interface("input", &Op::AddPositions, &sum) // x0 = tok_emb + pos_emb: (B, T, d)
    }

    /// Records the logits of x (B, T, d), the final norm's output:
    /// `lm_head = x·wteᵀ` (tied) or `x·W_head`, (B, T, V).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn logits<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        let (head, w) = match &self.lm_head {
            Some(w) => (Op::LmHead { tied: false }, w),
            None => (Op::LmHead { tied: true }, &self.wte),
        };
        let Some(cap) = &self.cap else {
            return rec.op("lm_head", &head, &[In::Act(x), In::Param(w)]); // (B, T, V)
        };
        let z = rec.op("lm_head", &head, &[In::Act(x), In::Param(w)])?; // (B, T, V)
        rec.op_owned("logits.capped", cap, z, &[]) // c·tanh(z/c): (B, T, V)
    }

    /// wte, wpe, then the head if untied.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        std::iter::once(&self.wte)
            .chain(self.wpe.as_ref())
            .chain(self.lm_head.as_ref())
    }
}
