//! model_type opt: LayerNorm, biases, ReLU, learned positions that start
//! at row 2 of their table, a tied head.
//!
//! ```text
//! applied   hidden_size, num_attention_heads, num_hidden_layers, ffn_dim,
//!           vocab_size, max_position_embeddings (wpe holds 2 more rows:
//!           position t reads row t + 2), activation_function,
//!           do_layer_norm_before (true: Pre-LN and a final norm; false:
//!           Post-LN, no final norm), _remove_final_layer_norm,
//!           enable_bias (linears; LayerNorms always have β),
//!           tie_word_embeddings (default true)
//! refused   word_embed_proj_dim other than hidden_size (OPT-350M's
//!           projections in and out of a narrower embedding),
//!           layer_norm_elementwise_affine false
//! silent    dropout, activation_dropout, layerdrop, init_std
//! ```

use super::HfError;
use super::fields::Fields;
use crate::config::overlay::Overlay;
use crate::config::{NormKind, Placement, PosEmb};
use serde_json::Value;

/// The rows of OPT's position table before position 0.
const OFFSET: usize = 2;

pub fn read(f: &Fields) -> Result<Overlay, HfError> {
    let d = f.dim("hidden_size")?;
    if f.opt_dim("word_embed_proj_dim")?.is_some_and(|w| w != d) {
        return Err(f.bad(
            "word_embed_proj_dim",
            "hidden_size (projections in and out of a narrower embedding are not traced)",
        ));
    }
    f.only(
        "layer_norm_elementwise_affine",
        &Value::Bool(true),
        "true (LayerNorms with γ and β)",
    )?;
    let pre = f.flag("do_layer_norm_before", true)?;
    // Read whatever the placement, so it is never noted as unknown.
    let removed = f.flag("_remove_final_layer_norm", false)?;
    let final_norm = pre && !removed;
    for silent in ["dropout", "activation_dropout", "layerdrop", "init_std"] {
        f.get(silent);
    }
    let act = f.plain_act("activation_function", "relu")?;
    let heads = f.dim("num_attention_heads")?;
    Ok(Overlay {
        d_model: Some(d),
        heads: Some(heads),
        kv_heads: Some(heads),
        d_ff: Some(f.dim("ffn_dim")?),
        layers: Some(f.dim("num_hidden_layers")?),
        act: Some(act),
        norm: Some(NormKind::LayerNorm),
        placement: Some(if pre { Placement::Pre } else { Placement::Post }),
        final_norm: Some(final_norm),
        bias: Some(f.flag("enable_bias", true)?),
        norm_bias: Some(true),
        vocab: Some(f.dim("vocab_size")?),
        context: Some(f.dim("max_position_embeddings")?),
        pos_emb: Some(PosEmb::Learned),
        pos_offset: Some(OFFSET),
        tied: Some(f.flag("tie_word_embeddings", true)?),
        eps: Some(1e-5),
        ..Overlay::default()
    })
}
