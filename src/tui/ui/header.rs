//! The header: the model on one line, the tabs and the fault on the other.

use crate::tui::app::{App, Tab};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let c = &app.cfg;
    let t = app.theme;
    let kv = if c.kv_heads == c.heads {
        String::new()
    } else {
        format!(" kv_heads={}", c.kv_heads)
    };
    let model = format!(
        " B={} T={} d_model={} heads={}{kv} d_ff={} · {} · {} · {}-LN · layers={}",
        c.batch, c.seq, c.d_model, c.heads, c.d_ff, c.act, c.norm, c.placement, c.layers
    );
    let mut tabs = vec![
        Span::styled(" shapetrace ", t.header),
        Span::styled(
            format!(" {} · {} · seed {}  ", c.preset, c.dtype, c.seed),
            t.title,
        ),
    ];
    for tab in Tab::ALL {
        let label = tab.title();
        tabs.push(if tab == app.tab && !app.present {
            Span::styled(format!("[{label}]"), t.title)
        } else {
            Span::styled(format!(" {label} "), t.dim)
        });
    }
    if app.present {
        tabs.push(Span::styled(" [Presenter]", t.title));
    }
    if let Some(f) = c.fault {
        tabs.push(Span::raw(" "));
        tabs.push(Span::styled(format!("⚠ fault {f}"), t.fail));
    }
    if let Some(q) = &app.quiz {
        tabs.push(Span::styled(
            format!("  quiz {}/{}", q.right, q.asked),
            t.key,
        ));
    }
    Paragraph::new(vec![Line::from(tabs), Line::raw(model)]).render(area, buf);
}
