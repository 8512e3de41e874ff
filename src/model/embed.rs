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
//! (`logits = c·tanh(lm_head/c)`). BERT adds a token-type row and a
//! LayerNorm to the embeddings and ends in its pooler instead of an LM
//! head:
//!
//! ```text
//! x0     = LN_emb(wte[ids] + wpe[0..T] + wtt[0])     (B, T, d)
//! pooled = tanh(x[:, 0]·W_p + b_p)                    (B, T, d) → (B, d)
//! ```
//!
//! # Shapes
//! - ids: (B, T) int64; wte: (V, d); wpe: (context, d); W_head: (d, V),
//!   absent when tied

use super::Builder;
use super::linear::Linear;
use super::norm::Norm;
use crate::config::{DType, Head, PosEmb};
use crate::ops::{Axis, Backend, Init, Op};
use crate::trace::Role;
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// Every stage that embeds, or scores by a tied wte, builds wte.
const HELD: &str = "the stage that embeds or scores by wte holds it";

/// The vocabulary-sized weights of a GPT-style model.
pub struct Embeddings<T> {
    /// Token embeddings (V, d): row i is token i's vector; `None` on a
    /// pipeline stage that neither looks tokens up nor scores them by a
    /// tied wte.
    pub wte: Option<Param<T>>,
    /// `None` with rotary positions.
    pub wpe: Option<Param<T>>,
    /// `None` when tied to `wte`.
    pub lm_head: Option<Param<T>>,
    /// Rows of wpe before position 0 (OPT's 2).
    pub pos_offset: usize,
    /// √d when the token vectors are scaled (Gemma); `None` otherwise.
    pub scale: Option<f64>,
    /// The logits' soft cap c (Gemma 2's 30); `None` for none.
    pub cap: Option<f64>,
    /// Token-type embeddings wtt (types, d) (BERT's); `None` for none.
    pub wtt: Option<Param<T>>,
    /// The norm on the summed embeddings, `ln_emb` (BERT's); `None` for none.
    pub norm: Option<Norm<T>>,
    /// BERT's pooler W_p (d, d) and b_p, in the LM head's place; `None`
    /// for an LM.
    pub pooler: Option<Linear<T>>,
    /// Split across devices, this device's rows of the vocabulary (of wte
    /// and of the head); `None` on one device.
    pub vocab: Option<super::shard::VocabCut>,
    /// Whether the lookup zeroes the ids another device holds
    /// (`vocab-no-mask`: not).
    pub masks: bool,
}

impl<T: Clone> Embeddings<T> {
    /// `wte`, `wpe` (learned positions) and, untied, `lm_head.weight`; `None` without a vocabulary.
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>) -> Option<Self> {
        let c = b.cfg;
        let v = c.vocab.size?;
        let (d, std) = (c.d_model, Builder::<B>::STD);
        // A pipeline's first stage embeds, its last scores.
        let (first, last) = (c.devices.first_stage(), c.devices.last_stage());
        // wte on one device; in a pipeline the first stage looks tokens up
        // in it and the last, with a tied head, keeps a copy to multiply by
        // (Megatron's). The other ends are built where their stage runs
        // them: wpe, wtt, ln_emb on the first, the head on the last.
        let wte_held = first || (last && c.vocab.tied && c.vocab.head == Head::Lm);
        Some(Self {
            vocab: b.vocab_cut(),
            masks: b.arch.lookup_masks,
            // Split across devices, each holds V/N rows (of V' padded).
            wte: wte_held.then(|| {
                b.vocab_param(
                    "wte",
                    &[v, d],
                    &[Axis::Vocab, Axis::Model],
                    Init::Normal(std),
                    0,
                )
            }),
            wpe: (first && c.positions.kind == PosEmb::Learned).then(|| {
                b.param(
                    "wpe",
                    &[c.positions(), d],
                    &[Axis::Context, Axis::Model],
                    Init::Normal(std),
                )
            }),
            lm_head: (last && !c.vocab.tied && c.vocab.head == Head::Lm).then(|| {
                b.vocab_param(
                    "lm_head.weight",
                    &[d, v],
                    &[Axis::Model, Axis::Vocab],
                    Init::Normal(std),
                    1,
                )
            }),
            pos_offset: c.positions.offset,
            // √d, rounded to a 16-bit model's dtype first, as transformers
            // makes it a tensor of the embeddings' dtype.
            #[allow(clippy::cast_precision_loss)]
            scale: c.vocab.embed_scale.then(|| match c.dtype {
                DType::BF16 => half::bf16::from_f64((d as f64).sqrt()).to_f64(),
                DType::F16 => half::f16::from_f64((d as f64).sqrt()).to_f64(),
                _ => (d as f64).sqrt(),
            }),
            cap: c.vocab.logit_softcap,
            wtt: (c.vocab.token_types).filter(|_| first).map(|types| {
                b.param(
                    "wtt",
                    &[types, d],
                    &[Axis::TokenTypes, Axis::Model],
                    Init::Normal(std),
                )
            }),
            norm: (first && c.norms.embed).then(|| Norm::new(&b.pp("ln_emb"))),
            pooler: (last && c.vocab.head == Head::Pooler).then(|| {
                let bias = c.bias.then_some(d);
                Linear::new(
                    &b.pp("pooler"),
                    (d, d),
                    [Axis::Model, Axis::Model],
                    std,
                    bias,
                )
            }),
        })
    }

    /// Records x0 from the token ids (B, T) at positions `at..at + T`
    /// (0 but for a decode step): `tokens`, `tok_emb = wte[ids]` (B, T, d),
    /// `pos_emb = wpe[at..at + T]` (T, d) and `input = tok_emb + pos_emb`
    /// (B, T, d). With rotary positions x0 is `wte[ids]` itself: the
    /// positions turn q and k inside attention.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn embed_at<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        ids: T,
        at: usize,
    ) -> Result<Val<T>, Stop> {
        let ids = rec.tokens(ids)?; // (B, T) int64
        let wte = self.wte.as_ref().expect(HELD);
        let (ids, wte) = (In::Act(&ids), In::Param(wte));
        // x0 ("input", the stream's first tensor) is the last of the steps
        // the model has: the lookup, its √d scale (Gemma), the positions,
        // the token types, the norm (BERT).
        let norm_last = self.norm.is_some();
        let types_last = self.wtt.is_some() && !norm_last;
        let pos_last = self.wpe.is_some() && !types_last && !norm_last;
        let scale_last = self.scale.is_some() && !pos_last && !types_last && !norm_last;
        let lookup_last = !(scale_last || pos_last || types_last || norm_last);
        let step = |rec: &mut Recorder<B>, name: &str, last: bool, op: &Op, ins: &[In<T>]| {
            // Every step up to x0 is the embeddings'.
            if last {
                rec.role(Role::Embedding).interface("input", op, ins)
            } else {
                rec.role(Role::Embedding).op(name, op, ins)
            }
        };
        let mut x = match self.vocab {
            None => step(rec, "tok_emb", lookup_last, &Op::Gather, &[ids, wte])?, // wte[ids]: (B, T, d)
            // Split: each device looks up its rows, the sum is wte[ids].
            Some(cut) => {
                let part = Op::GatherPart {
                    from: cut.from(),
                    masks: self.masks,
                };
                let part = rec
                    .role(Role::Embedding)
                    .op("tok_emb.part", &part, &[ids, wte])?; // (B, T, d), 0 off its rows
                let sum = Op::AllReduce {
                    devices: cut.devices,
                };
                let name = if lookup_last { "input" } else { "tok_emb" };
                rec.role(Role::Embedding)
                    .collective(name, &sum, &part, &[], lookup_last)? // Σ_k part_k = wte[ids]: (B, T, d)
            }
        };
        if let Some(by) = self.scale {
            let scale = Op::Scale { by };
            x = step(rec, "tok_emb.scaled", scale_last, &scale, &[In::Act(&x)])?; // wte[ids]·√d
        }
        if let Some(wpe) = &self.wpe {
            let positions = Op::Positions {
                offset: self.pos_offset,
                start: at,
            };
            let pos = rec.op("pos_emb", &positions, &[In::Param(wpe), ids])?; // wpe[o+at..o+at+T]: (T, d)
            let sum = [In::Act(&x), In::Act(&pos)];
            x = step(rec, "emb", pos_last, &Op::AddPositions, &sum)?; // tok_emb + pos_emb: (B, T, d)
        }
        // BERT: the token types' row, then a norm on the sum.
        if let Some(wtt) = &self.wtt {
            let types = rec.op("type_emb", &Op::TokenType { id: 0 }, &[In::Param(wtt), ids])?; // wtt[0]: (B, T, d)
            let sum = [In::Act(&x), In::Act(&types)];
            x = step(rec, "emb.types", types_last, &Op::Add, &sum)?; // + type_emb: (B, T, d)
        }
        match &self.norm {
            // BERT's embedding LayerNorm: its output is x0, the embeddings'.
            Some(norm) => norm.forward_as(rec, "input", &x, Role::Embedding), // x0 = LN_emb(emb): (B, T, d)
            None => Ok(x),
        }
    }

    /// Records what the model ends in on x (B, T, d): the logits (B, T,
    /// V), or BERT's pooled vectors (B, d).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn head<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        let Some(pooler) = &self.pooler else {
            return self.logits(rec, x); // (B, T, V)
        };
        let first = rec.op("pooler.first", &Op::FirstToken, &[In::Act(x)])?; // x[:, 0]: (B, d)
        let p = pooler.forward(rec.role(Role::Pooled), "pooler", &first)?; // x[:, 0]·W_p + b_p: (B, d)
        rec.op_owned("pooled", &Op::Act(crate::ops::Unary::Tanh), p, &[]) // tanh: (B, d)
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
            None => (Op::LmHead { tied: true }, self.wte.as_ref().expect(HELD)),
        };
        let ins = [In::Act(x), In::Param(w)];
        let z = match self.vocab {
            None => rec.op("lm_head", &head, &ins)?, // (B, T, V)
            Some(cut) => Self::gathered(rec, cut, &head, &ins)?, // (B, T, V)
        };
        match self.cap {
            Some(cap) => rec.op_owned("logits.capped", &Op::SoftCap { cap }, z, &[]), // c·tanh(z/c): (B, T, V)
            None => Ok(z),
        }
    }

    /// Split across devices, the logits from this device's rows of the
    /// head: its tokens' scores (B, T, V'/N), every device's side by side
    /// (B, T, V'), the padding's dropped (B, T, V).
    fn gathered<B: Backend<Tensor = T>>(
        rec: &mut Recorder<B>,
        cut: super::shard::VocabCut,
        head: &Op,
        ins: &[In<T>],
    ) -> Result<Val<T>, Stop> {
        let part = rec.op("lm_head.part", head, ins)?; // (B, T, V'/N)
        let all = Op::AllGather {
            devices: cut.devices,
            axis: 2,
        };
        if cut.padded == cut.v {
            return rec.collective("lm_head", &all, &part, &[], false); // (B, T, V)
        }
        let z = rec.collective("lm_head.all_gather", &all, &part, &[], false)?; // (B, T, V')
        let unpad = Op::Columns {
            lo: 0,
            hi: cut.v,
            period: cut.padded,
            axis: Axis::Vocab,
        };
        rec.op_owned("lm_head", &unpad, z, &[]) // z[…, ..V]: (B, T, V)
    }

    /// wte, wpe, wtt and the embeddings' norm, then the head if untied
    /// (or the pooler).
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        self.wte
            .iter()
            .chain(self.wpe.as_ref())
            .chain(self.wtt.as_ref())
            .chain(self.norm.iter().flat_map(Norm::params))
            .chain(self.lm_head.as_ref())
            .chain(self.pooler.iter().flat_map(Linear::params))
    }
}
