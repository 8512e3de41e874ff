//! The trace as a table for people: plain aligned text or Markdown.
//!
//! Departures from (B,T,d) are marked `◆ leaves (B,T,d)` (a dtype's
//! departure, in a 16-bit model, `◆ leaves bf16`), the step where the
//! shape comes back `↩ returns`, and residual adds `✓ add` or `✗ add`.
//! Shapes are written with their axes' names, `(B=2,h=4,Tq=4,Tk=4)`. The
//! Markdown handout ([`super::handout::markdown`]) adds a title, the model's settings, and
//! a formula and a why column.

use crate::check::{CheckResult, Status};
use crate::shape::fmt_shape;
use crate::text::{escaped, shown};
use crate::trace::{Event, Trace};
use std::fmt::Write as _;

/// The marker of an event: departure, return or residual add.
#[must_use]
pub fn marker(e: &Event) -> String {
    match &e.check {
        Some(c) if c.ok => format!("✓ add {}", c.operands()),
        Some(c) => format!("✗ add {}", c.operands()),
        None if e.departs => match e.leaves_dtype {
            Some(d) => format!("◆ leaves {d}"),
            None => "◆ leaves (B,T,d)".into(),
        },
        None if e.returns => "↩ returns".into(),
        None => String::new(),
    }
}

/// `✓`, `✗` or `–` for a check verdict.
#[must_use]
pub fn verdict(status: Status) -> &'static str {
    match status {
        Status::Pass => "✓",
        Status::Fail => "✗",
        Status::Skip => "–",
    }
}

/// The cells of each row, one row at a time (a log of 300,000 steps is
/// never held as cells). A log being viewed is the user's file, so its
/// paths and op names are shown escaped, and its shapes (which may list
/// 100,000 dimensions) cut like any long value.
pub(super) fn rows(trace: &Trace) -> impl Iterator<Item = [String; 6]> + '_ {
    trace
        .events
        .iter()
        .map(row)
        .chain(trace.failure.iter().map(failure_row))
}

/// One event's cells; the op's cell names where in the writer's own
/// code it ran, when the log says (`view at stud.py:19`).
fn row(e: &Event) -> [String; 6] {
    let op = match &e.line {
        Some(line) => format!("{} at {}", shown(e.op_label()), shown(line)),
        None => shown(e.op_label()).to_string(),
    };
    [
        e.step.to_string(),
        shown(&e.path).to_string(),
        op,
        shown(&e.named_shape()).to_string(),
        e.dtype.to_string(),
        shown(&marker(e)).to_string(),
    ]
}

/// The cells of the step that stopped the forward.
fn failure_row(f: &crate::trace::Failure) -> [String; 6] {
    let shapes: Vec<String> = f
        .operands
        .iter()
        .map(|o| shown(&fmt_shape(&o.shape)).to_string())
        .collect();
    [
        f.step.to_string(),
        shown(&f.path).to_string(),
        f.op.to_string(),
        "✗".into(),
        String::new(),
        format!("✗ {} stops the forward: {}", f.check, shapes.join(" with ")),
    ]
}

const HEAD: [&str; 6] = ["step", "path", "op", "shape", "dtype", "marker"];

/// An aligned text table, then the checks.
#[must_use]
pub fn text(trace: &Trace, checks: &[CheckResult]) -> String {
    let mut w: Vec<usize> = HEAD.iter().map(|h| h.len()).collect();
    for r in rows(trace) {
        for (wi, c) in w.iter_mut().zip(&r) {
            *wi = (*wi).max(c.chars().count());
        }
    }
    let mut s = String::new();
    let line = |s: &mut String, cells: [&str; 6]| {
        let start = s.len();
        for (i, c) in cells.iter().enumerate() {
            let pad = w[i].saturating_sub(c.chars().count());
            let _ = write!(s, "{c}{}  ", " ".repeat(pad));
        }
        s.truncate(s[start..].trim_end().len() + start);
        s.push('\n');
    };
    line(&mut s, HEAD);
    for r in rows(trace) {
        line(&mut s, [&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]);
    }
    s.push('\n');
    s.push_str(&checks_text(checks));
    s
}

/// One line per check: verdict, name, detail.
#[must_use]
pub fn checks_text(checks: &[CheckResult]) -> String {
    let w = checks
        .iter()
        .map(|c| c.name.as_str().len())
        .max()
        .unwrap_or(0);
    checks
        .iter()
        .map(|c| {
            format!(
                "{} {:w$}  {}\n",
                verdict(c.status),
                c.name.as_str(),
                escaped(&c.detail)
            )
        })
        .collect()
}
