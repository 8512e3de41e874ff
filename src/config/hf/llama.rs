//! model_type llama, mistral, qwen2, mixtral and phi3: RMSNorm, SwiGLU, rotary
//! positions, a final norm, no biases unless asked (Qwen2's q, k and v
//! always have theirs).
//!
//! ```text
//! applied   hidden_size, num_hidden_layers, num_attention_heads,
//!           num_key_value_heads (default: heads), head_dim (default:
//!           hidden / heads), intermediate_size, vocab_size,
//!           max_position_embeddings, hidden_act (silu), rms_norm_eps,
//!           tie_word_embeddings (default false), llama's attention_bias
//!           (q, k, v, o; default false) and mlp_bias (gate, up, down;
//!           default false; Mistral has no biases whatever the file says),
//!           rope_parameters / rope_theta / rope_scaling (rope.rs),
//!           sliding_window (mistral only; null: none)
//! refused   hidden_act other than silu, quantization_config
//! qwen2     q, k, v biases (o and the MLP none); sliding_window and
//!           max_window_layers apply only with use_sliding_window, which is
//!           refused when true (a window on some layers only), as is a
//!           layer_types entry other than full_attention
//! mixtral   as mistral, with a mixture of experts in the MLP's place:
//!           num_local_experts (E), num_experts_per_tok (k); the router's
//!           training terms (router_aux_loss_coef, output_router_logits,
//!           router_jitter_noise, applied only while training) change
//!           nothing a forward computes
//! phi3      as mistral (sliding_window applied; null: none), no biases;
//!           its fused qkv_proj and gate_up_proj are traced as they are,
//!           one matmul each and the split of its output (`[q; k; v]`,
//!           `[gate; up]`); original_max_position_embeddings matters only
//!           to a longrope rope_scaling, which is refused
//! ```

use super::HfError;
use super::fields::Fields;
use crate::config::overlay::Overlay;
use crate::config::{Act, NormKind, PosEmb, QkvFusion};

/// The overlay, and any unknown key inside the rotary settings.
pub fn read(f: &Fields) -> Result<(Overlay, Vec<String>), HfError> {
    let heads = f.dim("num_attention_heads")?;
    let d = f.dim("hidden_size")?;
    // A head width apart from d / heads (Mistral-NeMo: 32 × 128 = 4096 in
    // a stream of 5120) is applied: q is (d, h·hd) and out (h·hd, d).
    let head_dim = f.opt_dim("head_dim")?;
    let share = if f.model_type == "phi3" {
        super::rope::Share::Phi
    } else {
        super::rope::Share::Whole
    };
    let rotary = super::rope::read(f, share)?;
    let rotary_dims = rotary.dims(f, head_dim.unwrap_or(d / heads.max(1)))?;
    // Mistral's window; llama has none, and its field there is unknown.
    let window = match f.model_type {
        "mistral" | "mixtral" | "phi3" => f.opt_dim("sliding_window")?,
        "qwen2" => qwen2_window(f)?,
        _ => None,
    };
    // Phi-3's pre-extension context: read by longrope scaling alone.
    if f.model_type == "phi3" {
        f.opt_dim("original_max_position_embeddings")?;
    }
    if f.get("quantization_config").is_some() {
        return Err(f.bad(
            "quantization_config",
            "absent (quantized weights are not what shapetrace computes with)",
        ));
    }
    // Qwen2's q, k and v projections always have biases, Mistral's
    // projections never: neither reads a bias field (transformers' code
    // fixes them). One in the file is read (and checked to be true or
    // false) either way, so a field listed as applied is never noted as
    // unknown; set true, a note says it is not read.
    let qwen2 = f.model_type == "qwen2";
    let (attention_bias, mlp_bias) = (f.flag("attention_bias", false)?, f.flag("mlp_bias", false)?);
    let ignored: Vec<&str> = [("attention_bias", attention_bias), ("mlp_bias", mlp_bias)]
        .into_iter()
        .filter(|&(_, on)| on && f.model_type != "llama")
        .map(|(field, _)| field)
        .collect();
    let note = (!ignored.is_empty()).then(|| {
        vec![format!(
            "{}: {} true is not read: transformers fixes model_type {}'s biases in its code ({})",
            crate::text::shown(f.path),
            ignored.join(" and "),
            crate::text::shown(f.model_type),
            if qwen2 {
                "q, k and v always, o and the MLP never"
            } else {
                "none"
            }
        )]
    });
    let (attention_bias, mlp_bias) = if f.model_type == "llama" {
        (attention_bias, mlp_bias)
    } else {
        (false, false)
    };
    // Mixtral's experts, each a SwiGLU MLP of intermediate_size.
    let (experts, top_k) = if f.model_type == "mixtral" {
        (
            Some(f.dim("num_local_experts")?),
            Some(f.dim("num_experts_per_tok")?),
        )
    } else {
        (None, None)
    };
    let phi3 = f.model_type == "phi3";
    let overlay = Overlay {
        fused_qkv: Some(if phi3 {
            QkvFusion::Concat
        } else {
            QkvFusion::Apart
        }),
        fused_gate_up: Some(phi3),
        d_model: Some(d),
        experts,
        top_k,
        heads: Some(heads),
        head_dim: Some(head_dim.unwrap_or(0)),
        kv_heads: Some(f.opt_dim("num_key_value_heads")?.unwrap_or(heads)),
        d_ff: Some(f.dim("intermediate_size")?),
        layers: Some(f.dim("num_hidden_layers")?),
        act: Some(match f.act("hidden_act", "silu", "silu (a gated MLP)")? {
            Act::Swiglu => Act::Swiglu,
            _ => return Err(f.bad("hidden_act", "silu (a gated MLP)")),
        }),
        norm: Some(NormKind::RmsNorm),
        bias: Some(attention_bias),
        qkv_bias: Some(qwen2),
        mlp_bias: Some(mlp_bias),
        vocab: Some(f.dim("vocab_size")?),
        context: Some(f.dim("max_position_embeddings")?),
        tied: Some(f.flag("tie_word_embeddings", false)?),
        eps: Some(f.positive("rms_norm_eps", 1e-6)?),
        pos_emb: Some(PosEmb::Rope),
        rope_theta: Some(rotary.theta),
        rope_scaling: rotary.scaling,
        rotary_dims: Some(rotary_dims),
        window: Some(window.unwrap_or(0)),
        notes: note,
        ..Overlay::default()
    };
    Ok((overlay, rotary.unknown))
}

/// Qwen2's window: none unless `use_sliding_window`, which puts one on
/// the layers from `max_window_layers` on: not one window for every layer,
/// so refused. Both fields are read either way; `layer_types` (transformers
/// ≥ 5) must say full attention for every layer.
fn qwen2_window(f: &Fields) -> Result<Option<usize>, HfError> {
    f.opt_dim("sliding_window")?;
    f.opt_dim("max_window_layers")?;
    if f.flag("use_sliding_window", false)? {
        return Err(f.bad(
            "use_sliding_window",
            "false (a sliding window on some layers only is not supported)",
        ));
    }
    if let Some(types) = f.get("layer_types") {
        let all_full = types
            .as_array()
            .is_some_and(|t| t.iter().all(|x| x == "full_attention"));
        if !all_full {
            return Err(f.bad(
                "layer_types",
                "full_attention for every layer (per-layer attention kinds are not supported)",
            ));
        }
    }
    Ok(None)
}
