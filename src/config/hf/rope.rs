//! The rotary embedding's θ and frequency scaling in a config.json.
//!
//! transformers ≥ 5 writes both inside `rope_parameters`
//! (`{"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0, …}`);
//! older files write a top-level `rope_theta` and a `rope_scaling` object
//! (`{"type" | "rope_type": "linear", "factor": 2.0}`) or null. Applied:
//! `default`, `linear` and `llama3`; every other kind (dynamic, yarn,
//! longrope, …) is refused by name.

use super::HfError;
use super::fields::Fields;
use crate::config::RopeScaling;
use serde_json::{Map, Value};

/// Keys a scaling object may hold for the kinds applied.
const KNOWN: [&str; 8] = [
    "rope_type",
    "type",
    "rope_theta",
    "factor",
    "low_freq_factor",
    "high_freq_factor",
    "original_max_position_embeddings",
    "partial_rotary_factor",
];

/// θ and the scaling, and any key of the scaling object that is not known
/// (for the run's note, as `rope_parameters.key`).
pub fn read(f: &Fields) -> Result<(f64, Option<RopeScaling>, Vec<String>), HfError> {
    let object = |field: &'static str| -> Result<Option<&Map<String, Value>>, HfError> {
        match f.get(field) {
            None => Ok(None),
            Some(v) => v
                .as_object()
                .map(Some)
                .ok_or_else(|| f.bad(field, "an object or null")),
        }
    };
    let params = object("rope_parameters")?;
    let old = object("rope_scaling")?;
    let theta = match params
        .and_then(|p| p.get("rope_theta"))
        .filter(|v| !v.is_null())
    {
        Some(v) => v
            .as_f64()
            .filter(|t| *t > 0.0)
            .ok_or_else(|| f.bad("rope_parameters", "rope_theta a number > 0"))?,
        None => f.positive("rope_theta", 10_000.0)?,
    };
    let kind_of = |o: &Map<String, Value>| {
        o.get("rope_type")
            .or_else(|| o.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("default")
            .to_string()
    };
    // The object that names a kind other than default, new place first.
    let mut unknown = Vec::new();
    let mut scaling = None;
    for (field, o) in [("rope_parameters", params), ("rope_scaling", old)] {
        let Some(o) = o else { continue };
        unknown.extend(
            o.keys()
                .filter(|k| !KNOWN.contains(&k.as_str()))
                .map(|k| format!("{field}.{k}")),
        );
        if let Some(p) = o.get("partial_rotary_factor").filter(|v| !v.is_null())
            && p.as_f64() != Some(1.0)
        {
            return Err(f.bad(
                field,
                "partial_rotary_factor 1 (a partial rotary embedding is not applied)",
            ));
        }
        if scaling.is_none() {
            scaling = scaling_of(f, field, o, &kind_of(o))?;
        }
    }
    Ok((theta, scaling, unknown))
}

/// The scaling `o` declares, if any.
fn scaling_of(
    f: &Fields,
    field: &'static str,
    o: &Map<String, Value>,
    kind: &str,
) -> Result<Option<RopeScaling>, HfError> {
    const ALLOWED: &str = "rope_type default, linear or llama3 with their factors (dynamic, yarn, longrope and the others are not supported)";
    let num = |key: &str| {
        o.get(key)
            .and_then(Value::as_f64)
            .ok_or_else(|| f.bad(field, ALLOWED))
    };
    let scaling = match kind {
        "default" => return Ok(None),
        "linear" => RopeScaling::Linear {
            factor: num("factor")?,
        },
        "llama3" => RopeScaling::Llama3 {
            factor: num("factor")?,
            low_freq_factor: num("low_freq_factor")?,
            high_freq_factor: num("high_freq_factor")?,
            original_max_position_embeddings: o
                .get("original_max_position_embeddings")
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| f.bad(field, ALLOWED))?,
        },
        _ => return Err(f.bad(field, ALLOWED)),
    };
    // The factors' ranges, named as the config error names them.
    scaling
        .validate()
        .map_err(|e| f.bad(field, &format!("{ALLOWED}; {e}")))?;
    Ok(Some(scaling))
}
