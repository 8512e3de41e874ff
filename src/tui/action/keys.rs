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

use Action as A;
use Footer as F;
use KeyCode as K;
use KeyMode as M;

const fn c(ch: char) -> Key {
    Key::Code(K::Char(ch))
}

const fn hint(on: Footer, keys: &'static str, word: &'static str) -> Hint {
    Hint { on, keys, word }
}

/// Stepping through the steps, with autoplay or without.
const STEPPING: &[KeyMode] = &[M::Normal, M::Autoplay];
/// Every mode.
const ALL: &[KeyMode] = &[M::Normal, M::Autoplay, M::Help, M::Typing];

const fn row(binds: &'static [(Key, Action)], words: &'static str, hints: &'static [Hint]) -> Row {
    Row {
        binds,
        words: Some(words),
        modes: STEPPING,
        hints,
    }
}

/// Every key of the stepper, in the order the help and the README list
/// them. The footer hints each footer's keys in this order too.
pub const TABLE: &[Row] = &[
    // Typing into a prompt (not listed: Enter and Esc are, below).
    Row {
        binds: &[
            (Key::Printable, A::Char(' ')),
            (Key::Code(K::Backspace), A::Backspace),
            (Key::Ctrl('u'), A::ClearInput),
        ],
        words: None,
        modes: &[M::Typing],
        hints: &[],
    },
    // The help's own keys: Esc and Enter close it (its title says so).
    Row {
        binds: &[
            (Key::Code(K::Esc), A::ToggleHelp),
            (Key::Code(K::Enter), A::ToggleHelp),
        ],
        words: None,
        modes: &[M::Help],
        hints: &[],
    },
    // Space under autoplay: `P`'s words and the footer say it.
    Row {
        binds: &[(c(' '), A::TogglePause)],
        words: None,
        modes: &[M::Autoplay],
        hints: &[hint(F::Autoplay, "space", PAUSE)],
    },
    row(
        &[
            (Key::Code(K::Right), A::Next),
            (c('l'), A::Next),
            (c(' '), A::Next),
        ],
        "help-next",
        &[
            hint(F::Autoplay, "←→", "ui-hint-step"),
            hint(F::Lab, "←→", "ui-hint-step"),
            hint(F::Budget, "←→", "ui-hint-change"),
            hint(F::Probes, "←→", "ui-hint-token"),
            hint(F::Split, "←→", "ui-hint-step-both"),
            hint(F::Steps, "←→", "ui-hint-step"),
        ],
    ),
    row(
        &[(Key::Code(K::Left), A::Prev), (c('h'), A::Prev)],
        "help-prev",
        &[],
    ),
    Row {
        binds: &[
            (Key::Code(K::Down), A::Down),
            (c('j'), A::Down),
            (Key::Code(K::Up), A::Up),
            (c('k'), A::Up),
        ],
        words: Some("help-down-up"),
        modes: &[M::Normal, M::Autoplay, M::Help],
        hints: &[
            hint(F::Budget, "↑↓", "ui-hint-field"),
            hint(F::Probes, "↑↓", "ui-hint-probe"),
        ],
    },
    row(
        &[
            (c('g'), A::First),
            (Key::Code(K::Home), A::First),
            (c('G'), A::Last),
            (Key::Code(K::End), A::Last),
        ],
        "help-first-last",
        &[hint(F::Budget, "g", "ui-hint-reset")],
    ),
    row(
        &[
            (Key::Code(K::PageDown), A::PageDown),
            (Key::Code(K::PageUp), A::PageUp),
        ],
        "help-page",
        &[],
    ),
    row(
        &[(c('n'), A::NextDeparture), (c('N'), A::PrevDeparture)],
        "help-departure",
        &[
            hint(F::Split, "n/N", "ui-hint-differs"),
            hint(F::Steps, "n/N", "ui-hint-departure"),
        ],
    ),
    row(
        &[(c('r'), A::NextResidual), (c('R'), A::PrevResidual)],
        "help-residual",
        &[
            hint(F::Split, "r", "ui-hint-add"),
            hint(F::Steps, "r", "ui-hint-add"),
        ],
    ),
    row(
        &[(c('['), A::PrevHead), (c(']'), A::NextHead)],
        "help-head",
        &[],
    ),
    row(
        &[(c('<'), A::ScrollLeft), (c('>'), A::ScrollRight)],
        "help-scroll",
        &[],
    ),
    row(&[(c('w'), A::ToggleWhy)], "help-why", &[]),
    row(
        &[(c('a'), A::CycleAct)],
        "help-act",
        &[
            hint(F::Split, "a m p f", "ui-hint-switch"),
            hint(F::Steps, "a m p f", "ui-hint-switch"),
        ],
    ),
    row(&[(c('m'), A::ToggleNorm)], "help-norm", &[]),
    row(&[(c('p'), A::TogglePlacement)], "help-placement", &[]),
    row(
        &[(c('f'), A::CycleFault)],
        "help-fault",
        &[hint(F::Probes, "f", "ui-hint-fault")],
    ),
    row(
        &[(c('z'), A::ToggleQuiz)],
        "help-quiz",
        &[
            hint(F::Budget, "z", "ui-hint-quiz"),
            hint(F::Steps, "z", "ui-hint-quiz"),
        ],
    ),
    row(&[(c('o'), A::ToggleReveal)], "help-reveal", &[]),
    row(&[(c('c'), A::ToggleCharts)], "help-charts", &[]),
    row(
        &[(c('P'), A::TogglePresent)],
        "help-present",
        &[
            hint(F::Autoplay, "P", "ui-hint-presenter"),
            hint(F::Steps, "P", "ui-hint-present"),
        ],
    ),
    row(&[(c('v'), A::BackToReplay)], "help-back", &[]),
    row(
        &[(c('b'), A::SwitchSide)],
        "help-side",
        &[hint(F::Split, "b", "ui-hint-side")],
    ),
    row(
        &[(c('|'), A::ToggleSplit)],
        "help-split",
        &[hint(F::Split, "|", "ui-hint-one-model")],
    ),
    row(
        &[
            (Key::Code(K::Tab), A::NextTab),
            (Key::Code(K::BackTab), A::PrevTab),
        ],
        "help-tabs",
        &[
            hint(F::Lab, "Tab", "ui-hint-next-tab"),
            hint(F::Budget, "Tab", "ui-hint-next-tab"),
            hint(F::Probes, "Tab", "ui-hint-next-tab"),
        ],
    ),
    row(
        &[(c('e'), A::Edit)],
        "help-edit",
        &[
            hint(F::Lab, "e", "ui-hint-edit-x"),
            hint(F::Budget, "e", "ui-hint-type"),
        ],
    ),
    row(
        &[(c('x'), A::CycleMistake), (c('s'), A::ToggleGated)],
        "help-mistake",
        &[],
    ),
    Row {
        binds: &[
            (Key::Code(K::Enter), A::Submit),
            (Key::Code(K::Esc), A::Cancel),
        ],
        words: Some("help-typing"),
        modes: &[M::Typing],
        hints: &[],
    },
    row(&[(Key::Click, A::Select(0))], "help-click", &[]),
    Row {
        binds: &[(c('?'), A::ToggleHelp)],
        words: Some("help-help"),
        modes: &[M::Normal, M::Autoplay, M::Help],
        hints: &EVERY_FOOTER_HELP,
    },
    Row {
        binds: &[
            (c('q'), A::Quit),
            (Key::Code(K::Esc), A::Quit),
            (Key::Ctrl('c'), A::Quit),
        ],
        words: Some("help-quit"),
        modes: ALL,
        hints: &EVERY_FOOTER_QUIT,
    },
];

/// The autoplay hint's word while it runs; [`RESUME`] while paused.
pub const PAUSE: &str = "ui-hint-pause";
/// The autoplay hint's word while paused.
pub const RESUME: &str = "ui-hint-resume";

const FOOTERS: [Footer; 6] = [
    F::Steps,
    F::Split,
    F::Autoplay,
    F::Lab,
    F::Budget,
    F::Probes,
];
const EVERY_FOOTER_HELP: [Hint; 6] = every(FOOTERS, "?", "ui-hint-help");
const EVERY_FOOTER_QUIT: [Hint; 6] = every(FOOTERS, "q", "ui-hint-quit");

const fn every(on: [Footer; 6], keys: &'static str, word: &'static str) -> [Hint; 6] {
    let mut out = [hint(F::Steps, keys, word); 6];
    let mut i = 0;
    while i < 6 {
        out[i] = hint(on[i], keys, word);
        i += 1;
    }
    out
}

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
