//! What one read line is checked for beyond serde: an event's order,
//! size and names; the parser's position within the one line it parsed
//! (never "line 2 column 0" past its end); and a schema-1 event's axes
//! in schema 2's names.
//!
//! ```text
//! t.jsonl:2:15: EOF while parsing an object      file line 2, column 15
//! schema 1: scores (B,h,T,T)  →  (B,h,Tq,Tk)
//! ```

use crate::shape::Axis;
use crate::trace::Event;

/// Most axes a logged tensor may have: the tool's own have at most four
/// (B, h, T, hd); a hand-made log with thousands would only make lines no
/// one can read.
const MAX_RANK: usize = 8;

/// Most operands a logged op may list: a `cat` of one tensor per block
/// of the deepest model allowed.
const MAX_OPERANDS: usize = 4096;

/// An event fits when it comes in order, its shape has at most
/// [`MAX_RANK`] axes and at most 2^48 elements, its values (if kept) are
/// one per element, and every name in it is printable.
pub(super) fn event_fits(e: &Event, step: usize) -> Result<(), String> {
    if e.step != step {
        return Err(format!("step {} out of order; expected {step}", e.step));
    }
    if e.shape.len() > MAX_RANK {
        return Err(format!(
            "a shape of {} axes; allowed: at most {MAX_RANK}",
            e.shape.len()
        ));
    }
    let size = e.shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    if size.is_none_or(|s| u128::try_from(s).unwrap_or(u128::MAX) > crate::config::MAX_ELEMENTS) {
        return Err(format!(
            "shape {} is too large; allowed: at most 2^48 elements",
            crate::ops::fmt_shape(&e.shape)
        ));
    }
    if let Some(v) = &e.values
        && (Some(v.len()) != size || v.len() > crate::ops::PREVIEW_MAX)
    {
        return Err(format!(
            "{} values for shape {}; allowed: one per element, at most {}",
            v.len(),
            crate::ops::fmt_shape(&e.shape),
            crate::ops::PREVIEW_MAX
        ));
    }
    let operands = e.operands.as_deref().unwrap_or_default();
    if operands.len() > MAX_OPERANDS {
        return Err(format!(
            "{} operands; allowed: at most {MAX_OPERANDS}",
            operands.len()
        ));
    }
    if let Some(o) = operands.iter().find(|o| o.len() > MAX_RANK) {
        return Err(format!(
            "an operand of {} axes; allowed: at most {MAX_RANK}",
            o.len()
        ));
    }
    // An axis is checked as the log writes it.
    let axes: Vec<String> = e.axes.iter().map(ToString::to_string).collect();
    let names = [&e.path, &e.formula, &e.why_text]
        .into_iter()
        .chain(&e.op_name)
        .chain(&e.line)
        .chain(&e.replaces_stream)
        .chain(&e.replaced_at)
        .chain(&axes)
        .chain(&e.inputs);
    printable(names.map(String::as_str))
}

/// Names the tool writes never hold control characters; one that does
/// would be shown altered (escaped, or dropped by the terminal's drawing),
/// so it is refused, shown escaped.
pub(in crate::trace::log) fn printable<'a>(
    names: impl IntoIterator<Item = &'a str>,
) -> Result<(), String> {
    match names.into_iter().find(|n| n.chars().any(char::is_control)) {
        Some(n) => Err(format!(
            "name '{}' holds a control character; allowed: printable names",
            crate::text::shown(n)
        )),
        None => Ok(()),
    }
}

/// An event's `values` are numbers: JSON has no NaN or ±inf, and a run
/// stops at the first tensor that holds one, so a log keeps none. A
/// `null` among them is refused by its index (`values: null` itself is
/// "none kept", as the schema says).
pub(super) fn no_null_value(line: &serde_json::Value) -> Result<(), String> {
    let values = line
        .get("values")
        .and_then(serde_json::Value::as_array)
        .filter(|_| line.get("kind").and_then(serde_json::Value::as_str) == Some("event"));
    match values.and_then(|v| v.iter().position(serde_json::Value::is_null)) {
        Some(i) => Err(format!(
            "values[{i}] is null; allowed: numbers only (a log keeps no NaN or ±inf)"
        )),
        None => Ok(()),
    }
}

/// A schema-1 log names the scores' two position axes `T` and `T`:
/// they are the queries' `Tq` and the keys' `Tk`, as schema 2 writes them.
pub(super) fn query_and_key(axes: &mut [Axis]) {
    if let [.., q @ Axis::Seq, k @ Axis::Seq] = axes {
        *q = Axis::Query;
        *k = Axis::Key;
    }
}

/// serde_json's message without its position, and the column it points
/// at when that is inside the one line it parsed (a value built from a
/// parsed line has no position: line 0).
pub(super) fn json_error(e: &serde_json::Error) -> (String, Option<usize>) {
    let full = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    let msg = full.strip_suffix(&at).unwrap_or(&full).to_string();
    let column = (e.line() == 1 && e.column() > 0).then_some(e.column());
    (msg, column)
}
