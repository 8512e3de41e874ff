//! A value heatmap of one 2-D slice of a small tensor, drawn with shade
//! glyphs so it reads without colour. Masked attention cells show `╳`.

use crate::trace::Event;
use crate::trace::OpKind;
use crate::tui::theme::Theme;
use ratatui::text::{Line, Span};

const SHADES: [&str; 5] = ["·", "░", "▒", "▓", "█"];

/// Heatmap lines for `e` in at most `width` × `height` cells: batch 0 and,
/// for 4-D tensors, head `head`. Empty when the event has no values.
#[must_use]
pub fn lines(
    e: &Event,
    head: usize,
    causal: bool,
    width: usize,
    height: usize,
    t: Theme,
) -> Vec<Line<'static>> {
    let Some(values) = &e.values else {
        return Vec::new();
    };
    let (h, rows, cols) = match e.shape.as_slice() {
        [_, r, c] => (None, *r, *c),
        [_, hs, r, c] => (Some(head % hs.max(&1)), *r, *c),
        _ => return Vec::new(),
    };
    if rows == 0 || cols == 0 || height < 2 || width < 8 {
        return Vec::new();
    }
    let start = h.unwrap_or(0) * rows * cols;
    let Some(slice) = values.get(start..start + rows * cols) else {
        return Vec::new();
    };
    let masked = |i: usize, j: usize| causal && e.op == OpKind::Softmax && j > i;
    let (lo, hi) = slice
        .iter()
        .enumerate()
        .filter(|(k, _)| !masked(k / cols, k % cols))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, v)| {
            (lo.min(*v), hi.max(*v))
        });
    let label_w = 4;
    let avail = width.saturating_sub(label_w);
    let (bins, cell_w) = if cols * 2 <= avail {
        (cols, 2)
    } else {
        (cols.min(avail), 1)
    };
    let head_label = h.map_or_else(String::new, |h| format!(" h{h}"));
    let mask_note = if causal && e.op == OpKind::Softmax {
        " ╳=masked"
    } else {
        ""
    };
    let head_note = if h.is_some() { " [ ] head" } else { "" };
    let mut out = vec![Line::styled(
        format!(
            "b0{head_label} {rows}×{cols} {}{mask_note}{head_note}",
            SHADES.concat()
        ),
        t.dim,
    )];
    for i in 0..rows.min(height - 1) {
        let mut spans = vec![Span::styled(format!("t{i:<2} "), t.dim)];
        for b in 0..bins {
            let (j0, j1) = (
                b * cols / bins,
                ((b + 1) * cols / bins).max(b * cols / bins + 1),
            );
            if (j0..j1).all(|j| masked(i, j)) {
                spans.push(Span::styled("╳".repeat(cell_w), t.masked));
                continue;
            }
            let mean = (j0..j1).map(|j| slice[i * cols + j]).sum::<f64>() / (j1 - j0) as f64;
            let level = if hi > lo {
                ((mean - lo) / (hi - lo) * 4.0).round()
            } else {
                2.0
            };
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let glyph = SHADES[(level.clamp(0.0, 4.0)) as usize];
            spans.push(Span::raw(glyph.repeat(cell_w)));
        }
        out.push(Line::from(spans));
    }
    out
}
