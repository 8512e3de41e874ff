//! The trace as one self-contained HTML handout: the settings, a drawing
//! of the block, every step as a card (named shape, formula with the
//! shape arithmetic, why, and its marker in a glyph and words), the
//! attention weights of batch 0 per head as SVG heatmaps with the mask
//! hatched and marked `╳`, the residual adds, the checks, and the Budget
//! pictures; and a comparison of two models in the same style
//! ([`compare()`]).
//!
//! The file loads nothing: no script, font, image or stylesheet from
//! outside it, and a Content-Security-Policy meta tag
//! ([`page::CSP`]) makes the browser refuse any load that slipped in.
//! Every text from a model file, a path or a log is escaped
//! ([`page::esc`], the one HTML escaping: [`crate::text::html`]). It prints on A4 without splitting a step, and on a
//! narrow screen its tables stack into cards and its SVGs scale down.
//!
//! ```
//! let run = shapetrace::run(&shapetrace::ModelConfig::default()).unwrap();
//! let html = shapetrace::report::html::trace(&run.trace, &run.checks, None);
//! assert!(html.contains("Content-Security-Policy"));
//! assert!(html.contains("block1.attn.weights"));
//! ```

pub mod charts;
pub mod compare;
pub mod diagram;
pub mod heatmap;
pub mod page;

pub use compare::compare;

use super::sheet::{StepRow, name, settings, steps};
use super::table::verdict;
use crate::budget::Budget;
use crate::check::{CheckResult, Status};
use crate::trace::log::LaterWhys;
use crate::trace::{Event, Mode, Trace};
use page::esc;
use std::fmt::Write as _;
use std::io::{self, Write};

/// A check's verdict in a glyph and a word.
#[must_use]
pub fn verdict_words(s: Status) -> String {
    let word = match s {
        Status::Pass => "holds",
        Status::Fail => "FAILS",
        Status::Skip => "skipped",
    };
    format!("{} {word}", verdict(s))
}

/// The class of a step's card: how it stands to the stream.
fn card_class(e: Option<&Event>) -> &'static str {
    match e {
        None => "step fail",
        Some(e) => match &e.check {
            Some(c) if c.ok => "step add-ok",
            Some(_) => "step add-bad",
            None if e.departs => "step departs",
            None if e.returns => "step returns",
            None => "step",
        },
    }
}

/// The most softmax steps a page draws heatmaps for: a deep model's page
/// stays a handout (the later ones say they were left out).
pub const MAX_HEATMAP_STEPS: usize = 12;

/// One step's card, with the heatmaps of a softmax's weights while
/// `drawn` (softmax steps drawn so far) is under [`MAX_HEATMAP_STEPS`].
fn card(trace: &Trace, r: &StepRow, e: Option<&Event>, drawn: &mut usize) -> String {
    let mut s = format!(
        "<article class=\"{}\" id=\"step-{}\">\n<header><span class=\"n\">#{}</span> <code class=\"path\">{}</code> <span class=\"op\">{}</span> <code class=\"shape\">{}</code> <span class=\"dtype\">{}</span> <span class=\"marker\">{}</span></header>\n",
        card_class(e),
        esc(&r.step),
        esc(&r.step),
        esc(&r.path),
        esc(&r.op),
        esc(&r.shape),
        esc(&r.dtype),
        esc(&r.marker)
    );
    if !r.formula.is_empty() {
        let _ = writeln!(
            s,
            "<p class=\"formula\"><code>{}</code></p>",
            esc(&r.formula)
        );
    }
    if !r.why.is_empty() {
        let _ = writeln!(s, "<p class=\"why\">why: {}</p>", esc(&r.why));
    }
    if let Some(e) = e.filter(|e| e.op == crate::trace::OpKind::Softmax) {
        let mask = trace.masking_at(e.block().unwrap_or(1));
        let figures = (*drawn < MAX_HEATMAP_STEPS)
            .then(|| heatmap::figures(e, mask))
            .flatten();
        if figures.is_some() {
            *drawn += 1;
        }
        match figures {
            Some(f) => s.push_str(&f),
            None if *drawn >= MAX_HEATMAP_STEPS => {
                let _ = writeln!(
                    s,
                    "<p class=\"note\">No heatmap: the page draws the first {MAX_HEATMAP_STEPS} attention steps' heatmaps only.</p>"
                );
            }
            None => s.push_str(
                "<p class=\"note\">No heatmap: this run kept no values for this tensor (a shape-only run, or more than 4096 elements).</p>\n",
            ),
        }
    }
    s.push_str("</article>\n");
    s
}

/// The residual adds with their verdicts.
fn adds(trace: &Trace) -> String {
    let head: Vec<String> = ["verdict", "add", "stream + update"]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
    let rows: Vec<(String, Vec<String>)> = trace
        .residual_adds()
        .filter_map(|e| e.check.as_ref().map(|c| (e, c)))
        .map(|(e, c)| {
            let v = if c.ok { "✓ allowed" } else { "✗ refused" };
            (
                if c.ok { "add-ok" } else { "add-bad" }.to_string(),
                vec![
                    v.to_string(),
                    format!("<code>{}</code>", esc(&e.path)),
                    format!("<code>{}</code>", esc(&c.operands())),
                ],
            )
        })
        .collect();
    let mut s = page::stack_table(&head, &rows);
    let _ = writeln!(
        s,
        "<p class=\"note\">{} of {} expected adds recorded.</p>",
        rows.len(),
        trace.expected_residual_adds()
    );
    s
}

/// The checks with verdicts and details.
fn checks_table(checks: &[CheckResult]) -> String {
    let head: Vec<String> = ["verdict", "check", "detail"]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
    let rows: Vec<(String, Vec<String>)> = checks
        .iter()
        .map(|c| {
            let class = match c.status {
                Status::Pass => "verdict-pass",
                Status::Fail => "verdict-fail",
                Status::Skip => "verdict-skip",
            };
            (
                class.to_string(),
                vec![
                    verdict_words(c.status),
                    format!("<code>{}</code>", esc(c.name.as_str())),
                    esc(&c.detail),
                ],
            )
        })
        .collect();
    page::stack_table(&head, &rows)
}

/// The handout of `trace` judged by `checks`, with the Budget pictures of
/// `budget` when there is one.
#[must_use]
pub fn trace(trace: &Trace, checks: &[CheckResult], budget: Option<&Budget>) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_trace(&mut out, trace, checks, budget);
    String::from_utf8(out).unwrap_or_default()
}

/// [`trace()`] written into `out` as it is rendered, one step's card at a
/// time: a page of 300,000 steps is never held whole.
///
/// # Errors
/// Any write error of `out`.
pub fn write_trace(
    out: &mut dyn Write,
    trace: &Trace,
    checks: &[CheckResult],
    budget: Option<&Budget>,
) -> io::Result<()> {
    write_page(out, trace, &settings(trace), checks, budget, None, None)
}

/// The handout of a replayed log: as [`trace()`] without the Budget, with
/// only the settings the log holds when another program wrote it, and the
/// log's note (an incomplete log) at the top.
#[must_use]
pub fn trace_of_log(replay: &crate::trace::log::Replay, checks: &[CheckResult]) -> String {
    let mut out = Vec::new();
    let _ = write_trace_of_log(&mut out, replay, checks);
    String::from_utf8(out).unwrap_or_default()
}

/// [`trace_of_log`] written into `out` as it is rendered.
///
/// # Errors
/// Any write error of `out`.
pub fn write_trace_of_log(
    out: &mut dyn Write,
    replay: &crate::trace::log::Replay,
    checks: &[CheckResult],
) -> io::Result<()> {
    let t = &replay.trace;
    let (rows, later) = match replay.producer.as_deref() {
        Some(p) if !p.starts_with("shapetrace ") => (
            super::sheet::settings_of_log(t, p),
            Some(LaterWhys::new(&t.stream_shape)),
        ),
        _ => (settings(t), None),
    };
    let note = replay.note();
    write_page(out, t, &rows, checks, None, note.as_deref(), later)
}

/// The page with these settings rows and an optional note, written part
/// by part; another program's whys worded card by card by `later` when
/// its log was read with [`crate::trace::log::Whys::Later`].
fn write_page<'a>(
    out: &mut dyn Write,
    trace: &'a Trace,
    settings: &[(&'static str, String)],
    checks: &[CheckResult],
    budget: Option<&Budget>,
    note: Option<&str>,
    mut later: Option<LaterWhys<'a>>,
) -> io::Result<()> {
    let c = &trace.config;
    let title = format!("shapetrace: {}, {} blocks", name(trace), c.layers);
    out.write_all(page::head(&title).as_bytes())?;
    let mut b = format!("<h1>{}</h1>\n", esc(&title));
    let mode = match trace.mode {
        Mode::Numeric => "numeric run (values computed)",
        Mode::ShapeOnly => "shape-only run (no values)",
    };
    let _ = writeln!(
        b,
        "<p><strong>{}</strong> · {mode} · {} steps · nothing on this page is loaded from outside the file.</p>",
        esc(&super::headline(checks)),
        trace.step_count()
    );
    if let Some(n) = note {
        let _ = writeln!(b, "<p><strong>⚠ {}</strong></p>", esc(n));
    }
    b.push_str("<h2 id=\"settings\">Settings</h2>\n");
    b.push_str(&page::settings_table(settings));
    b.push_str("<h2 id=\"block\">The block</h2>\n");
    b.push_str(&diagram::figure(trace, "trace"));
    b.push_str(
        "<h2 id=\"steps\">Steps</h2>\n<p class=\"note\">Markers: ◆ leaves (B,T,d): the tensor departs from the stream's shape · ↩ returns: back to (B,T,d) · ✓ add: a residual add the contract allows · ✗ add / ✗ stops: refused.</p>\n",
    );
    out.write_all(b.as_bytes())?;
    let mut drawn = 0;
    for (k, mut r) in steps(trace).enumerate() {
        let e = trace.events.get(k);
        if let Some(text) = later.as_mut().zip(e).and_then(|(w, e)| w.word(e)) {
            r.why = crate::text::escaped(&text).to_string();
        }
        out.write_all(card(trace, &r, e, &mut drawn).as_bytes())?;
    }
    let mut b = String::from("<h2 id=\"adds\">Residual adds</h2>\n");
    b.push_str(&adds(trace));
    b.push_str("<h2 id=\"checks\">Checks</h2>\n");
    b.push_str(&checks_table(checks));
    if let Some(budget) = budget {
        b.push_str(&charts::section(budget));
    }
    out.write_all(b.as_bytes())?;
    out.write_all(page::FOOT.as_bytes())
}
