//! Draws the app. One module per pane, each with `render(app, area, buf)`.
//!
//! ```text
//! ┌──────────────────────────────── header: model, tabs, fault ─────────────────┐
//! │ step path                 shape                  dtype marker              │
//! │▶  5 block1.attn.q         (B=2,h=4,T=4,hd=16)    f32   ◆ leaves (B,T,d)    │ steps
//! │   …                                                                        │
//! ├─ diagram of the current block ─────┬─ detail: op, formula, stats, heatmap ─┤
//! │ x ─┬─▶ ln_1 ─▶[attn]─┐             │ block1.attn.q · split_heads            │
//! │    └──────────────▶ ⊕ resid_1 ✓    │ split into 4 heads : (2,4,64) → …      │
//! ├────────────────────────────────────┴───────────────────────────────────────┤
//! │ contract: ✓ 4/4 residual adds · ◆ 16 departures · 0 failures               │ footer
//! │ fault → ffn-no-down: ✗ residual stops the forward at block1.resid_2        │
//! │ ←→ step  n/N departure  r add  a m p f switch  z quiz  P present  ? help    │
//! └────────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! Presenter mode swaps the steps and detail for the current step's path and
//! shape in large text. Help and the quiz prompt draw over the screen.

pub mod ascii;
mod budget;
pub mod budget_charts;
mod checks;
mod detail;
mod diagram;
mod edit;
mod ffn;
mod footer;
mod header;
mod heatmap;
pub use heatmap::num;
mod help;
mod norms;
mod present;
mod probes;
mod quiz;
mod small;
mod split;
mod steps;
mod width;
mod words;

use super::app::{App, Tab};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Widget;

/// The smallest terminal the full screen fits in.
pub const MIN_SIZE: (u16, u16) = (80, 24);

/// Where each pane goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// The model, the tabs and the fault: two rows at the top.
    pub header: Rect,
    /// The step list.
    pub steps: Rect,
    /// The diagram of the current block, lower left.
    pub diagram: Rect,
    /// The current step's op, formula, why, stats and heatmap, lower right.
    pub detail: Rect,
    /// The contract line, a message if any, and the key hints.
    pub footer: Rect,
}

/// The pane layout of `app`'s screen of `area`: the footer has a row for
/// each row of its message (at most two) besides the contract and the key
/// hints, and one for the gauge of a trace running in the background.
#[must_use]
pub fn areas(app: &App, area: Rect) -> Areas {
    let footer_rows = 2 + footer::message_rows(app, area.width) + u16::from(app.progress.is_some());
    let [header, body, footer] = area.layout(&Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(0),
        Constraint::Length(footer_rows),
    ]));
    // The lower panes need 12 rows for a T=4 heatmap; the list takes the rest.
    let lower_h = (body.height * 45 / 100).max(12).min(body.height);
    let [steps, lower] = body.layout(&Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(lower_h),
    ]));
    // The diagram grows with the screen (its `now` line holds a whole
    // named shape and marker) but leaves the detail the larger part.
    let diagram_w = (lower.width * 3 / 10).clamp(38, 60);
    let [diagram, detail] = lower.layout(&Layout::horizontal([
        Constraint::Length(diagram_w),
        Constraint::Min(0),
    ]));
    Areas {
        header,
        steps,
        diagram,
        detail,
        footer,
    }
}

/// The step under the mouse at (`x`, `y`), if any.
#[must_use]
pub fn step_at(app: &App, area: Rect, x: u16, y: u16) -> Option<usize> {
    if app.presenting() || app.overlay.help().is_some() || app.tab != Tab::Steps || too_small(area)
    {
        return None;
    }
    if let (true, Some(s)) = (app.split_shown(), &app.split) {
        let a = areas(app, area);
        let body = Rect {
            height: a.footer.y - a.steps.y,
            ..a.steps
        };
        let list = split::list_area(body);
        if !list.contains(ratatui::layout::Position { x, y }) {
            return None;
        }
        let row = split::offset(s, list.height) + usize::from(y - list.y);
        return (row < s.cmp.steps.len()).then_some(row);
    }
    let list = steps::list_area(areas(app, area).steps);
    if !list.contains(ratatui::layout::Position { x, y }) {
        return None;
    }
    let row = steps::offset(app, list.height) + usize::from(y - list.y);
    (row < app.rows()).then_some(row)
}

fn too_small(area: Rect) -> bool {
    area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        self.draw(area, buf);
        // --ascii: the glyphs and box drawing as ASCII, cell for cell.
        if self.ascii {
            ascii::asciify(buf, area);
        }
    }
}

impl App {
    /// Every part of the screen the app shows.
    fn draw(&self, area: Rect, buf: &mut Buffer) {
        buf.set_style(area, self.theme.base);
        if too_small(area) {
            small::render(self, area, buf);
            return;
        }
        let a = areas(self, area);
        header::render(self, a.header, buf);
        footer::render(self, a.footer, buf);
        let body = Rect {
            y: a.steps.y,
            height: a.footer.y - a.steps.y,
            ..a.steps
        };
        if self.presenting() {
            present::render(self, body, buf);
        } else {
            match self.tab {
                Tab::Steps if self.split_shown() => split::render(self, body, buf),
                Tab::Steps => {
                    steps::render(self, a.steps, buf);
                    diagram::render(self, a.diagram, buf);
                    detail::render(self, a.detail, buf);
                }
                Tab::Checks => checks::render(self, body, buf),
                Tab::Ffn => ffn::render(self, body, buf),
                Tab::Norms => norms::render(self, body, buf),
                Tab::Budget => budget::render(self, body, buf),
                Tab::Probes => probes::render(self, body, buf),
            }
        }
        if self.labs.editing.is_some() {
            edit::render(self, body, buf);
        }
        if self.quiz().is_some() {
            quiz::render(self, body, buf);
        }
        if let Some(at) = self.overlay.help() {
            help::render(self, at, area, buf);
        }
    }
}
