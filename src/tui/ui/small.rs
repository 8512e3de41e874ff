//! The message shown instead of the screen when the terminal is too small.

use super::MIN_SIZE;
use crate::tui::app::App;
use crate::why::Why;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let lines = vec![
        Line::styled(app.t("ui-small-title"), app.theme.title),
        Line::from(
            app.tr(&Why::new("ui-small-needs")
                .arg("w", usize::from(MIN_SIZE.0))
                .arg("h", usize::from(MIN_SIZE.1))),
        ),
        Line::from(
            app.tr(&Why::new("ui-small-this")
                .arg("w", usize::from(area.width))
                .arg("h", usize::from(area.height))),
        ),
        Line::from(app.t("ui-small-enlarge")),
        Line::styled(app.t("ui-small-quit"), app.theme.dim),
    ];
    let height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let box_area = area.centered(Constraint::Length(area.width), Constraint::Length(height));
    Paragraph::new(lines)
        .centered()
        .wrap(Wrap { trim: true })
        .render(box_area, buf);
}
