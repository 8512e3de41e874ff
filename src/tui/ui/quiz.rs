//! The quiz over the stepper: the question (and its follow-up when the
//! sizes fit two axis orders) while one is open; after an answer, the
//! verdict, the step's why and the steps shown without a question.

use crate::shape::fmt_shape;
use crate::tui::app::{App, Row, Tab};
use crate::why::Why;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Padding, Paragraph, Widget, Wrap};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(q) = app.quiz() else { return };
    if q.asking.is_some() {
        question(app, area, buf);
    } else if (q.feedback.is_some() || q.also.is_some())
        && app.tab == Tab::Steps
        && !app.presenting()
    {
        verdict(app, area, buf);
    }
}

fn question(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let Some(q) = app.quiz() else { return };
    let Some(Row::Event(e)) = q.asking.and_then(|i| app.row(i)) else {
        return;
    };
    let from: Vec<String> = e
        .inputs
        .iter()
        .filter_map(|p| app.run.trace.get(p))
        .map(|i| format!("{} {}", i.path, fmt_shape(&i.shape)))
        .collect();
    let mut lines = vec![
        Line::styled(
            app.tr(&Why::new("ui-quiz-step")
                .arg("step", e.step)
                .arg("path", e.path.as_str())
                .arg("op", e.op_label())),
            t.title,
        ),
        Line::raw(app.tr(&Why::new("ui-quiz-of").arg("from", from.join(", ")))),
    ];
    if let Some(also) = &q.also {
        lines.push(Line::styled(also.clone(), t.dim));
    }
    let prompt = match &q.follow_up {
        Some(f) => {
            lines.push(Line::styled(format!("? {}", app.tr(&f.why)), t.key));
            app.t("ui-quiz-which")
        }
        None => app.t("ui-quiz-predict"),
    };
    lines.push(Line::from(vec![
        Span::raw(prompt),
        Span::styled(format!("{}█", q.input), t.key),
    ]));
    lines.push(Line::styled(
        app.tr(&Why::new("ui-quiz-keys")
            .arg("right", q.right)
            .arg("asked", q.asked)),
        t.dim,
    ));
    if let Some(msg) = &q.invalid {
        lines.push(Line::styled(format!("✗ {msg}"), t.fail));
    }
    let title = format!(" {} ", app.t("ui-quiz-title"));
    popup(lines, &title, t.key, area, buf, true);
}

fn verdict(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let Some(q) = app.quiz() else { return };
    let mut lines = Vec::new();
    if let Some((ok, msg)) = &q.feedback {
        lines.push(Line::styled(msg.clone(), if *ok { t.ok } else { t.fail }));
    }
    if let Some(why) = &q.why {
        lines.push(Line::raw(format!("{}{why}", app.t("ui-why"))));
    }
    if let Some(also) = &q.also {
        lines.push(Line::styled(also.clone(), t.dim));
    }
    let title = Why::new("ui-quiz-verdict-title")
        .arg("right", q.right)
        .arg("asked", q.asked);
    let title = format!(" {} ", app.tr(&title));
    popup(lines, &title, t.key, area, buf, false);
}

/// Draws `lines` in a bordered box: centred, or along the bottom of `area`.
fn popup(
    lines: Vec<Line>,
    title: &str,
    border: Style,
    area: Rect,
    buf: &mut Buffer,
    centred: bool,
) {
    let w = if centred {
        area.width.min(76)
    } else {
        area.width
    };
    let inner = usize::from(w.saturating_sub(4)).max(1);
    let rows: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    let h = u16::try_from(rows + 2).unwrap_or(8).min(area.height);
    let at = if centred {
        area.centered(Constraint::Length(w), Constraint::Length(h))
    } else {
        Rect {
            y: area.bottom().saturating_sub(h),
            height: h,
            ..area
        }
    };
    super::width::clear(at, buf);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(
            Block::bordered()
                .title(title.to_string())
                .border_style(border)
                .padding(Padding::horizontal(1)),
        )
        .render(at, buf);
}
