//! Attention weights as inline SVG heatmaps: batch 0, one per head, as
//! the stepper slices them (`slice[i][j] = values[(h·rows + i)·cols + j]`
//! of a (B, h, Tq, Tk) tensor). A cell's grey is its weight between the
//! lowest and highest unmasked one, and the number is written in it (and
//! in its `<title>`); a masked cell (a key the query may not read, by the
//! causal mask or outside the window) is hatched, marked `╳` and titled
//! `masked`.

use super::page::esc;
use crate::ops::Masking;
use crate::trace::{Event, OpKind};
use std::fmt::Write as _;

/// Cells of one side in px.
const CELL: usize = 34;
/// Room for the row labels and the column labels.
const MARGIN: usize = 34;

/// The words for a mask, for the legend.
#[must_use]
pub fn mask_words(mask: Masking) -> String {
    match mask {
        Masking::Causal => "causal mask: a query reads no key after it".into(),
        Masking::Window(w) => {
            format!(
                "sliding window of {w}: a query reads itself and the {} keys before it, no later key",
                w.saturating_sub(1)
            )
        }
        Masking::TwoWay => "two-way: every query reads every key (an encoder)".into(),
        Masking::Full => "no mask: every query reads every key (a fault in a decoder)".into(),
        Masking::TopLeft => {
            "causal mask aligned at the top left: query row i reads keys 0..=i (a fault when decoding)"
                .into()
        }
    }
}

/// The heatmaps of `e`, one figure per head of batch 0, or `None` when
/// `e` is not a softmax's weights of 4-D shape with values kept.
#[must_use]
pub fn figures(e: &Event, mask: Masking) -> Option<String> {
    if e.op != OpKind::Softmax {
        return None;
    }
    let values = e.values.as_ref()?;
    let [batch, heads, rows, cols] = *e.shape.as_slice() else {
        return None;
    };
    // A log's shape is the writer's word: its product may overflow or
    // disagree with the values it holds; such a tensor gets no heatmap.
    let per_head = rows.checked_mul(cols)?;
    let need = heads.checked_mul(per_head)?;
    if batch == 0 || per_head == 0 || values.len() < need {
        return None;
    }
    let mut s = String::from("<div class=\"heatmaps\">\n");
    for h in 0..heads {
        let start = h * rows * cols;
        let slice = &values[start..start + rows * cols];
        let key = if mask.masks() {
            format!("╳ = masked ({})", mask_words(mask))
        } else {
            mask_words(mask)
        };
        let _ = writeln!(
            s,
            "<figure>{}<figcaption>{} · batch 0 · head {h} · {rows}×{cols}, query ↓ × key →; {}</figcaption></figure>",
            svg(&e.path, h, slice, rows, cols, mask),
            esc(&e.path),
            esc(&key)
        );
    }
    s.push_str("</div>\n");
    Some(s)
}

/// One head's grid.
fn svg(path: &str, head: usize, slice: &[f64], rows: usize, cols: usize, mask: Masking) -> String {
    let masked = |i: usize, j: usize| mask.masks() && !mask.reads(i, j, rows, cols);
    let (lo, hi) = (0..rows * cols)
        .filter(|k| !masked(k / cols, k % cols))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), k| {
            (lo.min(slice[k]), hi.max(slice[k]))
        });
    let (w, h) = (MARGIN + cols * CELL + 4, MARGIN + rows * CELL + 4);
    let safe: String = path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let id = format!("hatch-{safe}-{head}");
    let mut s = format!(
        "<svg class=\"heatmap\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{} head {head}\">\
         <defs><pattern id=\"{id}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">\
         <rect width=\"6\" height=\"6\" fill=\"#fff\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999\" stroke-width=\"2\"/></pattern></defs>",
        esc(path)
    );
    for j in 0..cols {
        let x = MARGIN + j * CELL + CELL / 2;
        let _ = write!(
            s,
            "<text x=\"{x}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">k{j}</text>",
            MARGIN - 8
        );
    }
    for i in 0..rows {
        let y = MARGIN + i * CELL + CELL / 2 + 4;
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{y}\" font-size=\"11\" text-anchor=\"end\">q{i}</text>",
            MARGIN - 4
        );
        for j in 0..cols {
            let (x, y0) = (MARGIN + j * CELL, MARGIN + i * CELL);
            let (cx, cy) = (x + CELL / 2, y0 + CELL / 2 + 4);
            if masked(i, j) {
                let _ = write!(
                    s,
                    "<g class=\"masked\"><title>q{i} k{j}: masked (weight 0)</title>\
                     <rect x=\"{x}\" y=\"{y0}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"url(#{id})\" stroke=\"#777\"/>\
                     <text x=\"{cx}\" y=\"{cy}\" font-size=\"14\" text-anchor=\"middle\">╳</text></g>"
                );
                continue;
            }
            let v = slice[i * cols + j];
            let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let grey = (245.0 - t.clamp(0.0, 1.0) * 200.0).round() as u8;
            let ink = if grey < 140 { "#fff" } else { "#000" };
            let _ = write!(
                s,
                "<g class=\"cell\"><title>q{i} k{j}: {v:.4}</title>\
                 <rect x=\"{x}\" y=\"{y0}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"rgb({grey},{grey},{grey})\" stroke=\"#777\"/>\
                 <text x=\"{cx}\" y=\"{cy}\" font-size=\"10\" text-anchor=\"middle\" fill=\"{ink}\">{}</text></g>",
                short_value(v)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// A weight in four characters: `0.52`, `1.00`, `.003` stays `0.00`.
fn short_value(v: f64) -> String {
    if v.abs() < 10.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.0}")
    }
}
