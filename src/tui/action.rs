//! What a key press means: a pure map from keys to [`Action`]s.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Everything the user can ask the app to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// The next step (`→` `l` space).
    Next,
    /// The previous step (`←` `h`).
    Prev,
    /// The first step (`g` Home).
    First,
    /// The last step, or the failure (`G` End).
    Last,
    /// Ten steps on (PgDn).
    PageDown,
    /// Ten steps back (PgUp).
    PageUp,
    /// The next step whose shape leaves (B,T,d) (`n`).
    NextDeparture,
    /// The previous departure from (B,T,d) (`N`).
    PrevDeparture,
    /// The next residual add (`r`).
    NextResidual,
    /// The previous residual add (`R`).
    PrevResidual,
    /// The next tab (Tab).
    NextTab,
    /// The previous tab (Shift-Tab).
    PrevTab,
    /// Open or close the key help (`?`).
    ToggleHelp,
    /// Switch to the next activation and re-trace (`a`).
    CycleAct,
    /// Switch LayerNorm / RMSNorm and re-trace (`m`).
    ToggleNorm,
    /// Switch Pre-LN / Post-LN and re-trace (`p`).
    TogglePlacement,
    /// Switch to the next teaching fault (or none) and re-trace (`f`).
    CycleFault,
    /// Start or leave the quiz (`z`); on the Budget tab, its count quiz.
    ToggleQuiz,
    /// Enter or leave presenter mode (`P`).
    TogglePresent,
    /// Pause or resume autoplay (space while autoplay runs).
    TogglePause,
    /// Show the next head in a 4-D heatmap (`]`).
    NextHead,
    /// Show the previous head (`[`).
    PrevHead,
    /// Scroll a heatmap wider than its pane left (`<`).
    ScrollLeft,
    /// Scroll it right (`>`).
    ScrollRight,
    /// Back to the replayed log after a switch re-traced it live.
    BackToReplay,
    /// The whole why in the Detail pane, in place of the heatmap.
    ToggleWhy,
    /// Reveal mode: each next step's shape stays hidden until the step
    /// key is pressed once more, so the room predicts first.
    ToggleReveal,
    /// The Budget tab's pictures instead of its table.
    ToggleCharts,
    /// The split view (`--compare`) or the left model's own steps (`|`).
    ToggleSplit,
    /// Which side of the split view `a` `m` `p` `f` switch (`b`).
    SwitchSide,
    /// Down a row: the next step, or the next field or view in a lab.
    Down,
    /// Up a row.
    Up,
    /// Edit the lab's input vector.
    Edit,
    /// FFN lab: the next hand-computation mistake (none, rows, relu-after-w2).
    CycleMistake,
    /// FFN lab: switch the simple and the gated MLP.
    ToggleGated,
    /// Select the step in this row of the list.
    Select(usize),
    /// A character typed into the quiz or a lab's input.
    Char(char),
    /// Delete the last character typed.
    Backspace,
    /// Ctrl-U while typing: clear what was typed.
    ClearInput,
    /// Enter: answer the quiz or apply the typed value.
    Submit,
    /// Esc while typing: skip the quiz question or drop the edit.
    Cancel,
    /// Time passed (autoplay).
    Tick,
    /// Leave the stepper (`q` Esc Ctrl-C).
    Quit,
}

/// Which keys are live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMode {
    /// Every key: steps, switches, tabs.
    Normal,
    /// Autoplay is on: space pauses and resumes instead of stepping.
    Autoplay,
    /// The help overlay is open.
    Help,
    /// The quiz waits for a shape, or a lab for a vector.
    Typing,
}

/// The action for `key` in `mode`, if any.
#[must_use]
pub fn map_key(key: KeyEvent, mode: KeyMode) -> Option<Action> {
    use Action as A;
    use KeyCode as K;
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return match (key.code, mode) {
            (K::Char('c'), _) => Some(A::Quit),
            (K::Char('u'), KeyMode::Typing) => Some(A::ClearInput),
            _ => None,
        };
    }
    match mode {
        KeyMode::Typing => match key.code {
            K::Enter => Some(A::Submit),
            K::Backspace => Some(A::Backspace),
            K::Esc => Some(A::Cancel),
            // Every printable character goes in; the parser names what it refuses.
            K::Char(c) if !c.is_control() => Some(A::Char(c)),
            _ => None,
        },
        KeyMode::Help => match key.code {
            K::Char('?') | K::Esc | K::Enter => Some(A::ToggleHelp),
            K::Down | K::Char('j') => Some(A::Down),
            K::Up | K::Char('k') => Some(A::Up),
            K::Char('q') => Some(A::Quit),
            _ => None,
        },
        KeyMode::Normal | KeyMode::Autoplay => match key.code {
            K::Char(' ') if mode == KeyMode::Autoplay => Some(A::TogglePause),
            K::Right | K::Char('l' | ' ') => Some(A::Next),
            K::Left | K::Char('h') => Some(A::Prev),
            K::Down | K::Char('j') => Some(A::Down),
            K::Up | K::Char('k') => Some(A::Up),
            K::Char('e') => Some(A::Edit),
            K::Char('x') => Some(A::CycleMistake),
            K::Char('s') => Some(A::ToggleGated),
            K::Home | K::Char('g') => Some(A::First),
            K::End | K::Char('G') => Some(A::Last),
            K::PageDown => Some(A::PageDown),
            K::PageUp => Some(A::PageUp),
            K::Char('n') => Some(A::NextDeparture),
            K::Char('N') => Some(A::PrevDeparture),
            K::Char('r') => Some(A::NextResidual),
            K::Char('R') => Some(A::PrevResidual),
            K::Tab => Some(A::NextTab),
            K::BackTab => Some(A::PrevTab),
            K::Char('?') => Some(A::ToggleHelp),
            K::Char('a') => Some(A::CycleAct),
            K::Char('m') => Some(A::ToggleNorm),
            K::Char('p') => Some(A::TogglePlacement),
            K::Char('f') => Some(A::CycleFault),
            K::Char('z') => Some(A::ToggleQuiz),
            K::Char('P') => Some(A::TogglePresent),
            K::Char(']') => Some(A::NextHead),
            K::Char('[') => Some(A::PrevHead),
            K::Char('<') => Some(A::ScrollLeft),
            K::Char('>') => Some(A::ScrollRight),
            K::Char('v') => Some(A::BackToReplay),
            K::Char('w') => Some(A::ToggleWhy),
            K::Char('o') => Some(A::ToggleReveal),
            K::Char('c') => Some(A::ToggleCharts),
            K::Char('|') => Some(A::ToggleSplit),
            K::Char('b') => Some(A::SwitchSide),
            K::Char('q') | K::Esc => Some(A::Quit),
            _ => None,
        },
    }
}

/// The key table shown by `?` and in the README: (keys, what they do).
pub const KEYS: &[(&str, &str)] = &[
    ("→ l space", "next step"),
    ("← h", "previous step"),
    ("↓ j / ↑ k", "move down / up (labs: field or view)"),
    ("g Home / G End", "first / last step"),
    ("PgDn / PgUp", "ten steps on / back"),
    ("n / N", "next / previous departure from (B,T,d)"),
    ("r / R", "next / previous residual add"),
    ("[ / ]", "previous / next head in the heatmap"),
    ("< / >", "scroll a wide heatmap left / right"),
    ("w", "the whole why in the Detail pane (hides the heatmap)"),
    ("a", "cycle the activation (re-runs)"),
    ("m", "switch LayerNorm / RMSNorm (re-runs)"),
    ("p", "switch Pre-LN / Post-LN (re-runs)"),
    ("f", "cycle the teaching faults (re-runs)"),
    ("z", "quiz: predict each new shape"),
    ("o", "reveal mode: each next shape hidden until → shows it"),
    ("c", "Budget: its pictures / its table"),
    ("P", "presenter mode (space pauses autoplay)"),
    ("v", "back to the replayed log after a switch"),
    ("|", "--compare: the split view / the left model alone"),
    ("b", "--compare: a m p f switch the left / right model"),
    (
        "Tab / Shift-Tab",
        "tabs: Steps Checks FFN Norms Budget Probes",
    ),
    ("e", "labs: edit the input vector"),
    ("x / s", "FFN: cycle the mistake / simple or gated (SwiGLU)"),
    ("click", "select a step"),
    ("?", "this help"),
    ("q Esc Ctrl-C", "quit"),
];
