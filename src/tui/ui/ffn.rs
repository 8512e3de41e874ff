//! The FFN-by-hand lab: the lesson's d = 2 → 3 → 2 example, one product at
//! a time. Done steps show ✓, the current one ▶, later ones stay hidden.

use crate::lesson::by_hand::Stage;
use crate::lesson::fmt_vec;
use crate::tui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

fn stage_label(s: Stage) -> &'static str {
    match s {
        Stage::Hidden => "z = x·W1   ",
        Stage::Relu => "h = ReLU(z)",
        Stage::Output => "y = h·W2   ",
        Stage::Residual => "x + y      ",
    }
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let lab = &app.labs.ffn;
    let ex = &lab.ex;
    let mat = |m: &[Vec<f64>]| {
        format!(
            "[{}]",
            m.iter().map(|r| fmt_vec(r)).collect::<Vec<_>>().join(", ")
        )
    };
    let (d, f) = (ex.x.len(), ex.z.len());
    let mut lines = vec![
        Line::from(vec![
            Span::styled("x  = ", t.title),
            Span::raw(fmt_vec(&ex.x)),
            Span::styled("   (e edits x)", t.dim),
        ]),
        Line::raw(format!(
            "W1 = {}   ({d}×{f}: column j feeds unit j)",
            mat(&ex.w1)
        )),
        Line::raw(format!(
            "W2 = {}   ({f}×{d}: row j is what unit j adds)",
            mat(&ex.w2)
        )),
        Line::raw(""),
    ];
    let mut last_stage = None;
    for (i, step) in ex.steps.iter().enumerate() {
        let label = if last_stage == Some(step.stage) {
            "           ".to_string()
        } else {
            stage_label(step.stage).to_string()
        };
        last_stage = Some(step.stage);
        let (mark, body, style) = if i + 1 < lab.shown {
            ("✓", step.text.clone(), t.base)
        } else if i + 1 == lab.shown {
            ("▶", step.text.clone(), t.lit)
        } else {
            (" ", format!("{} = …", step.name), t.dim)
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{label}  "), t.title),
            Span::raw(format!("{mark} ")),
            Span::styled(body, style),
        ]));
    }
    lines.push(Line::raw(""));
    if lab.shown == ex.steps.len() {
        lines.push(Line::raw(format!(
            "z = {}  h = {}  y = {}  x + y = {}",
            fmt_vec(&ex.z),
            fmt_vec(&ex.h),
            fmt_vec(&ex.y),
            fmt_vec(&ex.out)
        )));
        lines.push(Line::raw(ex.rows_view()));
        let off = ex.off_units();
        lines.push(if off.is_empty() {
            Line::raw("ReLU switched no unit off: every z was positive.")
        } else {
            let units: Vec<String> = off.iter().map(ToString::to_string).collect();
            Line::styled(
                format!(
                    "ReLU switched off unit(s) {}: only W2 rows of active units add to y.",
                    units.join(" and ")
                ),
                t.departs,
            )
        });
    } else {
        lines.push(Line::styled(
            "→ next product · ← back · G all · e edits x (try 2,-1)",
            t.dim,
        ));
    }
    let title = format!(
        " FFN by hand: d = {d} → {f} → {d}, ReLU, no biases · step {} of {} ",
        lab.shown,
        ex.steps.len()
    );
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(title))
        .render(area, buf);
}
