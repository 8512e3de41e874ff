//! The parts of the README and the book that the program itself draws or
//! prints are held to it: the screen capture, the key list. A test fails
//! when the screen or the key table changes and the text does not.
//! (The fault table is held by `tests/faults.rs`, the split view's
//! excerpt by `tests/split.rs`.)

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

/// A file of the repository, by its path from the root.
fn read(path: &str) -> String {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The part of `text` between `<!-- NAME:start -->` and `<!-- NAME:end -->`.
fn between<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.split(&format!("<!-- {name}:start -->\n"))
        .nth(1)?
        .split(&format!("<!-- {name}:end -->"))
        .next()
}

/// The screen capture between the screen markers, without the newline
/// before the end marker.
fn screen_block(text: &str) -> Option<&str> {
    between(text, "screen").map(|s| s.strip_suffix('\n').unwrap_or(s))
}

/// The README's front page and the book's stepper chapter show the
/// screen as drawn.
#[test]
fn readme_and_book_show_the_screen_as_drawn() {
    let want = format!("```text\n{}\n```", capture());
    for path in ["README.md", "docs/src/stepper.md"] {
        let text = read(path);
        let inside = screen_block(&text).unwrap_or_else(|| panic!("{path} has the screen markers"));
        assert_eq!(
            inside, want,
            "update {path} between the screen markers to:\n{want}"
        );
    }
    // A capture with one glyph changed is caught.
    let edited = read("README.md").replacen("◆ leaves (B,T,d)", "* leaves (B,T,d)", 1);
    assert_ne!(screen_block(&edited), Some(want.as_str()));
}

/// The book's key list is the key table's, in English: a key added,
/// removed or reworded in one and not the other fails here.
#[test]
fn book_lists_the_key_table() {
    let want = keys::markdown(Lang::En);
    let text = read("docs/src/stepper.md");
    let inside = between(&text, "keys").expect("docs/src/stepper.md has the keys markers");
    assert_eq!(
        inside, want,
        "update docs/src/stepper.md between the keys markers to:\n{want}"
    );
    // A list with one row reworded is caught.
    let edited = text.replacen("| first / last step |", "| first or last step |", 1);
    assert_ne!(between(&edited, "keys"), Some(want.as_str()));
}

/// The Library chapter's snippet is `examples/library.rs`, which cargo
/// builds inside a function returning `shapetrace::Error`: every line of
/// the snippet is a line of the example, in order, so neither drifts.
#[test]
fn the_library_snippet_is_the_compiled_example() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/library.md"))
        .unwrap();
    let snippet = |text: &str| -> Vec<String> {
        text.split("```rust\n")
            .nth(1)
            .and_then(|s| s.split("\n```").next())
            .expect("the Library chapter opens with a Rust block")
            .lines()
            .map(|l| l.trim().to_string())
            .collect()
    };
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/library.rs"))
            .unwrap();
    let body: Vec<String> = example
        .split("// snippet: start\n")
        .nth(1)
        .and_then(|s| s.split("// snippet: end").next())
        .expect("examples/library.rs has the snippet's markers")
        .trim_end()
        .lines()
        .map(|l| l.trim().to_string())
        .collect();
    assert_eq!(
        body,
        snippet(&text),
        "docs/src/library.md's block and examples/library.rs differ"
    );
    // A chapter with one line edited is caught.
    let edited = text.replacen("assert!(run.ok());", "assert!(!run.ok());", 1);
    assert_ne!(body, snippet(&edited));
}
