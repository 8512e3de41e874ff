//! The heatmap for a projector: each cell a block of its shade as large as
//! the area allows, its value printed in the middle, masked cells filled
//! with `╳`, each row's sum beside it (`Σ 1.00` for softmax weights), a
//! legend line and the column labels above.
//!
//! Cell size: `cw = min(22, (W − labels − sums) / cols)` columns (a gap
//! included) and `ch = min(7, (H − 2) / rows)` lines. Every cell prints its
//! number when all of them fit; a small slice whose numbers do not fit, or
//! a wide one whose shades do not, scrolls from column `col` instead.

use super::{Cell, Grid, SHADES, num, scroll_note};
use crate::tui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

const LABEL_W: u16 = 4;
const SUM_W: u16 = 8;

/// Draws `g` from column `col` into `area` and returns the scroll note
/// (`cols 0–7 of 64 ◂ ▸ < >`) when not every column is shown.
pub fn render(g: &Grid, col: usize, area: Rect, buf: &mut Buffer, t: Theme) -> Option<String> {
    if area.height < 3 || area.width < LABEL_W + 4 {
        return None;
    }
    let sum_w = if g.sums { SUM_W } else { 0 };
    let avail = usize::from(area.width - LABEL_W - sum_w.min(area.width - LABEL_W));
    // Numbers whenever every column has room for one (a space each side);
    // a small slice keeps them and scrolls; else shades alone.
    let (num_w, fit_w) = (g.num_width() + 3, avail / g.cols);
    let (numbers, cw) = if fit_w >= num_w {
        (true, fit_w.min(22))
    } else if g.numbers() {
        (true, num_w.min(avail.max(1)))
    } else {
        (false, fit_w.clamp(1, 22))
    };
    let first = if g.cols * cw <= avail {
        0
    } else {
        g.first_col(col)
    };
    let shown = (avail / cw).max(1).min(g.cols - first);
    let ch = (usize::from(area.height - 2) / g.rows).clamp(1, 7);
    let rows = g.rows.min(usize::from(area.height - 2) / ch);
    let (x0, y0) = (area.x, area.y);
    let right = area.right();
    let put = |buf: &mut Buffer, x: u16, y: u16, s: &str, style| {
        if x < right {
            buf.set_stringn(x, y, s, usize::from(right - x), style);
        }
    };
    put(buf, x0, y0, &g.legend(usize::from(area.width)), t.dim);
    let cell_x = |k: usize| x0 + LABEL_W + u16::try_from(k * cw).unwrap_or(u16::MAX);
    let gap = usize::from(cw >= 3);
    let fill_w = cw - gap;
    // A label every few cells when the cells are narrower than the labels.
    let label_w = g.col_label(g.cols - 1).chars().count() + 1;
    let every = label_w.div_ceil(cw);
    for k in (0..shown).step_by(every) {
        let l = g.col_label(first + k);
        // Over its own cell: centred on a wide one, from its left edge else.
        let text = if every == 1 {
            format!("{l:^fill_w$}")
        } else {
            l
        };
        put(buf, cell_x(k), y0 + 1, &text, t.dim);
    }
    let fill_h = if ch >= 3 { ch - 1 } else { ch };
    let mid = (fill_h - 1) / 2;
    for i in 0..rows {
        let top = y0 + 2 + u16::try_from(i * ch).unwrap_or(u16::MAX);
        put(buf, x0, top + mid as u16, &g.row_label(i), t.dim);
        for k in 0..shown {
            let x = cell_x(k);
            let (glyph, style, text) = match g.cell(i, first + k) {
                Cell::Masked => ("╳", t.masked, None),
                Cell::Value { v, shade } => (
                    SHADES[shade],
                    t.base,
                    numbers.then(|| format!(" {} ", num(v))),
                ),
            };
            for dy in 0..fill_h {
                put(buf, x, top + dy as u16, &glyph.repeat(fill_w), style);
            }
            if let Some(text) = text {
                let n = text.chars().count().min(fill_w);
                let dx = u16::try_from((fill_w - n) / 2).unwrap_or(0);
                put(buf, x + dx, top + mid as u16, &text, t.title);
            }
        }
        if g.sums {
            let x = cell_x(shown) + 1;
            put(
                buf,
                x,
                top + mid as u16,
                &format!("{} {}", g.sum_mark().trim_end(), num(g.row_sum(i))),
                t.title,
            );
        }
    }
    scroll_note(g.lang, first, shown, g.cols)
}
