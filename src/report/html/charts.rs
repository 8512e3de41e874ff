//! The Budget pictures as inline SVG, from the numbers of
//! [`crate::budget::pictures`] (the stepper's Budget tab draws the same):
//! the parameter split and one token's FLOPs as bars, each named with
//! its share and count in words, and forward FLOPs per token against T on
//! log-log axes, attention's T-term and the MLP's matmuls each drawn in
//! its own dash and named at its end, T* and the causal ≈ 2·T* marked.

use super::page::esc;
use crate::budget::pictures::{Curves, Split, crossover, curves, flops, params, short};
use crate::budget::{Budget, thousands};
use std::fmt::Write as _;

/// Horizontal bars of `split`, titled.
fn bars(title: &str, split: &Split, note: &str) -> String {
    let total: u64 = split.iter().map(|(_, n)| n).sum::<u64>().max(1);
    let (w, row) = (460usize, 24usize);
    let h = 30 + row * split.len() + 24;
    let mut s = format!(
        "<figure class=\"chart\"><svg viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{}\">\
         <text x=\"0\" y=\"16\" font-size=\"13\" font-weight=\"bold\">{}</text>",
        esc(title),
        esc(title)
    );
    for (k, (name, n)) in split.iter().enumerate() {
        let y = 30 + k * row;
        #[allow(clippy::cast_precision_loss)]
        let share = *n as f64 / total as f64;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let len = (share * 250.0).round() as usize;
        let _ = write!(
            s,
            "<g class=\"bar\"><title>{}: {} ({:.1}%)</title>\
             <text x=\"0\" y=\"{}\" font-size=\"12\">{}</text>\
             <rect x=\"60\" y=\"{}\" width=\"{}\" height=\"16\" fill=\"#666\" stroke=\"#222\"/>\
             <text x=\"{}\" y=\"{}\" font-size=\"12\">{:.0}% · {}</text></g>",
            esc(name),
            thousands(*n),
            share * 100.0,
            y + 13,
            esc(name),
            y + 1,
            len.max(1),
            60 + len.max(1) + 6,
            y + 13,
            share * 100.0,
            short(*n)
        );
    }
    let _ = write!(
        s,
        "<text x=\"0\" y=\"{}\" font-size=\"11\" fill=\"#444\">{}</text></svg></figure>",
        h - 6,
        esc(note)
    );
    s
}

/// A polyline of (log10 T, log10 F) points mapped by `at`.
fn line(points: &[(f64, f64)], at: &dyn Fn(f64, f64) -> (f64, f64), style: &str) -> String {
    let pts: Vec<String> = points
        .iter()
        .map(|&(x, y)| {
            let (px, py) = at(x, y);
            format!("{px:.1},{py:.1}")
        })
        .collect();
    format!(
        "<polyline points=\"{}\" fill=\"none\" {style}/>",
        pts.join(" ")
    )
}

/// The log-log chart of forward FLOPs per token against T.
fn chart(b: &Budget, c: &Curves) -> String {
    let (w, h) = (640.0_f64, 340.0_f64);
    let (left, right, top, bottom) = (64.0, 150.0, 24.0, 40.0);
    let (x_max, y_min, y_max) = (c.t_max.log10(), c.y_min, c.y_max);
    let at = |x: f64, y: f64| {
        (
            left + x / x_max * (w - left - right),
            top + (y_max - y) / (y_max - y_min).max(1e-9) * (h - top - bottom),
        )
    };
    let mut s = format!(
        "<figure class=\"chart\"><svg viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"forward FLOPs per token against T, log-log\">\
         <text x=\"{left}\" y=\"14\" font-size=\"13\" font-weight=\"bold\">forward FLOPs per token against T (log–log)</text>"
    );
    // Axes with a tick per decade.
    let (x0, y0) = at(0.0, y_min);
    let (x1, y1) = at(x_max, y_max);
    let _ = write!(
        s,
        "<rect x=\"{x0:.1}\" y=\"{y1:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#333\"/>",
        x1 - x0,
        y0 - y1
    );
    #[allow(clippy::cast_possible_truncation)]
    for d in 0..=(x_max.floor() as i32) {
        let (px, _) = at(f64::from(d), y_min);
        let _ = write!(
            s,
            "<line x1=\"{px:.1}\" y1=\"{y0:.1}\" x2=\"{px:.1}\" y2=\"{:.1}\" stroke=\"#333\"/>\
             <text x=\"{px:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            y0 + 5.0,
            y0 + 17.0,
            decade(d)
        );
    }
    #[allow(clippy::cast_possible_truncation)]
    for d in (y_min as i32)..=(y_max as i32) {
        let (_, py) = at(0.0, f64::from(d));
        let _ = write!(
            s,
            "<line x1=\"{:.1}\" y1=\"{py:.1}\" x2=\"{x0:.1}\" y2=\"{py:.1}\" stroke=\"#333\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            x0 - 5.0,
            x0 - 7.0,
            py + 4.0,
            decade(d)
        );
    }
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\">T (tokens in the sequence)</text>\
         <text x=\"12\" y=\"{:.1}\" font-size=\"12\" transform=\"rotate(-90 12 {:.1})\" text-anchor=\"middle\">FLOPs / token</text>",
        (x0 + x1) / 2.0,
        h - 6.0,
        (y0 + y1) / 2.0,
        (y0 + y1) / 2.0
    );
    // Each curve in its own dash, named at its right end.
    let named = [
        (
            &c.attention,
            "stroke=\"#000\" stroke-width=\"2\" stroke-dasharray=\"7 4\"",
            "attention T-term (dashed)",
        ),
        (
            &c.mlp,
            "stroke=\"#000\" stroke-width=\"2\"",
            "MLP matmuls (solid)",
        ),
        (
            &c.total,
            "stroke=\"#666\" stroke-width=\"3\" stroke-dasharray=\"1 4\" stroke-linecap=\"round\"",
            "total (dotted)",
        ),
    ];
    let mut label_ys: Vec<f64> = Vec::new();
    for (pts, style, name) in named {
        s.push_str(&line(pts, &at, style));
        if let Some(&(x, y)) = pts.last() {
            let (px, mut py) = at(x, y);
            while label_ys.iter().any(|l| (l - py).abs() < 13.0) {
                py += 13.0;
            }
            label_ys.push(py);
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{}</text>",
                px + 4.0,
                py + 4.0,
                esc(name)
            );
        }
    }
    if let Some(t) = c.cross.filter(|t| *t >= 1.0) {
        let (px, _) = at(t.log10(), y_min);
        #[allow(clippy::cast_precision_loss)]
        let is_dff = (t - b.config.mlp.d_ff as f64).abs() < 0.5;
        let label = if is_dff {
            format!("T* = {t:.0} = d_ff")
        } else {
            format!("T* = {t:.0}")
        };
        let _ = write!(
            s,
            "<g class=\"t-star\"><title>attention's T-term equals the MLP's matmuls at T = {t:.1}</title>\
             <line x1=\"{px:.1}\" y1=\"{y1:.1}\" x2=\"{px:.1}\" y2=\"{y0:.1}\" stroke=\"#000\" stroke-width=\"1\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{} ▶</text></g>",
            px - 3.0,
            y0 - 8.0,
            esc(&label)
        );
        if !b.config.encoder && 2.0 * t <= c.t_max {
            let (cx, _) = at((2.0 * t).log10(), y_min);
            let _ = write!(
                s,
                "<g class=\"causal\"><title>under the causal mask a query reads (T+1)/2 keys on average: the T-term catches up at 2·T* − 1</title>\
                 <line x1=\"{cx:.1}\" y1=\"{y1:.1}\" x2=\"{cx:.1}\" y2=\"{y0:.1}\" stroke=\"#000\" stroke-dasharray=\"2 3\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">◀ causal ≈ 2·T* = {:.0}</text></g>",
                cx + 3.0,
                y0 - 24.0,
                2.0 * t
            );
        }
    }
    s.push_str("</svg></figure>");
    s
}

/// `10^d` in words: 1, 10, 100, 1k, …
fn decade(d: i32) -> String {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    short(10f64.powi(d).round() as u64)
}

/// The Budget section: both bars, the chart and what T* means.
#[must_use]
pub fn section(b: &Budget) -> String {
    let cross = crossover(b);
    let mut s = String::from("<h2 id=\"budget\">Budget</h2>\n<div class=\"pair\">\n<div>");
    s.push_str(&bars(
        "parameters",
        &params(b),
        &format!("total {} parameters", thousands(b.total)),
    ));
    s.push_str("</div>\n<div>");
    s.push_str(&bars(
        &format!("forward FLOPs per token at T = {}", b.flops.seq),
        &flops(b),
        &format!(
            "total {} FLOPs per token",
            thousands(b.flops.forward_per_token)
        ),
    ));
    s.push_str("</div>\n</div>\n");
    s.push_str(&chart(b, &curves(b)));
    let note = match cross {
        Some(t) if b.config.encoder => format!(
            "T* ≈ {t:.0}: from there on attention's T-term (4·T·h·hd a block) costs more than the MLP's matmuls (2·MLP weights a block). Two-way attention reads every key, so there is no causal half."
        ),
        Some(t) => format!(
            "T* ≈ {t:.0}: from there on attention's T-term (4·T·h·hd a block, every key read) costs more than the MLP's matmuls (2·MLP weights a block). Under the causal mask a query reads (T+1)/2 keys on average, so the causal T-term catches up at 2·T* − 1 ≈ {:.0}.",
            2.0 * t
        ),
        None => "No T-term or no MLP: no crossover.".into(),
    };
    let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(&note));
    s
}
