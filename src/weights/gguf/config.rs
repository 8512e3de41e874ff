//! The model a GGUF file's metadata declares, as the config.json it
//! amounts to, read by the Hugging Face reader of that family (so its
//! defaults and field policy hold).
//!
//! ```text
//! general.architecture              llama or qwen2 (model_type)
//! {arch}.embedding_length           hidden_size
//! {arch}.block_count                num_hidden_layers
//! {arch}.feed_forward_length        intermediate_size
//! {arch}.attention.head_count       num_attention_heads
//! {arch}.attention.head_count_kv    num_key_value_heads (default: the heads)
//! {arch}.attention.key_length       head_dim (default: width / heads)
//! {arch}.attention.layer_norm_rms_epsilon   rms_norm_eps
//! {arch}.rope.freq_base             rope_theta (default 10000)
//! {arch}.context_length             max_position_embeddings
//! {arch}.vocab_size                 vocab_size (else token_embd's rows, else
//!                                   tokenizer.ggml.tokens' count)
//! output.weight absent              tie_word_embeddings
//! general.name                      the model's name (else the file's)
//! ```
//!
//! A rope scaling other than none, or rotary dims short of the head, is
//! refused by key.

use super::GgufError;
use super::read::{Parsed, Value};
use crate::Overlay;
use serde_json::json;

/// The architectures read.
pub const ARCHES: &str = "llama, qwen2";

/// The overlay of `p`'s metadata; `path` and `file_name` label it.
///
/// # Errors
/// [`GgufError`] naming the missing or bad key, or the architecture.
pub fn overlay(p: &Parsed, path: &str, file_name: &str) -> Result<Overlay, GgufError> {
    let bad = |key: &str, got: String, allowed: &str| GgufError::Bad {
        path: path.to_string(),
        key: key.to_string(),
        got,
        allowed: allowed.to_string(),
    };
    let missing = |key: &str| GgufError::Missing {
        path: path.to_string(),
        key: key.to_string(),
    };
    let arch = match p.meta.get("general.architecture") {
        Some(Value::Str(a)) if a == "llama" || a == "qwen2" => a.clone(),
        Some(Value::Str(a)) => return Err(bad("general.architecture", format!("'{a}'"), ARCHES)),
        Some(v) => return Err(bad("general.architecture", v.to_string(), ARCHES)),
        None => return Err(missing("general.architecture")),
    };
    let dim = |suffix: &str| -> Result<Option<u64>, GgufError> {
        let key = format!("{arch}.{suffix}");
        match p.meta.get(&key) {
            None => Ok(None),
            Some(Value::Int(n)) if *n > 0 && *n <= 1 << 40 => Ok(u64::try_from(*n).ok()),
            Some(v) => Err(bad(&key, v.to_string(), "a positive integer")),
        }
    };
    let need = |suffix: &str| dim(suffix)?.ok_or_else(|| missing(&format!("{arch}.{suffix}")));
    let float = |suffix: &str| -> Result<Option<f64>, GgufError> {
        let key = format!("{arch}.{suffix}");
        match p.meta.get(&key) {
            None => Ok(None),
            Some(Value::Float(x)) if x.is_finite() && *x > 0.0 => Ok(Some(*x)),
            Some(v) => Err(bad(&key, v.to_string(), "a positive finite number")),
        }
    };
    let heads = need("attention.head_count")?;
    let d = need("embedding_length")?;
    let head_dim = dim("attention.key_length")?;
    let hd = head_dim.unwrap_or(d / heads);
    if let Some(r) = dim("rope.dimension_count")?.filter(|&r| r != hd) {
        return Err(bad(
            &format!("{arch}.rope.dimension_count"),
            r.to_string(),
            &format!("the head width {hd} (rotary positions on the whole head)"),
        ));
    }
    let scaling = format!("{arch}.rope.scaling.type");
    match p.meta.get(&scaling) {
        None => {}
        Some(Value::Str(s)) if s == "none" => {}
        Some(v) => {
            return Err(bad(
                &scaling,
                v.to_string(),
                "none (rope scaling is not read from GGUF)",
            ));
        }
    }
    let embd = p.infos.iter().find(|i| i.name == "token_embd.weight");
    let vocab = match dim("vocab_size")? {
        Some(v) => v,
        None => match (
            embd.and_then(|i| i.dims.get(1)),
            p.meta.get("tokenizer.ggml.tokens"),
        ) {
            (Some(&rows), _) => rows,
            (None, Some(Value::Array(_, n))) if *n > 0 => *n,
            _ => return Err(missing(&format!("{arch}.vocab_size"))),
        },
    };
    let tied = !p.infos.iter().any(|i| i.name == "output.weight");
    let mut config = json!({
        "model_type": arch,
        "hidden_size": d,
        "num_hidden_layers": need("block_count")?,
        "intermediate_size": need("feed_forward_length")?,
        "num_attention_heads": heads,
        "num_key_value_heads": dim("attention.head_count_kv")?.unwrap_or(heads),
        "rms_norm_eps": float("attention.layer_norm_rms_epsilon")?
            .ok_or_else(|| missing(&format!("{arch}.attention.layer_norm_rms_epsilon")))?,
        "rope_theta": float("rope.freq_base")?.unwrap_or(10_000.0),
        "max_position_embeddings": need("context_length")?,
        "vocab_size": vocab,
        "tie_word_embeddings": tied,
        "hidden_act": "silu",
    });
    if let (Some(hd), Some(map)) = (head_dim, config.as_object_mut()) {
        map.insert("head_dim".into(), hd.into());
    }
    let mut o = crate::config::hf::parse(&config.to_string(), path)
        .map_err(|e| GgufError::Hf(e.to_string()))?;
    let name = match p.meta.get("general.name") {
        Some(Value::Str(n)) if !n.trim().is_empty() => crate::text::one_line(n),
        _ => arch,
    };
    o.name = Some(format!("{name} ({file_name})"));
    Ok(o)
}
