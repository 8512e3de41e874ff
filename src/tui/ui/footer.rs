//! The footer: the contract's status, then the last message or key hints.
//! While the quiz is on, the departure and return counts are hidden: they
//! would say how many shapes leave (B,T,d) before the student predicts them.

use crate::check::Status;
use crate::tui::app::App;
use crate::why::Why;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme;
    let trace = &app.run.trace;
    let passed = trace
        .residual_adds()
        .filter(|e| e.check.as_ref().is_some_and(|c| c.ok))
        .count();
    let want = trace.expected_residual_adds();
    let failed: Vec<_> = app
        .run
        .checks
        .iter()
        .filter(|c| c.status == Status::Fail)
        .collect();
    let all_ok = passed == want;
    let adds = Why::new("ui-adds")
        .arg("mark", if all_ok { "✓" } else { "✗" })
        .arg("passed", passed)
        .arg("want", want);
    let adds = Span::styled(
        format!(" {}", app.tr(&adds)),
        if all_ok { t.ok } else { t.fail },
    );
    // A switch is being traced: these verdicts are the old model's.
    let stale = app.stale();
    let verdict = match failed.first() {
        // A replayed log that ends without its summary has no verdicts.
        None if app.run.checks.is_empty() => Span::styled(app.t("ui-no-verdicts"), t.key),
        None => Span::styled(format!("✓ {}", headline(app)), t.ok),
        Some(c) => {
            let at = Why::new("ui-fails-at")
                .arg("check", c.name.as_str())
                .arg("path", c.path.as_deref().unwrap_or("?"));
            Span::styled(app.tr(&at), t.fail)
        }
    };
    let departures = trace.departures().count();
    let returns = trace.events.iter().filter(|e| e.returns).count();
    // The counts give the quiz's answers away (which steps leave (B,T,d)).
    let (long, short) = if app.quiz().is_some() {
        (
            format!(" · {} · ", app.t("ui-counts-hidden")),
            format!(" · {} · ", app.t("ui-counts-hidden-short")),
        )
    } else {
        let counts = Why::new("ui-counts")
            .arg("departures", departures)
            .arg("returns", returns);
        (
            format!(" · {} · ", app.tr(&counts)),
            app.say(format!(" · ◆ {departures} · ↩ {returns} · ")),
        )
    };
    let quiz = app.quiz().map_or_else(
        || Span::raw(""),
        |q| {
            let quiz = Why::new("ui-footer-quiz")
                .arg("right", q.right)
                .arg("asked", q.asked);
            Span::styled(format!(" {} │", app.tr(&quiz)), t.key)
        },
    );
    let fits = quiz.width() + adds.width() + Span::raw(&long).width() + verdict.width()
        <= usize::from(area.width);
    let mut first = Line::from(vec![
        quiz,
        adds,
        Span::raw(if fits { long } else { short }),
        verdict,
    ]);
    if stale {
        // Dimmed and said in words: the old verdicts until the new trace lands.
        first = first.patch_style(t.dim);
        first
            .spans
            .insert(0, Span::styled(format!(" {}", app.t("ui-stale")), t.key));
    }
    // The message (the last thing that happened) takes rows of its own
    // above the key hints, which always stay.
    let (msg, style) = message(app);
    let mut lines = vec![first];
    // The gauge's row (drawn below), under the contract.
    if app.progress.is_some() {
        lines.push(Line::raw(""));
    }
    lines.extend(
        wrap(msg.as_deref(), area.width)
            .into_iter()
            .map(|m| Line::styled(format!(" {m}"), style)),
    );
    lines.push(hints(app));
    Paragraph::new(lines).render(area, buf);
    // A trace running in the background: a gauge with its count in words,
    // on the row kept for it ([`super::areas`] counts it).
    if let Some((done, expected)) = app.progress {
        let row = Rect {
            y: area.y + 1,
            height: 1,
            ..area
        };
        #[allow(clippy::cast_precision_loss)]
        let ratio = if expected == 0 {
            0.0
        } else {
            (done as f64 / expected as f64).clamp(0.0, 1.0)
        };
        ratatui::widgets::Gauge::default()
            .gauge_style(t.lit)
            .ratio(ratio)
            .label(if expected == 0 {
                app.t("ui-tracing")
            } else {
                app.tr(&Why::new("ui-tracing-count")
                    .arg("done", done)
                    .arg("expected", expected))
            })
            .render(row, buf);
    }
}

/// The message under the contract line: the last thing that happened
/// (the quiz's verdicts are in its own box), with its style.
fn message(app: &App) -> (Option<String>, ratatui::style::Style) {
    (app.status.as_deref().map(|s| app.say(s)), app.theme.key)
}

/// Most rows a message takes.
const MESSAGE_ROWS: usize = 2;

/// `msg` wrapped to a screen `width` wide (after a space), in at most
/// [`MESSAGE_ROWS`] rows.
fn wrap(msg: Option<&str>, width: u16) -> Vec<String> {
    let width = usize::from(width).saturating_sub(1).max(1);
    msg.map(|m| {
        textwrap::wrap(m, width)
            .into_iter()
            .take(MESSAGE_ROWS)
            .map(String::from)
            .collect()
    })
    .unwrap_or_default()
}

/// How many rows the footer's message takes on a screen `width` wide.
#[must_use]
pub fn message_rows(app: &App, width: u16) -> u16 {
    let rows = wrap(message(app).0.as_deref(), width).len();
    u16::try_from(rows).unwrap_or(0)
}

/// The key hints of the footer the app is in, from the key table.
fn hints(app: &App) -> Line<'static> {
    use crate::tui::action::keys::{self, Footer, PAUSE, RESUME};
    use crate::tui::app::Tab;
    let footer = if app.key_mode() == crate::tui::action::KeyMode::Typing {
        Footer::Typing
    } else if app.autoplay.is_some() {
        Footer::Autoplay
    } else if app.presenting() {
        Footer::Steps
    } else if app.split_shown() {
        Footer::Split
    } else {
        match app.tab {
            Tab::Ffn | Tab::Norms => Footer::Lab,
            Tab::Budget => Footer::Budget,
            Tab::Probes => Footer::Probes,
            Tab::Steps | Tab::Checks => Footer::Steps,
        }
    };
    let paused = app.autoplay.is_some_and(|a| a.paused);
    let mut spans = vec![Span::raw(" ")];
    for h in keys::hints(footer) {
        spans.push(Span::styled(app.keys(h.keys), app.theme.key));
        let word = if paused && h.word == PAUSE {
            RESUME
        } else {
            h.word
        };
        spans.push(Span::raw(format!(" {} ", app.t(word))));
    }
    Line::from(spans)
}

/// The checks' headline, `all 12 checks hold`, in the app's language.
fn headline(app: &App) -> String {
    let checks = &app.run.checks;
    let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
    let (failed, skipped) = (count(Status::Fail), count(Status::Skip));
    app.tr(&Why::new("ui-headline")
        .arg("failed", failed)
        .arg("skipped", skipped)
        .arg("held", checks.len() - failed - skipped)
        .arg("total", checks.len()))
}
