//! The trace as a Markdown handout worth printing: a title, the model's
//! settings, one row per step with its named shape, its formula with the
//! shape arithmetic and the why of its shape, then the checks.
//!
//! ```text
//! # shapetrace: lesson, 2 blocks
//! | setting | value |  …  B 2, T 4, d_model 64, heads 4, …
//! | step | path | op | shape | formula | why | marker |
//! ```

use super::table::{rows, verdict};
use crate::check::CheckResult;
use crate::text::{escaped, shown};
use crate::trace::Trace;
use std::fmt::Write as _;

/// A Markdown cell: pipes escaped, one line.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The settings table: every choice that decides a shape.
fn settings(trace: &Trace) -> Vec<(&'static str, String)> {
    let c = &trace.config;
    let preset = if c.preset.is_empty() {
        "(none)".to_string()
    } else {
        shown(&c.preset).to_string()
    };
    vec![
        ("preset", preset),
        ("B (batch)", c.batch.to_string()),
        ("T (seq)", c.seq.to_string()),
        ("d_model", c.d_model.to_string()),
        ("heads", c.heads.to_string()),
        ("kv heads", c.kv_heads.to_string()),
        ("hd (d_model / heads)", c.head_dim().to_string()),
        ("d_ff", c.d_ff.to_string()),
        ("norm", format!("{} ({})", c.norm, c.placement)),
        ("activation", c.act.to_string()),
        ("positions", c.pos_emb.to_string()),
        ("blocks", c.layers.to_string()),
        ("dtype", c.dtype.to_string()),
        (
            "fault",
            c.fault
                .map_or_else(|| "none".into(), |f| format!("{f}: {}", f.describe())),
        ),
    ]
}

/// The settings a log of another program holds: the stream, the blocks,
/// the declared placement, the dtype and who wrote it.
fn settings_of_log(trace: &Trace, producer: &str) -> Vec<(&'static str, String)> {
    let c = &trace.config;
    vec![
        ("written by", shown(producer).to_string()),
        ("B (batch)", c.batch.to_string()),
        ("T (seq)", c.seq.to_string()),
        ("d_model", c.d_model.to_string()),
        ("blocks", c.layers.to_string()),
        ("declared", format!("{}-LN", c.placement)),
        ("dtype", c.dtype.to_string()),
    ]
}

/// The handout of a replayed log: as [`markdown`], with only the settings
/// the log holds when another program wrote it.
#[must_use]
pub fn markdown_of_log(replay: &crate::trace::log::Replay, checks: &[CheckResult]) -> String {
    match replay.producer.as_deref() {
        Some(p) if !p.starts_with("shapetrace ") => {
            page(&replay.trace, &settings_of_log(&replay.trace, p), checks)
        }
        _ => markdown(&replay.trace, checks),
    }
}

/// The handout: title, settings, the steps, the checks.
#[must_use]
pub fn markdown(trace: &Trace, checks: &[CheckResult]) -> String {
    page(trace, &settings(trace), checks)
}

/// The handout with these settings rows.
fn page(trace: &Trace, settings: &[(&'static str, String)], checks: &[CheckResult]) -> String {
    let c = &trace.config;
    let name = if c.preset.is_empty() {
        "custom model".to_string()
    } else {
        shown(&c.preset).to_string()
    };
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
    let rows = rows(trace);
    let mut whys = trace
        .events
        .iter()
        .map(|e| (e.formula.as_str(), e.why_text()))
        .chain(
            trace
                .failure
                .iter()
                .map(|f| (f.detail.as_str(), f.why_text())),
        );
    for r in &rows {
        let (formula, why) = whys.next().unwrap_or(("", ""));
        let cells = [
            r[0].as_str(),
            &r[1],
            &r[2],
            &r[3],
            &escaped(formula).to_string(),
            &escaped(why).to_string(),
            &r[5],
        ];
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
            escaped(&c.detail)
        );
    }
    s
}
