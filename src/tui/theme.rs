//! Every style the UI uses, in a colour theme and a monochrome one
//! (`NO_COLOR`). Meaning never rests on colour alone: each highlight also
//! has a glyph or a word, and the monochrome theme uses only modifiers.

use ratatui::style::{Color, Modifier, Style};

/// The styles of one theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub base: Style,
    pub title: Style,
    pub header: Style,
    pub dim: Style,
    pub cursor: Style,
    pub departs: Style,
    pub returns: Style,
    pub ok: Style,
    pub fail: Style,
    pub key: Style,
    pub lit: Style,
    pub masked: Style,
}

/// Colours for a projector: bright, high-contrast pairs.
pub const COLOR: Theme = Theme {
    base: Style::new(),
    title: Style::new().add_modifier(Modifier::BOLD),
    header: Style::new().fg(Color::Black).bg(Color::Cyan),
    dim: Style::new().fg(Color::DarkGray),
    cursor: Style::new().add_modifier(Modifier::REVERSED),
    departs: Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
    returns: Style::new().fg(Color::Cyan),
    ok: Style::new().fg(Color::Green),
    fail: Style::new()
        .fg(Color::White)
        .bg(Color::Red)
        .add_modifier(Modifier::BOLD),
    key: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
    lit: Style::new()
        .fg(Color::Black)
        .bg(Color::Yellow)
        .add_modifier(Modifier::BOLD),
    masked: Style::new().fg(Color::DarkGray),
};

/// No colour at all: bold, reverse, underline and dim carry the meaning.
pub const MONO: Theme = Theme {
    base: Style::new(),
    title: Style::new().add_modifier(Modifier::BOLD),
    header: Style::new().add_modifier(Modifier::REVERSED),
    dim: Style::new().add_modifier(Modifier::DIM),
    cursor: Style::new().add_modifier(Modifier::REVERSED),
    departs: Style::new().add_modifier(Modifier::BOLD),
    returns: Style::new().add_modifier(Modifier::UNDERLINED),
    ok: Style::new(),
    fail: Style::new().add_modifier(Modifier::BOLD.union(Modifier::UNDERLINED)),
    key: Style::new().add_modifier(Modifier::BOLD),
    lit: Style::new().add_modifier(Modifier::REVERSED.union(Modifier::BOLD)),
    masked: Style::new().add_modifier(Modifier::DIM),
};

impl Theme {
    /// `MONO` when the `NO_COLOR` variable is set to anything non-empty.
    #[must_use]
    pub fn from_env() -> Self {
        match std::env::var_os("NO_COLOR") {
            Some(v) if !v.is_empty() => MONO,
            _ => COLOR,
        }
    }
}
