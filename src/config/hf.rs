//! Hugging Face `config.json` files for model_type gpt2, llama and mistral.
//!
//! ```text
//! gpt2             n_embd, n_layer, n_head, n_inner (null: 4·d), vocab_size, n_positions,
//!                  activation_function (gelu_new → gelu-tanh), layer_norm_epsilon,
//!                  tie_word_embeddings (default true): LayerNorm, biases, final norm
//! llama, mistral   hidden_size, num_hidden_layers, num_attention_heads,
//!                  num_key_value_heads (default: heads), intermediate_size, vocab_size,
//!                  max_position_embeddings, hidden_act (silu → swiglu), rms_norm_eps,
//!                  tie_word_embeddings (default false), attention_bias (default false),
//!                  rope_parameters.rope_theta (transformers ≥ 5), else rope_theta
//!                  (default 10000): RMSNorm, final norm, rotary positions (no parameters)
//! ```
//!
//! A field that would change what is computed but is not applied is
//! refused by name, never ignored: GPT-2's `scale_attn_weights: false`
//! and `scale_attn_by_inverse_layer_idx: true`, a non-gated GPT-2
//! activation taken for a gated one (`silu`), and a llama/mistral
//! `head_dim` other than hidden_size / num_attention_heads.
//!
//! The traced model is B = 1 at T = the context. Rotary positions add no
//! parameter; attention rotates q and k as its own steps (θ = 10000).

use super::overlay::Overlay;
use super::{Act, NormKind, Placement, PosEmb};
use serde_json::{Map, Value};

/// The model types a config.json may declare.
pub const SUPPORTED: &str = "gpt2, llama, mistral";

/// A config.json that could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HfError {
    /// The file is not JSON.
    #[error("{}: not valid JSON: {msg}", crate::text::shown(.path))]
    Json {
        /// The config.json.
        path: String,
        /// The JSON parser's message.
        msg: String,
    },
    /// The JSON is not an object.
    #[error("{}: a config.json must be a JSON object, found {found}", crate::text::shown(.path))]
    NotObject {
        /// The config.json.
        path: String,
        /// The JSON type found instead, e.g. `an array`.
        found: &'static str,
    },
    /// A key appears twice (serde_json would keep only the last).
    #[error("{}: {dup}", crate::text::shown(.path))]
    Duplicate {
        /// The config.json.
        path: String,
        /// The key given twice and where.
        dup: crate::json::Duplicate,
    },
    /// `model_type` is not one of [`SUPPORTED`].
    #[error("{}: model_type '{}' is not supported; allowed: {SUPPORTED}", crate::text::shown(.path), crate::text::shown(.got))]
    ModelType {
        /// The config.json.
        path: String,
        /// The `model_type` it declares.
        got: String,
    },
    /// The file has no `model_type`.
    #[error("{}: missing field 'model_type'; allowed: {SUPPORTED}", crate::text::shown(.path))]
    NoModelType {
        /// The config.json.
        path: String,
    },
    /// A field the model type needs is missing.
    #[error("{}: missing field '{field}' (needed for model_type {model_type})", crate::text::shown(.path))]
    Missing {
        /// The config.json.
        path: String,
        /// The missing field, e.g. `n_embd`.
        field: &'static str,
        /// The declared model type, which decides the fields needed.
        model_type: String,
    },
    /// A field has a value of the wrong type or range.
    #[error("{}: field '{field}' is {}; allowed: {allowed}", crate::text::shown(.path), crate::text::shown(.got))]
    Bad {
        /// The config.json.
        path: String,
        /// The field, e.g. `n_head`.
        field: &'static str,
        /// Its value as JSON, or `absent`.
        got: String,
        /// What the field may hold.
        allowed: String,
    },
}

struct Fields<'a> {
    map: &'a Map<String, Value>,
    path: &'a str,
    model_type: &'a str,
}

impl Fields<'_> {
    fn bad(&self, field: &'static str, allowed: &str) -> HfError {
        HfError::Bad {
            path: self.path.into(),
            field,
            got: self
                .map
                .get(field)
                .map_or("absent".into(), ToString::to_string),
            allowed: allowed.into(),
        }
    }

    /// A whole number ≥ 1, `None` when absent or null.
    fn opt_dim(&self, field: &'static str) -> Result<Option<usize>, HfError> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|&n| n >= 1)
                .and_then(|n| usize::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| self.bad(field, "a whole number ≥ 1")),
        }
    }

    fn dim(&self, field: &'static str) -> Result<usize, HfError> {
        self.opt_dim(field)?.ok_or_else(|| HfError::Missing {
            path: self.path.into(),
            field,
            model_type: self.model_type.into(),
        })
    }

    fn flag(&self, field: &'static str, default: bool) -> Result<bool, HfError> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v.as_bool().ok_or_else(|| self.bad(field, "true or false")),
        }
    }

    fn positive(&self, field: &'static str, default: f64) -> Result<f64, HfError> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_f64()
                .filter(|e| *e > 0.0)
                .ok_or_else(|| self.bad(field, "a number > 0")),
        }
    }

    fn act(&self, field: &'static str, default: &str) -> Result<Act, HfError> {
        const ALLOWED: &str = "gelu_new, gelu_pytorch_tanh, gelu, relu, silu";
        let name = match self.map.get(field) {
            None | Some(Value::Null) => default,
            Some(v) => v.as_str().ok_or_else(|| self.bad(field, ALLOWED))?,
        };
        match name {
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Ok(Act::GeluTanh),
            "gelu" => Ok(Act::Gelu),
            "relu" => Ok(Act::Relu),
            "silu" | "swish" => Ok(Act::Swiglu),
            _ => Err(self.bad(field, ALLOWED)),
        }
    }

    /// Refuses `field` when it is present with a value other than `fine`
    /// (which is what shapetrace computes).
    fn only(&self, field: &'static str, fine: &Value, allowed: &str) -> Result<(), HfError> {
        match self.map.get(field) {
            Some(v) if v != fine && !v.is_null() => Err(self.bad(field, allowed)),
            _ => Ok(()),
        }
    }

    /// θ of the rotary embedding: `rope_parameters.rope_theta`, where
    /// transformers ≥ 5 writes it, else the top-level `rope_theta`.
    fn rope_theta(&self) -> Result<f64, HfError> {
        let nested = self
            .map
            .get("rope_parameters")
            .and_then(|p| p.get("rope_theta"))
            .filter(|v| !v.is_null());
        match nested {
            Some(v) => v
                .as_f64()
                .filter(|t| *t > 0.0)
                .ok_or_else(|| self.bad("rope_parameters", "rope_theta a number > 0")),
            None => self.positive("rope_theta", 10_000.0),
        }
    }
}

/// `text` without a leading UTF-8 byte-order mark, which some editors
/// write and neither JSON nor TOML allows.
#[must_use]
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Whether `text` is meant as JSON: it parses as JSON (whatever its top
/// level, so `[]` is refused as JSON rather than misread as TOML), or its
/// first non-blank character is `{` (a broken config.json gets a JSON
/// error). A byte-order mark does not count.
#[must_use]
pub fn is_json(text: &str) -> bool {
    let text = strip_bom(text);
    text.trim_start().starts_with('{')
        || serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// The model a config.json declares, as an overlay that sets every field.
///
/// # Errors
/// [`HfError`] naming the bad field, or the unsupported model_type.
pub fn parse(text: &str, path: &str) -> Result<Overlay, HfError> {
    let text = strip_bom(text);
    if let Some(dup) = crate::json::duplicate_key(text.as_bytes()) {
        return Err(HfError::Duplicate {
            path: path.into(),
            dup,
        });
    }
    let value: Value = serde_json::from_str(text).map_err(|e| HfError::Json {
        path: path.into(),
        msg: crate::text::one_line(&e.to_string()),
    })?;
    let Some(map) = value.as_object() else {
        return Err(HfError::NotObject {
            path: path.into(),
            found: crate::json::kind(&value),
        });
    };
    let model_type = match map.get("model_type") {
        None => return Err(HfError::NoModelType { path: path.into() }),
        Some(v) => v.as_str().ok_or_else(|| HfError::ModelType {
            path: path.into(),
            got: crate::text::one_line(&v.to_string()),
        })?,
    };
    let f = Fields {
        map,
        path,
        model_type,
    };
    let mut o = match model_type {
        "gpt2" => gpt2(&f)?,
        "llama" | "mistral" => llama(&f)?,
        other => {
            return Err(HfError::ModelType {
                path: path.into(),
                got: crate::text::one_line(other),
            });
        }
    };
    o.name = Some(model_type.to_string());
    o.batch = Some(1);
    o.seq = o.context;
    o.placement = Some(Placement::Pre);
    o.final_norm = Some(true);
    Ok(o)
}

fn gpt2(f: &Fields) -> Result<Overlay, HfError> {
    let d = f.dim("n_embd")?;
    let heads = f.dim("n_head")?;
    let context = match f.opt_dim("n_positions")? {
        Some(n) => n,
        None => f.dim("n_ctx")?,
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
    let act = match f.act("activation_function", "gelu_new")? {
        // A gated MLP is another architecture, not GPT-2's silu.
        Act::Swiglu => {
            return Err(f.bad(
                "activation_function",
                "gelu_new, gelu_pytorch_tanh, gelu_fast, gelu, relu (a non-gated silu is not supported)",
            ));
        }
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

fn llama(f: &Fields) -> Result<Overlay, HfError> {
    let heads = f.dim("num_attention_heads")?;
    let d = f.dim("hidden_size")?;
    // A head width other than d / heads changes every attention shape
    // and count (Mistral-NeMo: 32 × 128 = 4096 against 5120): refused
    // until applied, never ignored.
    if let Some(hd) = f.opt_dim("head_dim")?
        && hd.checked_mul(heads) != Some(d)
    {
        return Err(f.bad(
            "head_dim",
            &format!(
                "hidden_size / num_attention_heads = {d} / {heads} = {} (a separate head_dim is not supported yet)",
                d as f64 / heads as f64
            ),
        ));
    }
    let attention_bias = f.flag("attention_bias", false)?;
    if f.flag("mlp_bias", attention_bias)? != attention_bias {
        return Err(f.bad("mlp_bias", "the same as attention_bias"));
    }
    Ok(Overlay {
        d_model: Some(d),
        heads: Some(heads),
        kv_heads: Some(f.opt_dim("num_key_value_heads")?.unwrap_or(heads)),
        d_ff: Some(f.dim("intermediate_size")?),
        layers: Some(f.dim("num_hidden_layers")?),
        act: Some(match f.act("hidden_act", "silu")? {
            Act::Swiglu => Act::Swiglu,
            _ => return Err(f.bad("hidden_act", "silu (a gated MLP)")),
        }),
        norm: Some(NormKind::RmsNorm),
        bias: Some(attention_bias),
        vocab: Some(f.dim("vocab_size")?),
        context: Some(f.dim("max_position_embeddings")?),
        tied: Some(f.flag("tie_word_embeddings", false)?),
        eps: Some(f.positive("rms_norm_eps", 1e-6)?),
        pos_emb: Some(PosEmb::Rope),
        rope_theta: Some(f.rope_theta()?),
        ..Overlay::default()
    })
}

#[cfg(test)]
mod tests {
    use super::{HfError, is_json, parse};

    #[test]
    fn json_is_told_from_toml_by_content_after_a_byte_order_mark() {
        assert!(is_json("\u{feff}{\"model_type\": \"gpt2\"}"));
        assert!(is_json(" [] "));
        assert!(is_json("{\"model_type\":"));
        assert!(!is_json("preset = \"lesson\""));
        assert!(!is_json("\u{feff}[section]\nkey = 1"));
        assert!(!is_json(""));
    }

    #[test]
    fn a_top_level_that_is_not_an_object_is_named() {
        for (text, found) in [
            ("[]", "an array"),
            ("\u{feff}7", "a number"),
            ("null", "null"),
        ] {
            let e = parse(text, "c.json").unwrap_err();
            assert_eq!(
                e,
                HfError::NotObject {
                    path: "c.json".into(),
                    found
                }
            );
            assert!(e.to_string().contains("must be a JSON object"), "{e}");
        }
    }
}
