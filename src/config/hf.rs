//! Hugging Face `config.json` files, one reader per family: gpt2, the
//! Llama-like (llama, mistral, qwen2, mixtral, phi3), gpt_neox, falcon, opt
//! gemma / gemma2 and bert.
//!
//! Every field follows one policy ([`policy`]): applied, refused by name,
//! silently accepted when it changes nothing computed, or accepted with a
//! note naming it when unknown. What each family applies and refuses is
//! listed in its reader (`gpt2.rs`, `llama.rs`; the rotary settings in
//! `rope.rs`).
//!
//! The traced model is B = 1 at T = the context. Rotary positions add no
//! parameter; attention rotates q and k as its own steps.

mod bert;
mod falcon;
mod fields;
mod gemma;
mod gpt2;
mod gpt_neox;
mod llama;
mod opt;
pub mod policy;
mod rope;

use super::Placement;
use super::overlay::Overlay;
use serde_json::Value;

/// The model types a config.json may declare.
pub const SUPPORTED: &str =
    "gpt2, llama, mistral, qwen2, mixtral, phi3, gpt_neox, falcon, opt, gemma, gemma2, bert";

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
    let f = fields::Fields::new(map, path, model_type);
    let (mut o, inner) = match model_type {
        "gpt2" => (gpt2::read(&f)?, Vec::new()),
        "llama" | "mistral" | "qwen2" | "mixtral" | "phi3" => llama::read(&f)?,
        "gpt_neox" => gpt_neox::read(&f)?,
        "falcon" => falcon::read(&f)?,
        "opt" => (opt::read(&f)?, Vec::new()),
        "bert" => (bert::read(&f)?, Vec::new()),
        "gemma" | "gemma2" => gemma::read(&f)?,
        other => {
            return Err(HfError::ModelType {
                path: path.into(),
                got: crate::text::one_line(other),
            });
        }
    };
    // A reader's own notes (a field it read and does not apply), then
    // the unknown fields'.
    let mut notes = o.notes.take().unwrap_or_default();
    notes.extend(policy::note(&f, inner));
    o.notes = (!notes.is_empty()).then_some(notes);
    o.name = Some(model_type.to_string());
    o.family = Some(model_type.to_string());
    o.batch = Some(1);
    o.seq = o.context;
    // Pre-LN with a final norm unless the family's reader says otherwise.
    o.placement = o.placement.or(Some(Placement::Pre));
    o.final_norm = o.final_norm.or(Some(true));
    Ok(o)
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
