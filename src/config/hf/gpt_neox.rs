//! model_type gpt_neox (Pythia, GPT-NeoX-20B): LayerNorm with β, biases,
//! parallel residuals with two norms, partial rotary positions, an untied
//! head (`embed_out`).
//!
//! ```text
//! applied   hidden_size, num_attention_heads, num_hidden_layers,
//!           intermediate_size, vocab_size, max_position_embeddings,
//!           hidden_act (gelu, gelu_new, …, relu), layer_norm_eps,
//!           use_parallel_residual (default true: x + attn(LN1(x)) +
//!           mlp(LN2(x)); false: two adds), attention_bias (default true),
//!           tie_word_embeddings (default false), rotary_pct (default
//!           0.25) or rope_parameters' partial_rotary_factor,
//!           rotary_emb_base (θ; a top-level rope_theta is not GPT-NeoX's and
//!           is noted as unknown), rope_scaling / rope_parameters (rope.rs)
//! silent    classifier_dropout (a classifier head, not traced), is_decoder
//! ```
//!
//! Its fused `query_key_value` projection, (d, 3·d) with each head's q, k
//! and v side by side, is traced as it is: one matmul, then q, k and v
//! gathered head by head from its output (`fused_qkv = "grouped"`).

use super::HfError;
use super::fields::Fields;
use crate::config::overlay::Overlay;
use crate::config::{NormKind, PosEmb, QkvFusion};

/// The overlay, and any unknown key inside the rotary settings.
pub fn read(f: &Fields) -> Result<(Overlay, Vec<String>), HfError> {
    let d = f.dim("hidden_size")?;
    let heads = f.dim("num_attention_heads")?;
    let rotary = super::rope::read(f, super::rope::Share::NeoX)?;
    let rotary_dims = rotary.dims(f, d / heads.max(1))?;
    let act = f.plain_act("hidden_act", "gelu")?;
    let bias = f.flag("attention_bias", true)?;
    // A classifier head's dropout, and transformers 5's is_decoder (the
    // causal LM masks the future either way): nothing a forward computes.
    f.get("classifier_dropout");
    f.get("is_decoder");
    Ok((
        Overlay {
            fused_qkv: Some(QkvFusion::Grouped),
            d_model: Some(d),
            heads: Some(heads),
            kv_heads: Some(heads),
            d_ff: Some(f.dim("intermediate_size")?),
            layers: Some(f.dim("num_hidden_layers")?),
            act: Some(act),
            norm: Some(NormKind::LayerNorm),
            bias: Some(bias),
            // The MLP and the LayerNorms keep their biases whatever
            // attention_bias says.
            mlp_bias: Some(true),
            norm_bias: Some(true),
            parallel: Some(f.flag("use_parallel_residual", true)?),
            vocab: Some(f.dim("vocab_size")?),
            context: Some(f.dim("max_position_embeddings")?),
            tied: Some(f.flag("tie_word_embeddings", false)?),
            eps: Some(f.positive("layer_norm_eps", 1e-5)?),
            pos_emb: Some(PosEmb::Rope),
            rope_theta: Some(rotary.theta),
            rope_scaling: rotary.scaling,
            rotary_dims: Some(rotary_dims),
            ..Overlay::default()
        },
        rotary.unknown,
    ))
}
