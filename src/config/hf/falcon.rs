//! model_type falcon: LayerNorm with β but linears without bias, rotary
//! positions, multi-query or grouped K/V heads, and attention and the MLP
//! in parallel, reading one norm (Falcon-7B) or two (Falcon-40B's new
//! decoder architecture).
//!
//! ```text
//! applied   hidden_size, num_attention_heads, num_hidden_layers,
//!           vocab_size, max_position_embeddings (default 2048),
//!           ffn_hidden_size (default 4·d), activation (gelu, …),
//!           layer_norm_epsilon, bias (linears; LayerNorms always have β),
//!           multi_query (one K/V head), new_decoder_architecture
//!           (num_kv_heads K/V heads, and num_ln_in_parallel_attn norms:
//!           2 by default, 1 shared), parallel_attn (false: two adds),
//!           tie_word_embeddings (default true), rope_theta / rope_scaling
//!           / rope_parameters (rope.rs)
//! refused   alibi true (Falcon adds ALiBi before the 1/√hd scaling),
//!           apply_residual_connection_post_layernorm true,
//!           new_decoder_architecture without parallel_attn
//! ```
//!
//! Its fused `query_key_value` projection is traced as it is, one matmul
//! and its split: `[q; k; v]` under multi-query attention (Falcon-7B),
//! `[q_g; k_g; v_g]` per K/V group otherwise (Falcon-40B).

use super::HfError;
use super::fields::Fields;
use crate::config::overlay::Overlay;
use crate::config::{NormKind, PosEmb, QkvFusion};
use serde_json::Value;

/// The overlay, and any unknown key inside the rotary settings.
pub fn read(f: &Fields) -> Result<(Overlay, Vec<String>), HfError> {
    let d = f.dim("hidden_size")?;
    let heads = f.dim("num_attention_heads")?;
    f.only(
        "alibi",
        &Value::Bool(false),
        "false (ALiBi added before Falcon's 1/√hd scaling is not supported; rotary positions are)",
    )?;
    f.only(
        "apply_residual_connection_post_layernorm",
        &Value::Bool(false),
        "false (the residual is the block's input, as Falcon's released models add it)",
    )?;
    let new_arch = f.flag("new_decoder_architecture", false)?;
    let parallel = f.flag("parallel_attn", true)?;
    if new_arch && !parallel {
        return Err(f.bad(
            "parallel_attn",
            "true with new_decoder_architecture (transformers builds no sequential block for it)",
        ));
    }
    let kv_named = f.opt_dim("num_kv_heads")?;
    let multi_query = f.flag("multi_query", true)?;
    let kv_heads = if new_arch {
        kv_named.unwrap_or(heads)
    } else if multi_query {
        1
    } else {
        heads
    };
    // Two norms (ln_attn, ln_mlp) in the new architecture unless it asks
    // for one; the old architecture's parallel block reads one.
    let norms = match f.opt_dim("num_ln_in_parallel_attn")? {
        None if new_arch => 2,
        None => 1,
        Some(1) => 1,
        Some(2) if new_arch => 2,
        // transformers builds ln_attn and ln_mlp for it, then reads
        // input_layernorm: it cannot run.
        Some(2) => {
            return Err(f.bad(
                "num_ln_in_parallel_attn",
                "1, or 2 with new_decoder_architecture (the old architecture reads one norm)",
            ));
        }
        Some(_) => return Err(f.bad("num_ln_in_parallel_attn", "1 or 2")),
    };
    let shared = parallel && (!new_arch || norms == 1);
    let rotary = super::rope::read(f, super::rope::Share::Whole)?;
    let rotary_dims = rotary.dims(f, d / heads.max(1))?;
    let act = f.plain_act("activation", "gelu")?;
    Ok((
        Overlay {
            fused_qkv: Some(if !new_arch && multi_query {
                QkvFusion::Concat
            } else {
                QkvFusion::Grouped
            }),
            d_model: Some(d),
            heads: Some(heads),
            kv_heads: Some(kv_heads),
            d_ff: Some(f.opt_dim("ffn_hidden_size")?.unwrap_or(d.saturating_mul(4))),
            layers: Some(f.dim("num_hidden_layers")?),
            act: Some(act),
            norm: Some(NormKind::LayerNorm),
            bias: Some(f.flag("bias", false)?),
            norm_bias: Some(true),
            parallel: Some(parallel),
            shared_norm: Some(shared),
            vocab: Some(f.dim("vocab_size")?),
            context: Some(f.opt_dim("max_position_embeddings")?.unwrap_or(2048)),
            tied: Some(f.flag("tie_word_embeddings", true)?),
            eps: Some(f.positive("layer_norm_epsilon", 1e-5)?),
            pos_emb: Some(PosEmb::Rope),
            rope_theta: Some(rotary.theta),
            rope_scaling: rotary.scaling,
            rotary_dims: Some(rotary_dims),
            ..Overlay::default()
        },
        rotary.unknown,
    ))
}
