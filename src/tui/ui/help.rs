//! The help overlay: every key of the key table, in the app's language.

use crate::tui::action::keys;
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

/// Draws the help over `area`, from its line `at`.
pub fn render(app: &App, at: usize, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let mut lines: Vec<Line> = keys::listed()
        .map(|(k, words)| {
            Line::from(vec![
                Span::styled(format!(" {:<16}", app.keys(&k)), t.key),
                Span::raw(app.t(words)),
            ])
        })
        .collect();
    lines.push(Line::styled(format!(" {}", app.t("help-legend")), t.dim));
    let h = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    // More keys than rows: ↓↑ scroll, and the title says how far.
    let rows = usize::from(h.saturating_sub(2));
    let total = lines.len();
    let from = at.min(total.saturating_sub(rows));
    let title = if total > rows {
        let title = crate::why::Why::new("help-title-scroll")
            .arg("from", from + 1)
            .arg("to", (from + rows).min(total))
            .arg("total", total);
        format!(" {} ", app.tr(&title))
    } else {
        format!(" {} ", app.t("help-title"))
    };
    let lines: Vec<Line> = lines.into_iter().skip(from).collect();
    // As wide as the longest line (and its border), never wider than the screen.
    let widest = lines.iter().map(Line::width).max().unwrap_or(0) + 2;
    let w = u16::try_from(widest).unwrap_or(u16::MAX).min(area.width);
    let popup = area.centered(Constraint::Length(w), Constraint::Length(h));
    super::width::clear(popup, buf);
    Paragraph::new(lines)
        .block(Block::bordered().title(title).border_style(t.title))
        .render(popup, buf);
}
