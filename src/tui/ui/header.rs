//! The header: the model on one line, the tabs and the fault on the other.

use crate::text::shown;
use crate::tui::app::{App, Tab};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let c = app.cfg();
    let t = app.theme;
    // Full names when they fit, short ones otherwise: [B, T, d_model, heads, kv, d_ff, layers].
    let line = |names: [&str; 7], gap: &str| {
        let kv = if c.kv_heads == c.heads {
            String::new()
        } else {
            format!(" {}={}", names[4], c.kv_heads)
        };
        format!(
            " {}={} {}={} {}={} {}={}{kv} {}={} {}={}{gap}{} {} {}-LN{gap}{} seed={}",
            names[0],
            c.batch,
            names[1],
            c.seq,
            names[2],
            c.d_model,
            names[3],
            c.heads,
            names[5],
            c.d_ff,
            names[6],
            c.layers,
            c.act,
            c.norm,
            c.placement,
            c.dtype,
            c.seed
        )
    };
    let long = line(
        ["B", "T", "d_model", "heads", "kv_heads", "d_ff", "layers"],
        "  ",
    );
    let model = if long.chars().count() <= usize::from(area.width) {
        long
    } else {
        line(["B", "T", "d", "h", "kv", "ff", "L"], " ")
    };
    // A fault takes the brand's place, so the bar fits 80 columns.
    let mut tabs = match c.fault {
        Some(f) => vec![Span::styled(format!(" ⚠ fault {f} "), t.fail)],
        None => vec![Span::styled(" shapetrace ", t.header)],
    };
    // File names and a log's model name are the user's: shown escaped.
    let name = match (&app.source, &app.given.label) {
        (Some(s), _) => format!("▷ {}", shown(s)),
        // The model's name is the checkpoint's already; the files say it.
        (None, Some(l)) => format!("◆ {}", shown(l)),
        (None, None) => shown(&c.preset).to_string(),
    };
    tabs.push(Span::styled(format!(" {name} "), t.title));
    for tab in Tab::ALL.into_iter().filter(|_| !app.present) {
        let label = tab.title();
        let failing = tab == Tab::Checks && app.run.checks.iter().any(|c| !c.ok());
        let mark = if failing { "✗" } else { " " };
        tabs.push(if tab == app.tab && !app.present {
            Span::styled(format!("[{label}]"), t.title)
        } else {
            Span::styled(format!(" {label}"), t.dim)
        });
        tabs.push(if failing {
            Span::styled(mark, t.fail)
        } else {
            Span::raw(mark)
        });
    }
    if app.present {
        tabs.push(Span::styled("[Presenter]", t.title));
    }
    Paragraph::new(vec![Line::from(tabs), Line::raw(model)]).render(area, buf);
}
