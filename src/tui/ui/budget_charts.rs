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

use crate::budget::{Budget, thousands};
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Widget};

/// The parts of a whole, with their counts.
type Split = Vec<(&'static str, u64)>;

/// Parameters: embeddings (wte, wpe, an untied head), attention, MLP,
/// norms (the blocks' and the final one), and what is left (BERT's
/// token types, embedding norm and pooler) when there is any.
#[must_use]
pub fn params(b: &Budget) -> Split {
    let l = b.config.layers as u64;
    let emb = b.total - b.non_embedding.minus_all_and_head;
    let (attn, mlp) = (l * b.block.attention, l * b.block.mlp);
    let norms = l * b.block.norms + b.final_norm();
    let other = b.total.saturating_sub(emb + attn + mlp + norms);
    let mut out = vec![
        ("embed", emb),
        ("attn", attn),
        ("MLP", mlp),
        ("norms", norms),
    ];
    if other > 0 {
        out.push(("other", other));
    }
    out
}

/// One token's forward FLOPs at the model's T: attention's projections,
/// the MLP's matmuls, attention's T-term (in full), the LM head.
#[must_use]
pub fn flops(b: &Budget) -> Split {
    let s = &b.flops.split;
    vec![
        ("qkvo", s.layers * s.attn_proj),
        ("MLP", s.layers * s.ffn),
        (
            "T-term",
            s.layers * b.flops.per_token_per_block.attention_full,
        ),
        ("head", s.head),
    ]
}

/// The T where attention's T-term (4·T·h·hd a block) equals the MLP's
/// matmuls: d_ff for a plain MLP; `None` without either.
#[must_use]
pub fn crossover(b: &Budget) -> Option<f64> {
    let per_t = 4 * (b.config.attn_width() as u64);
    let mlp = b.flops.split.ffn;
    #[allow(clippy::cast_precision_loss)]
    (per_t > 0 && mlp > 0).then(|| mlp as f64 / per_t as f64)
}

/// Bars of `split` in `width` columns, one line each: the name, a bar
/// of `█`, the share in words and the count.
fn bars(split: &Split, width: usize, style: Style) -> Vec<Line<'static>> {
    let total: u64 = split.iter().map(|(_, n)| n).sum::<u64>().max(1);
    let name_w = split.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    let room = width.saturating_sub(name_w + 13).max(1);
    split
        .iter()
        .map(|(name, n)| {
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
                    "{name:<name_w$} {:<room$}{:>4.0}% {:>6}",
                    "█".repeat(cells),
                    share * 100.0,
                    short(*n)
                ),
                style,
            )
        })
        .collect()
}

/// A count in few characters: 1.2M, 85.6k, 7.0B.
fn short(n: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let x = n as f64;
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", x / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1}M", x / 1e6),
        _ => format!("{:.1}B", x / 1e9),
    }
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
        &params(b),
        usize::from(left.width.saturating_sub(2)),
        t.base,
    );
    p.push(Line::styled(format!("total {}", thousands(b.total)), t.dim));
    Paragraph::new(p)
        .block(Block::bordered().title(" parameters · c: table "))
        .render(left, buf);
    let mut f = bars(
        &flops(b),
        usize::from(right.width.saturating_sub(2)),
        t.base,
    );
    f.push(Line::styled(
        match cross {
            #[allow(clippy::cast_precision_loss)]
            Some(x) if b.config.encoder => format!("T*={x:.0} (two-way: no causal half)"),
            Some(x) if (x - b.config.d_ff as f64).abs() < 0.5 => {
                format!("T*={x:.0}=d_ff; causal ≈{:.0}", 2.0 * x)
            }
            Some(x) => format!("T*={x:.0}; causal ≈{:.0}", 2.0 * x),
            None => "no T-term or no MLP".into(),
        },
        t.dim,
    ));
    Paragraph::new(f)
        .block(Block::bordered().title(format!(" FLOPs/token, T={} ", b.flops.seq)))
        .render(right, buf);
    curves(app, b, cross, chart, buf);
}

/// Forward FLOPs per token against T, log10 on both axes.
fn curves(app: &App, b: &Budget, cross: Option<f64>, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let s = &b.flops.split;
    #[allow(clippy::cast_precision_loss)]
    let (l, hw, mlp, fixed) = (
        s.layers as f64,
        b.config.attn_width() as f64,
        (s.layers * s.ffn) as f64,
        (s.layers * (s.attn_proj + s.ffn) + s.head) as f64,
    );
    // From T = 1 to 4× the context, and past the crossover.
    #[allow(clippy::cast_precision_loss)]
    let ctx = b.config.positions().max(b.config.seq) as f64;
    let t_max = (4.0 * ctx).max(4.0 * cross.unwrap_or(1.0)).max(8.0);
    let xs: Vec<f64> = (0..=64).map(|i| t_max.powf(f64::from(i) / 64.0)).collect();
    let attn = |tt: f64| l * 4.0 * tt * hw;
    let pts = |f: &dyn Fn(f64) -> f64| -> Vec<(f64, f64)> {
        xs.iter()
            .map(|&x| (x.log10(), f(x).max(1.0).log10()))
            .collect()
    };
    let total = pts(&|x| fixed + attn(x));
    let attention = pts(&attn);
    let flat = pts(&|_| mlp);
    let y_max = (fixed + attn(t_max)).max(mlp).max(10.0).log10().ceil();
    let y_min = attn(1.0).min(mlp).max(1.0).log10().floor();
    let mark: Vec<(f64, f64)> = cross
        .map(|x| vec![(x.log10(), y_min), (x.log10(), y_max)])
        .unwrap_or_default();
    let mut sets = vec![
        Dataset::default()
            .name("⠿ attention T-term")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.departs)
            .data(&attention),
        Dataset::default()
            .name("▄ MLP matmuls")
            .marker(Marker::Bar)
            .graph_type(GraphType::Line)
            .style(t.ok)
            .data(&flat),
        Dataset::default()
            .name("• total")
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
    let title = format!(" FLOPs/token by T: • total ⠿ attn ▄ MLP {cross_name} ");
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
