//! The probes lab: which rows of each tensor change when one input row
//! changes. `●` changed where allowed, `✗` changed where it must not
//! (an earlier position, another batch element, or another token of a
//! position-wise layer), `·` unchanged.

use crate::check::influence::{Kind, RowChange};
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

/// The tensors worth a row: sublayer interfaces and the attention mix.
fn shown(kind: Kind, r: &RowChange) -> bool {
    let leaf = r.path.split_once('.').map_or(r.path.as_str(), |(_, l)| l);
    match kind {
        Kind::Causality => {
            matches!(
                leaf,
                "input"
                    | "ln_1"
                    | "attn.weights"
                    | "attn.merge"
                    | "resid_1"
                    | "mlp.act"
                    | "resid_2"
                    | "ln_f"
            ) || r.path == "input"
        }
        Kind::Positionwise => r.op != "scores",
    }
}

/// Whether a change at (`b`, `t`) breaks the probe when token `token` of batch 0 moved.
fn forbidden(kind: Kind, token: usize, b: usize, t: usize) -> bool {
    match kind {
        Kind::Causality => b != 0 || t < token,
        Kind::Positionwise => (b, t) != (0, token),
    }
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let p = &app.labs.probes;
    let (name, rule) = match p.kind {
        Kind::Causality => (
            "causality",
            "the whole model; no earlier position and no other batch element may change",
        ),
        Kind::Positionwise => (
            "positionwise",
            "each norm and MLP alone; only the moved token may change",
        ),
    };
    let title = format!(
        " Probes: {name} · token t={} of batch 0 moved · ←→ token · ↑↓ probe ",
        p.token
    );
    let mut lines = vec![Line::styled(rule, t.dim)];
    match &p.view {
        None => lines.push(Line::raw("computing…")),
        Some(Err(e)) => lines.push(Line::styled(
            format!("cannot probe this model: {e}"),
            t.fail,
        )),
        Some(Ok(view)) => {
            let rows: Vec<&RowChange> = view.rows.iter().filter(|r| shown(p.kind, r)).collect();
            let (nb, nt) = rows
                .first()
                .map_or((0, 0), |r| (r.batch.min(2), r.seq.min(16)));
            let mut head = format!("{:<22}", "");
            for b in 0..nb {
                head.push_str(&format!(
                    "batch {b}{}",
                    " ".repeat((nt * 3).saturating_sub(7) + 3)
                ));
            }
            lines.push(Line::styled(head, t.title));
            let mut cols = format!("{:<22}", "tensor");
            for _ in 0..nb {
                for tt in 0..nt {
                    cols.push_str(&format!("{:<3}", format!("t{tt}")));
                }
                cols.push_str("   ");
            }
            lines.push(Line::styled(cols, t.title));
            let mut leaks = 0;
            let room = usize::from(area.height.saturating_sub(6));
            for r in rows.iter().take(room) {
                let mut spans = vec![Span::raw(format!("{:<22}", r.path))];
                for b in 0..nb {
                    for tt in 0..nt {
                        let (glyph, style) =
                            match (r.at(b, tt), forbidden(p.kind, view.token, b, tt)) {
                                (true, true) => {
                                    leaks += 1;
                                    ("✗  ", t.fail)
                                }
                                (true, false) => ("●  ", t.departs),
                                (false, _) => ("·  ", t.dim),
                            };
                        spans.push(Span::styled(glyph, style));
                    }
                    spans.push(Span::raw("   "));
                }
                lines.push(Line::from(spans));
            }
            lines.push(if leaks == 0 {
                Line::styled(format!("✓ {name} holds for token {}", view.token), t.ok)
            } else {
                Line::styled(
                    format!("✗ {name} fails: {leaks} row(s) changed that must not"),
                    t.fail,
                )
            });
        }
    }
    Paragraph::new(lines)
        .block(Block::bordered().title(title))
        .render(area, buf);
}
