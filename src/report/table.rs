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

/// The cells of each row. A log being viewed is the user's file, so its
/// paths and op names are shown escaped, and its shapes (which may list
/// 100,000 dimensions) cut like any long value.
pub(super) fn rows(trace: &Trace) -> Vec<[String; 6]> {
    let mut out: Vec<[String; 6]> = trace
        .events
        .iter()
        .map(|e| {
            [
                e.step.to_string(),
                shown(&e.path).to_string(),
                e.op_label().to_string(),
                shown(&e.named_shape()).to_string(),
                e.dtype.to_string(),
                shown(&marker(e)).to_string(),
            ]
        })
        .collect();
    if let Some(f) = &trace.failure {
        let shapes: Vec<String> = f
            .operands
            .iter()
            .map(|o| shown(&fmt_shape(&o.shape)).to_string())
            .collect();
        out.push([
            f.step.to_string(),
            shown(&f.path).to_string(),
            f.op.to_string(),
            "✗".into(),
            String::new(),
            format!("✗ {} stops the forward: {}", f.check, shapes.join(" with ")),
        ]);
    }
    out
}

const HEAD: [&str; 6] = ["step", "path", "op", "shape", "dtype", "marker"];

/// An aligned text table, then the checks.
#[must_use]
pub fn text(trace: &Trace, checks: &[CheckResult]) -> String {
    let rows = rows(trace);
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([HEAD[i].len()])
            .max()
            .unwrap_or(0)
    };
    let w: Vec<usize> = (0..6).map(width).collect();
    let mut s = String::new();
    let line = |s: &mut String, cells: [&str; 6]| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = w[i].saturating_sub(c.chars().count());
            let _ = write!(l, "{c}{}  ", " ".repeat(pad));
        }
        let _ = writeln!(s, "{}", l.trim_end());
    };
    line(&mut s, HEAD);
    for r in &rows {
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
