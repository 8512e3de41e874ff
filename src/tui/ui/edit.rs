//! The prompt for a lab's input vector.

use crate::tui::app::App;
use crate::tui::app::labs::EditTarget;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let Some(e) = &app.labs.editing else { return };
    let what = match e.target {
        EditTarget::FfnX => "FFN: x (e.g. 2,-1), or d=4 f=8 seed=1 w1=1,1;0,-1 w2=1;1".to_string(),
        EditTarget::NormX => "x for the norms (one or more numbers, e.g. 3,4)".to_string(),
        EditTarget::BudgetField(f) => format!("{} for the budget (e.g. 171)", f.name()),
    };
    let mut lines = vec![
        Line::styled(format!(" {what}"), t.title),
        Line::from(vec![
            Span::raw(" › "),
            Span::styled(format!("{}█", e.text), t.key),
        ]),
        Line::styled(
            format!(
                " now {} · Enter applies · Esc cancels · Ctrl-U clears",
                e.now
            ),
            t.dim,
        ),
    ];
    if let Some(err) = &e.error {
        lines.push(Line::styled(format!(" ✗ {err}"), t.fail));
    }
    let h = u16::try_from(lines.len() + 2).unwrap_or(6);
    let popup = area.centered(
        Constraint::Length(area.width.min(70)),
        Constraint::Length(h),
    );
    Clear.render(popup, buf);
    Paragraph::new(lines)
        .block(Block::bordered().title(" Edit ").border_style(t.key))
        .render(popup, buf);
}
