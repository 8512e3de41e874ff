//! The message shown instead of the screen when the terminal is too small.

use super::MIN_SIZE;
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let lines = vec![
        Line::styled("Terminal too small", app.theme.title),
        Line::from(format!(
            "shapetrace needs at least {}×{};",
            MIN_SIZE.0, MIN_SIZE.1
        )),
        Line::from(format!("this one is {}×{}.", area.width, area.height)),
        Line::from("Enlarge the window or reduce the font size."),
        Line::styled("q quits", app.theme.dim),
    ];
    let height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let box_area = area.centered(Constraint::Length(area.width), Constraint::Length(height));
    Paragraph::new(lines)
        .centered()
        .wrap(Wrap { trim: true })
        .render(box_area, buf);
}
