//! What wakes the stepper's event loop: terminal input, or a finished job.

use super::app::Done;
use ratatui::crossterm::event::Event;
use std::io;

/// What wakes the event loop.
// A reload comes once a file save; its config's size costs nothing there.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Msg {
    /// A terminal event: a key, a click, a resize.
    Input(Event),
    /// Reading the terminal failed.
    InputFailed(io::Error),
    /// A job the app asked for is done.
    Done(Done),
    /// The watched model file changed (`--watch`): its config, or why it
    /// cannot be used.
    Reloaded(Result<crate::ModelConfig, String>),
}
