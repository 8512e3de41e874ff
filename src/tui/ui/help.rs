//! The help overlay: every key.

use crate::tui::action::KEYS;
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let mut lines: Vec<Line> = KEYS
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!(" {k:<16}"), t.key),
                Span::raw(*what),
            ])
        })
        .collect();
    lines.push(Line::styled(
        " ◆ leaves (B,T,d) or the stream's dtype   ↩ returns   ✓/✗ residual add",
        t.dim,
    ));
    let h = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    // More keys than rows: ↓↑ scroll, and the title says how far.
    let rows = usize::from(h.saturating_sub(2));
    let total = lines.len();
    let from = app.help_at.min(total.saturating_sub(rows));
    let title = if total > rows {
        format!(
            " Keys {}–{} of {total} · ↓↑ scroll · ? Esc closes ",
            from + 1,
            (from + rows).min(total)
        )
    } else {
        " Keys · ? or Esc closes ".to_string()
    };
    let lines: Vec<Line> = lines.into_iter().skip(from).collect();
    // As wide as the longest line (and its border), never wider than the screen.
    let widest = lines.iter().map(Line::width).max().unwrap_or(0) + 2;
    let w = u16::try_from(widest).unwrap_or(u16::MAX).min(area.width);
    let popup = area.centered(Constraint::Length(w), Constraint::Length(h));
    Clear.render(popup, buf);
    Paragraph::new(lines)
        .block(Block::bordered().title(title).border_style(t.title))
        .render(popup, buf);
}
