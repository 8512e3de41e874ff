//! The header: the model on one line, the tabs and the fault on the other.

use crate::text::{escaped, shown};
use crate::trace::Mode;
use crate::tui::app::{App, Tab};
use crate::why::Why;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let c = app.cfg();
    let t = app.theme;
    // Where the values come from: loaded weights are not drawn from the
    // seed, and a shape-only run has no values at all (a lasting mark,
    // until values arrive or for as long as the plan keeps shapes only).
    let origin = if app.run.trace.mode == Mode::ShapeOnly {
        app.t("ui-shapes-only")
    } else if app.given.req.weights.is_some() {
        app.t("ui-weights-from-file")
    } else {
        format!("seed={}", c.seed)
    };
    // Full names when they fit, short ones otherwise: [B, T, d_model, heads, kv, d_ff, layers].
    let line = |names: [&str; 7], gap: &str| {
        let a = &c.attention;
        let mut kv = if a.kv_heads == a.heads {
            String::new()
        } else {
            format!(" {}={}", names[4], a.kv_heads)
        };
        // A head width apart from d / h and a sliding window, when set.
        if let Some(hd) = a.head_dim {
            kv.push_str(&format!(" hd={hd}"));
        }
        if let Some(window) = a.window {
            kv.push_str(&format!(" window={window}"));
        }
        // A split model: whose shapes these are.
        let d = c.devices;
        if d.split() {
            let key = if d.sp { "ui-device-sp" } else { "ui-device" };
            let why = Why::new(key).arg("k", d.rank()).arg("N", d.tp);
            kv.push_str(&format!(" {}", app.tr(&why)));
        }
        if d.experts_split() {
            let why = Why::new("ui-device-ep").arg("k", d.rank()).arg("N", d.ep);
            kv.push_str(&format!(" {}", app.tr(&why)));
        }
        if d.piped() {
            let why = Why::new("ui-stage")
                .arg("k", d.device)
                .arg("s", d.stage() + 1)
                .arg("M", d.pp);
            kv.push_str(&format!(" {}", app.tr(&why)));
        }
        // A mixture of experts: each token's MLP is k of E.
        let mut ff = String::new();
        if let Some(m) = c.mixture {
            let experts = Why::new("ui-experts").arg("k", m.top_k).arg("E", m.experts);
            ff = format!(" {}", app.tr(&experts));
        }
        format!(
            " {}={} {}={} {}={} {}={}{kv} {}={}{ff} {}={}{gap}{} {} {}-LN{gap}{} {}",
            names[0],
            c.batch,
            names[1],
            c.seq,
            names[2],
            c.d_model,
            names[3],
            c.attention.heads,
            names[5],
            c.mlp.d_ff,
            names[6],
            c.layers,
            c.mlp.act,
            c.norms.kind,
            c.norms.placement,
            c.dtype,
            origin,
        )
    };
    let long = line(
        ["B", "T", "d_model", "heads", "kv_heads", "d_ff", "layers"],
        "  ",
    );
    let model = if let Some(producer) = &app.foreign {
        // Another program's log holds the stream's shape, not our fields.
        let foreign = Why::new("ui-foreign-model")
            .arg("B", c.batch)
            .arg("T", c.seq)
            .arg("d", c.d_model)
            .arg("blocks", c.layers)
            .arg("placement", c.norms.placement.to_string())
            .arg("dtype", c.dtype.to_string())
            .arg("producer", escaped(producer).to_string());
        format!(" {}", app.tr(&foreign))
    } else if long.width() <= usize::from(area.width) {
        long
    } else {
        line(["B", "T", "d", "h", "kv", "ff", "L"], " ")
    };
    // A fault takes the brand's place, so the bar fits 80 columns.
    let mut tabs = match c.fault {
        Some(f) => {
            let badge = app.tr(&Why::new("ui-fault-badge").arg("fault", f.to_string()));
            vec![Span::styled(format!(" {badge} "), t.fail)]
        }
        None => vec![Span::styled(" shapetrace ", t.header)],
    };
    // File names and a log's model name are the user's: shown escaped.
    let name = match (&app.source, &app.given.label) {
        (Some(s), _) => format!("▷ {}", escaped(s)),
        // The model's name is the checkpoint's already; the files say it.
        (None, Some(l)) => format!("◆ {}", escaped(l)),
        (None, None) => shown(&c.preset).to_string(),
    };
    let name_at = tabs.len();
    tabs.push(Span::styled(format!(" {name} "), t.title));
    for tab in Tab::ALL.into_iter().filter(|_| !app.presenting()) {
        let label = app.t(tab.key());
        let failing = tab == Tab::Checks && app.run.checks.iter().any(|c| !c.ok);
        let mark = if failing { "✗" } else { " " };
        tabs.push(if tab == app.tab && !app.presenting() {
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
    if app.presenting() {
        tabs.push(Span::styled(
            format!("[{}]", app.t("ui-tab-presenter")),
            t.title,
        ));
    }
    // A long file name gives way to the tabs: cut in its middle.
    let others: usize = tabs.iter().map(Span::width).sum::<usize>() - tabs[name_at].width();
    let room = usize::from(area.width).saturating_sub(others + 2);
    if tabs[name_at].width() > room + 2 {
        tabs[name_at].content = format!(" {} ", elide(&name, room)).into();
    }
    Paragraph::new(vec![Line::from(tabs), Line::raw(model)]).render(area, buf);
}

/// `s` cut to at most `room` columns (at least 3) by a `…` in its
/// middle, so both the start and the extension of a file name stay; a
/// wide character is never cut in two.
fn elide(s: &str, room: usize) -> String {
    let room = room.max(3);
    if s.width() <= room {
        return s.to_string();
    }
    let tail = (room - 1) / 2;
    let head = room - 1 - tail;
    let start = super::width::take(s, head);
    let end = super::width::take_last(s, tail);
    format!("{start}…{end}")
}
