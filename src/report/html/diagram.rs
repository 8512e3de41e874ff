//! The block as an inline SVG: the residual stream down the left, each
//! sublayer a branch that leaves it and adds back at `⊕ resid_i`, each
//! norm where the trace's anatomy puts it (before the sublayer for
//! Pre-LN, on the stream after the add for Post-LN, around the sublayer
//! for sandwich norms; one add for parallel sublayers). Every box is
//! named in words; a formula line under the drawing says the same.
//!
//! ```text
//! x ─┬─▶ [ln_1] ─▶ [attn] ─┐      Pre-LN
//!    ⊕ ◀── resid_1 ────────┘
//! ```

use super::page::esc;
use crate::arch::{Anatomy, NormAt, SublayerKind};
use crate::trace::Trace;
use std::fmt::Write as _;

const STREAM_X: usize = 120;
const BOX_W: usize = 136;
const BOX_H: usize = 28;
const GAP: usize = 26;
const WIDTH: usize = 640;

/// A box centred on (`cx`, `cy`) with `label`.
fn boxed(s: &mut String, cx: usize, cy: usize, label: &str, class: &str) {
    let _ = write!(
        s,
        "<g class=\"{class}\"><rect x=\"{}\" y=\"{}\" width=\"{BOX_W}\" height=\"{BOX_H}\" rx=\"4\" fill=\"#fff\" stroke=\"#333\"/>\
         <text x=\"{cx}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text></g>",
        cx - BOX_W / 2,
        cy - BOX_H / 2,
        cy + 4,
        esc(label)
    );
}

/// A line with an arrowhead at its end.
fn arrow(s: &mut String, (x1, y1): (usize, usize), (x2, y2): (usize, usize)) {
    let _ = write!(
        s,
        "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"#333\" stroke-width=\"1.5\" marker-end=\"url(#arrowhead)\"/>"
    );
}

/// A residual add on the stream at `y`, named.
fn add(s: &mut String, y: usize, name: &str) {
    let _ = write!(
        s,
        "<g class=\"add\"><circle cx=\"{STREAM_X}\" cy=\"{y}\" r=\"10\" fill=\"#fff\" stroke=\"#333\"/>\
         <text x=\"{STREAM_X}\" y=\"{}\" font-size=\"16\" text-anchor=\"middle\">+</text>\
         <text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">⊕ {}</text></g>",
        y + 5,
        STREAM_X - 14,
        y + 4,
        esc(name)
    );
}

/// The name of a sublayer's box.
fn kind_name(k: SublayerKind) -> &'static str {
    match k {
        SublayerKind::Attention => "attn",
        SublayerKind::Mlp => "mlp",
        SublayerKind::Moe => "moe (experts)",
    }
}

/// The placement in words, as the settings name it.
#[must_use]
pub fn placement_words(a: &Anatomy) -> &'static str {
    if a.parallel && a.shared_norm {
        "parallel sublayers, one shared norm, one add"
    } else if a.parallel {
        "parallel sublayers, one add"
    } else {
        match a.sublayers.first().map(|s| s.norm) {
            Some(NormAt::After) => "Post-LN: the norm on the stream after each add",
            Some(NormAt::Sandwich) => "sandwich: a norm before and after each sublayer",
            _ => "Pre-LN: the norm on each sublayer's input",
        }
    }
}

/// The formula of one block, one line per add.
#[must_use]
pub fn formula(a: &Anatomy) -> Vec<String> {
    if a.parallel {
        let terms: Vec<String> = a
            .sublayers
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let ln = if a.shared_norm { 1 } else { i + 1 };
                format!("{}(ln_{ln}(x))", kind_name(s.kind))
            })
            .collect();
        return vec![format!("x = x + ({})   [resid_1]", terms.join(" + "))];
    }
    a.sublayers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (n, f) = (i + 1, kind_name(s.kind));
            match s.norm {
                NormAt::Before => format!("x = x + {f}(ln_{n}(x))   [resid_{n}]"),
                NormAt::After => format!("x = ln_{n}(x + {f}(x))   [resid_{n}]"),
                NormAt::Sandwich => format!("x = x + post_ln_{n}({f}(ln_{n}(x)))   [resid_{n}]"),
            }
        })
        .collect()
}

/// The diagram of one block of `trace`, in a figure with its caption;
/// `tag` keeps its SVG ids apart from another diagram's on the page.
#[must_use]
pub fn figure(trace: &Trace, tag: &str) -> String {
    let a = &trace.anatomy;
    let norm = trace.config.norms.kind.to_string();
    let mut s = String::new();
    let mut y = 30;
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"12\">x (B,T,d) — the residual stream</text>",
        STREAM_X + 8,
        y - 12
    );
    let top = y;
    let box_x = |k: usize| STREAM_X + 40 + BOX_W / 2 + k * (BOX_W + GAP);
    if a.parallel {
        let rows = a.sublayers.len();
        let mut last_x = 0;
        for (i, sub) in a.sublayers.iter().enumerate() {
            let by = y + 20 + i * (BOX_H + 18);
            let mut boxes = Vec::new();
            if !a.shared_norm || i == 0 {
                boxes.push(format!("ln_{} ({norm})", i + 1));
            } else {
                boxes.push("ln_1 (shared)".to_string());
            }
            boxes.push(kind_name(sub.kind).to_string());
            let _ = write!(
                s,
                "<polyline points=\"{STREAM_X},{y} {},{y} {},{by}\" fill=\"none\" stroke=\"#333\"/>",
                STREAM_X + 20,
                STREAM_X + 20
            );
            arrow(&mut s, (STREAM_X + 20, by), (box_x(0) - BOX_W / 2, by));
            for (k, b) in boxes.iter().enumerate() {
                boxed(
                    &mut s,
                    box_x(k),
                    by,
                    b,
                    if k == 0 { "norm" } else { "sublayer" },
                );
                if k + 1 < boxes.len() {
                    arrow(
                        &mut s,
                        (box_x(k) + BOX_W / 2, by),
                        (box_x(k + 1) - BOX_W / 2, by),
                    );
                }
            }
            last_x = box_x(boxes.len() - 1) + BOX_W / 2;
            let _ = write!(
                s,
                "<line x1=\"{last_x}\" y1=\"{by}\" x2=\"{}\" y2=\"{by}\" stroke=\"#333\"/>",
                last_x + 20
            );
        }
        let join_x = last_x + 20;
        let bottom = y + 20 + rows * (BOX_H + 18) + 10;
        let _ = write!(
            s,
            "<line x1=\"{join_x}\" y1=\"{}\" x2=\"{join_x}\" y2=\"{bottom}\" stroke=\"#333\"/>\
             <text x=\"{}\" y=\"{}\" font-size=\"11\">update = sum, one add</text>",
            y + 20,
            join_x + 4,
            bottom - 4
        );
        arrow(&mut s, (join_x, bottom), (STREAM_X + 11, bottom));
        add(&mut s, bottom, "resid_1");
        y = bottom + 30;
    } else {
        for (i, sub) in a.sublayers.iter().enumerate() {
            let n = i + 1;
            let mut boxes: Vec<(String, &str)> = Vec::new();
            if matches!(sub.norm, NormAt::Before | NormAt::Sandwich) {
                boxes.push((format!("ln_{n} ({norm})"), "norm"));
            }
            boxes.push((kind_name(sub.kind).to_string(), "sublayer"));
            if sub.norm == NormAt::Sandwich {
                boxes.push((format!("post_ln_{n}"), "norm"));
            }
            let by = y + 10;
            arrow(&mut s, (STREAM_X, by), (box_x(0) - BOX_W / 2, by));
            for (k, (b, class)) in boxes.iter().enumerate() {
                boxed(&mut s, box_x(k), by, b, class);
                if k + 1 < boxes.len() {
                    arrow(
                        &mut s,
                        (box_x(k) + BOX_W / 2, by),
                        (box_x(k + 1) - BOX_W / 2, by),
                    );
                }
            }
            let right = box_x(boxes.len() - 1) + BOX_W / 2;
            let ay = by + BOX_H + 16;
            let _ = write!(
                s,
                "<polyline points=\"{right},{by} {},{by} {},{ay}\" fill=\"none\" stroke=\"#333\"/>",
                right + 16,
                right + 16
            );
            arrow(&mut s, (right + 16, ay), (STREAM_X + 11, ay));
            add(&mut s, ay, &format!("resid_{n}"));
            y = ay + 16;
            if sub.norm == NormAt::After {
                let ny = y + BOX_H / 2 + 6;
                boxed(
                    &mut s,
                    STREAM_X,
                    ny,
                    &format!("ln_{n} ({norm})"),
                    "norm stream-norm",
                );
                let _ = write!(
                    s,
                    "<text x=\"{}\" y=\"{}\" font-size=\"11\">on the stream (Post-LN)</text>",
                    STREAM_X + BOX_W / 2 + 6,
                    ny + 4
                );
                y = ny + BOX_H / 2 + 10;
            }
            y += 12;
        }
    }
    if trace.config.norms.final_norm {
        let ny = y + BOX_H / 2;
        boxed(&mut s, STREAM_X, ny, "ln_f (final)", "norm stream-norm");
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"11\">after the last block</text>",
            STREAM_X + BOX_W / 2 + 6,
            ny + 4
        );
        y = ny + BOX_H / 2 + 8;
    }
    let height = y + 14;
    let stream = format!(
        "<line x1=\"{STREAM_X}\" y1=\"{top}\" x2=\"{STREAM_X}\" y2=\"{}\" stroke=\"#333\" stroke-width=\"3\" marker-end=\"url(#arrowhead)\"/>",
        height - 4
    );
    let mut out = format!(
        "<figure class=\"diagram\"><svg viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"one block: {}\">\
         <defs><marker id=\"arrowhead\" markerWidth=\"8\" markerHeight=\"8\" refX=\"7\" refY=\"4\" orient=\"auto\" markerUnits=\"userSpaceOnUse\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#333\"/></marker></defs>\
         {stream}{s}</svg>",
        esc(placement_words(a))
    );
    let _ = write!(
        out,
        "<figcaption>One block of {}, {}. ",
        trace.config.layers,
        esc(placement_words(a))
    );
    for line in formula(a) {
        let _ = write!(out, "<br><code>{}</code>", esc(&line));
    }
    out.push_str("</figcaption></figure>\n");
    out.replace("arrowhead", &format!("arrowhead-{tag}"))
}
