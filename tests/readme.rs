//! The README's screen capture is drawn by the same code: this test fails
//! when the screen changes and the README does not.

mod common;

use shapetrace::ModelConfig;
use shapetrace::i18n::Lang;
use shapetrace::tui::action::Action;
use shapetrace::tui::action::keys;
use shapetrace::tui::app::Given;

/// The lesson screen after pressing `n` five times, at 80×24.
fn capture() -> String {
    let mut lp = common::stepper(ModelConfig::default(), Given::default());
    for _ in 0..5 {
        lp.app.update(Action::NextDeparture);
    }
    common::settle(&mut lp);
    common::frame(&lp)
}

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

#[test]
fn readme_shows_the_screen_as_drawn() {
    let want = format!("```text\n{}\n```", capture());
    let text = readme();
    let inside = text
        .split("<!-- screen:start -->\n")
        .nth(1)
        .and_then(|rest| rest.split("\n<!-- screen:end -->").next())
        .expect("README has the screen markers");
    assert_eq!(
        inside, want,
        "update README.md between the screen markers to:\n{want}"
    );
}

/// The part of `text` between `<!-- NAME:start -->` and `<!-- NAME:end -->`.
fn between<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.split(&format!("<!-- {name}:start -->\n"))
        .nth(1)?
        .split(&format!("<!-- {name}:end -->"))
        .next()
}

/// The README's key list is the key table's, in English: a key added,
/// removed or reworded in one and not the other fails here.
#[test]
fn readme_lists_the_key_table() {
    let want = keys::markdown(Lang::En);
    let text = readme();
    let inside = between(&text, "keys").expect("README has the keys markers");
    assert_eq!(
        inside, want,
        "update README.md between the keys markers to:\n{want}"
    );
    // A README with one row reworded is caught.
    let edited = text.replacen("| first / last step |", "| first or last step |", 1);
    assert_ne!(between(&edited, "keys"), Some(want.as_str()));
}
