//! The quiz prompt: predict the shape of the next step before it is shown.

use crate::ops::fmt_shape;
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
        Line::from(vec![
            Span::styled(format!(" step {}: {} ", e.step, e.path), t.title),
            Span::raw(format!("({} of {})", e.op, from.join(", "))),
        ]),
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
    let h = u16::try_from(lines.len() + 2).unwrap_or(6);
    let popup = area.centered(
        Constraint::Length(area.width.min(76)),
        Constraint::Length(h),
    );
    Clear.render(popup, buf);
    Paragraph::new(lines)
        .block(Block::bordered().title(" Quiz ").border_style(t.key))
        .render(popup, buf);
}
