//! The event loop's core, apart from the terminal it runs on: one channel
//! brings every [`Msg`] (an input event, a finished job), [`EventLoop::turn`]
//! takes one and updates the app, and [`EventLoop::show`] starts the jobs
//! the app wants on worker threads and draws. [`super::run`] feeds it the
//! terminal's events from a reader thread; a test feeds it scripted
//! events over [`EventLoop::sender`] and draws on a `TestBackend`.
//!
//! ```text
//!   reader thread (keys, clicks)     worker threads (traces, probes)
//!        │ Msg::Input                  ▲ Wanted        │ Msg::Done
//!        ▼                             │               ▼
//! ┌──────────────────────── one channel ─────────────────────────┐
//! │ turn: take one Msg; App::update(action) or App::finish(done) │
//! │ show: start App::wanted on worker threads; draw the App      │
//! └──────────────────────────────────────────────────────────────┘
//! ```

use super::TuiError;
use super::action::{Action, map_key};
use super::app::App;
use super::jobs::Jobs;
use super::ui;
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{Event, KeyEventKind, MouseButton, MouseEventKind};
use ratatui::layout::Rect;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

pub use super::msg::Msg;

/// The app, the terminal it is drawn on, and the jobs running for it.
pub struct EventLoop<B: Backend> {
    /// Everything the UI shows; updated by every key and finished job.
    pub app: App,
    /// The terminal drawn on: a real one, or a test's `TestBackend`.
    pub terminal: Terminal<B>,
    jobs: Jobs,
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
    /// When autoplay last stepped.
    last_tick: Instant,
}

impl<B: Backend> EventLoop<B>
where
    TuiError: From<B::Error>,
{
    /// The loop for `app` on `terminal`; nothing runs or is drawn until
    /// the first [`EventLoop::show`].
    #[must_use]
    pub fn new(app: App, terminal: Terminal<B>) -> Self {
        let (tx, rx) = channel();
        Self {
            app,
            terminal,
            jobs: Jobs::default(),
            tx,
            rx,
            last_tick: Instant::now(),
        }
    }

    /// Where input events for the loop go.
    #[must_use]
    pub fn sender(&self) -> Sender<Msg> {
        self.tx.clone()
    }

    /// One turn: waits up to `most` (less when autoplay is due) for one
    /// message and applies it, steps autoplay when due, then shows.
    /// Returns whether a message came.
    ///
    /// # Errors
    /// When reading or drawing the terminal failed.
    pub fn turn(&mut self, most: Duration) -> Result<bool, TuiError> {
        let playing = self.app.autoplay.filter(|a| !a.paused);
        let timeout = playing.map_or(most, |a| {
            a.every.saturating_sub(self.last_tick.elapsed()).min(most)
        });
        let came = match self.rx.recv_timeout(timeout) {
            Ok(Msg::Input(event)) => {
                self.input(&event)?;
                true
            }
            Ok(Msg::Done(done)) => {
                self.jobs.finished(&done);
                self.app.finish(done);
                true
            }
            Ok(Msg::Reloaded(read)) => {
                self.app.reload(read);
                true
            }
            Ok(Msg::InputFailed(e)) => return Err(e.into()),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => false,
        };
        if let Some(a) = self.app.autoplay.filter(|a| !a.paused)
            && self.last_tick.elapsed() >= a.every
        {
            self.app.update(Action::Tick);
            self.last_tick = Instant::now();
        }
        self.show()?;
        Ok(came)
    }

    /// Starts the jobs the app wants and draws the app.
    ///
    /// # Errors
    /// When the terminal cannot draw.
    pub fn show(&mut self) -> Result<(), TuiError> {
        for w in std::mem::take(&mut self.app.wanted) {
            self.jobs.start(w, &self.app.given.req, &self.tx);
        }
        self.app.progress = self.jobs.progress();
        let app = &self.app;
        self.terminal
            .draw(|frame| frame.render_widget(app, frame.area()))?;
        Ok(())
    }

    /// Tells the running trace to stop; the loop is ending.
    pub fn stop_jobs(&self) {
        self.jobs.stop();
    }

    /// Applies a key or a click. While the screen is too small to show,
    /// only quitting works.
    fn input(&mut self, event: &Event) -> Result<(), TuiError> {
        let size = self.terminal.size()?;
        let area = Rect::new(0, 0, size.width, size.height);
        let action = match event {
            Event::Key(k) if k.kind == KeyEventKind::Press => map_key(*k, self.app.key_mode()),
            Event::Mouse(m) if m.kind == MouseEventKind::Down(MouseButton::Left) => {
                ui::step_at(&self.app, area, m.column, m.row).map(Action::Select)
            }
            _ => None,
        };
        let small = area.width < ui::MIN_SIZE.0 || area.height < ui::MIN_SIZE.1;
        if let Some(a) = action.filter(|a| !small || *a == Action::Quit) {
            if a == Action::TogglePause || a == Action::Next {
                self.last_tick = Instant::now();
            }
            self.app.update(a);
        }
        Ok(())
    }
}
