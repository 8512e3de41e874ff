//! The one key table: each row binds keys to actions in some key modes,
//! names its words in the catalog and says in which footers it is hinted.
//! [`super::map_key`] reads the bindings, the footer its hints, the help
//! overlay and the README's key list ([`markdown`]) its words, so none of
//! them can drift from the keys that work.
//!
//! ```text
//! keys (made of the bindings)   words (catalog)   modes            footer
//! → l space                     help-next         Normal Autoplay  ←→ step, ←→ change, …
//! ```

use super::{Action, KeyMode};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key a row binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A key pressed without Ctrl.
    Code(KeyCode),
    /// Ctrl and a letter, e.g. Ctrl-C.
    Ctrl(char),
    /// Any printable character, typed into a prompt: its action is
    /// `Action::Char` of that character.
    Printable,
    /// A mouse click on a step: the event loop finds the row clicked.
    Click,
}

impl Key {
    /// The key as the help and the README write it, e.g. `→`, `Ctrl-C`.
    #[must_use]
    pub fn name(self) -> String {
        match self {
            Key::Code(code) => match code {
                KeyCode::Right => "→".into(),
                KeyCode::Left => "←".into(),
                KeyCode::Down => "↓".into(),
                KeyCode::Up => "↑".into(),
                KeyCode::PageDown => "PgDn".into(),
                KeyCode::PageUp => "PgUp".into(),
                KeyCode::BackTab => "Shift-Tab".into(),
                KeyCode::Char(' ') => "space".into(),
                KeyCode::Char(c) => c.to_string(),
                other => other.to_string(),
            },
            Key::Ctrl(c) => format!("Ctrl-{}", c.to_ascii_uppercase()),
            Key::Printable => "any character".into(),
            Key::Click => "click".into(),
        }
    }

    /// The action `key` gives through this binding of `action`, if it is
    /// this key.
    fn gives(self, key: KeyEvent, action: Action) -> Option<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match (self, key.code) {
            (Key::Code(code), got) if !ctrl && code == got => Some(action),
            (Key::Ctrl(c), KeyCode::Char(got)) if ctrl && c == got => Some(action),
            (Key::Printable, KeyCode::Char(c)) if !ctrl && !c.is_control() => Some(Action::Char(c)),
            _ => None,
        }
    }
}

/// A footer whose key hints a row may give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Footer {
    /// The steps (and the Checks tab, and presenter mode).
    Steps,
    /// The split view beside a second model.
    Split,
    /// Autoplay.
    Autoplay,
    /// The FFN and Norms labs.
    Lab,
    /// The Budget lab.
    Budget,
    /// The Probes lab.
    Probes,
    /// A prompt waiting for typing (the quiz, a lab's `e`): every
    /// printable key is text, so no letter is a command there.
    Typing,
}

/// A key hint in a footer: `←→ step`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    /// The footer it shows in.
    pub on: Footer,
    /// The keys as the hint writes them, e.g. `←→`.
    pub keys: &'static str,
    /// The catalog key of its word, e.g. `ui-hint-step`.
    pub word: &'static str,
}

/// A row of the key table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// Each key and the action it gives, in the order they are written.
    pub binds: &'static [(Key, Action)],
    /// The catalog key of what the row does, as the help and the README
    /// say it; `None`: listed in neither (the prompt's typing, the help's
    /// own Esc, space under autoplay, which the footer and `P` name).
    pub words: Option<&'static str>,
    /// The key modes it applies in.
    pub modes: &'static [KeyMode],
    /// The footers that hint it.
    pub hints: &'static [Hint],
}

impl Row {
    /// The action `key` gives through this row, if the row binds it.
    #[must_use]
    pub fn action(&self, key: KeyEvent) -> Option<Action> {
        self.binds.iter().find_map(|(k, a)| k.gives(key, *a))
    }

    /// Its keys as written: keys of one action joined by spaces, actions
    /// by ` / `, e.g. `g Home / G End`.
    #[must_use]
    pub fn keys(&self) -> String {
        let mut out = String::new();
        let mut last: Option<Action> = None;
        for (k, a) in self.binds {
            if let Some(prev) = last {
                out.push_str(if prev == *a { " " } else { " / " });
            }
            out.push_str(&k.name());
            last = Some(*a);
        }
        out
    }
}

mod table;

pub use table::{PAUSE, RESUME, TABLE};

/// The hints of `footer`, in table order: (keys, catalog key of the word).
pub fn hints(footer: Footer) -> impl Iterator<Item = &'static Hint> {
    TABLE
        .iter()
        .flat_map(|r| r.hints.iter())
        .filter(move |h| h.on == footer)
}

/// The rows the help and the README list: (keys, catalog key of the
/// words).
pub fn listed() -> impl Iterator<Item = (String, &'static str)> {
    TABLE.iter().filter_map(|r| r.words.map(|w| (r.keys(), w)))
}

/// The README's key list: a Markdown table of every listed row, its words
/// in `lang`. A pipe inside a cell is escaped, code span or not (GFM).
#[must_use]
pub fn markdown(lang: crate::i18n::Lang) -> String {
    let mut out = String::from("| key | does |\n| --- | --- |\n");
    for (keys, words) in listed() {
        let cell = |s: &str| s.replace('|', "\\|");
        out.push_str(&format!(
            "| `{}` | {} |\n",
            cell(&keys),
            cell(&lang.t(words))
        ));
    }
    out
}

/// Every catalog key the table names: the listed rows' words and every
/// hint's word.
pub fn catalog_keys() -> impl Iterator<Item = &'static str> {
    TABLE
        .iter()
        .flat_map(|r| r.words.into_iter().chain(r.hints.iter().map(|h| h.word)))
        .chain([RESUME])
}

#[cfg(test)]
mod tests;
