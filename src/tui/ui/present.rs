//! Presenter mode, for the back of the room: the current step's path and
//! shape in large text (at a failure, the operand shapes that do not fit),
//! the attention weights as a large heatmap with their values and row
//! sums, the step's why, and the block diagram.
//!
//! ```text
//! ┌ path, large: about 1/6 of the height ─────────────────────────────────┐
//! │ shape (or failing operands), large: about 1/5 of the height           │
//! │ step 9 of 37 · (B=2,h=4,T=4,T=4) ◆ leaves (B,T,d)                     │
//! ├ heatmap (when the step has values) ──────────────┬ why ───────────────┤
//! │ q0 █ 1.00 ╳╳╳╳╳╳ …                       Σ 1.00 ├ diagram ───────────┤
//! └──────────────────────────────────────────────────┴────────────────────┘
//! ```

mod big;

use super::diagram;
use super::heatmap::{self, Grid};
use crate::shape::fmt_shape;
use crate::trace::{Event, Failure};
use crate::tui::app::{App, Row};
use crate::why::Why;
use big::fit;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget};

/// The why of a step, in plain words; a log of schema 1 has none, so its
/// formula stands in.
fn why_of(app: &App, e: &Event) -> String {
    match e.why_text() {
        "" => app.say(super::detail::formula_in(app.lang, &e.formula)),
        why => app.step_why(e.why.as_ref(), why),
    }
}

/// What the presenter shows for one row.
struct Slide {
    path: String,
    /// The shape, or at a failure its operands' shapes.
    shape: String,
    mark: String,
    why: String,
    formula: String,
    style: Style,
}

fn slide(app: &App) -> Option<Slide> {
    let t = app.theme;
    Some(match app.row(app.cursor)? {
        Row::Event(e) if app.hidden(app.cursor) => Slide {
            path: e.path.clone(),
            shape: "?".into(),
            mark: app.t("ui-present-predict"),
            why: if app.quiz().is_some() {
                app.t("ui-present-quiz-first")
            } else {
                app.t("ui-present-reveal")
            },
            formula: String::new(),
            style: t.dim,
        },
        Row::Event(e) => Slide {
            path: e.path.clone(),
            shape: fmt_shape(&e.shape),
            mark: format!("{} {}", e.named_shape(), super::steps::marker(app, e)),
            why: why_of(app, e),
            formula: app.say(super::detail::formula_in(app.lang, &e.formula)),
            style: if e.departs { t.departs } else { t.title },
        },
        Row::Failure(f) => Slide {
            path: f.path.clone(),
            shape: operands(f),
            mark: app.tr(&Why::new("ui-present-stops").arg("check", f.check.as_str())),
            // The detail in the app's language, as the Detail pane and the
            // Checks tab show it.
            why: match f.why_text() {
                "" => super::words::failure_detail(app, f),
                why => format!(
                    "{}\n{}",
                    app.step_why(f.why.as_ref(), why),
                    super::words::failure_detail(app, f)
                ),
            },
            formula: failed_operands(app, f),
            style: t.fail,
        },
    })
}

/// The failing operands' shapes: `(2,4,64)+(2,4,256)` at a residual add.
fn operands(f: &Failure) -> String {
    let join = if f.residual.is_some() { "+" } else { " " };
    let shapes: Vec<String> = f.operands.iter().map(|o| fmt_shape(&o.shape)).collect();
    if shapes.is_empty() {
        "✗".into()
    } else {
        shapes.join(join)
    }
}

/// Each operand with its path, and the fault that broke the model.
fn failed_operands(app: &App, f: &Failure) -> String {
    let ops: Vec<String> = f
        .operands
        .iter()
        .map(|o| format!("{} {}", o.path, fmt_shape(&o.shape)))
        .collect();
    let fault = app.cfg().fault.map_or_else(String::new, |x| {
        let line = Why::new("ui-fault-line")
            .arg("fault", x.to_string())
            .arg("what", super::words::fault_text(app, x));
        format!(" · {}", app.tr(&line))
    });
    format!("{}{}{fault}", app.t("ui-operands"), ops.join(" · "))
}

/// The path, and without its block prefix if that is too long.
fn path_texts(path: &str) -> Vec<String> {
    let mut v = vec![path.to_string()];
    if let Some((_, rest)) = path.split_once('.') {
        v.push(rest.to_string());
    }
    v
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let Some(s) = slide(app) else { return };
    let path = fit(&path_texts(&s.path), area.width, (area.height / 6).max(4));
    let shape = fit(
        std::slice::from_ref(&s.shape),
        area.width,
        (area.height / 5).max(4),
    );
    let [path_area, shape_area, mark_area, lower] = area.layout(&Layout::vertical([
        Constraint::Length(path.height),
        Constraint::Length(shape.height),
        Constraint::Length(1),
        Constraint::Min(0),
    ]));
    path.render(t.title, path_area, buf);
    shape.render(s.style, shape_area, buf);
    let autoplay = match app.autoplay {
        Some(a) if a.paused => format!(" · {}", app.t("ui-present-paused")),
        Some(_) => format!(" · {}", app.t("ui-present-autoplay")),
        None => String::new(),
    };
    // The failure's row comes after the last recorded step: it is no step.
    let step = match app.row(app.cursor) {
        Some(Row::Failure(_)) => {
            Why::new("ui-present-after").arg("step", app.cursor.saturating_sub(1))
        }
        _ => Why::new("ui-present-step").arg("step", app.cursor),
    }
    .arg("total", app.run.trace.step_count());
    Paragraph::new(Line::styled(
        format!(" {} · {}{autoplay}", app.tr(&step), s.mark),
        s.style,
    ))
    .render(mark_area, buf);
    let grid = match app.row(app.cursor) {
        Some(Row::Event(e)) if !app.hidden(app.cursor) => {
            let mask = heatmap::Reach::at(&app.run.trace, e.block().unwrap_or(1));
            Grid::of(e, app.head, mask).map(|g| g.speaking((app.lang, app.ascii)))
        }
        _ => None,
    };
    let why = |area: Rect, buf: &mut Buffer| {
        let block = Block::bordered().title(format!(" {} ", app.t("ui-present-why")));
        let inner = block.inner(area);
        Paragraph::new(why_lines(app, &s, inner.width, inner.height))
            .block(block)
            .render(area, buf);
    };
    let Some(g) = grid else {
        let [d, w] = lower.layout(&Layout::horizontal([
            Constraint::Length(38),
            Constraint::Min(0),
        ]));
        diagram::render(app, d, buf);
        why(w, buf);
        return;
    };
    let side = (lower.width * 3 / 10).max(40).min(lower.width / 2);
    let [heat, right] = lower.layout(&Layout::horizontal([
        Constraint::Min(0),
        Constraint::Length(side),
    ]));
    render_heat(app, &g, heat, buf);
    if right.height >= 16 {
        let [w, d] = right.layout(&Layout::vertical([
            Constraint::Min(0),
            Constraint::Length(10),
        ]));
        why(w, buf);
        diagram::render(app, d, buf);
    } else {
        why(right, buf);
    }
}

/// The slide's why wrapped to `width` in at most `rows` lines: whole, with
/// its formula below when that fits too; else the whole sentences that
/// fit and a note that the rest is in the Detail pane (`w` there shows it
/// all), never a sentence cut in its middle.
fn why_lines(app: &App, s: &Slide, width: u16, rows: u16) -> Vec<Line<'static>> {
    let t = app.theme;
    let (width, rows) = (usize::from(width).max(1), usize::from(rows));
    let wrap = |text: &str| -> Vec<String> {
        text.lines()
            .flat_map(|l| {
                let w = textwrap::wrap(l, width);
                if w.is_empty() {
                    vec![String::new()]
                } else {
                    w.into_iter().map(std::borrow::Cow::into_owned).collect()
                }
            })
            .collect()
    };
    let styled = |lines: Vec<String>, style| -> Vec<Line<'static>> {
        lines.into_iter().map(|l| Line::styled(l, style)).collect()
    };
    let why = wrap(&s.why);
    let formula = if s.formula.is_empty() || s.formula == s.why {
        Vec::new()
    } else {
        wrap(&s.formula)
    };
    if why.len() <= rows {
        let mut out = styled(why, t.title);
        if out.len() + 1 + formula.len() <= rows && !formula.is_empty() {
            out.push(Line::raw(""));
            out.extend(styled(formula, t.dim));
        }
        return out;
    }
    // Too long: the longest run of whole sentences that fits above the note.
    let note = wrap(app.t("ui-present-why-more").trim_start());
    let room = rows.saturating_sub(note.len());
    let kept = sentence_ends(&s.why)
        .into_iter()
        .rev()
        .map(|end| s.why[..end].trim_end())
        .find(|head| wrap(head).len() <= room)
        .unwrap_or("");
    let mut out = if kept.is_empty() {
        Vec::new()
    } else {
        styled(wrap(kept), t.title)
    };
    out.extend(styled(note, t.dim));
    out
}

/// Where each sentence of `text` ends (byte offsets): after `.` `?` `!`
/// before a blank or the end, after `。` `？` `！`, and at a line's end.
fn sentence_ends(text: &str) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let ends_here = match c {
            '。' | '？' | '！' => true,
            '.' | '?' | '!' => next.is_none_or(char::is_whitespace),
            _ => next == Some('\n'),
        };
        if ends_here {
            ends.push(i + c.len_utf8());
        }
    }
    ends
}

/// The large heatmap in a box titled with what its rows and columns are.
fn render_heat(app: &App, g: &Grid, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered();
    let inner = block.inner(area);
    let scroll = heatmap::big::render(g, app.col, inner, buf, app.theme);
    let title = g.title(usize::from(area.width.saturating_sub(4)), scroll);
    block.title(format!(" {title} ")).render(area, buf);
}
