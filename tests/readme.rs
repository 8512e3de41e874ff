//! The README's screen capture is drawn by the same code: this test fails
//! when the screen changes and the README does not.

mod common;

use shapetrace::ModelConfig;
use shapetrace::tui::action::{Action, KEYS};
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

#[test]
fn readme_lists_every_key() {
    let text = readme();
    for (keys, what) in KEYS {
        // A pipe inside a table cell is escaped, code span or not (GFM).
        let (keys, what) = (keys.replace('|', "\\|"), what.replace('|', "\\|"));
        assert!(
            text.contains(&format!("| `{keys}` | {what} |")),
            "README lacks the key row for {keys}"
        );
    }
}
