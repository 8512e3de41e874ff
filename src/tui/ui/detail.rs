//! The detail pane: op, formula with shape arithmetic, inputs, bytes,
//! stats, the why of the step's shape (wrapped to the room left) and, for
//! small tensors, a value heatmap.

use super::heatmap;
use crate::config::human_bytes;
use crate::shape::fmt_shape;
use crate::tui::app::{App, Row};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let inner = Block::bordered().inner(area);
    let mut lines: Vec<Line> = Vec::new();
    // The heatmap's legend, drawn on the bottom border.
    let mut legend = None;
    match app.row(app.cursor) {
        Some(Row::Event(e)) if app.hidden(app.cursor) => {
            lines.push(Line::styled(
                format!("{} · {}", e.path, e.op_label()),
                t.title,
            ));
            lines.push(Line::styled(
                "shape hidden: the quiz asks for it first",
                t.dim,
            ));
        }
        Some(Row::Event(e)) => {
            lines.push(Line::styled(
                format!("{} · {}", e.path, e.op_label()),
                t.title,
            ));
            lines.push(Line::raw(e.formula.clone()));
            if let Some(c) = app.failed_at(&e.path) {
                lines.push(Line::styled(format!("✗ {}: {}", c.name, c.detail), t.fail));
            }
            if let Some(c) = &e.check {
                let (glyph, style) = if c.ok { ("✓", t.ok) } else { ("✗", t.fail) };
                let verdict = if c.ok {
                    "both (B,T,d)"
                } else {
                    "shapes differ"
                };
                lines.push(Line::styled(
                    format!("{glyph} residual add: {verdict}, {}", c.stream_dtype),
                    style,
                ));
            }
            let from = if !e.inputs.is_empty() {
                e.inputs.join(", ")
            } else if e.op == crate::trace::OpKind::Tokens {
                match (&app.given.req.tokens, app.run.trace.config.vocab) {
                    // A log keeps the ids' stats, not the ids.
                    _ if app.source.is_some() => "the ids the log was traced on".to_string(),
                    (Some(_), _) => "the given ids (--tokens)".to_string(),
                    (None, Some(v)) => format!("ids drawn uniformly from 0..{v} by the seed"),
                    (None, None) => "the token ids".to_string(),
                }
            } else if app.given.req.input.is_some() {
                "the given input x0 (--input)".to_string()
            } else {
                "the seeded input x0 ~ N(0,1)".to_string()
            };
            lines.push(Line::from(vec![
                Span::styled("from ", t.dim),
                Span::raw(from),
            ]));
            let n: usize = e.shape.iter().product();
            let bytes = human_bytes((n * e.dtype.size()) as u128);
            // Size and stats on one line, so a T=4 heatmap fits at 80×24.
            let stats = e.stats.map_or_else(String::new, |s| {
                let fin = if s.finite { "" } else { " ✗ NaN/inf" };
                format!(
                    " μ {:.2} σ {:.2} [{:.2}, {:.2}]{fin}",
                    s.mean, s.std, s.min, s.max
                )
            });
            lines.push(Line::styled(format!("{bytes}{stats}"), t.dim));
            let w = usize::from(inner.width).max(1);
            let used: usize = lines.iter().map(|l| l.width().div_ceil(w).max(1)).sum();
            let room = usize::from(inner.height).saturating_sub(used);
            let mask = app.run.trace.masking_at(e.block().unwrap_or(1));
            // The why comes first: a line of it is kept from the heatmap,
            // which takes what it needs of the rest; the why then takes
            // what the heatmap leaves, wrapped at words (the presenter and
            // the handout show it whole).
            let why = e.why_text();
            let why_full = why_lines(why, w, usize::MAX, t).len();
            // `w`: the whole why, in place of the heatmap.
            if app.why_whole {
                // Only the step's name stays above it: all the room is the why's.
                lines.truncate(1);
                let room = usize::from(inner.height).saturating_sub(1);
                lines.extend(why_lines(why, w, room, t));
                return finish(lines, legend, area, buf, t);
            }
            let map = heatmap::lines(
                e,
                (app.head, app.col),
                mask,
                (
                    usize::from(inner.width),
                    room.saturating_sub(why_full.min(1)),
                ),
                t,
            );
            if !map.is_empty() {
                let w = usize::from(inner.width.saturating_sub(2));
                legend = heatmap::legend(e, app.head, mask, w);
            }
            lines.extend(why_lines(why, w, room.saturating_sub(map.len()), t));
            lines.extend(map);
        }
        Some(Row::Failure(f)) => {
            lines.push(Line::styled(
                format!("✗ {} fails at {} ({})", f.check, f.path, f.op),
                t.fail,
            ));
            lines.push(Line::raw(f.detail.clone()));
            if !f.why_text().is_empty() {
                lines.push(Line::raw(format!("why: {}", f.why_text())));
            }
            let ops: Vec<String> = f
                .operands
                .iter()
                .map(|o| format!("{} {}", o.path, fmt_shape(&o.shape)))
                .collect();
            lines.push(Line::from(vec![
                Span::styled("operands ", t.dim),
                Span::raw(ops.join(" · ")),
            ]));
            lines.push(Line::styled(
                "The forward stopped here: the steps after it cannot run.",
                t.title,
            ));
            if let Some(fault) = app.cfg().fault {
                lines.push(Line::from(format!("fault {fault}: {}", fault.describe())));
            }
        }
        None => {}
    }
    finish(lines, legend, area, buf, t);
}

/// Draws the pane's `lines` in its border, the heatmap's legend, if any,
/// on the bottom border.
fn finish(
    lines: Vec<Line<'_>>,
    legend: Option<String>,
    area: Rect,
    buf: &mut Buffer,
    t: crate::tui::theme::Theme,
) {
    let mut block = Block::bordered().title(" Detail ");
    if let Some(l) = legend {
        block = block.title_bottom(Line::styled(format!(" {l} "), t.dim));
    }
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(block)
        .render(area, buf);
}

/// The why, `why: …`, wrapped to `width` in at most `room` lines; a cut
/// last line ends in `…`.
fn why_lines(
    why: &str,
    width: usize,
    room: usize,
    t: crate::tui::theme::Theme,
) -> Vec<Line<'static>> {
    if why.is_empty() || room == 0 {
        return Vec::new();
    }
    let text = format!("why: {why}");
    let mut wrapped: Vec<String> = textwrap::wrap(&text, width.max(8))
        .into_iter()
        .map(std::borrow::Cow::into_owned)
        .collect();
    if wrapped.len() > room {
        wrapped.truncate(room);
        if let Some(last) = wrapped.last_mut() {
            // Cut: say so, and which key shows the rest.
            let more = " … w: all";
            let keep: String = last
                .chars()
                .take(width.saturating_sub(more.chars().count()))
                .collect();
            *last = format!("{keep}{more}");
        }
    }
    wrapped
        .into_iter()
        .map(|l| Line::styled(l, t.base))
        .collect()
}
