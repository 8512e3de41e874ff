//! The trace as a table for people: plain aligned text or Markdown.
//!
//! Departures from (B,T,d) are marked `◆ leaves (B,T,d)` (a dtype's
//! departure, in a 16-bit model, `◆ leaves bf16`), the step where the
//! shape comes back `↩ returns`, and residual adds `✓ add` or `✗ add`.
//! Shapes are written with their axes' names, `(B=2,h=4,Tq=4,Tk=4)`. The
//! Markdown handout ([`super::handout::markdown`]) adds a title, the model's settings, and
//! a formula and a why column.

use crate::check::{CheckResult, Status};
use crate::i18n::Lang;
use crate::shape::fmt_shape;
use crate::text::{escaped, shown};
use crate::trace::{Event, Trace};
use std::fmt::Write as _;

/// The marker of an event: departure, return or residual add.
#[must_use]
pub fn marker(e: &Event) -> String {
    marker_in(e, Lang::En)
}

/// [`marker`] in `lang`: `✓ add`, `◆ leaves (B,T,d)`, `↩ returns`.
#[must_use]
pub fn marker_in(e: &Event, lang: Lang) -> String {
    let say = |key: &str, name: &str, value: String| {
        lang.why(&crate::why::Why::new(key).arg(name, value))
    };
    match &e.check {
        Some(c) if c.ok => say("cli-marker-add-ok", "operands", c.operands()),
        Some(c) => say("cli-marker-add-fail", "operands", c.operands()),
        None if e.departs => match e.leaves_dtype {
            Some(d) => say("cli-marker-leaves", "what", d.to_string()),
            None => say("cli-marker-leaves", "what", "(B,T,d)".into()),
        },
        None if e.returns => lang.t("cli-marker-returns"),
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
    rows_in(trace, Lang::En)
}

/// [`rows`] with the markers and the failure's words in `lang`.
fn rows_in(trace: &Trace, lang: Lang) -> impl Iterator<Item = [String; 6]> + '_ {
    trace
        .events
        .iter()
        .map(move |e| row(e, lang))
        .chain(trace.failure.iter().map(move |f| failure_row(f, lang)))
}

/// One event's cells; the op's cell names where in the writer's own
/// code it ran, when the log says (`view at stud.py:19`).
fn row(e: &Event, lang: Lang) -> [String; 6] {
    let op = match &e.line {
        Some(line) => lang.why(
            &crate::why::Why::new("cli-op-at")
                .arg("op", shown(e.op_label()).to_string())
                .arg("line", shown(line).to_string()),
        ),
        None => shown(e.op_label()).to_string(),
    };
    [
        e.step.to_string(),
        shown(&e.path).to_string(),
        op,
        shown(&e.named_shape()).to_string(),
        e.dtype.to_string(),
        shown(&marker_in(e, lang)).to_string(),
    ]
}

/// The cells of the step that stopped the forward.
fn failure_row(f: &crate::trace::Failure, lang: Lang) -> [String; 6] {
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
        lang.why(
            &crate::why::Why::new("cli-failure-stops")
                .arg("check", f.check.to_string())
                .arg("shapes", shapes.join(lang.t("cli-failure-with").as_str())),
        ),
    ]
}

/// The columns' catalog keys: step, path, op, shape, dtype, marker.
const HEAD: [&str; 6] = [
    "cli-head-step",
    "cli-head-path",
    "cli-head-op",
    "cli-head-shape",
    "cli-head-dtype",
    "cli-head-marker",
];

/// Columns a terminal gives `s`: a CJK character takes two.
#[must_use]
pub fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// An aligned text table, then the checks.
#[must_use]
pub fn text(trace: &Trace, checks: &[CheckResult]) -> String {
    text_in(trace, checks, Lang::En)
}

/// [`text`] in `lang`, its columns aligned by display width.
#[must_use]
pub fn text_in(trace: &Trace, checks: &[CheckResult], lang: Lang) -> String {
    let head = HEAD.map(|k| lang.t(k));
    let mut w: Vec<usize> = head.iter().map(|h| width(h)).collect();
    for r in rows_in(trace, lang) {
        for (wi, c) in w.iter_mut().zip(&r) {
            *wi = (*wi).max(width(c));
        }
    }
    let mut s = String::new();
    let line = |s: &mut String, cells: [&str; 6]| {
        let start = s.len();
        for (i, c) in cells.iter().enumerate() {
            let pad = w[i].saturating_sub(width(c));
            let _ = write!(s, "{c}{}  ", " ".repeat(pad));
        }
        s.truncate(s[start..].trim_end().len() + start);
        s.push('\n');
    };
    line(
        &mut s,
        [&head[0], &head[1], &head[2], &head[3], &head[4], &head[5]],
    );
    for r in rows_in(trace, lang) {
        line(&mut s, [&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]);
    }
    s.push('\n');
    s.push_str(&checks_text_in(checks, lang));
    s
}

/// One line per check: verdict, name, detail.
#[must_use]
pub fn checks_text(checks: &[CheckResult]) -> String {
    checks_text_in(checks, Lang::En)
}

/// A check's detail in `lang`: its catalog message when it has one, else
/// the English the check wrote.
#[must_use]
pub fn detail_in(c: &CheckResult, lang: Lang) -> String {
    match (&c.why, lang) {
        (Some(why), Lang::ZhTw) => lang.why(why),
        _ => c.detail.clone(),
    }
}

/// [`checks_text`] in `lang`: the names are identifiers and stay; the
/// details are the catalog's.
#[must_use]
pub fn checks_text_in(checks: &[CheckResult], lang: Lang) -> String {
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
                escaped(&detail_in(c, lang))
            )
        })
        .collect()
}
