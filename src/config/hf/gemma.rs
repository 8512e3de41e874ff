//! model_type gemma and gemma2: RMSNorm scaled by 1 + w, a GeGLU MLP (the
//! tanh GELU gates the up projection), rotary positions, wide heads
//! (head_dim 256), embeddings scaled by √d, a tied head. Gemma 2 adds
//! sandwich norms, soft caps on the scores and the logits, its own query
//! scale and a sliding window on every other block.
//!
//! ```text
//! applied   hidden_size, num_attention_heads, num_key_value_heads,
//!           head_dim, intermediate_size, num_hidden_layers, vocab_size,
//!           max_position_embeddings, rms_norm_eps, attention_bias,
//!           tie_word_embeddings (default true), rope_theta / rope_scaling /
//!           rope_parameters (rope.rs)
//! gemma     hidden_act (gelu and the tanh forms are the tanh GELU, as
//!           transformers reads them; hidden_activation, which transformers'
//!           Gemma does not read, changes nothing)
//! gemma2    hidden_activation (tanh GELU; hidden_act, which transformers'
//!           Gemma 2 does not read, changes nothing),
//!           query_pre_attn_scalar, attn_logit_softcapping,
//!           final_logit_softcapping (absent: transformers' 50 and 30;
//!           null: none), sliding_window (absent: 4096; null: none), and
//!           layer_types (default: sliding on blocks 1, 3, 5, …, full on
//!           2, 4, 6, …; every pattern "full on each n-th block" is read)
//! refused   an exact-erf hidden_activation (Gemma 2), use_bidirectional_
//!           attention true, quantization_config
//! ```

use super::HfError;
use super::fields::Fields;
use crate::config::overlay::Overlay;
use crate::config::{Act, NormKind, Placement, PosEmb};
use serde_json::Value;

/// The overlay, and any unknown key inside the rotary settings.
pub fn read(f: &Fields) -> Result<(Overlay, Vec<String>), HfError> {
    let two = f.model_type == "gemma2";
    let d = f.dim("hidden_size")?;
    let heads = f.dim("num_attention_heads")?;
    let head_dim = f.opt_dim("head_dim")?.unwrap_or(256);
    let rotary = super::rope::read(f, super::rope::Share::Whole)?;
    let rotary_dims = rotary.dims(f, head_dim)?;
    f.only(
        "use_bidirectional_attention",
        &Value::Bool(false),
        "false (a decoder; an encoder Gemma is not read)",
    )?;
    if f.get("quantization_config").is_some() {
        return Err(f.bad(
            "quantization_config",
            "absent (quantized weights are not what shapetrace computes with)",
        ));
    }
    const ACTS: &str = "gelu_pytorch_tanh, gelu_new, gelu_fast (Gemma's tanh GELU gate)";
    let act_field = if two {
        "hidden_activation"
    } else {
        "hidden_act"
    };
    let act = f.act(act_field, "gelu_pytorch_tanh", ACTS)?;
    // Gemma's "gelu" is read as the tanh GELU, as transformers reads it;
    // Gemma 2 reads its name as written.
    match act {
        Act::GeluTanh => {}
        Act::Gelu if !two => {}
        _ => return Err(f.bad(act_field, ACTS)),
    }
    // The other field of the two is written by transformers' configs
    // and read by neither model: it changes nothing.
    f.get(if two {
        "hidden_act"
    } else {
        "hidden_activation"
    });
    // Absent: transformers' default; null: none.
    let cap = |field: &'static str, default: f64| -> Result<f64, HfError> {
        if !f.has(field) {
            return Ok(default);
        }
        match f.get(field) {
            None => Ok(0.0),
            Some(v) => v
                .as_f64()
                .filter(|c| *c > 0.0 && c.is_finite())
                .ok_or_else(|| f.bad(field, "a number > 0, or null for none")),
        }
    };
    let layers = f.dim("num_hidden_layers")?;
    let (window, full_every, query_scale, attn_cap, logit_cap) = if two {
        let window = match f.opt_dim("sliding_window")? {
            None if !f.has("sliding_window") => 4096,
            w => w.unwrap_or(0),
        };
        let full_every = layer_pattern(f, layers)?;
        let (window, full_every) = match full_every {
            // Every block full: no window anywhere.
            Some(1) => (0, 0),
            Some(n) => (window, n),
            // Every block sliding.
            None => (window, 0),
        };
        (
            window,
            if window == 0 { 0 } else { full_every },
            f.opt_dim("query_pre_attn_scalar")?.unwrap_or(256),
            cap("attn_logit_softcapping", 50.0)?,
            cap("final_logit_softcapping", 30.0)?,
        )
    } else {
        (0, 0, 0, 0.0, 0.0)
    };
    Ok((
        Overlay {
            d_model: Some(d),
            heads: Some(heads),
            head_dim: Some(head_dim),
            kv_heads: Some(f.opt_dim("num_key_value_heads")?.unwrap_or(heads)),
            d_ff: Some(f.dim("intermediate_size")?),
            layers: Some(layers),
            act: Some(Act::Geglu),
            norm: Some(NormKind::RmsNormPlusOne),
            placement: Some(if two {
                Placement::Sandwich
            } else {
                Placement::Pre
            }),
            bias: Some(f.flag("attention_bias", false)?),
            mlp_bias: Some(false),
            vocab: Some(f.dim("vocab_size")?),
            context: Some(f.dim("max_position_embeddings")?),
            tied: Some(f.flag("tie_word_embeddings", true)?),
            eps: Some(f.positive("rms_norm_eps", 1e-6)?),
            pos_emb: Some(PosEmb::Rope),
            rope_theta: Some(rotary.theta),
            rope_scaling: rotary.scaling,
            rotary_dims: Some(rotary_dims),
            embed_scale: Some(true),
            window: Some(window),
            full_every: Some(full_every),
            query_scale: Some(query_scale),
            attn_softcap: Some(attn_cap),
            logit_softcap: Some(logit_cap),
            ..Overlay::default()
        },
        rotary.unknown,
    ))
}

/// Gemma 2's `layer_types` as "full attention on every n-th block": its
/// default is n = 2 (sliding on blocks 1, 3, …); `Some(1)` is full
/// everywhere, `None` sliding everywhere. Any other pattern is refused.
fn layer_pattern(f: &Fields, layers: usize) -> Result<Option<usize>, HfError> {
    const ALLOWED: &str = "sliding_attention and full_attention with full on every n-th layer (the default alternates)";
    let Some(types) = f.get("layer_types") else {
        return Ok(Some(2));
    };
    let full: Vec<bool> = types
        .as_array()
        .filter(|t| t.len() == layers)
        .and_then(|t| {
            t.iter()
                .map(|x| match x.as_str() {
                    Some("full_attention") => Some(true),
                    Some("sliding_attention") => Some(false),
                    _ => None,
                })
                .collect()
        })
        .ok_or_else(|| f.bad("layer_types", ALLOWED))?;
    let Some(first) = full.iter().position(|&x| x) else {
        return Ok(None);
    };
    let n = first + 1;
    let fits = full
        .iter()
        .enumerate()
        .all(|(i, &x)| x == (i + 1).is_multiple_of(n));
    if fits {
        Ok(Some(n))
    } else {
        Err(f.bad("layer_types", ALLOWED))
    }
}
