//! [`Overlay`]: a partial config, and the one list of a config's fields.
//!
//! A preset, a model file, a config.json, a checkpoint's shapes and the
//! command line each give some fields. Every field is written once, in the
//! `overlay!` list below: from that one declaration come the struct, its
//! TOML key (serde; an unknown key is refused), its command-line flag (clap;
//! a field marked `#[arg(skip)]` has none), [`Overlay::then`] and
//! [`Overlay::apply`]. A field is laid on the written form's field of the
//! same name (`Flat`, [`ModelConfig`] as its keys are written) and needs
//! nothing more; one laid some other way says how after `=>`.
//!
//! A new config field is one entry here beside its key of `Flat` and its
//! place in a part of [`ModelConfig`] (and its rule in `validate.rs`); the
//! tests fail until they agree.

use super::{
    Act, DType, Fault, Flat, Head, MAX_DECODE, MAX_DIM, MAX_LAYERS, ModelConfig, NormKind,
    Placement, PosEmb, QkvFusion, RopeScaling,
};
use serde::Deserialize;

/// Declares [`Overlay`] from its list of fields, each an `Option`.
///
/// `name: T` is laid on the config's field `name`; `name: T => f` is laid
/// by `f(config, value)`.
macro_rules! overlay {
    (
        $(#[$sm:meta])*
        pub struct $name:ident {
            $( $(#[$m:meta])* $f:ident : $t:ty $(=> $how:expr)? ),* $(,)?
        }
    ) => {
        $(#[$sm])*
        pub struct $name {
            $( $(#[$m])* pub $f: Option<$t>, )*
        }

        impl $name {
            /// Fields set in `other` win over those in `self`.
            #[must_use]
            pub fn then(self, other: &$name) -> $name {
                $name { $( $f: other.$f.clone().or(self.$f), )* }
            }

            /// Lays every set field on `base`, each as its declaration says.
            fn lay(&self, base: &mut Flat) {
                $( if let Some(v) = self.$f.clone() { overlay!(@lay base, v, $f, $t $(, $how)?); } )*
            }
        }
    };
    (@lay $base:ident, $v:ident, $f:ident, $t:ty) => { $base.$f = $v };
    (@lay $base:ident, $v:ident, $f:ident, $t:ty, $how:expr) => {{
        let how: fn(&mut Flat, $t) = $how;
        how($base, $v);
    }};
}

overlay! {
    /// A partial config: what a preset, a model file or the flags set.
    /// Every key is optional; a missing key keeps the base's value.
    #[derive(Debug, Clone, Default, PartialEq, Deserialize, clap::Args)]
    #[serde(deny_unknown_fields)]
    pub struct Overlay {
        /// The preset to start from (`lesson` when none is named); it picks
        /// the base rather than being laid on it. Its flag, `--preset`, is
        /// the CLI's own, listed beside `--config`.
        #[arg(skip)]
        preset: String => |_, _| {},
        /// What a config.json or a checkpoint's shapes left to a guess or
        /// did not know, one line each, for the run to say; never read
        /// from a file and not laid on the config.
        #[serde(skip)]
        #[arg(skip)]
        notes: Vec<String> => |_, _| {},
        /// The `model_type` of the config.json the model was read from,
        /// e.g. `falcon`, which a checkpoint's naming must be of; never read
        /// from a file and not laid on the config.
        #[serde(skip)]
        #[arg(skip)]
        family: String => |_, _| {},
        /// The name the resolved config carries instead of its base preset's,
        /// e.g. `llama (config.json)`; never read from a file.
        #[serde(skip)]
        #[arg(skip)]
        name: String => |c, v| c.preset = v,
        /// B, the batch size.
        #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
        batch: usize,
        /// T, the sequence length.
        #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
        seq: usize,
        /// Decode N tokens after the prompt: its prefill, then N steps of
        /// one token each through the key/value cache, greedy (0: none).
        #[arg(long, global = true, value_parser = decode_steps, allow_negative_numbers = true)]
        decode: usize,
        /// After the forward, the loss and the backward: every gradient,
        /// from the loss back to the embeddings.
        #[arg(long, global = true, num_args = 0, default_missing_value = "true")]
        backward: bool,
        /// Tensor parallelism over N devices, Megatron's split: each holds
        /// heads/N heads and d_ff/N hidden units (1: one device).
        #[arg(long, global = true, value_parser = devices, allow_negative_numbers = true)]
        tp: usize,
        /// Sequence parallelism (with --tp): norms and residual adds on
        /// (B, T/N, d) per device.
        #[arg(long, global = true, num_args = 0, default_missing_value = "true")]
        sp: bool,
        /// Pipeline parallelism over M stages: each holds layers/M blocks
        /// and sends its output (B, T, d) to the next (1: one stage).
        #[arg(long, global = true, value_parser = stages, allow_negative_numbers = true)]
        pp: usize,
        /// Micro-batches one pipelined step runs (with --pp): the bubble
        /// (M−1)/(m+M−1) that params gives.
        #[arg(long, global = true, value_parser = micro_batches, allow_negative_numbers = true)]
        micro_batches: usize,
        /// Expert parallelism over N devices: each holds experts/N of a
        /// mixture's experts and batch/N of the sequences, tokens sent to
        /// their experts' devices and back by all_to_all (1: one device).
        #[arg(long, global = true, value_parser = expert_devices, allow_negative_numbers = true)]
        ep: usize,
        /// Pad a vocabulary --tp does not divide with rows of zeros to the
        /// next multiple of it, as Megatron pads.
        #[arg(long, global = true, num_args = 0, default_missing_value = "true")]
        pad_vocab: bool,
        /// Which device the trace shows (from 0): stage·tp + rank of the
        /// --tp × --pp devices, or the rank of the --ep devices.
        #[arg(long, global = true, value_parser = device, allow_negative_numbers = true)]
        device: usize,
        /// d_model, the width of the residual stream.
        #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
        d_model: usize,
        /// Attention heads (must divide --d-model).
        #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
        heads: usize,
        /// The width of one head when not d_model / heads (0: d_model / heads).
        #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
        head_dim: usize,
        /// K/V heads for grouped-query attention (must divide --heads).
        #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
        kv_heads: usize,
        /// Hidden width of the MLP.
        #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
        d_ff: usize,
        /// Number of blocks (at most 4096).
        #[arg(long, global = true, value_parser = layers, allow_negative_numbers = true)]
        layers: usize,
        /// relu, gelu (exact erf), gelu-tanh, silu (not gated), swiglu or geglu.
        #[arg(long, global = true)]
        act: Act,
        /// layernorm, rmsnorm or rmsnorm-plus-one (Gemma's (1 + w)).
        #[arg(long, global = true)]
        norm: NormKind,
        /// pre (x + f(LN(x))), post (LN(x + f(x))) or sandwich (x + LN(f(LN(x)))).
        #[arg(long, global = true)]
        placement: Placement,
        // A switch: `--bias` sets it; the CLI's own `--no-bias` clears it.
        /// Give linear layers and LayerNorms biases.
        #[arg(long, global = true, num_args = 0, default_missing_value = "true")]
        bias: bool,
        /// Biases on q, k and v even without --bias (Qwen2's).
        #[arg(skip)]
        qkv_bias: bool,
        /// Biases on the MLP's projections alone, when not as --bias
        /// (Hugging Face's mlp_bias beside attention_bias).
        #[arg(skip)]
        mlp_bias: bool => |c, v| c.mlp_bias = Some(v),
        /// Parallel residuals, as GPT-NeoX: x + attn(LN1(x)) + mlp(LN2(x)), one add.
        #[arg(long, global = true, num_args = 0, default_missing_value = "true")]
        parallel: bool,
        /// q, k and v as one fused matrix and its split: apart, concat or grouped.
        #[arg(skip)]
        fused_qkv: QkvFusion,
        /// A gated MLP's gate and up as one fused matrix and its split.
        #[arg(skip)]
        fused_gate_up: bool,
        /// Parallel residuals through one shared norm, as Falcon-7B:
        /// x + attn(LN(x)) + mlp(LN(x)).
        #[arg(long, global = true, num_args = 0, default_missing_value = "true")]
        shared_norm: bool,
        /// LayerNorm's β when not as --bias (Falcon's LayerNorms have it,
        /// its linears no bias).
        #[arg(skip)]
        norm_bias: bool => |c, v| c.norm_bias = Some(v),
        /// An encoder (as BERT): attention reads every position, before and after.
        #[arg(long, global = true, num_args = 0, default_missing_value = "true")]
        encoder: bool,
        /// Add a final norm ln_f after the last block.
        #[arg(long, global = true, num_args = 0, default_missing_value = "true")]
        final_norm: bool,
        /// Vocabulary size V: adds the embeddings wte, wpe and the LM head to
        /// the counts; 0 for none.
        #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
        vocab: usize => |c, v| c.vocab = (v != 0).then_some(v),
        /// Positions in wpe (T may not exceed it); 0 follows --seq.
        #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
        context: usize,
        /// The LM head reuses wte (as GPT-2).
        #[arg(long, global = true, num_args = 0, default_missing_value = "true")]
        tied: bool,
        /// learned (a table wpe), rope (rotary: q and k turned, no
        /// parameters) or alibi (a distance penalty on the scores).
        #[arg(long, global = true)]
        pos_emb: PosEmb,
        /// Token-type embeddings of N types (BERT's type_vocab_size; 0: none).
        #[arg(skip)]
        token_types: usize,
        /// A norm on the embeddings before block 1 (BERT's).
        #[arg(skip)]
        embed_norm: bool,
        /// What the model ends in: lm (logits) or pooler (BERT's).
        #[arg(skip)]
        head: Head,
        /// Rows of wpe before position 0 (OPT's 2).
        #[arg(skip)]
        pos_offset: usize,
        /// x0 = wte(ids)·√d_model, as Gemma.
        #[arg(skip)]
        embed_scale: bool,
        /// Features of each head that rotary positions turn (0: all).
        #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
        rotary_dims: usize,
        /// θ of the rotary embedding.
        #[arg(skip)]
        rope_theta: f64,
        /// Rescaled rotary frequencies (linear or llama3).
        #[arg(skip)]
        rope_scaling: RopeScaling => |c, v| c.rope_scaling = Some(v),
        /// Sliding-window attention: each query reads the last N positions,
        /// itself included (0: every earlier position).
        #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
        window: usize,
        /// Every N-th block attends to every earlier position, the others
        /// within --window (0: the window on every block).
        #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
        full_every: usize,
        /// Scores divided by √N instead of √head_dim (0: head_dim).
        #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
        query_scale: usize,
        /// Attention scores soft-capped to c·tanh(s/c) (0: none).
        #[arg(long, global = true, value_parser = cap, allow_negative_numbers = true)]
        attn_softcap: f64,
        /// Logits soft-capped to c·tanh(z/c) (0: none).
        #[arg(long, global = true, value_parser = cap, allow_negative_numbers = true)]
        logit_softcap: f64,
        /// A mixture of experts: the MLP becomes N expert MLPs and a router
        /// (0: one dense MLP).
        #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
        experts: usize,
        /// Experts each token is sent to (with --experts).
        #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
        top_k: usize,
        /// The dtype the model runs in: f32, f64, or bf16 / f16 as
        /// frameworks run them (norms and softmax in f32, cast back).
        #[arg(long, global = true, value_parser = DType::parse_model)]
        dtype: DType,
        /// Seed of every weight and of the input x0.
        #[arg(long, global = true, value_parser = seed, allow_negative_numbers = true)]
        seed: u64,
        /// The norms' ε.
        #[arg(skip)]
        eps: f64,
        /// Build a known mistake (`shapetrace faults` lists each with the
        /// checks that catch it and the flags it needs).
        #[arg(long, global = true, value_parser = fault_names())]
        fault: Fault => |c, v| c.fault = Some(v),
    }
}

/// `--fault`'s parser: the faults' names, read off their rows, which
/// `--help` lists.
fn fault_names() -> impl clap::builder::TypedValueParser<Value = Fault> {
    let names = Fault::ALL.iter().map(|f| f.as_str());
    clap::builder::TypedValueParser::try_map(clap::builder::PossibleValuesParser::new(names), |s| {
        s.parse::<Fault>()
    })
}

impl Overlay {
    /// Lays `self` over `base`: every set field wins.
    ///
    /// When the heads change and the kv-heads are not given, a base without
    /// grouped-query attention stays without it (kv-heads follow heads).
    pub fn apply(&self, base: &mut ModelConfig) {
        let mut flat = Flat::from(base.clone());
        if let (Some(h), None) = (self.heads, self.kv_heads)
            && flat.kv_heads == flat.heads
        {
            flat.kv_heads = h;
        }
        self.lay(&mut flat);
        *base = flat.into();
    }
}

/// A dimension, 1 to [`MAX_DIM`]: any whole number parses, and validation
/// names a 0 or a larger one with its field.
fn dim(s: &str) -> Result<usize, String> {
    whole(s, 1, MAX_DIM)
}

/// A dimension flag for which 0 means "none" or "follow another".
fn dim_or_zero(s: &str) -> Result<usize, String> {
    whole(s, 0, MAX_DIM)
}

/// Decode steps, 0 to [`MAX_DECODE`]: any whole number parses, and
/// validation names a larger one.
fn decode_steps(s: &str) -> Result<usize, String> {
    whole(s, 0, MAX_DECODE)
}

fn devices(s: &str) -> Result<usize, String> {
    whole(s, 1, super::MAX_TP)
}

fn expert_devices(s: &str) -> Result<usize, String> {
    whole(s, 1, super::MAX_EP)
}

fn stages(s: &str) -> Result<usize, String> {
    whole(s, 1, super::MAX_PP)
}

fn micro_batches(s: &str) -> Result<usize, String> {
    whole(s, 1, super::MAX_MICRO_BATCHES)
}

fn device(s: &str) -> Result<usize, String> {
    whole(s, 0, super::MAX_TP * super::MAX_PP - 1)
}

fn layers(s: &str) -> Result<usize, String> {
    whole(s, 1, MAX_LAYERS)
}

/// A soft cap: any number; validation names a negative or infinite one.
fn cap(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .map_err(|_| "expected a number ≥ 0 (0: none)".to_string())
}

fn seed(s: &str) -> Result<u64, String> {
    s.parse::<u64>()
        .map_err(|_| format!("expected a whole number from 0 to {}", u64::MAX))
}

/// Any whole number; `from` and `to` only word the message.
fn whole(s: &str, from: usize, to: usize) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| format!("expected a whole number from {from} to {to}"))
}

#[cfg(test)]
mod tests;
