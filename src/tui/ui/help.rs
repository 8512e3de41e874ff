//! The help overlay: every key.

use crate::tui::action::KEYS;
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let mut lines: Vec<Line> = KEYS
        .iter()
        .map(|(k, what)| {
            let what = message(k).map_or_else(|| (*what).to_string(), |key| app.t(key));
            Line::from(vec![
                Span::styled(format!(" {k:<16}"), t.key),
                Span::raw(what),
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
    let from = app.help_at.min(total.saturating_sub(rows));
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

/// The catalog key of a row of the key table, by its keys column; a row
/// with none (a key added since) shows its English words.
#[must_use]
pub fn message(keys: &str) -> Option<&'static str> {
    Some(match keys {
        "→ l space" => "help-next",
        "← h" => "help-prev",
        "↓ j / ↑ k" => "help-down-up",
        "g Home / G End" => "help-first-last",
        "PgDn / PgUp" => "help-page",
        "n / N" => "help-departure",
        "r / R" => "help-residual",
        "[ / ]" => "help-head",
        "< / >" => "help-scroll",
        "w" => "help-why",
        "a" => "help-act",
        "m" => "help-norm",
        "p" => "help-placement",
        "f" => "help-fault",
        "z" => "help-quiz",
        "o" => "help-reveal",
        "c" => "help-charts",
        "P" => "help-present",
        "v" => "help-back",
        "|" => "help-split",
        "b" => "help-side",
        "Tab / Shift-Tab" => "help-tabs",
        "e" => "help-edit",
        "x / s" => "help-mistake",
        "click" => "help-click",
        "?" => "help-help",
        "q Esc Ctrl-C" => "help-quit",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Lang;

    /// Every row of the key table has its catalog key, whose English is
    /// the table's own words (the README lists them), and a zh-TW line.
    #[test]
    fn every_key_row_is_in_the_catalogs() {
        for (keys, what) in KEYS {
            let key = message(keys).unwrap_or_else(|| panic!("'{keys}' has no catalog key"));
            assert_eq!(Lang::En.t(key), *what, "{keys}");
            assert_ne!(Lang::ZhTw.t(key), *what, "{keys}");
        }
    }
}
