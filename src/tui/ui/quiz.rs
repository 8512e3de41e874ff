//! The quiz prompt: predict the shape of the next step before it is shown.

use crate::shape::fmt_shape;
use crate::tui::app::{App, Row};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let Some(q) = &app.quiz else { return };
    let Some(Row::Event(e)) = q.asking.and_then(|i| app.row(i)) else {
        return;
    };
    let from: Vec<String> = e
        .inputs
        .iter()
        .filter_map(|p| app.run.trace.get(p))
        .map(|i| format!("{} {}", i.path, fmt_shape(&i.shape)))
        .collect();
    let mut lines = vec![
        Line::styled(format!(" step {}: {} = {}", e.step, e.path, e.op), t.title),
        Line::raw(format!(" of {}", from.join(", "))),
        Line::from(vec![
            Span::raw(" Predict its shape › "),
            Span::styled(format!("{}█", q.input), t.key),
        ]),
        Line::styled(
            format!(" Enter answers · Esc skips · score {}/{}", q.right, q.asked),
            t.dim,
        ),
    ];
    if let Some(msg) = &q.invalid {
        lines.push(Line::styled(format!(" ✗ {msg}"), t.fail));
    }
    let w = area.width.min(76);
    let inner = usize::from(w.saturating_sub(2)).max(1);
    let rows: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    let h = u16::try_from(rows + 2).unwrap_or(8).min(area.height);
    let popup = area.centered(Constraint::Length(w), Constraint::Length(h));
    Clear.render(popup, buf);
    Paragraph::new(lines)
        .wrap(ratatui::widgets::Wrap { trim: false })
        .block(Block::bordered().title(" Quiz ").border_style(t.key))
        .render(popup, buf);
}
