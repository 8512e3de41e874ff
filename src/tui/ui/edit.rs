//! The prompt for a lab's input vector.

use crate::tui::app::App;
use crate::tui::app::labs::EditTarget;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let Some(e) = &app.labs.editing else { return };
    let what = match e.target {
        EditTarget::FfnX => app.t("ui-edit-ffn"),
        EditTarget::NormX => app.t("ui-edit-norms"),
        EditTarget::BudgetField(f) => {
            app.tr(&crate::why::Why::new("ui-edit-budget").arg("field", f.name()))
        }
    };
    let mut lines = vec![
        Line::styled(format!(" {what}"), t.title),
        Line::from(vec![
            Span::raw(" › "),
            Span::styled(format!("{}█", e.text), t.key),
        ]),
        Line::styled(
            format!(
                " {}",
                app.tr(&crate::why::Why::new("ui-edit-keys").arg("now", e.now.as_str()))
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
    super::width::clear(popup, buf);
    Paragraph::new(lines)
        .block(
            Block::bordered()
                .title(format!(" {} ", app.t("ui-edit-title")))
                .border_style(t.key),
        )
        .render(popup, buf);
}
