//! model_type bert: a Post-LN encoder (attention reads both ways),
//! LayerNorm and biases, learned positions, token-type embeddings and a
//! LayerNorm on the summed embeddings, ending in the pooler: BertModel,
//! the encoder whose 110M parameters BERT-base is published with.
//!
//! ```text
//! applied   hidden_size, num_attention_heads, num_hidden_layers,
//!           intermediate_size, vocab_size, max_position_embeddings,
//!           type_vocab_size (wtt; a trace's tokens are all type 0),
//!           hidden_act, layer_norm_eps
//! refused   position_embedding_type other than absolute, is_decoder true,
//!           add_cross_attention true
//! silent    attention_probs_dropout_prob, hidden_dropout_prob,
//!           classifier_dropout, gradient_checkpointing (training only),
//!           tie_word_embeddings (the masked-LM head's, not BertModel's)
//! ```
//!
//! BertForMaskedLM's head (a transform and the tied decoder) is not
//! traced: the trace ends in the pooler, `tanh(x[:, 0]·W_p + b_p)`.

use super::HfError;
use super::fields::Fields;
use crate::config::overlay::Overlay;
use crate::config::{Head, NormKind, Placement, PosEmb};
use serde_json::Value;

pub fn read(f: &Fields) -> Result<Overlay, HfError> {
    let d = f.dim("hidden_size")?;
    let heads = f.dim("num_attention_heads")?;
    f.only(
        "position_embedding_type",
        &Value::String("absolute".into()),
        "absolute (learned positions; relative_key and relative_key_query are not supported)",
    )?;
    f.only(
        "is_decoder",
        &Value::Bool(false),
        "false (an encoder: BERT as a decoder is not read)",
    )?;
    f.only(
        "add_cross_attention",
        &Value::Bool(false),
        "false (an encoder without cross-attention)",
    )?;
    for silent in [
        "attention_probs_dropout_prob",
        "hidden_dropout_prob",
        "classifier_dropout",
        "gradient_checkpointing",
        "tie_word_embeddings",
    ] {
        f.get(silent);
    }
    let act = f.plain_act("hidden_act", "gelu")?;
    Ok(Overlay {
        d_model: Some(d),
        heads: Some(heads),
        kv_heads: Some(heads),
        d_ff: Some(f.dim("intermediate_size")?),
        layers: Some(f.dim("num_hidden_layers")?),
        act: Some(act),
        norm: Some(NormKind::LayerNorm),
        placement: Some(Placement::Post),
        encoder: Some(true),
        final_norm: Some(false),
        bias: Some(true),
        vocab: Some(f.dim("vocab_size")?),
        context: Some(f.dim("max_position_embeddings")?),
        pos_emb: Some(PosEmb::Learned),
        token_types: Some(f.opt_dim("type_vocab_size")?.unwrap_or(2)),
        embed_norm: Some(true),
        head: Some(Head::Pooler),
        tied: Some(true),
        eps: Some(f.positive("layer_norm_eps", 1e-12)?),
        ..Overlay::default()
    })
}
