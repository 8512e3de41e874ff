//! The split view (`--compare RIGHT`): both models' steps aligned row by
//! row, each row marked by what differs, and below them the selected
//! row's two sides in words.
//!
//! ```text
//!     path                lesson               lesson-post-ln
//! ▶ ≠ block1.ln_1         (B=2,T=4,d=64) f32   (B=2,T=4,d=64) f32
//!   = block1.attn.q       (B=2,h=4,T=4,hd=16)  (B=2,h=4,T=4,hd=16)
//! ┌ block1.ln_1 · ≠ inputs, position ──────────────────────────────┐
//! │◀ lesson          #1 layernorm · reads input                     │
//! │▶ lesson-post-ln  #4 layernorm · reads block1.resid_1            │
//! │12 same · 4 changed · params same · FLOPs/token same             │
//! └ b: a m p f switch ◀ lesson ─────────────────────────────────────┘
//! ```
//!
//! Every mark is a glyph, and a word in the box: `=` same, `≠` changed,
//! `<` only left, `>` only right (not `◀` `▶`, which point at the row
//! selected and at the sides in the box).

use super::width::{pad, take};
use crate::compare::{Side, Status, Step};
use crate::report::compare::{self, change, status_in};
use crate::tui::app::App;
use crate::tui::app::split::{Focus, Split};
use crate::why::Why;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};
use unicode_width::UnicodeWidthStr;

/// Rows of the box under the list.
const DETAIL_ROWS: u16 = 7;

/// The list's rows and the box under it.
fn areas(area: Rect) -> (Rect, Rect) {
    let [list, detail] = area.layout(&Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(DETAIL_ROWS.min(area.height)),
    ]));
    (list, detail)
}

/// The rows of the list inside the split view's `area`, below its heading.
#[must_use]
pub fn list_area(area: Rect) -> Rect {
    let (list, _) = areas(area);
    Rect {
        y: list.y + 1,
        height: list.height.saturating_sub(1),
        ..list
    }
}

/// The first aligned row shown, keeping the selected one in view.
#[must_use]
pub fn offset(split: &Split, height: u16) -> usize {
    super::steps::first_row(split.row, split.cmp.steps.len(), height)
}

/// `s` cut (with `…`) or padded to `w` columns.
fn cell(s: &str, w: usize) -> String {
    if s.width() > w {
        format!("{}…", take(s, w.saturating_sub(1)))
    } else {
        pad(s, w)
    }
}

/// The glyph of a row's status.
fn glyph(s: &Step) -> &'static str {
    match s.status {
        Status::Same => "=",
        Status::Changed => "≠",
        Status::OnlyLeft => "<",
        Status::OnlyRight => ">",
    }
}

/// Draws the split view of `app` into `area`.
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(split) = &app.split else { return };
    let t = app.theme;
    let (list, detail) = areas(area);
    // pointer 2, mark 2, then path and the two sides share the rest.
    let rest = usize::from(list.width).saturating_sub(4);
    let wp = rest * 30 / 100;
    let ws = (rest - wp) / 2;
    let c = &split.cmp;
    let head = format!(
        "    {}{}{}",
        cell(&app.t("ui-col-path"), wp),
        cell(&crate::text::shown(&c.left).to_string(), ws),
        cell(&crate::text::shown(&c.right).to_string(), ws)
    );
    Paragraph::new(Line::styled(head, t.title)).render(Rect { height: 1, ..list }, buf);
    let rows = list_area(area);
    let first = offset(split, rows.height);
    let lines: Vec<Line> = c
        .steps
        .iter()
        .enumerate()
        .skip(first)
        .take(usize::from(rows.height))
        .map(|(i, s)| {
            let style: Style = match s.status {
                Status::Same => t.base,
                Status::Changed => t.departs,
                Status::OnlyLeft | Status::OnlyRight => t.fail,
            };
            let pointer = if i == split.row { "▶ " } else { "  " };
            let body = format!(
                "{} {}{}{}",
                glyph(s),
                cell(&s.path, wp),
                cell(&compare::cell(s.left.as_ref()), ws),
                cell(&compare::cell(s.right.as_ref()), ws)
            );
            let line = Line::from(vec![Span::raw(pointer), Span::styled(body, style)]);
            if i == split.row {
                line.patch_style(t.cursor)
            } else {
                line
            }
        })
        .collect();
    Paragraph::new(lines).render(rows, buf);
    render_detail(app, split, detail, buf);
}

/// The selected row's two sides: step, op and what each reads; the steps
/// by state and the counts' differences; the side the switches act on.
fn render_detail(app: &App, split: &Split, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let c = &split.cmp;
    let Some(step) = c.steps.get(split.row) else {
        return;
    };
    let (l, r) = (
        crate::text::shown(&c.left).to_string(),
        crate::text::shown(&c.right).to_string(),
    );
    let w = l.width().max(r.width());
    let side = |glyph: &str, name: &str, s: Option<&Side>| {
        let what = s.map_or_else(
            || app.t("ui-split-no-step"),
            |s| {
                let reads = if s.inputs.is_empty() {
                    app.t("ui-split-reads-nothing")
                } else {
                    s.inputs.join(", ")
                };
                app.tr(&Why::new("ui-split-reads")
                    .arg("step", s.step)
                    .arg("op", s.op.as_str())
                    .arg("reads", reads))
            },
        );
        Line::from(format!("{glyph} {}  {what}", cell(name, w)))
    };
    let sum = c.summary;
    let mut counts = app.tr(&Why::new("ui-split-summary")
        .arg("same", sum.same)
        .arg("changed", sum.changed)
        .arg("only_left", sum.only_left)
        .arg("only_right", sum.only_right)
        .arg("left", l.as_str())
        .arg("right", r.as_str()));
    // The counts that differ; none is said in one phrase.
    let differ: Vec<String> = c
        .counts
        .iter()
        .filter(|k| k.delta != Some(0))
        .map(|k| {
            let what = app.t(&format!("ui-count-{}", k.what.replace(' ', "-")));
            format!("{what} {}", change(k.delta))
        })
        .collect();
    if differ.is_empty() {
        counts.push_str(&format!(" · {}", app.t("ui-split-counts-same")));
    } else {
        counts.push_str(&format!(" · {}", differ.join(" · ")));
    }
    let mut lines = vec![
        side("◀", &l, step.left.as_ref()),
        side("▶", &r, step.right.as_ref()),
        Line::styled(counts, t.dim),
    ];
    for stop in [&c.left_stopped, &c.right_stopped].into_iter().flatten() {
        lines.push(Line::styled(format!("✗ {stop}"), t.fail));
    }
    let (glyph, name) = match split.focus {
        Focus::Left => ("◀", l),
        Focus::Right => ("▶", r),
    };
    let title = format!(" {} · {} ", step.path, status_in(app.lang, c, step));
    let bottom = app.tr(&Why::new("ui-split-bottom")
        .arg("glyph", glyph)
        .arg("name", name));
    let block = Block::bordered()
        .border_style(t.dim)
        .title(Line::styled(title, t.title))
        .title_bottom(format!(" {bottom} "));
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(block)
        .render(area, buf);
}
