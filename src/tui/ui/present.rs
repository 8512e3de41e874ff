//! Presenter mode: the current step's path and shape in large text, with
//! the block diagram and the formula, for the back of the room.

use super::diagram;
use crate::tui::app::{App, Row};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};
use tui_big_text::{BigText, PixelSize};

fn big(text: String, style: ratatui::style::Style, area: Rect, buf: &mut Buffer) {
    BigText::builder()
        .pixel_size(PixelSize::Quadrant)
        .style(style)
        .lines(vec![Line::from(text)])
        .build()
        .render(area, buf);
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let [path_area, shape_area, mark_area, lower] = area.layout(&Layout::vertical([
        Constraint::Length(4),
        Constraint::Length(4),
        Constraint::Length(1),
        Constraint::Min(0),
    ]));
    let [diagram_area, text_area] = lower.layout(&Layout::horizontal([
        Constraint::Length(38),
        Constraint::Min(0),
    ]));
    // Four cells per character: drop the block prefix when the path is too long.
    let fit = |s: &str| {
        let max = usize::from(area.width / 4);
        if s.chars().count() <= max {
            s.to_string()
        } else {
            s.split_once('.').map_or(s, |(_, r)| r).to_string()
        }
    };
    let (path, shape, mark, formula, style) = match app.row(app.cursor) {
        Some(Row::Event(e)) if app.hidden(app.cursor) => (
            fit(&e.path),
            "?".to_string(),
            "predict the shape".to_string(),
            String::new(),
            t.dim,
        ),
        Some(Row::Event(e)) => {
            let mark = crate::report::table::marker(e);
            let style = if e.departs { t.departs } else { t.title };
            (
                fit(&e.path),
                crate::shape::fmt_shape(&e.shape),
                format!("{} {mark}", e.named_shape()),
                e.formula.clone(),
                style,
            )
        }
        Some(Row::Failure(f)) => (
            fit(&f.path),
            "✗".to_string(),
            format!("✗ {} stops the forward", f.check),
            f.detail.clone(),
            t.fail,
        ),
        None => (
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            t.base,
        ),
    };
    big(path, t.title, path_area, buf);
    big(shape, style, shape_area, buf);
    Paragraph::new(Line::styled(
        format!(
            " step {} of 0–{} · {mark}",
            app.cursor,
            app.rows().saturating_sub(1)
        ),
        style,
    ))
    .render(mark_area, buf);
    diagram::render(app, diagram_area, buf);
    let paused = match app.autoplay {
        Some(a) if a.paused => "autoplay paused (space resumes)",
        Some(_) => "autoplay on (space pauses)",
        None => "",
    };
    Paragraph::new(vec![
        Line::raw(formula),
        Line::raw(""),
        Line::styled(paused, t.dim),
    ])
    .wrap(Wrap { trim: false })
    .block(Block::bordered().title(" Formula "))
    .render(text_area, buf);
}
