//! Presenter mode, for the back of the room: the current step's path and
//! shape in large text (at a failure, the operand shapes that do not fit),
//! the attention weights as a large heatmap with their values and row
//! sums, the step's why, and the block diagram.
//!
//! ```text
//! ┌ path, large: about 1/6 of the height ─────────────────────────────────┐
//! │ shape (or failing operands), large: about 1/5 of the height           │
//! │ step 9 of 36 · (B=2,h=4,T=4,T=4) ◆ leaves (B,T,d)                     │
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
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

/// The why of a step, in plain words; a log of schema 1 has none, so its
/// formula stands in.
fn why_of(app: &App, e: &Event) -> String {
    match e.why_text() {
        "" => super::detail::formula_in(app.lang, &e.formula),
        why => app.lang.step_why(e.why.as_ref(), why).into_owned(),
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
            formula: super::detail::formula_in(app.lang, &e.formula),
            style: if e.departs { t.departs } else { t.title },
        },
        Row::Failure(f) => Slide {
            path: f.path.clone(),
            shape: operands(f),
            mark: app.tr(&Why::new("ui-present-stops").arg("check", f.check.as_str())),
            why: match f.why_text() {
                "" => f.detail.clone(),
                why => format!("{}\n{}", app.lang.step_why(f.why.as_ref(), why), f.detail),
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
    let step = Why::new("ui-present-step")
        .arg("step", app.cursor)
        .arg("last", app.rows().saturating_sub(1));
    Paragraph::new(Line::styled(
        format!(" {} · {}{autoplay}", app.tr(&step), s.mark),
        s.style,
    ))
    .render(mark_area, buf);
    let grid = match app.row(app.cursor) {
        Some(Row::Event(e)) if !app.hidden(app.cursor) => {
            let mask = heatmap::Reach::at(&app.run.trace, e.block().unwrap_or(1));
            Grid::of(e, app.head, mask).map(|g| g.in_lang(app.lang))
        }
        _ => None,
    };
    let mut why: Vec<Line> = s
        .why
        .lines()
        .map(|l| Line::styled(l.to_string(), t.title))
        .collect();
    if !s.formula.is_empty() && s.formula != s.why {
        why.push(Line::raw(""));
        why.push(Line::styled(s.formula.clone(), t.dim));
    }
    let why = Paragraph::new(why)
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(format!(" {} ", app.t("ui-present-why"))));
    let Some(g) = grid else {
        let [d, w] = lower.layout(&Layout::horizontal([
            Constraint::Length(38),
            Constraint::Min(0),
        ]));
        diagram::render(app, d, buf);
        why.render(w, buf);
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
        why.render(w, buf);
        diagram::render(app, d, buf);
    } else {
        why.render(right, buf);
    }
}

/// The large heatmap in a box titled with what its rows and columns are.
fn render_heat(app: &App, g: &Grid, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered();
    let inner = block.inner(area);
    let scroll = heatmap::big::render(g, app.col, inner, buf, app.theme);
    let title = g.title(usize::from(area.width.saturating_sub(4)), scroll);
    block.title(format!(" {title} ")).render(area, buf);
}
