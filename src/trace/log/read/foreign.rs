//! Logs written by another program (schema 3, with a `producer`): op names
//! shapetrace has none for, and a header that gives the stream's shape but
//! not every field of a shapetrace model.
//!
//! ```text
//! {"kind":"event", "op":"einsum", …}     →  op "other", op_name "einsum"
//! {"kind":"header","schema":3,"producer":"shapetrace_export 1","stream_shape":[2,4,64],"layers":2}
//!                                        →  batch 2, seq 4, d_model 64; the rest the lesson's
//! ```

use crate::config::ModelConfig;
use crate::trace::OpKind;
use serde_json::Value;

/// An event's or failure's `op` that names no [`OpKind`] becomes `other`,
/// its name kept in `op_name` (an event's; a failure's detail names it).
pub(super) fn known_op(line: &mut Value) {
    let kind = line.get("kind").and_then(Value::as_str);
    if !matches!(kind, Some("event" | "failure")) {
        return;
    }
    let event = kind == Some("event");
    let Some(op) = line.get("op").and_then(Value::as_str) else {
        return;
    };
    if op.parse::<OpKind>().is_ok() {
        return;
    }
    let name = Value::String(op.to_string());
    if let Some(obj) = line.as_object_mut() {
        if event {
            obj.insert("op_name".into(), name);
        }
        obj.insert("op".into(), Value::String(OpKind::Other.as_str().into()));
    }
}

/// A schema-3 header's missing model fields: batch, seq and d_model from
/// its `stream_shape`, the others the lesson model's. A log replays
/// without building its model, so they only label it.
pub(super) fn fill_header(line: &mut Value) {
    let Some(obj) = line.as_object_mut() else {
        return;
    };
    let dim = |i: usize| {
        obj.get("stream_shape")
            .and_then(|s| s.get(i))
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
    };
    let base = ModelConfig::default();
    let filled = ModelConfig {
        batch: dim(0).unwrap_or(base.batch),
        seq: dim(1).unwrap_or(base.seq),
        d_model: dim(2).unwrap_or(base.d_model),
        preset: String::new(),
        ..base
    };
    let Ok(Value::Object(defaults)) = serde_json::to_value(filled) else {
        return;
    };
    // The module's name (`student.py:Model`) names the trace.
    if let Some(model) = obj.get("model").cloned()
        && !obj.contains_key("preset")
    {
        obj.insert("preset".into(), model);
    }
    for (key, value) in defaults {
        obj.entry(key).or_insert(value);
    }
}
