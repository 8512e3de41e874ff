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

/// The README's Library snippet is `examples/library.rs`, which cargo
/// builds inside a function returning `shapetrace::Error`: every line of
/// the snippet is a line of the example, in order, so neither drifts.
#[test]
fn readme_library_snippet_is_the_compiled_example() {
    let text = readme();
    let section = text
        .split("## Library\n")
        .nth(1)
        .expect("README has a Library section");
    let snippet = section
        .split("```rust\n")
        .nth(1)
        .and_then(|s| s.split("\n```").next())
        .expect("the Library section opens with a Rust block");
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/library.rs"))
            .unwrap();
    let body = example
        .split("// README: start\n")
        .nth(1)
        .and_then(|s| s.split("// README: end").next())
        .expect("examples/library.rs has the README markers");
    let want: Vec<&str> = snippet.lines().map(str::trim).collect();
    let have: Vec<&str> = body.trim_end().lines().map(str::trim).collect();
    assert_eq!(
        have, want,
        "README.md's Library block and examples/library.rs differ"
    );
}
