//! The norms lab: LayerNorm against RMSNorm on one editable vector, each
//! sum written out.

use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let mut lines: Vec<Line> = app
        .labs
        .norms
        .text_in(app.lang)
        .lines()
        .map(|l| Line::raw(l.to_string()))
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::styled(app.t("ui-norms-hint"), t.dim));
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(format!(" {} ", app.t("ui-norms-title"))))
        .render(area, buf);
}
