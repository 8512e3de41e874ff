//! Logs written by another program (schema 3, with a `producer`): op names
//! shapetrace has none for, and a header that gives the stream's shape but
//! not every field of a shapetrace model.
//!
//! ```text
//! {"kind":"event", "op":"einsum", …}     →  op "other", op_name "einsum"
//! {"kind":"header","schema":3,"producer":"shapetrace_export 1","stream_shape":[2,4,64],"layers":2}
//!                                        →  batch 2, seq 4, d_model 64; the rest the lesson's
//! ```

use crate::config::{DType, ModelConfig};
use crate::trace::{Event, Failure, OpKind};
use serde_json::Value;
use std::collections::HashMap;

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

/// When the reader words the whys of another program's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whys {
    /// As it reads: every event gets its why (a message and its English
    /// text) and its axes' sources, for the stepper and the library.
    Now,
    /// Never for the events (the failure's still): a writer that shows
    /// each step once words its why as it writes it
    /// ([`LaterWhys`]), so 300,000 of them are never held.
    Later,
}

/// Each step of another program's log gets its why from its kind and the
/// shapes it read, and its axes' sources (with [`Whys::Now`]; with
/// [`Whys::Later`] the writer words them, [`LaterWhys`]); the step that
/// stopped the forward gets its why either way.
pub(super) fn word_whys(
    events: &mut [Event],
    failure: Option<&mut Failure>,
    (stream, dtype): (&[usize], DType),
    whys: Whys,
) {
    let mut shapes: HashMap<String, Vec<usize>> = HashMap::new();
    for e in events.iter_mut().filter(|_| whys == Whys::Now) {
        if e.why_text.is_empty() {
            let ins: Vec<&[usize]> = e
                .inputs
                .iter()
                .filter_map(|p| shapes.get(p).map(Vec::as_slice))
                .collect();
            let why = crate::why::foreign(e.op_label(), &ins, &e.shape, stream);
            e.why_text = why.text();
            e.why = Some(why);
        }
        if e.sources.is_empty() {
            e.sources = (0..e.shape.len())
                .map(|i| crate::why::AxisSource {
                    axis: e
                        .axes
                        .get(i)
                        .cloned()
                        .unwrap_or(crate::shape::Axis::Unknown),
                    size: e.shape[i],
                    from: "as the log recorded it".into(),
                })
                .collect();
        }
        shapes.insert(e.path.clone(), e.shape.clone());
    }
    if let Some(f) = failure.filter(|f| f.why_text.is_empty()) {
        let named: Vec<(&str, &[usize], DType)> = f
            .operands
            .iter()
            .map(|o| (o.path.as_str(), o.shape.as_slice(), o.dtype))
            .collect();
        let why = crate::why::failure(f.check.as_str(), f.op, &f.path, &named, (stream, dtype));
        f.why_text = why.text();
        f.why = Some(why);
    }
}

/// The whys of another program's log read with [`super::Whys::Later`],
/// worded one step at a time, in order, exactly as the reader words them
/// with [`super::Whys::Now`]: from each step's op and the shapes of the
/// earlier steps it read.
#[derive(Debug)]
pub struct LaterWhys<'a> {
    /// Each step's shape by path, the latest step of a path winning.
    shapes: HashMap<&'a str, &'a [usize]>,
    /// The stream's shape, (B,T,d).
    stream: &'a [usize],
}

impl<'a> LaterWhys<'a> {
    /// Ready for the first step of a log whose stream is `stream`.
    #[must_use]
    pub fn new(stream: &'a [usize]) -> Self {
        Self {
            shapes: HashMap::new(),
            stream,
        }
    }

    /// The why in English of `e`, the next step, when the log gave none.
    pub fn word(&mut self, e: &'a Event) -> Option<String> {
        let text = e.why_text.is_empty().then(|| {
            let ins: Vec<&[usize]> = e
                .inputs
                .iter()
                .filter_map(|p| self.shapes.get(p.as_str()).copied())
                .collect();
            crate::why::foreign(e.op_label(), &ins, &e.shape, self.stream).text()
        });
        self.shapes.insert(&e.path, &e.shape);
        text
    }
}
