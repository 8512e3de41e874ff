//! The current block as a diagram: the residual stream with its two
//! sublayers, the current one lit and bracketed.

use crate::config::Placement;
use crate::tui::app::{App, Row};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

/// The node of the diagram a path belongs to.
fn node(path: &str) -> Option<&'static str> {
    let leaf = path.split_once('.').map_or(path, |(_, rest)| rest);
    Some(match leaf {
        l if l.starts_with("attn") => "attn",
        l if l.starts_with("mlp") => "mlp",
        "ln_1" => "ln_1",
        "ln_2" => "ln_2",
        "resid_1" => "resid_1",
        "resid_2" => "resid_2",
        _ => return None,
    })
}

/// A residual add's verdict glyph, if it has run.
fn verdict(app: &App, block: usize, which: &str) -> &'static str {
    let path = format!("block{block}.{which}");
    if let Some(e) = app.run.trace.get(&path) {
        return if e.check.as_ref().is_some_and(|c| c.ok) {
            "✓"
        } else {
            "✗"
        };
    }
    match &app.run.trace.failure {
        Some(f) if f.path == path => "✗",
        _ => "·",
    }
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let path = app.path(app.cursor).unwrap_or("input");
    let block = app.row(app.cursor).and_then(|r| match r {
        Row::Event(e) => e.block(),
        Row::Failure(f) => f
            .path
            .strip_prefix("block")?
            .split('.')
            .next()?
            .parse()
            .ok(),
    });
    let layers = app.cfg().layers;
    let title = match block {
        Some(b) => format!(" Block {b} of {layers} · {}-LN ", app.cfg().placement),
        None if path == "input" => format!(" Input, before block 1 · {}-LN ", app.cfg().placement),
        None => format!(" After block {layers} · {path} "),
    };
    let b = block.unwrap_or(1);
    let lit = node(path).filter(|_| block.is_some());
    let n = |name: &'static str| -> Span<'static> {
        if lit == Some(name) {
            Span::styled(format!("[{name}]"), t.lit)
        } else {
            Span::raw(format!(" {name} "))
        }
    };
    let add = |which: &'static str| -> Vec<Span<'static>> {
        let v = verdict(app, b, which);
        let style: Style = match v {
            "✓" => t.ok,
            "✗" => t.fail,
            _ => t.dim,
        };
        let here = lit == Some(which);
        let sum = if here {
            Span::styled("⊕", t.lit)
        } else {
            Span::raw("⊕")
        };
        let mut out = vec![sum, Span::raw(format!(" {which} ")), Span::styled(v, style)];
        if here {
            out.push(Span::styled("◀", t.lit));
        }
        out
    };
    let x_in = if block.is_none() && path == "input" {
        Span::styled("[x]", t.lit)
    } else {
        Span::raw(" x ")
    };
    let raw = |s: &'static str| Span::raw(s);
    let mut lines: Vec<Line> = match app.cfg().placement {
        Placement::Pre => vec![
            Line::from(vec![
                x_in,
                raw("─┬─▶"),
                n("ln_1"),
                raw("─▶"),
                n("attn"),
                raw("──┐"),
            ]),
            Line::from([vec![raw("    └──────────────────")], add("resid_1")].concat()),
            Line::from(vec![
                raw(" x ─┬─▶"),
                n("ln_2"),
                raw("─▶"),
                n("mlp"),
                raw("───┐"),
            ]),
            Line::from([vec![raw("    └──────────────────")], add("resid_2")].concat()),
        ],
        Placement::Post => vec![
            Line::from(vec![x_in, raw("─┬─▶"), n("attn"), raw("──┐")]),
            Line::from(
                [
                    vec![raw("    └──────────")],
                    add("resid_1"),
                    vec![raw(" ─▶"), n("ln_1")],
                ]
                .concat(),
            ),
            Line::from(vec![raw(" x ─┬─▶"), n("mlp"), raw("───┐")]),
            Line::from(
                [
                    vec![raw("    └──────────")],
                    add("resid_2"),
                    vec![raw(" ─▶"), n("ln_2")],
                ]
                .concat(),
            ),
        ],
    };
    let here = match app.row(app.cursor) {
        Some(Row::Event(e)) if !app.hidden(app.cursor) => {
            let word = if e.departs {
                "◆ leaves (B,T,d)"
            } else if e.returns {
                "↩ returns"
            } else {
                "on (B,T,d)"
            };
            let style = if e.departs { t.departs } else { t.base };
            vec![
                Line::styled(format!(" now {}", e.path), t.title),
                Line::from(vec![
                    Span::raw(format!(" {} ", super::named_shape(e))),
                    Span::styled(word, style),
                ]),
            ]
        }
        Some(Row::Failure(f)) => vec![
            Line::styled(format!(" now {}", f.path), t.title),
            Line::styled(format!(" ✗ {} failed here", f.check), t.fail),
        ],
        _ => vec![Line::raw(""), Line::styled(" now: ? (quiz)", t.dim)],
    };
    lines.push(Line::raw(""));
    lines.extend(here);
    Paragraph::new(lines)
        .block(Block::bordered().title(title))
        .render(area, buf);
}
