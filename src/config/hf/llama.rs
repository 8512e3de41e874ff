//! model_type llama and mistral: RMSNorm, SwiGLU, rotary positions, a
//! final norm, no biases unless asked.
//!
//! ```text
//! applied   hidden_size, num_hidden_layers, num_attention_heads,
//!           num_key_value_heads (default: heads), head_dim (default:
//!           hidden / heads), intermediate_size, vocab_size,
//!           max_position_embeddings, hidden_act (silu), rms_norm_eps,
//!           tie_word_embeddings (default false), attention_bias (q, k, v, o;
//!           default false), mlp_bias (gate, up, down; default false),
//!           rope_parameters / rope_theta / rope_scaling (rope.rs),
//!           sliding_window (mistral only; null: none)
//! refused   hidden_act other than silu, quantization_config
//! ```

use super::HfError;
use super::fields::Fields;
use crate::config::overlay::Overlay;
use crate::config::{Act, NormKind, PosEmb};

/// The overlay, and any unknown key inside the rotary settings.
pub fn read(f: &Fields) -> Result<(Overlay, Vec<String>), HfError> {
    let heads = f.dim("num_attention_heads")?;
    let d = f.dim("hidden_size")?;
    // A head width apart from d / heads (Mistral-NeMo: 32 × 128 = 4096 in
    // a stream of 5120) is applied: q is (d, h·hd) and out (h·hd, d).
    let head_dim = f.opt_dim("head_dim")?;
    let (rope_theta, rope_scaling, unknown) = super::rope::read(f)?;
    // Mistral's window; llama has none, and its field there is unknown.
    let window = if f.model_type == "mistral" {
        f.opt_dim("sliding_window")?
    } else {
        None
    };
    if f.get("quantization_config").is_some() {
        return Err(f.bad(
            "quantization_config",
            "absent (quantized weights are not what shapetrace computes with)",
        ));
    }
    let attention_bias = f.flag("attention_bias", false)?;
    let overlay = Overlay {
        d_model: Some(d),
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
        mlp_bias: Some(f.flag("mlp_bias", false)?),
        vocab: Some(f.dim("vocab_size")?),
        context: Some(f.dim("max_position_embeddings")?),
        tied: Some(f.flag("tie_word_embeddings", false)?),
        eps: Some(f.positive("rms_norm_eps", 1e-6)?),
        pos_emb: Some(PosEmb::Rope),
        rope_theta: Some(rope_theta),
        rope_scaling,
        window: Some(window.unwrap_or(0)),
        ..Overlay::default()
    };
    Ok((overlay, unknown))
}
