//! The checks' and the faults' words in the app's language, for every
//! pane that names them (the Checks tab, the Detail pane, presenter mode).

use crate::tui::app::App;

/// What a teaching fault does, in the app's language.
pub(super) fn fault_text(app: &App, fault: crate::config::Fault) -> String {
    app.t(&fault.spec().mistake_key())
}

/// A detail in the app's language: its catalog message when it has one
/// and the language is not English, else its English as stored. The one
/// path every pane that shows a check's or a failure's detail takes.
pub(super) fn detail_in(app: &App, why: Option<&crate::why::Why>, english: &str) -> String {
    match (why, app.lang) {
        (Some(why), lang) if lang != crate::i18n::Lang::En => app.tr(why),
        _ => app.say(english),
    }
}

/// A check's detail in the app's language.
pub(super) fn check_detail(app: &App, c: &crate::CheckResult) -> String {
    detail_in(app, c.why.as_ref(), &c.detail)
}

/// A failure's detail in the app's language: its own catalog message,
/// else (a replayed log keeps none) the message of the check that failed
/// with that detail, else its English.
pub(super) fn failure_detail(app: &App, f: &crate::trace::Failure) -> String {
    let why = f.detail_why.0.as_ref().or_else(|| {
        app.run
            .checks
            .iter()
            .find(|c| c.name == f.check && c.detail == f.detail)
            .and_then(|c| c.why.as_ref())
    });
    detail_in(app, why, &f.detail)
}
