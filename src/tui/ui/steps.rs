//! The step list: step, path, shape with named axes, dtype, marker.

use crate::shape::fmt_shape;
use crate::tui::app::{App, Row};
use crate::why::Why;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

/// The rows of the list inside `area`, below the column heading.
#[must_use]
pub fn list_area(area: Rect) -> Rect {
    Rect {
        y: area.y + 1,
        height: area.height.saturating_sub(1),
        ..area
    }
}

/// The first row shown, keeping the cursor in view with context around it.
#[must_use]
pub fn offset(app: &App, height: u16) -> usize {
    let rows = app.rows() + usize::from(app.run.trace.failure.is_some());
    first_row(app.cursor, rows, height)
}

/// The first of `rows` shown in `height` lines with row `at` in the
/// middle, as far as the list's ends allow.
#[must_use]
pub fn first_row(at: usize, rows: usize, height: u16) -> usize {
    let h = usize::from(height).max(1);
    at.saturating_sub(h / 2).min(rows.saturating_sub(h))
}

/// `s` in a column `w` wide: padded, or cut with `…` and a space (by
/// columns: a wide character is never cut in two).
fn cell(s: &str, w: usize) -> String {
    if s.width() >= w {
        super::width::pad(
            &format!("{}…", super::width::take(s, w.saturating_sub(2))),
            w,
        )
    } else {
        super::width::pad(s, w)
    }
}

/// The marker of an event: an add's verdict, a departure, a return.
pub(super) fn marker(app: &App, e: &crate::trace::Event) -> String {
    marker_in(app, e, usize::MAX)
}

/// The marker of an event in at most `cols` columns: whole, else without
/// the add's operands (`✓ add`), else its glyph alone; never a shape or a
/// word cut short.
fn marker_in(app: &App, e: &crate::trace::Event, cols: usize) -> String {
    let whole = marker_of(app, e);
    if whole.width() <= cols {
        return whole;
    }
    let short = match &e.check {
        Some(c) if c.ok => app.t("ui-mark-add-ok-short"),
        Some(_) => app.t("ui-mark-add-bad-short"),
        None => String::new(),
    };
    if !short.is_empty() && short.width() <= cols {
        return short;
    }
    glyph(&whole, cols)
}

/// The first word of a marker (its glyph: ✓ ✗ ◆ ↩), if it fits in `cols`.
fn glyph(mark: &str, cols: usize) -> String {
    let g = mark.split(' ').next().unwrap_or("");
    if g.width() <= cols {
        g.to_string()
    } else {
        String::new()
    }
}

fn marker_of(app: &App, e: &crate::trace::Event) -> String {
    let why = match &e.check {
        Some(c) if c.ok => Why::new("ui-mark-add-ok").arg("ops", c.operands()),
        Some(c) => Why::new("ui-mark-add-bad").arg("ops", c.operands()),
        None if e.departs => {
            let what = e
                .leaves_dtype
                .map_or_else(|| "(B,T,d)".to_string(), |d| d.to_string());
            Why::new("ui-mark-leaves").arg("what", what)
        }
        None if e.returns => Why::new("ui-mark-returns"),
        None => return String::new(),
    };
    app.tr(&why)
}

/// Column widths (step, path, shape, dtype) that fit this trace.
fn widths(app: &App) -> [usize; 4] {
    let ev = &app.run.trace.events;
    let path = ev
        .iter()
        .map(|e| e.path.width())
        .chain(app.run.trace.failure.iter().map(|f| f.path.width()))
        .max()
        .unwrap_or(4);
    let shape = ev
        .iter()
        .map(|e| e.named_shape().width())
        .max()
        .unwrap_or(5);
    // Each column at least as wide as its heading, in the app's language.
    let head = |key: &str| app.t(key).width() + 1;
    [
        5.max(head("ui-col-step")),
        path.clamp(4, 26).max(head("ui-col-path")) + 2,
        shape.clamp(9, 28).max(head("ui-col-shape")) + 2,
        6.max(head("ui-col-dtype")),
    ]
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let [ws, wp, wsh, wd] = widths(app);
    let head = format!(
        "  {}{}{}{}{}",
        cell(&app.t("ui-col-step"), ws),
        cell(&app.t("ui-col-path"), wp),
        cell(&app.t("ui-col-shape"), wsh),
        cell(&app.t("ui-col-dtype"), wd),
        app.t("ui-col-marker")
    );
    Paragraph::new(Line::styled(head, t.title)).render(Rect { height: 1, ..area }, buf);
    let list = list_area(area);
    let first = offset(app, list.height);
    let mut lines = Vec::new();
    for i in first..first + usize::from(list.height) {
        let Some(row) = app.row(i) else {
            if app.run.trace.failure.is_some() && i == app.rows() {
                lines.push(Line::styled(
                    format!("  {}", app.t("ui-stopped-above")),
                    t.dim,
                ));
            }
            break;
        };
        let here = i == app.cursor;
        let pointer = if here { "▶ " } else { "  " };
        let (body, mark, style): (String, String, Style) = match row {
            Row::Event(e) if app.hidden(i) => (
                format!(
                    "{}{}{}{}",
                    cell(&e.step.to_string(), ws),
                    cell(&e.path, wp),
                    cell("?", wsh),
                    cell("", wd)
                ),
                String::new(),
                t.dim,
            ),
            Row::Event(e) => {
                let style = match &e.check {
                    Some(c) if c.ok => t.ok,
                    Some(_) => t.fail,
                    None if e.departs => t.departs,
                    None if e.returns => t.returns,
                    None => t.base,
                };
                let body = format!(
                    "{}{}{}{}",
                    cell(&e.step.to_string(), ws),
                    cell(&e.path, wp),
                    cell(&e.named_shape(), wsh),
                    cell(e.dtype.as_str(), wd)
                );
                // The marker has what is left of the row.
                let room = usize::from(list.width).saturating_sub(2 + body.width());
                match app.failed_at(&e.path) {
                    Some(c) => {
                        let here = Why::new("ui-fails-here").arg("check", c.name.as_str());
                        let here = app.tr(&here);
                        let here = if here.width() <= room {
                            here
                        } else {
                            format!("✗ {}", c.name.as_str())
                        };
                        (body, here, t.fail)
                    }
                    None => (body, marker_in(app, e, room), style),
                }
            }
            Row::Failure(f) => {
                let (shapes, culprit) = clash(f);
                let culprit = culprit.map(|c| app.tr(&c));
                // No dtype: the marker starts in its column.
                let body = format!(
                    "{}{}{}",
                    cell(&f.step.to_string(), ws),
                    cell(&f.path, wp),
                    cell(&shapes, wsh),
                );
                let mark = match culprit {
                    Some(c) => format!("✗ {c}"),
                    None => app.tr(&Why::new("ui-stops-here").arg("check", f.check.as_str())),
                };
                (body, mark, t.fail)
            }
        };
        // Departures and failures light the whole row; other marks only the marker.
        let loud = matches!(row, Row::Failure(_))
            || matches!(row, Row::Event(e) if e.departs && !app.hidden(i));
        let body_style = if loud { style } else { t.base };
        let mut spans = vec![
            Span::raw(pointer),
            Span::styled(body, body_style),
            Span::styled(mark, style),
        ];
        if here {
            spans = spans.into_iter().map(|s| s.patch_style(t.cursor)).collect();
        }
        lines.push(Line::from(spans));
    }
    Paragraph::new(lines).render(list, buf);
}

/// The failed step's operands as its op combines them, for the shape
/// column (`(2,4,64)·(64,256)` for a linear, `(2,4,64)+(2,4,256)` for an
/// add), and the operand to blame when the shapes name one: `bias (64)
/// should be (256)`.
fn clash(f: &crate::trace::Failure) -> (String, Option<Why>) {
    use crate::trace::OpKind;
    let s: Vec<String> = f.operands.iter().map(|o| fmt_shape(&o.shape)).collect();
    let get = |i: usize| f.operands.get(i).map(|o| o.shape.as_slice());
    match f.op {
        OpKind::Add => (s.join("+"), None),
        OpKind::Linear => {
            let product = s.iter().take(2).cloned().collect::<Vec<_>>().join("·");
            let blame = match (get(0), get(1), get(2)) {
                (Some(x), Some(w), _) if w.len() == 2 && x.last() != Some(&w[0]) => Some(
                    Why::new("ui-blame-linear")
                        .arg("x", x.last().copied().unwrap_or(0))
                        .arg("rows", w[0]),
                ),
                (_, Some(w), Some(b)) if w.len() == 2 && b != [w[1]] => Some(
                    Why::new("ui-blame-bias")
                        .arg("bias", fmt_shape(b))
                        .arg("cols", w[1]),
                ),
                _ => None,
            };
            (product, blame)
        }
        OpKind::Scores => (
            format!(
                "{}·{}ᵀ",
                s.first().map_or("", |x| x),
                s.get(1).map_or("", |x| x)
            ),
            None,
        ),
        OpKind::WeightedSum => (s.join("·"), None),
        _ => (s.join(", "), None),
    }
}
