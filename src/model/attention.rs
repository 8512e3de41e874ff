//! Causal multi-head self-attention, with grouped-query K/V heads.
//!
//! `softmax(mask(q·kᵀ/√hd))·v`, heads merged, then the output projection
//! (absent under the `no-out-proj` fault, which changes no shape).
//!
//! # Shapes
//! - x: (B, T, d)
//! - q: (B, h, T, hd); k, v: (B, kv, T, hd), repeated to (B, h, T, hd)
//! - scores, weights: (B, h, T, T)
//! - context: (B, h, T, hd); merge, out: (B, T, d)

use super::Builder;
use super::linear::Linear;
use crate::config::PosEmb;
use crate::ops::{Backend, Merge, Op};

use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// Separate Q, K and V projections, and the output projection.
pub struct Attention<T> {
    pub q: Linear<T>,
    pub k: Linear<T>,
    pub v: Linear<T>,
    /// `None` under the no-out-proj fault.
    pub o: Option<Linear<T>>,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub merge: Option<Merge>,
    pub causal: bool,
    /// θ of the rotary position embedding, for rotary positions.
    pub rope: Option<f64>,
}

impl<T: Clone> Attention<T> {
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>, name: &str) -> Self {
        let c = b.cfg;
        let (d, kv) = (c.d_model, c.kv_heads * c.head_dim());
        let bias = |n| c.bias.then_some(n);
        let lin = |part: &str, shape, axes, std, bias_len| {
            Linear::new(b, &format!("{name}.{part}"), shape, axes, std, bias_len)
        };
        // K and V are narrower than d only under grouped-query attention.
        let kv_axis = if kv == d { "d" } else { "kv·hd" };
        Self {
            q: lin("q_proj", (d, d), ["d", "d"], Builder::<B>::STD, bias(d)),
            k: lin(
                "k_proj",
                (d, kv),
                ["d", kv_axis],
                Builder::<B>::STD,
                bias(kv),
            ),
            v: lin(
                "v_proj",
                (d, kv),
                ["d", kv_axis],
                Builder::<B>::STD,
                bias(kv),
            ),
            o: b.arch
                .attn_out
                .then(|| lin("out", (d, d), ["d", "d"], b.out_std(), bias(d))),
            heads: c.heads,
            kv_heads: c.kv_heads,
            head_dim: c.head_dim(),
            merge: b.arch.merge,
            causal: b.arch.causal,
            rope: (c.pos_emb == PosEmb::Rope).then_some(c.rope_theta),
        }
    }

    /// Records the attention sublayer on x (B, T, d) under `p` (`blockN.attn`).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        p: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        let (h, kv) = (self.heads, self.kv_heads);
        let q = self.q.forward(rec, &format!("{p}.q_proj"), x)?; // (B, T, d)
        let k = self.k.forward(rec, &format!("{p}.k_proj"), x)?; // (B, T, kv·hd)
        let v = self.v.forward(rec, &format!("{p}.v_proj"), x)?; // (B, T, kv·hd)
        let split = |n, axis| Op::SplitHeads { heads: n, axis };
        // Each projection is handed over: the backend may split it in place.
        let q = rec.op_owned(&format!("{p}.q"), &split(h, "h"), q, &[])?; // (B, h, T, hd)
        let kv_axis = if kv == h { "h" } else { "kv" };
        let k = rec.op_owned(&format!("{p}.k"), &split(kv, kv_axis), k, &[])?; // (B, kv, T, hd)
        let mut v = rec.op_owned(&format!("{p}.v"), &split(kv, kv_axis), v, &[])?; // (B, kv, T, hd)
        let (q, mut k) = match self.rope {
            Some(theta) => {
                let rope = Op::Rope { theta };
                let q = rec.op_owned(&format!("{p}.q_rot"), &rope, q, &[])?; // (B, h, T, hd)
                (q, rec.op_owned(&format!("{p}.k_rot"), &rope, k, &[])?) // (B, kv, T, hd)
            }
            None => (q, k),
        };
        if kv != h {
            let rep = Op::RepeatKv { rep: h / kv };
            k = rec.op(&format!("{p}.k_rep"), &rep, &[In::Act(&k)])?; // (B, h, T, hd)
            v = rec.op(&format!("{p}.v_rep"), &rep, &[In::Act(&v)])?; // (B, h, T, hd)
        }
        // scores q·kᵀ/√hd (B, h, T, T), weights softmax(mask(scores))
        // (B, h, T, T), context weights·v (B, h, T, hd): three events,
        // computed in one pass where the backend can.
        let c = rec.attention(p, [&q, &k, &v], self.head_dim, self.causal)?; // (B, h, T, hd)
        // The attn-no-merge fault returns the heads as they are.
        let Some(merge) = self.merge else {
            return Ok(c);
        };
        // Handed over: heads the backend left side by side merge in place.
        let m = rec.op_owned(&format!("{p}.merge"), &Op::MergeHeads(merge), c, &[])?; // (B, T, d)
        // The no-out-proj fault returns the merged heads as they are.
        match &self.o {
            Some(o) => o.output(rec, &format!("{p}.out"), &m), // (B, T, d)
            None => Ok(m),
        }
    }

    /// q, k, v and output projection parameters.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        [&self.q, &self.k, &self.v]
            .into_iter()
            .chain(self.o.as_ref())
            .flat_map(Linear::params)
    }
}
