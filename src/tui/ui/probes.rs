//! The probes lab: which rows of each tensor change when one input row
//! changes. `●` changed where allowed, `✗` changed where it must not
//! (an earlier position, another batch element, or another token of a
//! position-wise layer), `·` unchanged.

use crate::check::influence::{Cell, Kind};
use crate::tui::app::App;
use crate::why::Why;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

const PATH_W: usize = 22;

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    if let Some(producer) = &app.foreign {
        // The probes ran on the student's module when it was exported.
        let mut lines = vec![Line::styled(
            app.tr(&Why::new("ui-probes-foreign")
                .arg("producer", crate::text::shown(producer).to_string())),
            t.dim,
        )];
        for c in app.run.checks.iter().filter(|c| {
            matches!(
                c.name,
                crate::trace::CheckName::Causality | crate::trace::CheckName::Positionwise
            )
        }) {
            let glyph = crate::report::table::verdict(c.status);
            lines.push(Line::raw(format!("{glyph} {} {}", c.name, c.detail)));
        }
        Paragraph::new(lines)
            .wrap(ratatui::widgets::Wrap { trim: false })
            .block(Block::bordered().title(format!(" {} ", app.t("ui-tab-probes"))))
            .render(area, buf);
        return;
    }
    let p = &app.labs.probes;
    let name = p.kind.name();
    let rule = match p.kind {
        Kind::Causality => app.t("ui-probes-rule-causality"),
        Kind::Positionwise => app.t("ui-probes-rule-positionwise"),
    };
    // Until the opening probe is back, the token is being looked for.
    let token = p.token.map_or_else(
        || app.t("ui-probes-each-token"),
        |k| app.tr(&Why::new("ui-probes-token").arg("t", k)),
    );
    let title = Why::new("ui-probes-title")
        .arg("name", name)
        .arg("token", token.as_str());
    let title = format!(" {} ", app.tr(&title));
    let mut lines = vec![Line::styled(rule, t.dim)];
    match p.current(app.generation) {
        // The probe re-runs the model on a worker thread.
        None => lines.push(Line::styled(
            app.tr(&Why::new("ui-probes-computing").arg("token", token.as_str())),
            t.key,
        )),
        Some(Err(e)) => lines.push(Line::styled(
            app.tr(&Why::new("ui-probes-cannot").arg("error", e.to_string())),
            t.fail,
        )),
        Some(Ok(view)) => {
            let grid = view.grid(2, (view.token + 1).max(16));
            let nt = grid
                .first()
                .and_then(|(_, b)| b.first())
                .map_or(0, Vec::len);
            let mut head = format!("{:<PATH_W$}", "");
            let mut cols = super::width::pad(&app.t("ui-probes-tensor"), PATH_W);
            for b in 0..grid.first().map_or(0, |(_, b)| b.len()) {
                let batch = app.tr(&Why::new("ui-probes-batch").arg("b", b));
                head.push_str(&super::width::pad(&batch, nt * 3 + 3));
                for tt in 0..nt {
                    cols.push_str(&format!("{:<3}", format!("t{tt}")));
                }
                cols.push_str("   ");
            }
            lines.push(Line::styled(head, t.title));
            lines.push(Line::styled(cols, t.title));
            let room = usize::from(area.height.saturating_sub(6));
            for (path, batches) in grid.iter().take(room) {
                let mut spans = vec![Span::raw(super::width::pad(path, PATH_W))];
                for cells in batches {
                    for c in cells {
                        let style = match c {
                            Cell::Same => t.dim,
                            Cell::Changed => t.departs,
                            Cell::Leak | Cell::Missing => t.fail,
                        };
                        spans.push(Span::styled(format!("{:<3}", c.glyph()), style));
                    }
                    spans.push(Span::raw("   "));
                }
                lines.push(Line::from(spans));
            }
            lines.push(if view.leaks() {
                Line::styled(
                    app.tr(&Why::new("ui-probes-fails").arg("name", name)),
                    t.fail,
                )
            } else {
                let holds = Why::new("ui-probes-holds")
                    .arg("name", name)
                    .arg("t", view.token);
                Line::styled(app.tr(&holds), t.ok)
            });
        }
    }
    Paragraph::new(lines)
        .block(Block::bordered().title(title))
        .render(area, buf);
}
