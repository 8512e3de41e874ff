//! The detail pane: op, formula with shape arithmetic, inputs, bytes,
//! stats, the why of the step's shape (wrapped to the room left) and, for
//! small tensors, a value heatmap.

use super::heatmap;
use super::words::{check_detail, failure_detail, fault_text};
use crate::config::human_bytes;
use crate::shape::fmt_shape;
use crate::tui::app::{App, Row};
use crate::why::Why;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};
use unicode_width::UnicodeWidthStr;

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
            // Who hides it: the quiz asks for it, reveal mode waits for →.
            let hidden = if app.quiz().is_some() {
                "ui-detail-hidden"
            } else {
                "ui-detail-hidden-reveal"
            };
            lines.push(Line::styled(app.t(hidden), t.dim));
        }
        Some(Row::Event(e)) => {
            // Where in the writer's own code the op ran, when the log says.
            let at = e.line.as_ref().map_or_else(String::new, |l| {
                format!(
                    " · {}",
                    app.tr(&Why::new("ui-detail-at").arg("line", l.as_str()))
                )
            });
            lines.push(Line::styled(
                format!("{} · {}{at}", e.path, e.op_label()),
                t.title,
            ));
            lines.push(Line::raw(app.say(formula_in(app.lang, &e.formula))));
            if let Some(c) = app.failed_at(&e.path) {
                lines.push(Line::styled(
                    format!("✗ {}: {}", c.name, check_detail(app, c)),
                    t.fail,
                ));
            }
            if let Some(c) = &e.check {
                let (glyph, style) = if c.ok { ("✓", t.ok) } else { ("✗", t.fail) };
                let key = if c.ok {
                    "ui-detail-add-ok"
                } else {
                    "ui-detail-add-bad"
                };
                let add = Why::new(key).arg("dtype", c.stream_dtype.to_string());
                lines.push(Line::styled(format!("{glyph} {}", app.tr(&add)), style));
            }
            let from = if !e.inputs.is_empty() {
                e.inputs.join(", ")
            } else if e.op == crate::trace::OpKind::Tokens {
                match (&app.given.req.tokens, app.run.trace.config.vocab.size) {
                    // A log keeps the ids' stats, not the ids.
                    _ if app.source.is_some() => app.t("ui-from-log-ids"),
                    (Some(_), _) => app.t("ui-from-given-ids"),
                    (None, Some(v)) => app.tr(&Why::new("ui-from-seeded-ids").arg("vocab", v)),
                    (None, None) => app.t("ui-from-token-ids"),
                }
            } else if e.op == crate::trace::OpKind::Recv {
                let stage = app.run.trace.config.devices.stage();
                app.tr(&Why::new("ui-from-stage").arg("s", stage))
            } else if app.given.req.input.is_some() {
                app.t("ui-from-given-input")
            } else {
                app.t("ui-from-seeded-input")
            };
            lines.push(Line::from(vec![
                Span::styled(app.t("ui-from"), t.dim),
                Span::raw(from),
            ]));
            let n: usize = e.shape.iter().product();
            let bytes = human_bytes((n * e.dtype.size()) as u128);
            // Size and stats on one line, so a T=4 heatmap fits at 80×24.
            let stats = e.stats.map_or_else(String::new, |s| {
                let fin = if s.finite { "" } else { " ✗ NaN/inf" };
                let n = super::heatmap::num;
                app.say(format!(
                    " μ {} σ {} [{}, {}]{fin}",
                    n(s.mean),
                    n(s.std),
                    n(s.min),
                    n(s.max)
                ))
            });
            lines.push(Line::styled(format!("{bytes}{stats}"), t.dim));
            let w = usize::from(inner.width).max(1);
            let used: usize = lines.iter().map(|l| l.width().div_ceil(w).max(1)).sum();
            let room = usize::from(inner.height).saturating_sub(used);
            let mask = heatmap::Reach::at(&app.run.trace, e.block().unwrap_or(1));
            // The why comes first: a line of it is kept from the heatmap,
            // which takes what it needs of the rest; the why then takes
            // what the heatmap leaves, wrapped at words (the presenter and
            // the handout show it whole).
            let why = app.step_why(e.why.as_ref(), e.why_text());
            let why = why.as_str();
            let why_full = why_lines(app, why, w, usize::MAX).len();
            // `w`: the whole why, in place of the heatmap.
            if app.why_whole {
                // Only the step's name stays above it: all the room is the why's.
                lines.truncate(1);
                let room = usize::from(inner.height).saturating_sub(1);
                lines.extend(why_lines(app, why, w, room));
                return finish(app, lines, legend, area, buf);
            }
            let map = heatmap::lines(
                e,
                (app.head, app.col),
                mask,
                (
                    usize::from(inner.width),
                    room.saturating_sub(why_full.min(1)),
                ),
                (t, app.lang, app.ascii),
            );
            if !map.is_empty() {
                let w = usize::from(inner.width.saturating_sub(2));
                legend = heatmap::legend(e, app.head, mask, w, (app.lang, app.ascii));
            }
            lines.extend(why_lines(app, why, w, room.saturating_sub(map.len())));
            lines.extend(map);
        }
        Some(Row::Failure(f)) => {
            let at = Why::new("ui-fail-at")
                .arg("check", f.check.as_str())
                .arg("path", f.path.as_str())
                .arg("op", f.op.as_str());
            lines.push(Line::styled(app.tr(&at), t.fail));
            lines.push(Line::raw(failure_detail(app, f)));
            if !f.why_text().is_empty() {
                let why = app.step_why(f.why.as_ref(), f.why_text());
                if app.lang == crate::i18n::Lang::En {
                    lines.push(Line::raw(format!("{}{why}", app.t("ui-why"))));
                } else {
                    // The pane wraps at spaces only; text without spaces
                    // between its words wraps by columns here.
                    let w = usize::from(Block::bordered().inner(area).width).max(1);
                    lines.extend(why_lines(app, &why, w, usize::MAX));
                }
            }
            let ops: Vec<String> = f
                .operands
                .iter()
                .map(|o| format!("{} {}", o.path, fmt_shape(&o.shape)))
                .collect();
            lines.push(Line::from(vec![
                Span::styled(app.t("ui-operands"), t.dim),
                Span::raw(ops.join(" · ")),
            ]));
            lines.push(Line::styled(app.t("ui-forward-stopped"), t.title));
            if let Some(fault) = app.cfg().fault {
                let line = Why::new("ui-fault-line")
                    .arg("fault", fault.to_string())
                    .arg("what", fault_text(app, fault));
                lines.push(Line::from(app.tr(&line)));
            }
        }
        None => {}
    }
    finish(app, lines, legend, area, buf);
}

/// Draws the pane's `lines` in its border, the heatmap's legend, if any,
/// on the bottom border.
fn finish(app: &App, lines: Vec<Line<'_>>, legend: Option<String>, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let mut block = Block::bordered().title(format!(" {} ", app.t("ui-detail-title")));
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
fn why_lines(app: &App, why: &str, width: usize, room: usize) -> Vec<Line<'static>> {
    let t = app.theme;
    if why.is_empty() || room == 0 {
        return Vec::new();
    }
    let text = format!("{}{why}", app.t("ui-why"));
    let mut wrapped: Vec<String> = textwrap::wrap(&text, width.max(8))
        .into_iter()
        .map(std::borrow::Cow::into_owned)
        .collect();
    if wrapped.len() > room {
        wrapped.truncate(room);
        if let Some(last) = wrapped.last_mut() {
            // Cut: say so, and which key shows the rest.
            let more = app.t("ui-why-more");
            let keep = super::width::take(last, width.saturating_sub(more.width()));
            *last = format!("{}{more}", whole_words(keep, last.len()));
        }
    }
    wrapped
        .into_iter()
        .map(|l| Line::styled(l, t.base))
        .collect()
}

/// `keep`, a start of a line `full` bytes long, backed off to its last
/// whole word: up to a space or a CJK punctuation mark, so no word (`序`
/// of `序列`) or shape is left cut; as it is when it ends the line or has
/// no such mark.
fn whole_words(keep: &str, full: usize) -> &str {
    if keep.len() == full {
        return keep;
    }
    keep.char_indices()
        .rev()
        .find(|(_, c)| *c == ' ' || "，。；：、）".contains(*c))
        .map_or(keep, |(i, c)| {
            let end = if c == ' ' { i } else { i + c.len_utf8() };
            keep[..end].trim_end()
        })
}

/// The words of a formula the trace stores in English (`split into 4
/// heads : (2,4,64) → (2,4,4,16)`), in `lang`: the words before ` : `
/// mapped through the catalog (`formula-*`), the shapes and math kept.
/// English, and a formula with no known words, stay as stored, so
/// `shapetrace trace` and the English screens are unchanged.
pub(super) fn formula_in(lang: crate::i18n::Lang, formula: &str) -> String {
    if lang == crate::i18n::Lang::En {
        return formula.to_string();
    }
    let (words, rest) = formula
        .split_once(" : ")
        .map_or((formula, None), |(w, r)| (w, Some(r)));
    let num = |s: &str| s.parse::<usize>().ok();
    let templated = if let Some(n) = words
        .strip_prefix("split into ")
        .and_then(|w| w.strip_suffix(" heads"))
        .and_then(num)
    {
        Some(lang.why(&Why::new("formula-split-heads").arg("heads", n)))
    } else if let Some((k, e)) = words
        .strip_prefix("top-")
        .and_then(|w| w.strip_suffix(" experts"))
        .and_then(|w| w.split_once(" of "))
        .and_then(|(k, e)| Some((num(k)?, num(e)?)))
    {
        Some(lang.why(&Why::new("formula-top-k").arg("k", k).arg("experts", e)))
    } else {
        None
    };
    let words = templated.unwrap_or_else(|| {
        // Longest first: "softmax over experts" before "over".
        const PHRASES: [(&str, &str); 10] = [
            ("softmax over experts", "formula-softmax-experts"),
            ("transpose, merge heads", "formula-transpose-merge"),
            ("reshape without transpose", "formula-reshape-no-transpose"),
            ("no max subtracted", "formula-no-max"),
            ("rotate by position", "formula-rotate"),
            ("for every token", "formula-every-token"),
            ("onto tokens", "formula-onto-tokens"),
            ("repeat kv", "formula-repeat-kv"),
            ("two-way", "formula-two-way"),
            ("(tied)", "formula-tied"),
        ];
        let mut w = words.to_string();
        for (en, key) in PHRASES {
            if w.contains(en) {
                w = w.replace(en, &lang.t(key));
            }
        }
        if let Some((f, axis)) = w.split_once(") over ") {
            w = format!("{f}) {} {axis}", lang.t("formula-over"));
        }
        w
    });
    match rest {
        Some(r) => format!("{words} : {r}"),
        None => words,
    }
}

#[cfg(test)]
mod tests {
    use super::formula_in;
    use crate::i18n::Lang;

    #[test]
    fn formulas_keep_their_math_and_speak_the_language() {
        let split = "split into 4 heads : (2,4,64) → (2,4,4,16)";
        assert_eq!(formula_in(Lang::En, split), split);
        assert_eq!(
            formula_in(Lang::ZhTw, split),
            "分成 4 個頭 : (2,4,64) → (2,4,4,16)"
        );
        assert_eq!(
            formula_in(Lang::ZhTw, "LayerNorm(x) over d : (2,4,64) → (2,4,64)"),
            "LayerNorm(x) 沿 d : (2,4,64) → (2,4,64)"
        );
        assert_eq!(
            formula_in(Lang::ZhTw, "transpose, merge heads : (2,4,4,16) → (2,4,64)"),
            "轉置，合併頭 : (2,4,4,16) → (2,4,64)"
        );
        assert_eq!(
            formula_in(Lang::ZhTw, "top-2 of 8 experts : (2,4,8) → (2,4,2)"),
            "8 個專家中取前 2 個 : (2,4,8) → (2,4,2)"
        );
        // Pure math stays as it is.
        let math = "q·kᵀ/√16 : (2,4,4,16)·(2,4,16,4) → (2,4,4,4)";
        assert_eq!(formula_in(Lang::ZhTw, math), math);
    }
}
