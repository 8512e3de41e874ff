//! The trace as a Markdown handout worth printing: a title, the model's
//! settings, one row per step with its named shape, its formula with the
//! shape arithmetic and the why of its shape, then the checks.
//!
//! ```text
//! # shapetrace: lesson, 2 blocks
//! | setting | value |  …  B 2, T 4, d_model 64, heads 4, …
//! | step | path | op | shape | formula | why | marker |
//! ```

use super::sheet::{name, settings, settings_of_log, steps};
use super::table::verdict;
use crate::check::CheckResult;
use crate::text;
use crate::trace::Trace;
use crate::trace::log::LaterWhys;
use std::fmt::Write as _;

/// A Markdown cell: every name from a file, a log or a config goes
/// through the one Markdown escaping ([`crate::text::markdown`]): one
/// line, no HTML a previewer would run, no `|` that breaks the table.
fn cell(s: &str) -> String {
    text::markdown(s)
}

/// The handout of a replayed log: as [`markdown`], with only the settings
/// the log holds when another program wrote it.
#[must_use]
pub fn markdown_of_log(replay: &crate::trace::log::Replay, checks: &[CheckResult]) -> String {
    let t = &replay.trace;
    match replay.producer.as_deref() {
        Some(p) if !p.starts_with("shapetrace ") => {
            let later = LaterWhys::new(&t.stream_shape);
            page(t, &settings_of_log(t, p), checks, Some(later))
        }
        _ => markdown(t, checks),
    }
}

/// The handout: title, settings, the steps, the checks.
#[must_use]
pub fn markdown(trace: &Trace, checks: &[CheckResult]) -> String {
    page(trace, &settings(trace), checks, None)
}

/// The handout with these settings rows; another program's whys worded
/// row by row by `later` when its log was read with
/// [`crate::trace::log::Whys::Later`].
fn page<'a>(
    trace: &'a Trace,
    settings: &[(&'static str, String)],
    checks: &[CheckResult],
    mut later: Option<LaterWhys<'a>>,
) -> String {
    let c = &trace.config;
    let name = name(trace);
    let mut s = format!("# shapetrace: {}, {} blocks\n\n", cell(&name), c.layers);
    s.push_str("| setting | value |\n|---|---|\n");
    for (k, v) in settings {
        let _ = writeln!(s, "| {k} | {} |", cell(v));
    }
    let head = ["step", "path", "op", "shape", "formula", "why", "marker"];
    let _ = write!(
        s,
        "\n## Steps\n\n| {} |\n|{}\n",
        head.join(" | "),
        "---|".repeat(head.len())
    );
    for (k, mut r) in steps(trace).enumerate() {
        let e = trace.events.get(k);
        if let Some(text) = later.as_mut().zip(e).and_then(|(w, e)| w.word(e)) {
            r.why = crate::text::escaped(&text).to_string();
        }
        let cells = [r.step, r.path, r.op, r.shape, r.formula, r.why, r.marker];
        let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s.push_str("\n## Checks\n\n");
    for c in checks {
        let _ = writeln!(
            s,
            "- {} **{}**: {}",
            verdict(c.status),
            c.name,
            text::markdown(&c.detail)
        );
    }
    s
}
