//! The FFN-by-hand lab: the lesson's FFN one product at a time. Done steps
//! show ✓ (✗ where the mistake is made), the current one ▶, later ones
//! stay hidden; `x` switches on one of the lesson's hand-computation
//! mistakes (marked ✗ and named, with what it did to the numbers), `s` the
//! gated variant (SwiGLU).
//!
//! ```text
//! ┌ FFN by hand: d = 2 → 3 → 2, ReLU, no biases · step 1 of 10 ┐
//! │x  = [1, 2]   (e edits x · x mistake · s gated)             │
//! │W1 = …                                                      │
//! │z = x·W1     ▶ z_1 = 1*1 + 2*0 = 1      (steps, scrolled)   │
//! │…                                                           │
//! │notes: the vectors, the residual, the mistake's effect      │
//! └────────────────────────────────────────────────────────────┘
//! ```

use crate::lesson::by_hand::{Mistake, Stage};
use crate::lesson::fmt_vec;
use crate::tui::app::App;
use crate::why::Why;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

fn stage_label(s: Stage, gated: bool, mistake: Mistake) -> &'static str {
    match (s, gated) {
        (Stage::Relu, false) if mistake == Mistake::ReluAfterW2 => "h = z      ",
        (Stage::Relu, true) if mistake == Mistake::ReluAfterW2 => "h = g⊙u    ",
        (Stage::Hidden, false) => "z = x·W1   ",
        (Stage::Hidden, true) => "g = x·Wg   ",
        (Stage::Up, _) => "u = x·Wu   ",
        (Stage::Relu, false) => "h = ReLU(z)",
        (Stage::Relu, true) => "h = silu⊙u ",
        (Stage::Output, false) => "y = h·W2   ",
        (Stage::Output, true) => "y = h·Wd   ",
        (Stage::ActAfter, _) => "✗ act(y)   ",
        (Stage::Residual, _) => "x + y      ",
    }
}

/// Lines of `lines` once wrapped at `width` (words may wrap early: +1 each).
fn wrapped_height(lines: &[Line], width: u16) -> u16 {
    let w = usize::from(width.max(1));
    let n: usize = lines.iter().map(|l| l.width().div_ceil(w).max(1)).sum();
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// The notes under the steps: the vectors once all are shown, the
/// residual's verdict, and the mistake and what it did.
fn notes(app: &App) -> Vec<Line<'static>> {
    let t = app.theme;
    let lab = &app.labs.ffn;
    let ex = &lab.ex;
    let mut lines = Vec::new();
    let done = lab.shown == ex.steps.len();
    if done && ex.stopped.is_none() {
        let out = if ex.out.is_empty() {
            String::new()
        } else {
            format!("  x + y = {}", fmt_vec(&ex.out))
        };
        lines.push(Line::raw(format!(
            "z = {}  h = {}  y = {}{out}",
            fmt_vec(&ex.z),
            fmt_vec(&ex.h),
            fmt_vec(&ex.y)
        )));
        lines.push(Line::raw(ex.rows_view()));
        let off = ex.off_units();
        if !off.is_empty() {
            let units: Vec<String> = off.iter().map(ToString::to_string).collect();
            let off = Why::new("ui-ffn-off").arg("units", units.join(&app.t("ui-and")));
            lines.push(Line::styled(app.tr(&off), t.departs));
        }
        if let Some(note) = ex.residual_note_in(app.lang) {
            lines.push(Line::styled(note, t.fail));
        }
    }
    match (ex.mistake, done) {
        (Mistake::None, true) => {}
        (_, true) => lines.extend(
            ex.mistake_note_in(app.lang)
                .map(|n| Line::styled(n, t.fail)),
        ),
        (Mistake::None, false) => lines.push(Line::styled(app.t("ui-ffn-keys"), t.dim)),
        (m, false) => lines.push(Line::styled(
            app.tr(&Why::new("ui-ffn-mistake-on")
                .arg("name", m.name())
                .arg("what", m.what_in(app.lang))),
            t.fail,
        )),
    }
    lines
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let lab = &app.labs.ffn;
    let ex = &lab.ex;
    let gated = ex.wu.is_some();
    let mut head = vec![Line::from(vec![
        Span::styled("x  = ", t.title),
        Span::raw(fmt_vec(&ex.x)),
        Span::styled(format!("   {}", app.t("ui-ffn-head-keys")), t.dim),
    ])];
    head.extend(ex.matrix_lines_in(app.lang).into_iter().map(Line::raw));
    if ex.mistake != Mistake::None {
        head.push(Line::styled(
            app.tr(&Why::new("ui-ffn-mistake-head").arg("name", ex.mistake.name())),
            t.fail,
        ));
    }
    let title = Why::new("ui-ffn-title")
        .arg("what", ex.title_in(app.lang))
        .arg("step", lab.shown)
        .arg("steps", ex.steps.len());
    let title = format!(" {} ", app.tr(&title));
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    let notes = notes(app);
    let head_h = wrapped_height(&head, inner.width);
    let notes_h = wrapped_height(&notes, inner.width);
    let [top, steps_area, bottom] = inner.layout(&Layout::vertical([
        Constraint::Length(head_h + 1),
        Constraint::Fill(1),
        Constraint::Length(notes_h),
    ]));
    Paragraph::new(head)
        .wrap(Wrap { trim: false })
        .render(top, buf);
    // A window of the steps that keeps the current one in sight.
    let rows = usize::from(steps_area.height);
    let start = lab
        .shown
        .saturating_sub(rows)
        .min(ex.steps.len().saturating_sub(rows));
    let mut lines = Vec::new();
    let mut last_stage = None;
    for (i, step) in ex.steps.iter().enumerate() {
        let label = if last_stage == Some(step.stage) && i != start {
            "           ".to_string()
        } else {
            stage_label(step.stage, gated, ex.mistake).to_string()
        };
        last_stage = Some(step.stage);
        if i < start {
            continue;
        }
        // A step the mistake is made in is marked ✗, never ✓.
        let (mark, body, style) = if i + 1 < lab.shown && step.mistaken {
            ("✗", step.text_in(app.lang), t.fail)
        } else if i + 1 < lab.shown {
            ("✓", step.text_in(app.lang), t.base)
        } else if i + 1 == lab.shown {
            ("▶", step.text_in(app.lang), t.lit)
        } else {
            (" ", format!("{} = …", step.name), t.dim)
        };
        let label_style = if step.stage == Stage::ActAfter {
            t.fail
        } else {
            t.title
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{label}  "), label_style),
            Span::raw(format!("{mark} ")),
            Span::styled(body, style),
        ]));
    }
    Paragraph::new(lines).render(steps_area, buf);
    Paragraph::new(notes)
        .wrap(Wrap { trim: false })
        .render(bottom, buf);
}
