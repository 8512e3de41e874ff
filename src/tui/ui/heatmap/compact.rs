//! The heatmap in the Detail pane: a title naming what the rows and
//! columns are, the column labels, then one line a row, each cell its
//! shade and (for a slice of at most 8 columns) its number; softmax rows
//! end with their sum. The legend goes on the pane's bottom border, so it
//! shows even when the rows take every line.

use super::{Cell, Grid, SHADES, num, scroll_note};
use crate::i18n::Lang;
use crate::trace::Event;
use crate::tui::theme::Theme;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// The legend of `e`'s heatmap in `width` columns, in `lang`, if it has
/// one.
#[must_use]
pub fn legend(
    e: &Event,
    head: usize,
    mask: super::Reach,
    width: usize,
    speech: (Lang, bool),
) -> Option<String> {
    Grid::of(e, head, mask).map(|g| g.speaking(speech).legend(width))
}

/// Heatmap lines for `e` in at most `width` × `height` cells, scrolled to
/// column `col`. Empty when the event has no values.
#[must_use]
pub fn lines(
    e: &Event,
    view: (usize, usize),
    mask: super::Reach,
    (width, height): (usize, usize),
    (t, lang, ascii): (Theme, Lang, bool),
) -> Vec<Line<'static>> {
    let (head, col) = view;
    let Some(g) = Grid::of(e, head, mask).map(|g| g.speaking((lang, ascii))) else {
        return Vec::new();
    };
    if height < 2 || width < 12 {
        return Vec::new();
    }
    let label_w = 4;
    // A cell: the shade, then the number when the slice is small.
    let cell_w = if g.numbers() { g.num_width() + 2 } else { 2 };
    let sum_w = if g.sums { 5 + g.sum_mark().width() } else { 0 };
    let shown = (width.saturating_sub(label_w + sum_w) / cell_w).max(1);
    // A scroll left over from a wider step does not hide what fits.
    let first = if g.cols <= shown { 0 } else { g.first_col(col) };
    let shown = shown.min(g.cols - first);
    let scroll = scroll_note(lang, first, shown, g.cols);
    let mut out = vec![Line::styled(g.title(width, scroll), t.dim)];
    if height > g.rows + 1 {
        out.push(Line::styled(
            header(&g, first, shown, cell_w, label_w),
            t.dim,
        ));
    }
    for i in 0..g.rows.min(height - out.len()) {
        let mut spans = vec![Span::styled(format!("{:<label_w$}", g.row_label(i)), t.dim)];
        for j in first..first + shown {
            spans.push(match g.cell(i, j) {
                Cell::Masked => Span::styled(format!("{:^cell_w$}", "╳"), t.masked),
                Cell::Value { v, shade } if g.numbers() => {
                    let w = cell_w - 2;
                    Span::raw(format!("{}{:>w$} ", SHADES[shade], num(v)))
                }
                Cell::Value { shade, .. } => Span::raw(SHADES[shade].repeat(cell_w)),
            });
        }
        if g.sums {
            spans.push(Span::styled(
                format!("{}{}", g.sum_mark(), num(g.row_sum(i))),
                t.dim,
            ));
        }
        out.push(Line::from(spans));
    }
    out
}

/// The column labels: each key or index over its cell (every fourth one
/// when the cells are narrow).
fn header(g: &Grid, first: usize, shown: usize, cell_w: usize, label_w: usize) -> String {
    let mut s = " ".repeat(label_w);
    let every = if cell_w >= 4 { 1 } else { 4 };
    let mut j = first;
    while j < first + shown {
        let w = (cell_w * every).min((first + shown - j) * cell_w);
        let l = g.col_label(j);
        if every == 1 {
            s.push_str(&format!("{l:^w$}"));
        } else if l.chars().count() < w {
            s.push_str(&format!("{l:<w$}"));
        } else {
            s.push_str(&" ".repeat(w));
        }
        j += every;
    }
    s.trim_end().to_string()
}
