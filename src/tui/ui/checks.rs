//! The Checks tab: every check with its verdict, where it failed and why.

use super::words::{check_detail, fault_text};
use crate::check::{Status, catches_on};
use crate::report::table::verdict;
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let mut lines = Vec::new();
    if let Some(f) = app.cfg().fault {
        let names: Vec<&str> = catches_on(f, app.cfg())
            .iter()
            .map(|c| c.as_str())
            .collect();
        let fault = crate::why::Why::new("ui-checks-fault")
            .arg("fault", f.to_string())
            .arg("what", fault_text(app, f))
            .arg("by", names.join(&app.t("ui-and")));
        lines.push(Line::styled(app.tr(&fault), t.fail));
        lines.push(Line::raw(""));
    }
    // Verdict and name in a left column; the detail wraps beside them.
    const LEFT: usize = 21;
    let width = usize::from(area.width.saturating_sub(2))
        .saturating_sub(LEFT)
        .max(20);
    // When every detail in full would not fit, checks that did not fail
    // get one line each, cut with `…`, so every verdict stays on screen.
    let inner = usize::from(area.height.saturating_sub(2));
    let rows =
        |l: &Line| textwrap::wrap(&l.to_string(), usize::from(area.width.saturating_sub(2))).len();
    let full = lines.iter().map(rows).sum::<usize>()
        + app
            .run
            .checks
            .iter()
            .map(|c| textwrap::wrap(&check_detail(app, c), width).len())
            .sum::<usize>();
    // Only as many as it takes, from the last: the rest stay whole.
    let mut excess = full.saturating_sub(inner);
    let mut cut = vec![false; app.run.checks.len()];
    for (i, c) in app.run.checks.iter().enumerate().rev() {
        let n = textwrap::wrap(&check_detail(app, c), width).len();
        if excess > 0 && c.status != Status::Fail && n > 1 {
            cut[i] = true;
            excess = excess.saturating_sub(n - 1);
        }
    }
    for (c, cut) in app.run.checks.iter().zip(cut) {
        let (word, style) = match c.status {
            Status::Pass => (app.t("ui-verdict-pass"), t.ok),
            Status::Fail => (app.t("ui-verdict-fail"), t.fail),
            Status::Skip => (app.t("ui-verdict-skip"), t.dim),
        };
        let detail = check_detail(app, c);
        let mut parts = textwrap::wrap(&detail, width);
        if cut {
            let first = textwrap::wrap(&detail, width.saturating_sub(1)).swap_remove(0);
            parts = vec![format!("{}…", first.trim_end()).into()];
        }
        for (i, part) in parts.into_iter().enumerate() {
            let left = if i == 0 {
                vec![
                    Span::styled(format!("{} {word} ", verdict(c.status)), style),
                    Span::styled(format!("{:<14}", c.name.as_str()), t.title),
                ]
            } else {
                vec![Span::raw(" ".repeat(LEFT))]
            };
            lines.push(Line::from(
                [left, vec![Span::raw(part.into_owned())]].concat(),
            ));
        }
    }
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(format!(" {} ", app.t("ui-checks-title"))))
        .render(area, buf);
}
