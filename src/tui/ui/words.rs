//! The checks' and the faults' words in the app's language, for every
//! pane that names them (the Checks tab, the Detail pane, presenter mode).

use crate::tui::app::App;

/// What a teaching fault does, in the app's language.
pub(super) fn fault_text(app: &App, fault: crate::config::Fault) -> String {
    app.t(&fault.spec().mistake_key())
}

/// A check's detail in the app's language: its catalog message when it
/// has one, else its English.
pub(super) fn check_detail(app: &App, c: &crate::CheckResult) -> String {
    match (&c.why, app.lang) {
        (Some(why), lang) if lang != crate::i18n::Lang::En => app.tr(why),
        _ => app.say(c.detail.as_str()),
    }
}
