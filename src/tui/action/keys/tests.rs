use super::table::{ALL, FOOTERS, STEPPING, c, row};
use super::*;
use crate::i18n::Lang;
use Action as A;
use KeyCode as K;
use KeyMode as M;

/// Every key a table binds, as a key event, and one typed character.
fn events(table: &[Row]) -> Vec<KeyEvent> {
    let mut out: Vec<KeyEvent> = table
        .iter()
        .flat_map(|r| r.binds.iter())
        .filter_map(|(k, _)| match *k {
            Key::Code(code) => Some(KeyEvent::new(code, KeyModifiers::NONE)),
            Key::Ctrl(ch) => Some(KeyEvent::new(K::Char(ch), KeyModifiers::CONTROL)),
            Key::Printable => Some(KeyEvent::new(K::Char('x'), KeyModifiers::NONE)),
            Key::Click => None,
        })
        .collect();
    out.dedup();
    out
}

/// Where two rows bind one key in one mode: allowed only when the first
/// applies in fewer modes, so it is an override of the broader row (space
/// under autoplay, Esc in the help and in a prompt), never a tie decided
/// by the order of the rows alone.
fn clashes(table: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for mode in ALL {
        for key in events(table) {
            let rows: Vec<&Row> = table
                .iter()
                .filter(|r| r.modes.contains(mode) && r.action(key).is_some())
                .collect();
            for pair in rows.windows(2) {
                if pair[0].modes.len() >= pair[1].modes.len() {
                    out.push(format!(
                        "{:?} in {mode:?}: {} and {}",
                        key.code,
                        pair[0].keys(),
                        pair[1].keys()
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn no_two_rows_bind_one_key_in_one_mode_unless_one_overrides() {
    assert_eq!(clashes(TABLE), Vec::<String>::new());
    // Two rows of the same modes binding `x`: a clash.
    const TWICE: [Row; 2] = [
        row(&[(c('x'), A::CycleMistake)], "help-mistake", &[]),
        row(&[(c('x'), A::Quit)], "help-quit", &[]),
    ];
    let twice = TWICE;
    assert_eq!(
        clashes(&twice).len(),
        STEPPING.len(),
        "{:?}",
        clashes(&twice)
    );
    // The broader row first: the narrower one could never apply.
    let shadowed = [TABLE[TABLE.len() - 1], TABLE[0]];
    assert!(!clashes(&shadowed).is_empty());
}

#[test]
fn keys_are_written_from_their_bindings() {
    let written: Vec<String> = listed().map(|(k, _)| k).collect();
    for want in [
        "→ l space",
        "↓ j / ↑ k",
        "g Home / G End",
        "PgDn / PgUp",
        "Tab / Shift-Tab",
        "q Esc Ctrl-C",
        "Enter / Esc",
        "click",
    ] {
        assert!(written.iter().any(|k| k == want), "{want} in {written:?}");
    }
    // The typing row and the help's own Esc are not listed.
    assert!(
        written.iter().all(|k| !k.contains("any character")),
        "{written:?}"
    );
}

#[test]
fn the_map_follows_the_table() {
    use super::super::map_key;
    let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
    // Space steps, except under autoplay, where its own row pauses.
    assert_eq!(map_key(key(K::Char(' ')), M::Normal), Some(A::Next));
    assert_eq!(
        map_key(key(K::Char(' ')), M::Autoplay),
        Some(A::TogglePause)
    );
    // Esc: quits, closes the help, skips a question.
    assert_eq!(map_key(key(K::Esc), M::Normal), Some(A::Quit));
    assert_eq!(map_key(key(K::Esc), M::Help), Some(A::ToggleHelp));
    assert_eq!(map_key(key(K::Esc), M::Typing), Some(A::Cancel));
    // A stepping key means nothing in the help, a letter is typed.
    assert_eq!(map_key(key(K::Char('n')), M::Help), None);
    assert_eq!(map_key(key(K::Char('n')), M::Typing), Some(A::Char('n')));
    // Ctrl and a letter is never the letter.
    let ctrl = |ch| KeyEvent::new(K::Char(ch), KeyModifiers::CONTROL);
    assert_eq!(map_key(ctrl('l'), M::Normal), None);
    assert_eq!(map_key(ctrl('c'), M::Typing), Some(A::Quit));
    assert_eq!(map_key(ctrl('u'), M::Normal), None);
}

#[test]
fn every_footer_hints_help_and_quit_last() {
    for footer in FOOTERS {
        let words: Vec<&str> = hints(footer).map(|h| h.word).collect();
        assert!(words.len() >= 4, "{footer:?}: {words:?}");
        assert_eq!(
            words[words.len() - 2..],
            ["ui-hint-help", "ui-hint-quit"],
            "{footer:?}"
        );
    }
}

#[test]
fn the_markdown_lists_every_listed_row_in_each_language() {
    for lang in Lang::ALL {
        let md = markdown(lang);
        assert_eq!(md.lines().count(), 2 + listed().count(), "{md}");
        assert!(
            md.contains(&format!(
                "| `\\|` | {} |",
                lang.t("help-split").replace('|', "\\|")
            )),
            "{md}"
        );
    }
}
