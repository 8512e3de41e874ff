//! Every style the UI uses, in a colour theme and a monochrome one
//! (`NO_COLOR`). Meaning never rests on colour alone: each highlight also
//! has a glyph or a word, and the monochrome theme uses only modifiers.

use ratatui::style::{Color, Modifier, Style};

/// The styles of one theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Plain text.
    pub base: Style,
    /// Pane titles and table headings.
    pub title: Style,
    /// The header bar's name.
    pub header: Style,
    /// Secondary text: key hints, skipped checks, unchanged probe cells.
    pub dim: Style,
    /// The selected row of the step list (also marked `▶`).
    pub cursor: Style,
    /// A step whose shape leaves (B,T,d), shown with `◆`.
    pub departs: Style,
    /// A step back at (B,T,d) after a departure, shown with `↩`.
    pub returns: Style,
    /// A check that holds, shown with `✓`.
    pub ok: Style,
    /// A failure, shown with `✗`.
    pub fail: Style,
    /// Keys in hints and help, and the edit prompt.
    pub key: Style,
    /// The current part: the diagram's sublayer, the FFN lab's step.
    pub lit: Style,
    /// Masked cells of an attention heatmap, drawn `╳`.
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
