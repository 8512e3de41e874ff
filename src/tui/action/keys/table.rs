//! The rows of the key table, in the order the help and the README list
//! them.

use super::{Footer, Hint, Key, Row};
use crate::tui::action::{Action, KeyMode};
use ratatui::crossterm::event::KeyCode;

use Action as A;
use Footer as F;
use KeyCode as K;
use KeyMode as M;

pub(super) const fn c(ch: char) -> Key {
    Key::Code(K::Char(ch))
}

const fn hint(on: Footer, keys: &'static str, word: &'static str) -> Hint {
    Hint { on, keys, word }
}

/// Stepping through the steps, with autoplay or without.
pub(super) const STEPPING: &[KeyMode] = &[M::Normal, M::Autoplay];
/// Every mode.
pub(super) const ALL: &[KeyMode] = &[M::Normal, M::Autoplay, M::Help, M::Typing];

pub(super) const fn row(
    binds: &'static [(Key, Action)],
    words: &'static str,
    hints: &'static [Hint],
) -> Row {
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
    // Typing into a prompt (not listed: Enter and Esc are, below). Every
    // printable key is text there, `q` `l` `h` `?` too: an axis name
    // such as `hd` needs them; Ctrl-C still quits.
    Row {
        binds: &[
            (Key::Printable, A::Char(' ')),
            (Key::Code(K::Backspace), A::Backspace),
            (Key::Ctrl('u'), A::ClearInput),
        ],
        words: None,
        modes: &[M::Typing],
        hints: &[
            hint(F::Typing, "abc", "ui-hint-text"),
            hint(F::Typing, "Ctrl-U", "ui-hint-clear"),
        ],
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
        &[(c('}'), A::NextPass), (c('{'), A::PrevPass)],
        "help-pass",
        &[],
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
    row(&[(c('d'), A::CycleDevice)], "help-device", &[]),
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
        hints: &QUIT_HINTS,
    },
];

/// The autoplay hint's word while it runs; [`RESUME`] while paused.
pub const PAUSE: &str = "ui-hint-pause";
/// The autoplay hint's word while paused.
pub const RESUME: &str = "ui-hint-resume";

pub(super) const FOOTERS: [Footer; 6] = [
    F::Steps,
    F::Split,
    F::Autoplay,
    F::Lab,
    F::Budget,
    F::Probes,
];
const EVERY_FOOTER_HELP: [Hint; 6] = every(FOOTERS, "?", "ui-hint-help");
const EVERY_FOOTER_QUIT: [Hint; 6] = every(FOOTERS, "q", "ui-hint-quit");
/// `q` quits in every footer but the prompt's, where it is text.
const QUIT_HINTS: [Hint; 7] = and(EVERY_FOOTER_QUIT, hint(F::Typing, "Ctrl-C", "ui-hint-quit"));

const fn and(six: [Hint; 6], one: Hint) -> [Hint; 7] {
    let mut out = [one; 7];
    let mut i = 0;
    while i < 6 {
        out[i] = six[i];
        i += 1;
    }
    out
}

const fn every(on: [Footer; 6], keys: &'static str, word: &'static str) -> [Hint; 6] {
    let mut out = [hint(F::Steps, keys, word); 6];
    let mut i = 0;
    while i < 6 {
        out[i] = hint(on[i], keys, word);
        i += 1;
    }
    out
}
