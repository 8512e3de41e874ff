//! The README's screen capture is drawn by the same code: this test fails
//! when the screen changes and the README does not.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shapetrace::ModelConfig;
use shapetrace::tui::action::{Action, KEYS};
use shapetrace::tui::app::App;
use shapetrace::tui::theme::COLOR;

/// The lesson screen after pressing `n` five times, at 80×24.
fn capture() -> String {
    let mut app = App::new(ModelConfig::default(), COLOR).unwrap();
    for _ in 0..5 {
        app.update(Action::NextDeparture);
    }
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    term.draw(|f| f.render_widget(&app, f.area())).unwrap();
    let buf = term.backend().buffer();
    let cells: Vec<&str> = buf.content.iter().map(|c| c.symbol()).collect();
    cells
        .chunks(80)
        .map(|r| r.concat().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
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
        assert!(
            text.contains(&format!("| `{keys}` | {what} |")),
            "README lacks the key row for {keys}"
        );
    }
}
