//! The current block as a diagram, drawn from the anatomy the trace
//! recorded: the residual stream with each sublayer, its norm before it
//! (Pre-LN) or after the add (Post-LN), the current one lit and bracketed.
//! A trace from token ids adds its two ends: `ids ─▶ wte[ids] + wpe ─▶ x0`
//! above the block and `ln_f ─▶ lm_head ─▶ logits` below it.

use crate::arch::{Anatomy, NormAt, SublayerKind};
use crate::trace::OpKind;
use crate::tui::app::{App, Row};
use crate::why::Why;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

/// The node of the diagram a path belongs to: a sublayer (`attn`, `mlp`),
/// a norm (`ln_1`) or a residual add (`resid_1`).
fn node(path: &str) -> Option<&str> {
    let path = crate::trace::within_pass(path);
    let leaf = path.split_once('.').map_or(path, |(_, rest)| rest);
    let first = leaf.split('.').next()?;
    let numbered = |p: &str| {
        first
            .strip_prefix(p)
            .is_some_and(|n| n.parse::<usize>().is_ok())
    };
    let sublayer = first.parse::<SublayerKind>().is_ok();
    let node = numbered("ln_") || numbered("post_ln_") || numbered("resid_");
    (node || sublayer || first == "update").then_some(first)
}

/// A pass of generation in words: the prefill of the prompt's T tokens,
/// or decode step n of N, its one token at position T + n − 1.
fn pass_words(trace: &crate::trace::Trace, pass: &str) -> Why {
    let c = &trace.config;
    match pass
        .strip_prefix("decode")
        .and_then(|n| n.parse::<usize>().ok())
    {
        Some(n) => Why::new("ui-pass-decode")
            .arg("n", n)
            .arg("steps", c.decode)
            .arg("pos", c.seq + n - 1),
        None => Why::new("ui-pass-prefill").arg("T", c.seq),
    }
}

/// Parallel residuals, sandwich norms or Post-LN beside the norms, when
/// the anatomy is not a plain Pre-LN block.
fn form(app: &App, anatomy: &Anatomy) -> String {
    let mut form = placement(app, anatomy);
    if anatomy.parallel {
        form = format!("{form}, {}", app.t("ui-form-parallel"));
    }
    // Parallel blocks are Pre-LN; with one shared norm the title says
    // that instead, and fits 80 columns.
    if anatomy.shared_norm {
        form = app.t("ui-form-shared-norm");
    }
    if anatomy.mask == crate::arch::Mask::TwoWay {
        form = format!("{form}, {}", app.t("ui-form-encoder"));
    }
    form
}

/// A residual add's verdict glyph, if it has run.
fn verdict(app: &App, block: usize, which: &str) -> &'static str {
    let path = format!("block{block}.{which}");
    if let Some(e) = app.run.trace.get(&path) {
        return if e.check.as_ref().is_some_and(|c| c.ok) {
            "✓"
        } else {
            "✗"
        };
    }
    match &app.run.trace.failure {
        Some(f) if f.path == path => "✗",
        _ => "·",
    }
}

/// `pre-LN` when every norm sits before its sublayer, `post-LN` when every
/// one sits after its add.
fn placement(app: &App, anatomy: &Anatomy) -> String {
    let all = |at| anatomy.sublayers.iter().all(|s| s.norm == at);
    if all(NormAt::Before) {
        "pre-LN".to_string()
    } else if all(NormAt::After) {
        "post-LN".to_string()
    } else if all(NormAt::Sandwich) {
        app.t("ui-form-sandwich")
    } else {
        app.t("ui-form-mixed")
    }
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let full = app.path(app.cursor).unwrap_or("input");
    // A decoding run's pass, and the path inside it.
    let pass = crate::trace::pass_of(full);
    let path = crate::trace::within_pass(full);
    let block = app.row(app.cursor).and_then(|r| match r {
        Row::Event(e) => e.block(),
        Row::Failure(f) => crate::trace::block_of(&f.path),
    });
    let trace = &app.run.trace;
    let (layers, anatomy) = (trace.config.layers, &trace.anatomy);
    let form = form(app, anatomy);
    // Before block 1: x0, or the ids and embeddings that make it.
    let first = trace
        .events
        .iter()
        .position(|e| e.block().is_some() && crate::trace::pass_of(&e.path) == pass);
    let before = matches!(app.row(app.cursor), Some(Row::Event(e))
        if e.block().is_none() && first.is_none_or(|f| e.step < f));
    let at_input = before && path == "input";
    let lm = trace.events.first().is_some_and(|e| e.op == OpKind::Tokens);
    let title = match block {
        Some(b) => Why::new("ui-diagram-block")
            .arg("b", b)
            .arg("layers", layers)
            .arg("form", form),
        None if at_input => Why::new("ui-diagram-input").arg("form", form),
        // A pipeline stage's input: the stage before's output.
        None if before && path == "recv" => Why::new("ui-diagram-recv")
            .arg("b", *trace.config.held_blocks().start())
            .arg("path", path),
        None if before => Why::new("ui-diagram-embeddings").arg("path", path),
        // A pipeline stage's output: after its own last block.
        None => Why::new("ui-diagram-after")
            .arg("layers", *trace.config.held_blocks().end())
            .arg("path", path),
    };
    let title = match pass {
        Some(pass) => format!(
            " {} · {} ",
            app.tr(&pass_words(trace, pass)),
            app.tr(&title)
        ),
        None => format!(" {} ", app.tr(&title)),
    };
    // The node of the ends the cursor is on, outside the blocks.
    let end = block
        .is_none()
        .then(|| match path.split('.').next().unwrap_or(path) {
            "tokens" => "ids",
            "tok_emb" => "wte[ids]",
            "pos_emb" => "wpe",
            "type_emb" => "wtt",
            "pooler" | "pooled" => "pooler",
            "input" => "x0",
            other => other,
        });
    let e = |name: &'static str| -> Span<'static> {
        if end == Some(name) {
            Span::styled(format!("[{name}]"), t.lit)
        } else {
            Span::raw(format!(" {name} "))
        }
    };
    let b = block.unwrap_or(1);
    let lit = node(path).filter(|_| block.is_some());
    let n = |name: &str| -> Span<'static> {
        if lit == Some(name) {
            Span::styled(format!("[{name}]"), t.lit)
        } else {
            Span::raw(format!(" {name} "))
        }
    };
    let add = |which: &str| -> Vec<Span<'static>> {
        let v = verdict(app, b, which);
        let style: Style = match v {
            "✓" => t.ok,
            "✗" => t.fail,
            _ => t.dim,
        };
        let here = lit == Some(which);
        let sum = if here {
            Span::styled("⊕", t.lit)
        } else {
            Span::raw("⊕")
        };
        let mut out = vec![sum, Span::raw(format!(" {which} ")), Span::styled(v, style)];
        if here {
            out.push(Span::styled("◀", t.lit));
        }
        out
    };
    // The stream entering the block: x0 itself for a block that skips the
    // one before it (the skip-block1 fault), named so, not only coloured.
    let x0 = block.is_some_and(|b| b > 1 && anatomy.reads_x0(b));
    let x_in = if at_input {
        Span::styled("[x]", t.lit)
    } else if x0 {
        Span::styled("x0 ", t.fail)
    } else {
        Span::raw(" x ")
    };
    let raw = |s: String| Span::raw(s);
    let mut lines: Vec<Line> = Vec::new();
    if lm {
        let pos = trace.get("pos_emb").is_some();
        let mut top = vec![e("ids"), raw("─▶".into()), e("wte[ids]")];
        if pos {
            top.extend([raw("+".into()), e("wpe")]);
        }
        // BERT: the token types' row, and a norm on the sum, on a line of
        // their own so the diagram fits 80 columns.
        let types = trace.get("type_emb").is_some();
        if types {
            top.extend([raw("+".into()), e("wtt")]);
        }
        if types || trace.config.norms.embed {
            lines.push(Line::from(top));
            top = vec![raw("     ".into())];
            if trace.config.norms.embed {
                top.push(raw("─▶ LN ".into()));
            }
        }
        top.extend([raw("─▶".into()), e("x0")]);
        lines.push(Line::from(top));
    }
    // Parallel residuals: every sublayer reads x, their updates meet at
    // `update`, and one add puts the sum on the stream.
    //  x ─┬─▶ ln_1 ─▶ attn ──┐
    //     ├─▶ ln_2 ─▶ mlp ───⊕ update
    //     └──────────────────⊕ resid_1 ✓
    let last = anatomy.sublayers.len().saturating_sub(1);
    for (i, sub) in anatomy.sublayers.iter().enumerate() {
        // A shared norm: every branch starts from ln_1.
        let norm_of = if anatomy.shared_norm { 1 } else { i + 1 };
        let (kind, ln, resid) = (
            sub.kind.as_str(),
            format!("ln_{norm_of}"),
            format!("resid_{}", i + 1),
        );
        let x = if i == 0 {
            x_in.clone()
        } else {
            raw(" x ".into())
        };
        // Sublayer names padded alike, so the adds line up.
        let tail = format!("{}┐", "─".repeat(6 - kind.len()));
        let pad = "─".repeat(6 - kind.len());
        if anatomy.parallel {
            let fork = if i == 0 { "─┬─▶" } else { "├─▶" };
            let lead = if i == 0 { x } else { raw("    ".into()) };
            let mut line = vec![lead, raw(fork.into()), n(&ln), raw("─▶".into()), n(kind)];
            if i == 0 {
                line.push(raw(tail));
            } else {
                line.push(raw(pad));
                line.push(if lit == Some("update") {
                    Span::styled("⊕ update◀", t.lit)
                } else {
                    Span::raw("⊕ update")
                });
            }
            lines.push(Line::from(line));
            if i == last {
                lines.push(Line::from(
                    [
                        vec![raw(format!("    └{}", "─".repeat(18)))],
                        add("resid_1"),
                    ]
                    .concat(),
                ));
            }
            continue;
        }
        lines.extend(match sub.norm {
            NormAt::Before => vec![
                Line::from(vec![
                    x,
                    raw("─┬─▶".into()),
                    n(&ln),
                    raw("─▶".into()),
                    n(kind),
                    raw(tail),
                ]),
                Line::from([vec![raw(format!("    └{}", "─".repeat(18)))], add(&resid)].concat()),
            ],
            // The update flows down through its own norm to the add.
            NormAt::Sandwich => vec![
                Line::from(vec![
                    x,
                    raw("─┬─▶".into()),
                    n(&ln),
                    raw("─▶".into()),
                    n(kind),
                    raw(tail),
                ]),
                Line::from(vec![
                    raw(format!("    │{}▼", " ".repeat(18))),
                    n(&format!("post_{ln}")),
                ]),
                Line::from([vec![raw(format!("    └{}", "─".repeat(18)))], add(&resid)].concat()),
            ],
            NormAt::After => vec![
                Line::from(vec![x, raw("─┬─▶".into()), n(kind), raw(tail)]),
                Line::from(
                    [
                        vec![raw(format!("    └{}", "─".repeat(10)))],
                        add(&resid),
                        vec![raw(" ─▶".into()), n(&ln)],
                    ]
                    .concat(),
                ),
            ],
        });
    }
    if x0 {
        lines.push(Line::styled(
            format!(
                " {}",
                app.tr(&Why::new("ui-diagram-reads-x0").arg("prev", b - 1))
            ),
            t.fail,
        ));
    }
    if lm {
        let mut bottom = vec![raw(" x ─▶".into())];
        if trace.config.norms.final_norm {
            bottom.extend([e("ln_f"), raw("─▶".into())]);
        }
        if trace.get("pooled").is_some() {
            bottom.extend([e("pooler"), raw("─▶ (B,d)".into())]);
        } else {
            bottom.extend([e("lm_head"), raw("─▶ (B,T,V)".into())]);
        }
        lines.push(Line::from(bottom));
    }
    let here = match app.row(app.cursor) {
        Some(Row::Event(e)) if !app.hidden(app.cursor) => {
            let word = if e.departs {
                super::steps::marker(app, e)
            } else if e.returns {
                app.t("ui-mark-returns")
            } else {
                app.t("ui-on-stream")
            };
            let style = if e.departs { t.departs } else { t.base };
            let shape = format!(" {} ", e.named_shape());
            // The marker on the shape's line when both fit, else below it.
            let inner = usize::from(area.width.saturating_sub(2));
            let now_at = app.tr(&Why::new("ui-now").arg("path", e.path.as_str()));
            let mut now = vec![Line::styled(format!(" {now_at}"), t.title)];
            if shape.width() + word.width() <= inner {
                now.push(Line::from(vec![
                    Span::raw(shape),
                    Span::styled(word, style),
                ]));
            } else {
                now.push(Line::raw(shape));
                now.push(Line::styled(format!(" {word}"), style));
            }
            now
        }
        Some(Row::Failure(f)) => vec![
            Line::styled(
                format!(
                    " {}",
                    app.tr(&Why::new("ui-now").arg("path", f.path.as_str()))
                ),
                t.title,
            ),
            Line::styled(
                format!(
                    " {}",
                    app.tr(&Why::new("ui-failed-here").arg("check", f.check.as_str()))
                ),
                t.fail,
            ),
        ],
        _ if app.quiz().is_some() => vec![
            Line::raw(""),
            Line::styled(format!(" {}", app.t("ui-now-quiz")), t.dim),
        ],
        _ => vec![
            Line::raw(""),
            Line::styled(format!(" {}", app.t("ui-now-reveal")), t.dim),
        ],
    };
    lines.push(Line::raw(""));
    lines.extend(here);
    Paragraph::new(lines)
        .block(Block::bordered().title(title))
        .render(area, buf);
}
