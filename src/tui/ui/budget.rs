//! The budget lab: parameters, FLOPs and bytes of an editable copy of the
//! model, beside GPT-2 small. Every number comes from `budget::Budget`.
//! In the quiz (`z`), the row asked about reads `?` until it is answered.

use crate::budget::{Budget, thousands};
use crate::quiz::count::Column;
use crate::tui::app::App;
use crate::tui::app::labs::Field;
use crate::tui::ui::width::{pad, pad_left};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

/// A row's label in the app's language, its indent kept: the English
/// label names the row (the quiz hides rows by it).
fn row_label(app: &App, label: &str) -> String {
    let key = match label.trim_start() {
        "attention weights / block" => "budget-attention-weights",
        "FFN weights / block" => "budget-ffn-weights",
        "FFN : attention" => "budget-ratio",
        "block, biases + norms" => "budget-block",
        "total parameters" => "budget-total",
        "non-embedding" => "budget-non-embedding",
        "FLOPs/token/block matmul" => "budget-flops-block",
        "+ attention at T" => "budget-flops-attention",
        "FFN share of FLOPs" => "budget-ffn-share",
        "forward FLOPs / token" => "budget-forward",
        "training 6N+12LHQT" => "budget-training",
        "weights" => "budget-weights",
        "activations" => "budget-activations",
        "KV cache / token" => "budget-kv-token",
        "KV cache at context" => "budget-kv-context",
        "gradients (one per weight)" => "budget-grads",
        "Adam state 8·N" => "budget-adam",
        "saved for the backward" => "budget-saved",
        "training step in all" => "budget-train-step",
        _ => return label.to_string(),
    };
    let indent = label.len() - label.trim_start().len();
    format!("{}{}", " ".repeat(indent), app.t(key))
}

fn rows(b: &Budget) -> Vec<(&'static str, String)> {
    let f = &b.flops;
    let pb = &f.per_token_per_block;
    let mut rows = vec![
        (
            "attention weights / block",
            thousands(b.block.attention_weights),
        ),
        ("FFN weights / block", thousands(b.block.mlp_weights)),
        (
            "FFN : attention",
            format!("{:.2} : 1", b.ffn_attention_ratio),
        ),
        ("block, biases + norms", thousands(b.block.total)),
        ("total parameters", thousands(b.total)),
        ("non-embedding", thousands(b.non_embedding.minus_position)),
        ("FLOPs/token/block matmul", thousands(pb.matmul)),
        ("  + attention at T", thousands(pb.attention_full)),
        (
            "  FFN share of FLOPs",
            format!("{:.1}%", f.ffn_share * 100.0),
        ),
        ("forward FLOPs / token", thousands(f.forward_per_token)),
        ("training 6N+12LHQT", thousands(f.training_per_token)),
        (
            "weights",
            crate::config::human_bytes(u128::from(b.bytes.weights)),
        ),
        (
            "activations",
            crate::config::human_bytes(u128::from(b.bytes.activations)),
        ),
        // 2·L·kv·hd·bytes: what each decoded token adds.
        (
            "KV cache / token",
            format!("{} B", thousands(b.kv_cache.per_token(b.bytes.dtype))),
        ),
        (
            "KV cache at context",
            crate::config::human_bytes(u128::from(
                b.kv_cache.at(b.kv_cache.context, b.bytes.dtype),
            )),
        ),
    ];
    // A run with the backward: what one training step holds besides.
    if let Some(t) = &b.training {
        let h = crate::config::human_bytes;
        rows.extend([
            ("gradients (one per weight)", h(t.grads)),
            ("Adam state 8·N", h(t.optimizer_bytes)),
            ("saved for the backward", h(t.activations)),
            ("training step in all", h(t.total)),
        ]);
    }
    rows
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    if let Some(producer) = &app.foreign {
        let text = app.tr(&crate::why::Why::new("ui-budget-foreign")
            .arg("producer", crate::text::shown(producer).to_string()));
        Paragraph::new(text)
            .wrap(ratatui::widgets::Wrap { trim: false })
            .block(Block::bordered().title(format!(" {} ", app.t("ui-budget-tab"))))
            .render(area, buf);
        return;
    }
    let Some(lab) = &app.labs.budget else {
        Paragraph::new(app.t("ui-budget-none"))
            .block(Block::bordered().title(format!(" {} ", app.t("ui-budget-tab"))))
            .render(area, buf);
        return;
    };
    let [left, right] = area.layout(&Layout::horizontal([
        Constraint::Length(24),
        Constraint::Min(0),
    ]));
    let mut fields: Vec<Line> = Field::ALL
        .iter()
        .map(|f| {
            let here = *f == lab.field;
            let line = format!(
                "{} {:<8}{:>8}",
                if here { "▶" } else { " " },
                f.name(),
                f.value(&lab.cfg)
            );
            Line::styled(line, if here { t.lit } else { t.base })
        })
        .collect();
    fields.push(Line::raw(""));
    fields.push(Line::styled(app.t("ui-budget-keys"), t.dim));
    fields.push(Line::styled(app.t("ui-budget-type"), t.dim));
    fields.push(Line::styled(app.t("ui-budget-reset"), t.dim));
    if let Some(e) = &lab.error {
        fields.push(Line::raw(""));
        fields.push(Line::styled(format!("✗ {e}"), t.fail));
    }
    Paragraph::new(fields)
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(format!(" {} ", app.t("ui-budget-this-model"))))
        .render(left, buf);

    // The pictures would show the number the quiz is asking for.
    let asking = app.count_quiz().is_some_and(|q| q.asking);
    if app.charts && !asking {
        super::budget_charts::render(app, &lab.ours, right, buf);
        quiz(app, area, buf);
        return;
    }
    let mut ours = rows(&lab.ours);
    let mut theirs = rows(&lab.gpt2);
    // The row being asked about is hidden until it is answered.
    let hidden = app
        .count_quiz()
        .filter(|q| q.asking)
        .and_then(|q| q.question());
    if let Some(q) = hidden {
        let col = match q.column {
            Column::ThisModel => &mut ours,
            Column::Gpt2Small => &mut theirs,
        };
        for (label, value) in col.iter_mut() {
            if q.hides.contains(label) {
                *value = "?".into();
            }
        }
    }
    let wn = usize::from(right.width.saturating_sub(2)).saturating_sub(26) / 2;
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{:<26}", ""), t.title),
        Span::styled(pad_left(&app.t("ui-budget-col-this"), wn), t.title),
        Span::styled(pad_left(&app.t("ui-budget-col-gpt2"), wn), t.title),
    ])];
    // GPT-2 small's column pairs by label: a row only this model has (a
    // training step's, under --backward) leaves it blank.
    for (label, a) in &ours {
        let b = theirs
            .iter()
            .find(|(l, _)| l == label)
            .map_or("", |(_, v)| v.as_str());
        let label = pad(&row_label(app, label), 26);
        lines.push(Line::raw(format!("{label}{a:>wn$}{b:>wn$}")));
    }
    let bytes = crate::why::Why::new("ui-budget-bytes")
        .arg("dtype", lab.ours.bytes.dtype.to_string())
        .arg("T", lab.gpt2.flops.seq);
    lines.push(Line::styled(app.tr(&bytes), t.dim));
    Paragraph::new(lines)
        .block(Block::bordered().title(format!(" {} ", app.t("ui-budget-title"))))
        .render(right, buf);
    quiz(app, area, buf);
}

/// The count quiz along the bottom: the question, or the last verdict.
fn quiz(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let Some(q) = app.count_quiz() else {
        return;
    };
    let mut lines = Vec::new();
    if let Some((ok, msg)) = q.feedback_in(app.lang) {
        lines.push(Line::styled(msg, if ok { t.ok } else { t.fail }));
    }
    match q.question() {
        Some(question) if q.asking => {
            lines.push(Line::styled(
                app.tr(&crate::why::Why::new("lab-budget-quiz-of")
                    .arg("n", (q.at + 1).to_string())
                    .arg("total", q.questions.len().to_string())
                    .arg("ask", question.ask_in(app.lang))),
                t.title,
            ));
            lines.push(Line::from(vec![
                Span::raw(app.t("ui-budget-quiz-count")),
                Span::styled(format!("{}█", q.input), t.key),
            ]));
            if let Some(msg) = &q.invalid {
                let msg = q
                    .invalid_why
                    .as_ref()
                    .map_or_else(|| msg.clone(), |w| app.tr(w));
                lines.push(Line::styled(format!("✗ {msg}"), t.fail));
            }
        }
        Some(_) if q.at + 1 < q.questions.len() => {
            lines.push(Line::styled(app.t("ui-budget-quiz-next"), t.dim));
        }
        _ => lines.push(Line::styled(
            app.tr(&crate::why::Why::new("ui-budget-quiz-done")
                .arg("right", q.right)
                .arg("asked", q.asked)),
            t.key,
        )),
    }
    let keys = if q.asking {
        app.t("ui-budget-quiz-keys")
    } else {
        app.t("ui-budget-quiz-on")
    };
    let title = crate::why::Why::new("ui-budget-quiz-title")
        .arg("right", q.right)
        .arg("asked", q.asked)
        .arg("keys", keys);
    let title = format!(" {} ", app.tr(&title));
    let inner = usize::from(area.width.saturating_sub(4)).max(1);
    let rows: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    let h = u16::try_from(rows + 2).unwrap_or(8).min(area.height);
    let at = Rect {
        y: area.bottom().saturating_sub(h),
        height: h,
        ..area
    };
    super::width::clear(at, buf);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(
            Block::bordered()
                .title(title)
                .border_style(t.key)
                .padding(ratatui::widgets::Padding::horizontal(1)),
        )
        .render(at, buf);
}
