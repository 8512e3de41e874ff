//! The Budget tab's pictures (`c`): what its numbers say, drawn from the
//! same [`Budget`].
//!
//! - the parameters split into embeddings, attention, MLP and norms;
//! - one token's forward FLOPs split into the attention projections, the
//!   MLP's matmuls, attention's T-term (q·kᵀ and weights·v over the T keys)
//!   and the LM head;
//! - forward FLOPs per token against T on log axes, from T = 1 past the
//!   point where attention's T-term, 4·T·h·hd a block, equals the MLP's
//!   matmuls, 2·(MLP weights) a block: T* = d_ff for a plain MLP of 4·d.
//!   Under the causal mask a query reads (T+1)/2 keys on average, so the
//!   causal T-term catches up at 2·T* − 1 (≈ 2·T*).
//!
//! Every bar and curve is named in words beside it, never by colour alone.

use crate::budget::pictures::{self, short};
use crate::budget::{Budget, thousands};
use crate::tui::app::App;
use crate::tui::ui::width::pad;
use crate::why::Why;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

pub use crate::budget::pictures::{Split, crossover, flops, params};

/// The catalog key of a bar's name in [`params`] or [`flops`]:
/// `chart-part-embed`, `chart-part-T-term`, …
#[must_use]
pub fn part_key(name: &str) -> String {
    format!("chart-part-{name}")
}

/// Bars of `split` in `width` columns, one line each: the name (in the
/// app's language, padded in columns), a bar of `█`, the share in words
/// and the count.
fn bars(app: &App, split: &Split, width: usize, style: Style) -> Vec<Line<'static>> {
    let total: u64 = split.iter().map(|(_, n)| n).sum::<u64>().max(1);
    let names: Vec<String> = split.iter().map(|(n, _)| app.t(&part_key(n))).collect();
    let name_w = names.iter().map(|n| n.width()).max().unwrap_or(0);
    let room = width.saturating_sub(name_w + 13).max(1);
    split
        .iter()
        .zip(&names)
        .map(|((_, n), name)| {
            #[allow(
                clippy::cast_precision_loss,
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss
            )]
            let (share, cells) = {
                let share = *n as f64 / total as f64;
                (share, (share * room as f64).round() as usize)
            };
            Line::styled(
                format!(
                    "{} {:<room$}{:>4.0}% {:>6}",
                    pad(name, name_w),
                    "█".repeat(cells),
                    share * 100.0,
                    short(*n)
                ),
                style,
            )
        })
        .collect()
}

/// The pictures of `b` in `area`: the two splits, then the curves.
pub fn render(app: &App, b: &Budget, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let [top, chart] = area.layout(&Layout::vertical([
        Constraint::Length(7),
        Constraint::Min(6),
    ]));
    let [left, right] = top.layout(&Layout::horizontal([
        Constraint::Percentage(50),
        Constraint::Percentage(50),
    ]));
    let cross = crossover(b);
    let mut p = bars(
        app,
        &params(b),
        usize::from(left.width.saturating_sub(2)),
        t.base,
    );
    p.push(Line::styled(
        app.tr(&Why::new("chart-total").arg("n", thousands(b.total))),
        t.dim,
    ));
    Paragraph::new(p)
        .block(Block::bordered().title(format!(" {} ", app.t("chart-params-title"))))
        .render(left, buf);
    let mut f = bars(
        app,
        &flops(b),
        usize::from(right.width.saturating_sub(2)),
        t.base,
    );
    let note = |key: &str, x: f64| {
        app.tr(&Why::new(key)
            .arg("x", format!("{x:.0}"))
            .arg("causal", format!("{:.0}", 2.0 * x)))
    };
    f.push(Line::styled(
        match cross {
            #[allow(clippy::cast_precision_loss)]
            Some(x) if b.config.encoder => note("chart-cross-encoder", x),
            Some(x) if (x - b.config.mlp.d_ff as f64).abs() < 0.5 => note("chart-cross-d-ff", x),
            Some(x) => note("chart-cross", x),
            None => app.t("chart-cross-none"),
        },
        t.dim,
    ));
    let flops_title = app.tr(&Why::new("chart-flops-title").arg("T", b.flops.seq));
    Paragraph::new(f)
        .block(Block::bordered().title(format!(" {flops_title} ")))
        .render(right, buf);
    curves(app, b, cross, chart, buf);
}

/// Forward FLOPs per token against T, log10 on both axes.
fn curves(app: &App, b: &Budget, cross: Option<f64>, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let c = pictures::curves(b);
    let (t_max, y_min, y_max) = (c.t_max, c.y_min, c.y_max);
    let (total, attention, flat) = (c.total, c.attention, c.mlp);
    let mark: Vec<(f64, f64)> = cross
        .map(|x| vec![(x.log10(), y_min), (x.log10(), y_max)])
        .unwrap_or_default();
    let mut sets = vec![
        Dataset::default()
            .name(app.t("chart-legend-attn"))
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.departs)
            .data(&attention),
        Dataset::default()
            .name(app.t("chart-legend-mlp"))
            .marker(Marker::Bar)
            .graph_type(GraphType::Line)
            .style(t.ok)
            .data(&flat),
        Dataset::default()
            .name(app.t("chart-legend-total"))
            .marker(Marker::Dot)
            .graph_type(GraphType::Line)
            .style(t.title)
            .data(&total),
    ];
    let cross_name = cross.map(|x| format!("█ T*={x:.0}")).unwrap_or_default();
    if !mark.is_empty() {
        sets.push(
            Dataset::default()
                .name(cross_name.clone())
                .marker(Marker::Block)
                .graph_type(GraphType::Line)
                .style(t.key)
                .data(&mark),
        );
    }
    let pow = |p: f64| short(10f64.powf(p).round() as u64);
    let x_labels = vec![
        Line::raw("1"),
        Line::raw(format!("T {}", pow(t_max.log10() / 2.0))),
        Line::raw(pow(t_max.log10())),
    ];
    let y_labels = vec![Line::raw(pow(y_min)), Line::raw(pow(y_max))];
    // The key in the title as well: a short chart has no room for the
    // legend, and each series has its own glyph, not only its colour.
    let title = app.tr(&Why::new("chart-curves-title").arg("cross", cross_name.as_str()));
    let title = format!(" {title} ");
    Chart::new(sets)
        .block(Block::bordered().title(title))
        .x_axis(
            Axis::default()
                .bounds([0.0, t_max.log10()])
                .labels(x_labels)
                .style(t.dim),
        )
        .y_axis(
            Axis::default()
                .bounds([y_min, y_max])
                .labels(y_labels)
                .style(t.dim),
        )
        .legend_position(None)
        .render(area, buf);
}
