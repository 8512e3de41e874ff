//! Causal multi-head self-attention, with grouped-query K/V heads:
//! `softmax(mask(q·kᵀ/√hd))·v`, heads merged, then the output projection.
//! Gemma 2 soft-caps the scores before the mask, `c·tanh(s/c)`, and may
//! divide by √query_pre_attn_scalar instead of √hd.
//!
//! # Shapes
//! - x: (B, T, d)
//! - q: (B, h, T, hd); k, v: (B, kv, T, hd), repeated to (B, h, T, hd)
//! - scores, weights: (B, h, T, T)
//! - context: (B, h, T, hd); merge: (B, T, h·hd); out: (B, T, d)
//!
//! hd is d / h unless the config gives `head_dim` (Mistral-NeMo: 32 heads
//! of 128 in a stream of 5120): then the merged heads are h·hd wide, not
//! d, and the output projection (h·hd, d) is where the shape returns.
//!
//! Decoding ([`super::decode`]): a pass given a [`Kv`] writes its keys
//! (after rotation) and values into the layer's cache, k_cache and
//! v_cache (B, kv, S, hd), and a decode step's one query (B, h, 1, hd)
//! reads the whole cache: scores (B, h, 1, S). Rotary positions start at
//! the pass's first position, T + n − 1 for decode step n.
//!
//! The softmax subtracts each row's maximum first, `e^(s − max) / Σ`, so
//! no exp overflows; the `softmax-no-max` fault leaves that out. In a bf16
//! or f16 model it runs in f32: `softmax(scores.to(f32)).to(bf16)`.

use super::Builder;
use super::decode::{Cache, Kv};
use super::linear::{Linear, Split};
use crate::config::{DType, PosEmb, QkvFusion};
use crate::ops::{Axis, Backend, Fusion, Masking, Merge, Op};
use crate::trace::Role;
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// How q, k and v are projected from x.
pub enum Qkv<T> {
    /// Three matrices.
    Apart {
        /// Query projection W_q: (d, h·hd); its output (B, T, h·hd)
        /// splits into h heads. h·hd = d unless the config gives `head_dim`.
        q: Linear<T>,
        /// Key projection W_k: (d, kv·hd); (d, d) unless K/V heads are grouped.
        k: Linear<T>,
        /// Value projection W_v: (d, kv·hd), as `k`.
        v: Linear<T>,
    },
    /// One fused matrix `qkv_proj` (d, (h + 2·kv)·hd) and the split of its
    /// output into q, k and v (`Op::Columns` each), as Phi-3 and GPT-NeoX
    /// store it: the same products as three matrices, in one matmul.
    Fused {
        /// W_qkv: (d, (h + 2·kv)·hd).
        qkv: Linear<T>,
        /// The columns of q, k and v in its output (boxed: an `Op` is
        /// large beside the rest).
        split: Box<[Op; 3]>,
    },
}

/// The Q, K and V projections, and the output projection.
pub struct Attention<T> {
    /// q, k and v: three matrices, or one fused and its split.
    pub qkv: Qkv<T>,
    /// `None` under the no-out-proj fault.
    pub o: Option<Linear<T>>,
    /// Query heads h; d = h·hd.
    pub heads: usize,
    /// Key and value heads kv, dividing h; equal to h unless grouped (GQA).
    pub kv_heads: usize,
    /// The axes of the query heads and of the K/V heads: `h` and `kv`,
    /// or on one of N devices `h/N` and `kv/N` (`kv`, one whole head, when
    /// there are fewer K/V heads than devices).
    pub head_axes: Box<(Axis, Axis)>,
    /// Width of each head, hd: d / h, or the config's `head_dim`.
    pub head_dim: usize,
    /// `None` under the attn-no-merge fault.
    pub merge: Option<Merge>,
    /// Which keys query t reads: 0..=t (causal), the last `window` of
    /// those (a sliding window), or all (the `no-causal-mask` fault).
    pub mask: Masking,
    /// The rotary position embedding, `Op::Rope`, for rotary positions
    /// (boxed: an `Op` is large beside the rest).
    pub rope: Option<Box<Op>>,
    /// The number whose √ divides the scores: hd, or the config's
    /// `query_scale`.
    pub scale: usize,
    /// Whether ALiBi's distance penalty is added to the scores.
    pub alibi: bool,
    /// The soft cap c on the scores, `Op::SoftCap` (Gemma 2's 50); `None`
    /// for none.
    pub cap: Option<f64>,
    /// The softmax: stable, or without the max under `softmax-no-max`.
    pub softmax: Op,
    /// A 16-bit model's dtype: the softmax casts its scores up to f32 and
    /// its weights back; `None` in f32 and f64.
    pub half: Option<DType>,
    /// Whether the f32 weights are cast back (`softmax-no-cast-back`: no).
    pub softmax_cast_back: bool,
    /// Whether a decode step writes its key and value into the cache
    /// (`decode-no-append`: no).
    pub cache_append: bool,
    /// Whether a decode step turns its token at its true position
    /// (`decode-rope-at-zero`: at 0).
    pub rope_at_position: bool,
}

impl<T: Clone> Attention<T> {
    /// The projections `q_proj`, `k_proj`, `v_proj` and `out`, in `b`'s
    /// scope, reading keys within `window` (`None`: every earlier key).
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>, window: Option<usize>) -> Self {
        let c = b.cfg;
        let (d, hq, kv) = (
            c.d_model,
            c.attn_width(),
            c.attention.kv_heads * c.head_dim(),
        );
        // Split across N devices, each holds h/N query heads and its K/V
        // heads: q, k, v column-parallel, the output row-parallel.
        let n = c.devices.tp;
        let bias = |n| c.bias.then_some(n);
        // Qwen2 gives q, k and v biases and the output projection none.
        let qkv_bias = |n| (c.bias || c.attention.qkv_bias).then_some(n);
        let std = Builder::<B>::STD;
        // The softmax-no-max fault draws q and k N(0, 1), as torch.randn.
        let qk_std = if b.arch.qk_randn { 1.0 } else { std };
        let mask = match b.arch.anatomy.masking(window) {
            // decode-mask-top-left: tril(ones(Tq, Tk)), whatever Tk.
            Masking::Causal if b.arch.mask_top_left => Masking::TopLeft,
            mask => mask,
        };
        // Q is d wide unless the head width is given apart from d; K and
        // V are narrower than Q only under grouped-query attention.
        let (q_axis, kv_axis) = widths(hq, kv, d);
        let lin = |name: &str, shape, axes, std, bias_len, split| {
            Linear::split(&b.pp(name), shape, axes, std, bias_len, split)
        };
        let qkv = match c.attention.fused_qkv {
            QkvFusion::Apart => Qkv::Apart {
                q: lin(
                    "q_proj",
                    (d, hq),
                    [Axis::Model, q_axis.clone()],
                    qk_std,
                    qkv_bias(hq),
                    Split::Columns,
                ),
                k: lin(
                    "k_proj",
                    (d, kv),
                    [Axis::Model, kv_axis.clone()],
                    qk_std,
                    qkv_bias(kv),
                    Split::KvColumns,
                ),
                v: lin(
                    "v_proj",
                    (d, kv),
                    [Axis::Model, kv_axis],
                    std,
                    qkv_bias(kv),
                    Split::KvColumns,
                ),
            },
            fusion => {
                let w = hq + 2 * kv;
                let qkv = lin(
                    "qkv_proj",
                    (d, w),
                    [Axis::Model, Axis::Qkv],
                    std,
                    qkv_bias(w),
                    Split::Whole,
                );
                Qkv::Fused {
                    qkv,
                    split: Box::new(split_qkv(fusion, hq, kv, c.attention.kv_heads, d)),
                }
            }
        };
        Self {
            qkv,
            o: b.arch.attn_out.then(|| {
                let axes = [q_axis, Axis::Model];
                lin("out", (hq, d), axes, b.out_std(), bias(d), Split::Rows)
            }),
            heads: c.attention.heads / n,
            kv_heads: c.local_kv_heads(),
            head_axes: {
                let kv_axis = if c.attention.kv_heads == c.attention.heads {
                    Axis::Heads
                } else {
                    Axis::KvHeads
                };
                let kv_n = if c.attention.kv_heads >= n { n } else { 1 };
                Box::new((Axis::Heads.split(n), kv_axis.split(kv_n)))
            },
            head_dim: c.head_dim(),
            merge: b.arch.merge,
            mask,
            rope: (c.positions.kind == PosEmb::Rope).then(|| {
                Box::new(Op::Rope {
                    theta: c.positions.rope_theta,
                    scaling: c.positions.rope_scaling,
                    dims: c.rotary_dims(),
                    start: 0,
                })
            }),
            scale: c.score_scale(),
            alibi: c.positions.kind == PosEmb::Alibi,
            cap: c.attention.softcap,
            softmax: if b.arch.softmax_max {
                Op::Softmax { mask }
            } else {
                Op::SoftmaxNoMax { mask }
            },
            half: c.dtype.is_half().then_some(c.dtype),
            softmax_cast_back: b.arch.softmax_cast_back,
            cache_append: b.arch.cache_append,
            rope_at_position: b.arch.rope_at_position,
        }
    }

    /// Records the attention sublayer on x (B, T, d), in `rec`'s scope
    /// (`blockN.attn`), one step per line. With `pass` the pass is part of
    /// generation: its tokens stand at positions `pass.at..`, and its keys
    /// and values go through the layer's cache.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x: &Val<T>,
        pass: Option<&mut Kv<T>>,
    ) -> Result<Val<T>, Stop> {
        let (h, kv, mask) = (self.heads, self.kv_heads, self.mask);
        let (h_axis, kv_axis) = (*self.head_axes).clone();

        // Project every token to a query, a key and a value.
        let (q, k, v) = match &self.qkv {
            Qkv::Apart { q, k, v } => (
                q.forward(rec.role(Role::Query), "q_proj", x)?, // x·Wq + bq: (B, T, h·hd)
                k.forward(rec.role(Role::Key), "k_proj", x)?,   // x·Wk + bk: (B, T, kv·hd)
                v.forward(rec.role(Role::Value), "v_proj", x)?, // x·Wv + bv: (B, T, kv·hd)
            ),
            // One fused matmul, then its output split by columns.
            Qkv::Fused { qkv, split } => {
                let [sq, sk, sv] = &**split;
                let all = qkv.forward(rec, "qkv_proj", x)?; // x·Wqkv + b: (B, T, (h+2kv)·hd)
                let all = In::Act(&all);
                (
                    rec.role(Role::Query).op("q_proj", sq, &[all])?, // (B, T, h·hd)
                    rec.role(Role::Key).op("k_proj", sk, &[all])?,   // (B, T, kv·hd)
                    rec.role(Role::Value).op("v_proj", sv, &[all])?, // (B, T, kv·hd)
                )
            }
        };

        // Split the features into heads. Each is handed over: the backend
        // may split it in place.
        let split = |heads, axis| Op::SplitHeads { heads, axis };
        let q = rec.op_owned("q", &split(h, h_axis.clone()), q, &[])?; // (B, h, T, hd)
        let k = rec.op_owned("k", &split(kv, kv_axis.clone()), k, &[])?; // (B, kv, T, hd)
        let v = rec.op_owned("v", &split(kv, kv_axis), v, &[])?; // (B, kv, T, hd)

        // Rotary positions turn q and k by each token's position: from
        // the pass's first, T + n − 1 for decode step n's one token.
        let (q, k) = match &self.rope {
            Some(rope) => {
                let rope = &self.rope_from(rope, pass.as_ref().map_or(0, |p| p.at));
                (
                    rec.op_owned("q_rot", rope, q, &[])?, // (B, h, T, hd)
                    rec.op_owned("k_rot", rope, k, &[])?, // (B, kv, T, hd)
                )
            }
            None => (q, k),
        };

        // Generation: the keys and values go into the cache, and a decode
        // step reads all of it: k, v (B, kv, S, hd).
        let (k, v) = match pass {
            Some(pass) => self.through_cache(rec, pass, k, v)?,
            None => (k, v),
        };

        // Grouped-query attention: each K/V head serves h/kv query heads.
        let (k, v) = if kv == h {
            (k, v)
        } else {
            let rep = Op::RepeatKv {
                rep: h / kv,
                heads: h_axis.clone(),
            };
            (
                rec.op("k_rep", &rep, &[In::Act(&k)])?, // (B, h, T, hd)
                rec.op("v_rep", &rep, &[In::Act(&v)])?, // (B, h, T, hd)
            )
        };

        // Attention itself, one step per line:
        //   scores  = q·kᵀ/√hd                (B, h, T, T)
        //   weights = softmax(mask(scores))   (B, h, T, T), each row sums to 1
        //   context = weights·v               (B, h, T, hd)
        // A backend may run the three in one pass that never builds the
        // (B, h, T, T) tensors; each step is recorded all the same.
        let scale = self.scale;
        let (scores, softmax) = (Op::Scores { head_dim: scale }, &self.softmax);
        let (q, k, v) = (In::Act(&q), In::Act(&k), In::Act(&v));
        let steps = |rec: &mut Recorder<B>| {
            let att = rec.op("scores", &scores, &[q, k])?; // (B, h, T, T)
            // ALiBi: s + m_h·(j − t), the positions as a penalty on distance.
            let att = if self.alibi {
                rec.op_owned("scores.alibi", &Op::Alibi, att, &[])? // (B, h, T, T)
            } else {
                att
            };
            // Gemma 2: c·tanh(scores/c), before the mask.
            let att = match self.cap {
                Some(cap) => rec.op_owned("scores.capped", &Op::SoftCap { cap }, att, &[])?, // (B, h, T, T)
                None => att,
            };
            let att = match self.half {
                None => rec.op_owned("weights", softmax, att, &[])?, // (B, h, T, T)
                // 16-bit: the softmax runs in f32, its weights cast back.
                Some(half) => self.softmax_f32(rec, att, half)?, // (B, h, T, T)
            };
            rec.op("context", &Op::WeightedSum, &[In::Act(&att), v]) // (B, h, T, hd)
        };
        // A fused pass computes the stable softmax of uncapped scores only.
        let plain = self.cap.is_none() && !self.alibi;
        let y = if self.softmax == (Op::Softmax { mask }) && plain {
            let core = Fusion::Attention {
                head_dim: scale,
                mask,
            };
            rec.fusable(core, &[q, k, v], steps)?
        } else {
            steps(rec)?
        };

        // Merge the heads back side by side. Handed over: heads the
        // backend left side by side merge in place. The attn-no-merge
        // fault returns the heads as they are.
        let Some(merge) = self.merge else {
            return Ok(y); // (B, h, T, hd)
        };
        let merged = Op::MergeHeads(merge);
        let y = rec
            .role(Role::MergedHeads)
            .op_owned("merge", &merged, y, &[])?; // (B, T, h·hd)

        // Output projection; the no-out-proj fault returns the merge as it is.
        match &self.o {
            Some(o) => o.output(rec.role(Role::AttnOut), "out", &y), // y·Wo + bo: (B, T, d)
            None => Ok(y),
        }
    }

    /// The rotary op for a pass whose first token is at position `at`
    /// (`decode-rope-at-zero` turns every pass's tokens from 0).
    fn rope_from(&self, rope: &Op, at: usize) -> Op {
        match rope {
            Op::Rope {
                theta,
                scaling,
                dims,
                ..
            } => Op::Rope {
                theta: *theta,
                scaling: *scaling,
                dims: *dims,
                start: if self.rope_at_position { at } else { 0 },
            },
            other => other.clone(),
        }
    }

    /// Writes this pass's keys and values (B, kv, n, hd) into the layer's
    /// cache, `k_cache` and `v_cache` (B, kv, S, hd), and gives back what
    /// attention reads: the prefill its own k and v (all T positions,
    /// whatever the window keeps), a decode step the whole cache.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    fn through_cache<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        kv: &mut Kv<T>,
        k: Val<T>,
        v: Val<T>,
    ) -> Result<(Val<T>, Val<T>), Stop> {
        let write = Op::KvCache {
            window: self.mask.window(),
            at: kv.at,
        };
        match kv.cache.take() {
            // The prefill: the cache starts with the prompt's keys and values.
            None => {
                let k_cache = rec.op("k_cache", &write, &[In::Act(&k)])?; // (B, kv, T, hd)
                let v_cache = rec.op("v_cache", &write, &[In::Act(&v)])?; // (B, kv, T, hd)
                kv.cache = Some(Cache {
                    k: k_cache,
                    v: v_cache,
                });
                Ok((k, v))
            }
            // decode-no-append: the new token reads the past alone.
            Some(cache) if !self.cache_append => {
                let read = (cache.k.clone(), cache.v.clone());
                kv.cache = Some(cache);
                Ok(read)
            }
            // A decode step: the new row joins the cache, which is read whole.
            Some(cache) => {
                let k_cache = rec.op("k_cache", &write, &[In::Act(&cache.k), In::Act(&k)])?; // (B, kv, S, hd)
                let v_cache = rec.op("v_cache", &write, &[In::Act(&cache.v), In::Act(&v)])?; // (B, kv, S, hd)
                kv.cache = Some(Cache {
                    k: k_cache.clone(),
                    v: v_cache.clone(),
                });
                Ok((k_cache, v_cache))
            }
        }
    }

    /// `softmax(scores.to(f32)).to(half)`, each cast a step of its own;
    /// `softmax-no-cast-back` leaves the weights f32.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    fn softmax_f32<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        scores: Val<T>,
        half: DType,
    ) -> Result<Val<T>, Stop> {
        let up = Op::Cast { to: DType::F32 };
        let s = rec.op_owned("scores.to_f32", &up, scores, &[])?; // (B, h, T, T) f32
        let w = rec.op_owned("weights", &self.softmax, s, &[])?; // (B, h, T, T) f32
        if !self.softmax_cast_back {
            return Ok(w);
        }
        let back = Op::Cast { to: half };
        rec.op_owned(&format!("weights.to_{half}"), &back, w, &[]) // (B, h, T, T) bf16
    }

    /// q, k, v (or the fused qkv) and output projection parameters.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        let qkv: Vec<&Linear<T>> = match &self.qkv {
            Qkv::Apart { q, k, v } => vec![q, k, v],
            Qkv::Fused { qkv, .. } => vec![qkv],
        };
        qkv.into_iter()
            .chain(self.o.as_ref())
            .flat_map(Linear::params)
    }
}

/// The columns of q, k and v in a fused projection's output of width
/// hq + 2·kv: `[q; k; v]` (concat), or per K/V group `[q_g; k_g; v_g]`
/// with q_g hq/groups and k_g, v_g kv/groups wide (grouped).
fn split_qkv(fusion: QkvFusion, hq: usize, kv: usize, groups: usize, d: usize) -> [Op; 3] {
    let (w, g) = (hq + 2 * kv, groups.max(1));
    let (lo, q, k) = match fusion {
        QkvFusion::Grouped => (0, hq / g, kv / g),
        _ => (0, hq, kv),
    };
    let period = if fusion == QkvFusion::Grouped {
        w / g
    } else {
        w
    };
    let col = |lo, hi, axis| Op::Columns {
        lo,
        hi,
        period,
        axis,
    };
    let (q_axis, kv_axis) = widths(hq, kv, d);
    [
        col(lo, q, q_axis),
        col(q, q + k, kv_axis.clone()),
        col(q + k, q + 2 * k, kv_axis),
    ]
}

/// The width axes of q and of k and v: `d`, unless the head width is given
/// apart from d (q `h·hd`) or there are fewer K/V heads than query heads
/// (k and v `kv·hd`).
fn widths(hq: usize, kv: usize, d: usize) -> (Axis, Axis) {
    let of = |heads: Axis, n: usize| {
        if n == d {
            Axis::Model
        } else {
            Axis::Product(vec![heads, Axis::HeadDim])
        }
    };
    (of(Axis::Heads, hq), of(Axis::KvHeads, kv))
}
