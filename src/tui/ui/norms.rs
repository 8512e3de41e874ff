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
        .text()
        .lines()
        .map(|l| Line::raw(l.to_string()))
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "e edits x (e.g. 3,4 or 1,2,3,4) · LayerNorm centres then scales; RMSNorm only scales",
        t.dim,
    ));
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(" Norms: LayerNorm against RMSNorm "))
        .render(area, buf);
}
