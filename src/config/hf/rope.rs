//! The rotary embedding's θ and frequency scaling in a config.json.
//!
//! transformers ≥ 5 writes both inside `rope_parameters`
//! (`{"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0, …}`);
//! older files write a top-level `rope_theta` and a `rope_scaling` object
//! (`{"type" | "rope_type": "linear", "factor": 2.0}`) or null; given
//! both, transformers takes `rope_scaling`, and so does this. Applied:
//! `default`, `linear` and `llama3`; every other kind (dynamic, yarn,
//! longrope, …) is refused by name.
//!
//! A partial rotary embedding turns the first ⌊hd·factor⌋ features of
//! each head, in the families whose transformers code applies one: Phi-3
//! (`partial_rotary_factor`, at the top level or inside the object) and
//! GPT-NeoX (`rotary_pct`, or the object's `partial_rotary_factor`; its θ
//! is `rotary_emb_base`, and a top-level `rope_theta` is not read, as
//! transformers reads none). Every other family refuses a share other
//! than 1.

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

/// The rotary settings of a config.json.
pub struct Rotary {
    /// θ, the base of the frequencies.
    pub theta: f64,
    /// The frequencies' rescaling, if any.
    pub scaling: Option<RopeScaling>,
    /// The share of each head's features turned (1: all).
    pub partial: f64,
    /// The field the share was read from, for a refusal to name.
    pub partial_field: &'static str,
    /// Keys of the scaling object that are not known (for the run's note,
    /// as `rope_parameters.key`).
    pub unknown: Vec<String>,
}

impl Rotary {
    /// The features of a head of `hd` turned: ⌊hd·partial⌋, as
    /// transformers' `int(head_size * partial_rotary_factor)`; 0 (all)
    /// when that is hd.
    ///
    /// # Errors
    /// When that is odd or 0: rotary positions turn pairs.
    pub fn dims(&self, f: &Fields, hd: usize) -> Result<usize, HfError> {
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
        let dims = (hd as f64 * self.partial) as usize;
        if dims == hd {
            return Ok(0);
        }
        if dims == 0 || !dims.is_multiple_of(2) {
            return Err(f.bad(
                self.partial_field,
                &format!(
                    "a share of head_dim {hd} that is an even number of features ({dims} is not)"
                ),
            ));
        }
        Ok(dims)
    }
}

/// Which fields a family reads its partial rotary share from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Share {
    /// None: a share other than 1 is refused.
    Whole,
    /// Phi-3's `partial_rotary_factor`, at the top or inside the object.
    Phi,
    /// GPT-NeoX's `rotary_pct` (default 0.25) or the object's factor, and
    /// `rotary_emb_base` for θ.
    NeoX,
}

/// The rotary settings of a family that reads its share as `share` says.
///
/// As transformers reads them: the object is `rope_scaling` when it is
/// given, else `rope_parameters`; θ is that object's `rope_theta`, else
/// the top-level `rope_theta`, else 10000.
pub fn read(f: &Fields, share_from: Share) -> Result<Rotary, HfError> {
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
    // GPT-NeoX's θ is rotary_emb_base; a top-level rope_theta is not its.
    let top_theta = match share_from {
        Share::NeoX => f.positive("rotary_emb_base", 10_000.0)?,
        _ => f.positive("rope_theta", 10_000.0)?,
    };
    let share = |field: &'static str, default: f64| -> Result<f64, HfError> {
        match f.get(field) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .filter(|p| *p > 0.0 && *p <= 1.0)
                .ok_or_else(|| f.bad(field, "a number > 0 and ≤ 1")),
        }
    };
    let (mut partial, mut partial_field) = match share_from {
        Share::NeoX => (share("rotary_pct", 0.25)?, "rotary_pct"),
        Share::Phi | Share::Whole => (
            share("partial_rotary_factor", 1.0)?,
            "partial_rotary_factor",
        ),
    };
    let Some((field, o)) = old
        .map(|o| ("rope_scaling", o))
        .or(params.map(|o| ("rope_parameters", o)))
    else {
        return whole_unless(f, share_from, partial_field, partial).map(|()| Rotary {
            theta: top_theta,
            scaling: None,
            partial,
            partial_field,
            unknown: Vec::new(),
        });
    };
    // transformers ≥ 5 may key the parameters by layer kind: not applied.
    if o.values().any(Value::is_object) {
        return Err(f.bad(
            field,
            "one set of rope parameters for every layer (per-layer-kind parameters are not supported)",
        ));
    }
    let unknown = o
        .keys()
        .filter(|k| !KNOWN.contains(&k.as_str()))
        .map(|k| format!("{field}.{k}"))
        .collect();
    if let Some(p) = o.get("partial_rotary_factor").filter(|v| !v.is_null()) {
        partial = p
            .as_f64()
            .filter(|p| *p > 0.0 && *p <= 1.0)
            .ok_or_else(|| f.bad(field, "partial_rotary_factor a number > 0 and ≤ 1"))?;
        partial_field = field;
    }
    whole_unless(f, share_from, partial_field, partial)?;
    let theta = match o.get("rope_theta").filter(|v| !v.is_null()) {
        Some(v) => v
            .as_f64()
            .filter(|t| *t > 0.0)
            .ok_or_else(|| f.bad(field, "rope_theta a number > 0"))?,
        None => top_theta,
    };
    // `rope_type`, else the older `type`; a name, or absent for default.
    let kind = match o
        .get("rope_type")
        .filter(|v| !v.is_null())
        .or_else(|| o.get("type").filter(|v| !v.is_null()))
    {
        None => "default",
        Some(v) => v
            .as_str()
            .ok_or_else(|| f.bad(field, "rope_type a name: default, linear or llama3"))?,
    };
    Ok(Rotary {
        theta,
        scaling: scaling_of(f, field, o, kind)?,
        partial,
        partial_field,
        unknown,
    })
}

/// A family whose transformers code turns the whole head refuses a share
/// other than 1, naming the field it came from.
fn whole_unless(
    f: &Fields,
    share: Share,
    field: &'static str,
    partial: f64,
) -> Result<(), HfError> {
    if share == Share::Whole && partial != 1.0 {
        return Err(f.bad(
            field,
            &format!(
                "1 (model_type {} turns every feature of a head; a partial rotary embedding is applied for phi3 and gpt_neox)",
                f.model_type
            ),
        ));
    }
    Ok(())
}

/// The scaling `o` declares, if any.
fn scaling_of(
    f: &Fields,
    field: &'static str,
    o: &Map<String, Value>,
    kind: &str,
) -> Result<Option<RopeScaling>, HfError> {
    let num = |key: &str| {
        o.get(key).and_then(Value::as_f64).ok_or_else(|| {
            f.bad(
                field,
                &format!("rope_type {kind} with {key} a number (it is missing or not a number)"),
            )
        })
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
            // transformers falls back to the model's context.
            original_max_position_embeddings: match o.get("original_max_position_embeddings") {
                None | Some(Value::Null) => f.dim("max_position_embeddings")?,
                Some(v) => v
                    .as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| {
                        f.bad(field, "original_max_position_embeddings a whole number ≥ 1")
                    })?,
            },
        },
        _ => {
            return Err(f.bad(
                field,
                "rope_type default, linear or llama3 (dynamic, yarn, longrope and the others are not supported)",
            ));
        }
    };
    // The factors' ranges, named as the config error names them.
    scaling
        .validate()
        .map_err(|e| f.bad(field, &e.to_string()))?;
    Ok(Some(scaling))
}
