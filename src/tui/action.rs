//! What a key press means: a pure map from keys to [`Action`]s, read off
//! the one key table in [`keys`], which also makes the footer's hints, the
//! help overlay and the README's key list.

pub mod keys;

use ratatui::crossterm::event::KeyEvent;

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
    /// The start of the next pass of generation (`}`): a decode step.
    NextPass,
    /// The start of this pass, or of the one before it (`{`).
    PrevPass,
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
    /// Show the next device of a model split across devices and re-trace
    /// (`d`).
    CycleDevice,
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

/// Which keys are live: the stepper's state says which (see
/// [`crate::tui::app::App::key_mode`]); each row of [`keys::TABLE`] lists
/// the modes it applies in.
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

/// The action for `key` in `mode`, if any: the first row of the key
/// table that applies in `mode` and binds `key`. A row that applies in
/// fewer modes stands before a row it overrides (space pauses autoplay;
/// Esc closes the help and skips a question), which a test of the table
/// holds.
#[must_use]
pub fn map_key(key: KeyEvent, mode: KeyMode) -> Option<Action> {
    keys::TABLE
        .iter()
        .filter(|row| row.modes.contains(&mode))
        .find_map(|row| row.action(key))
}
