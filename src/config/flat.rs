//! [`Flat`]: the config as it is written. TOML model files, presets and a
//! log's header hold these keys, one level deep, with 0 for "none";
//! [`ModelConfig`] is read and written through it (`serde(from, into)`),
//! its parts' `None`s mapped to and from those 0s here, so the written
//! form stays key for key and byte for byte what it was.

use super::{
    Act, Attention, DType, Devices, Fault, Head, Mixture, Mlp, ModelConfig, NormKind, Norms,
    Placement, PosEmb, Positions, QkvFusion, RopeScaling, Vocab,
};
use serde::{Deserialize, Serialize};

/// The config as it is written, every key at the top level with its
/// default: the form [`ModelConfig`] is read from and written as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Flat {
    /// [`ModelConfig::preset`].
    #[serde(default)]
    pub(super) preset: String,
    /// [`ModelConfig::batch`].
    pub(super) batch: usize,
    /// [`ModelConfig::seq`].
    pub(super) seq: usize,
    /// [`ModelConfig::decode`]; unwritten when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(super) decode: usize,
    /// [`ModelConfig::backward`]; unwritten when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(super) backward: bool,
    /// [`Devices::tp`]; unwritten when 1.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub(super) tp: usize,
    /// [`Devices::sp`]; unwritten when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(super) sp: bool,
    /// [`Devices::pp`]; unwritten when 1.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub(super) pp: usize,
    /// [`Devices::micro_batches`]; unwritten when 1.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub(super) micro_batches: usize,
    /// [`Devices::ep`]; unwritten when 1.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub(super) ep: usize,
    /// [`Devices::pad_vocab`]; unwritten when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(super) pad_vocab: bool,
    /// [`Devices::device`]; unwritten when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(super) device: usize,
    /// [`ModelConfig::d_model`].
    pub(super) d_model: usize,
    /// [`Attention::heads`].
    pub(super) heads: usize,
    /// [`Attention::head_dim`]; 0: `None`.
    #[serde(default)]
    pub(super) head_dim: usize,
    /// [`Attention::kv_heads`].
    pub(super) kv_heads: usize,
    /// [`Mlp::d_ff`].
    pub(super) d_ff: usize,
    /// [`ModelConfig::layers`].
    pub(super) layers: usize,
    /// [`Mlp::act`].
    pub(super) act: Act,
    /// [`Norms::kind`].
    pub(super) norm: NormKind,
    /// [`Norms::placement`].
    pub(super) placement: Placement,
    /// [`ModelConfig::bias`].
    pub(super) bias: bool,
    /// [`Attention::qkv_bias`].
    #[serde(default)]
    pub(super) qkv_bias: bool,
    /// [`Mlp::bias`].
    #[serde(default)]
    pub(super) mlp_bias: Option<bool>,
    /// [`ModelConfig::parallel`].
    #[serde(default)]
    pub(super) parallel: bool,
    /// [`ModelConfig::encoder`].
    #[serde(default)]
    pub(super) encoder: bool,
    /// [`Attention::fused_qkv`].
    #[serde(default)]
    pub(super) fused_qkv: QkvFusion,
    /// [`Mlp::fused_gate_up`].
    #[serde(default)]
    pub(super) fused_gate_up: bool,
    /// [`Norms::shared`].
    #[serde(default)]
    pub(super) shared_norm: bool,
    /// [`Norms::bias`].
    #[serde(default)]
    pub(super) norm_bias: Option<bool>,
    /// [`Norms::final_norm`].
    pub(super) final_norm: bool,
    /// [`Vocab::size`] (a written 0 stays `Some(0)`, which validation names).
    #[serde(default)]
    pub(super) vocab: Option<usize>,
    /// [`Positions::context`]; 0: `None`.
    #[serde(default)]
    pub(super) context: usize,
    /// [`Vocab::tied`].
    #[serde(default = "tied_by_default")]
    pub(super) tied: bool,
    /// [`Positions::kind`].
    #[serde(default)]
    pub(super) pos_emb: PosEmb,
    /// [`Vocab::token_types`]; 0: `None`.
    #[serde(default)]
    pub(super) token_types: usize,
    /// [`Norms::embed`].
    #[serde(default)]
    pub(super) embed_norm: bool,
    /// [`Vocab::head`].
    #[serde(default)]
    pub(super) head: Head,
    /// [`Positions::offset`].
    #[serde(default)]
    pub(super) pos_offset: usize,
    /// [`Vocab::embed_scale`].
    #[serde(default)]
    pub(super) embed_scale: bool,
    /// [`Positions::rotary_dims`]; 0: `None`.
    #[serde(default)]
    pub(super) rotary_dims: usize,
    /// [`Positions::rope_theta`].
    #[serde(default = "rope_theta_by_default")]
    pub(super) rope_theta: f64,
    /// [`Positions::rope_scaling`].
    #[serde(default)]
    pub(super) rope_scaling: Option<RopeScaling>,
    /// [`Attention::window`]; 0: `None`.
    #[serde(default)]
    pub(super) window: usize,
    /// [`Attention::full_every`]; 0: `None`.
    #[serde(default)]
    pub(super) full_every: usize,
    /// [`Attention::query_scale`]; 0: `None`.
    #[serde(default)]
    pub(super) query_scale: usize,
    /// [`Attention::softcap`]; 0: `None`.
    #[serde(default)]
    pub(super) attn_softcap: f64,
    /// [`Vocab::logit_softcap`]; 0: `None`.
    #[serde(default)]
    pub(super) logit_softcap: f64,
    /// [`Mixture::experts`]; 0: no [`ModelConfig::mixture`].
    #[serde(default)]
    pub(super) experts: usize,
    /// [`Mixture::top_k`], read only with `experts`.
    #[serde(default = "top_k_by_default")]
    pub(super) top_k: usize,
    /// [`ModelConfig::dtype`].
    pub(super) dtype: DType,
    /// [`ModelConfig::seed`].
    pub(super) seed: u64,
    /// [`Norms::eps`].
    pub(super) eps: f64,
    /// [`ModelConfig::fault`].
    #[serde(default)]
    pub(super) fault: Option<Fault>,
}

fn tied_by_default() -> bool {
    true
}

fn rope_theta_by_default() -> f64 {
    10_000.0
}

fn top_k_by_default() -> usize {
    2
}

/// Whether `n` is 0: a key written only when set.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Whether a switch is off: a key written only when on.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn one() -> usize {
    1
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_one(n: &usize) -> bool {
    *n == 1
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A written 0 as `None`, the written form's "none".
fn nonzero(n: usize) -> Option<usize> {
    (n != 0).then_some(n)
}

/// A written 0.0 (or −0.0) soft cap as `None`.
fn cap(c: f64) -> Option<f64> {
    (c != 0.0).then_some(c)
}

impl From<Flat> for ModelConfig {
    fn from(f: Flat) -> Self {
        ModelConfig {
            preset: f.preset,
            batch: f.batch,
            seq: f.seq,
            decode: f.decode,
            backward: f.backward,
            devices: Devices {
                tp: f.tp,
                sp: f.sp,
                pp: f.pp,
                micro_batches: f.micro_batches,
                ep: f.ep,
                pad_vocab: f.pad_vocab,
                device: f.device,
            },
            d_model: f.d_model,
            layers: f.layers,
            bias: f.bias,
            parallel: f.parallel,
            encoder: f.encoder,
            attention: Attention {
                heads: f.heads,
                head_dim: nonzero(f.head_dim),
                kv_heads: f.kv_heads,
                qkv_bias: f.qkv_bias,
                fused_qkv: f.fused_qkv,
                window: nonzero(f.window),
                full_every: nonzero(f.full_every),
                query_scale: nonzero(f.query_scale),
                softcap: cap(f.attn_softcap),
            },
            mlp: Mlp {
                d_ff: f.d_ff,
                act: f.act,
                bias: f.mlp_bias,
                fused_gate_up: f.fused_gate_up,
            },
            mixture: nonzero(f.experts).map(|experts| Mixture {
                experts,
                top_k: f.top_k,
            }),
            norms: Norms {
                kind: f.norm,
                placement: f.placement,
                bias: f.norm_bias,
                final_norm: f.final_norm,
                shared: f.shared_norm,
                embed: f.embed_norm,
                eps: f.eps,
            },
            positions: Positions {
                kind: f.pos_emb,
                context: nonzero(f.context),
                offset: f.pos_offset,
                rotary_dims: nonzero(f.rotary_dims),
                rope_theta: f.rope_theta,
                rope_scaling: f.rope_scaling,
            },
            vocab: Vocab {
                size: f.vocab,
                tied: f.tied,
                token_types: nonzero(f.token_types),
                embed_scale: f.embed_scale,
                head: f.head,
                logit_softcap: cap(f.logit_softcap),
            },
            dtype: f.dtype,
            seed: f.seed,
            fault: f.fault,
        }
    }
}

impl From<ModelConfig> for Flat {
    /// Every `None` written as its 0; a dense MLP writes `experts = 0` and
    /// the default `top_k`.
    fn from(c: ModelConfig) -> Self {
        let (a, m, n, p, v) = (c.attention, c.mlp, c.norms, c.positions, c.vocab);
        Flat {
            preset: c.preset,
            batch: c.batch,
            seq: c.seq,
            decode: c.decode,
            backward: c.backward,
            tp: c.devices.tp,
            sp: c.devices.sp,
            pp: c.devices.pp,
            micro_batches: c.devices.micro_batches,
            ep: c.devices.ep,
            pad_vocab: c.devices.pad_vocab,
            device: c.devices.device,
            d_model: c.d_model,
            heads: a.heads,
            head_dim: a.head_dim.unwrap_or(0),
            kv_heads: a.kv_heads,
            d_ff: m.d_ff,
            layers: c.layers,
            act: m.act,
            norm: n.kind,
            placement: n.placement,
            bias: c.bias,
            qkv_bias: a.qkv_bias,
            mlp_bias: m.bias,
            parallel: c.parallel,
            encoder: c.encoder,
            fused_qkv: a.fused_qkv,
            fused_gate_up: m.fused_gate_up,
            shared_norm: n.shared,
            norm_bias: n.bias,
            final_norm: n.final_norm,
            vocab: v.size,
            context: p.context.unwrap_or(0),
            tied: v.tied,
            pos_emb: p.kind,
            token_types: v.token_types.unwrap_or(0),
            embed_norm: n.embed,
            head: v.head,
            pos_offset: p.offset,
            embed_scale: v.embed_scale,
            rotary_dims: p.rotary_dims.unwrap_or(0),
            rope_theta: p.rope_theta,
            rope_scaling: p.rope_scaling,
            window: a.window.unwrap_or(0),
            full_every: a.full_every.unwrap_or(0),
            query_scale: a.query_scale.unwrap_or(0),
            attn_softcap: a.softcap.unwrap_or(0.0),
            logit_softcap: v.logit_softcap.unwrap_or(0.0),
            experts: c.mixture.map_or(0, |x| x.experts),
            top_k: c.mixture.map_or_else(top_k_by_default, |x| x.top_k),
            dtype: c.dtype,
            seed: c.seed,
            eps: n.eps,
            fault: c.fault,
        }
    }
}

#[cfg(test)]
mod tests;
