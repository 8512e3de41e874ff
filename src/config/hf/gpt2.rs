//! model_type gpt2: LayerNorm, biases, learned positions, a final norm.
//!
//! ```text
//! applied   n_embd, n_head, n_layer, n_inner (null: 4·d), vocab_size,
//!           n_positions (else n_ctx), activation_function, layer_norm_epsilon,
//!           tie_word_embeddings (default true)
//! refused   scale_attn_weights false, scale_attn_by_inverse_layer_idx true,
//!           add_cross_attention true
//! ```
//!
//! activation_function, as transformers' `ACT2FN`: `gelu_new`,
//! `gelu_fast` and `gelu_pytorch_tanh` are the tanh GELU (one function
//! written three ways), `gelu` the exact erf GELU, `relu`, and `silu`
//! (x·σ(x), not gated: GPT-2's MLP has two matrices whatever its
//! activation).

use super::HfError;
use super::fields::Fields;
use crate::config::overlay::Overlay;
use crate::config::{Act, NormKind, PosEmb};
use serde_json::Value;

pub fn read(f: &Fields) -> Result<Overlay, HfError> {
    let d = f.dim("n_embd")?;
    let heads = f.dim("n_head")?;
    // n_ctx is an older spelling of n_positions; both are read.
    let (positions, ctx) = (f.opt_dim("n_positions")?, f.opt_dim("n_ctx")?);
    let context = match positions.or(ctx) {
        Some(n) => n,
        None => f.dim("n_positions")?,
    };
    // Applied as GPT-2 computes them by default; the other settings are
    // refused, not ignored.
    f.only(
        "scale_attn_weights",
        &Value::Bool(true),
        "true (scores scaled by 1/√hd, as shapetrace computes them)",
    )?;
    f.only(
        "scale_attn_by_inverse_layer_idx",
        &Value::Bool(false),
        "false (no extra 1/layer scaling, as shapetrace computes it)",
    )?;
    f.only(
        "add_cross_attention",
        &Value::Bool(false),
        "false (a decoder without cross-attention)",
    )?;
    const ACTS: &str = "gelu_new, gelu_fast, gelu_pytorch_tanh, gelu, relu, silu";
    let act = match f.act("activation_function", "gelu_new", ACTS)? {
        // GPT-2's silu is x·σ(x) on its one hidden layer, not a gate.
        Act::Swiglu => Act::Silu,
        act => act,
    };
    Ok(Overlay {
        d_model: Some(d),
        heads: Some(heads),
        kv_heads: Some(heads),
        d_ff: Some(f.opt_dim("n_inner")?.unwrap_or(d.saturating_mul(4))),
        layers: Some(f.dim("n_layer")?),
        act: Some(act),
        norm: Some(NormKind::LayerNorm),
        bias: Some(true),
        vocab: Some(f.dim("vocab_size")?),
        context: Some(context),
        tied: Some(f.flag("tie_word_embeddings", true)?),
        eps: Some(f.positive("layer_norm_epsilon", 1e-5)?),
        pos_emb: Some(PosEmb::Learned),
        ..Overlay::default()
    })
}
