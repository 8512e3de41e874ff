//! The interactive stepper: a terminal UI over the trace.
//!
//! [`app`] holds the state and its `update`, [`action`] maps keys to
//! actions, [`ui`] draws the state (`impl Widget for &App`), [`theme`] holds
//! every style. [`run`] owns the terminal: raw mode, the alternate screen
//! and the mouse, restored on exit, on error and on panic; [`life`] ends
//! the stepper on a signal or when the terminal goes away.

pub mod action;
pub mod app;
pub mod life;
pub mod theme;
pub mod ui;

use action::{Action, map_key};
use app::{App, Autoplay};
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseButton, MouseEventKind,
};
use ratatui::crossterm::execute;
use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How the stepper opens.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Launch {
    pub quiz: bool,
    pub present: bool,
    /// Seconds between automatic steps.
    pub autoplay: Option<f64>,
}

/// Why the stepper could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("{0} is not a terminal; the stepper needs one (for text output use {1})")]
    NotATerminal(&'static str, &'static str),
    #[error("--autoplay {0} must be a number of seconds from 0.1 to 3600")]
    Autoplay(f64),
    #[error(transparent)]
    Model(#[from] crate::Error),
    #[error("terminal: {0}")]
    Io(#[from] io::Error),
}

/// Builds the app for `cfg` as `launch` asks.
///
/// # Errors
/// An invalid config or autoplay interval.
pub fn app(
    cfg: crate::ModelConfig,
    launch: Launch,
    given: app::Given,
    theme: theme::Theme,
) -> Result<App, TuiError> {
    let mut app = App::open_given(cfg, given, theme)?;
    if launch.quiz {
        app.update(Action::ToggleQuiz);
    }
    app.present = launch.present;
    if let Some(secs) = launch.autoplay {
        if !(0.1..=3600.0).contains(&secs) {
            return Err(TuiError::Autoplay(secs));
        }
        app.present = true;
        app.autoplay = Some(Autoplay {
            every: Duration::from_secs_f64(secs),
            paused: false,
        });
    }
    Ok(app)
}

/// How the stepper ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The user quit.
    Quit,
    /// A signal (SIGINT, SIGTERM or SIGHUP) ended it, or the terminal went
    /// away (reported as SIGHUP, as a hang-up); the terminal was restored
    /// as far as it still exists.
    Signal(i32),
}

/// How often the loop wakes to check signals and autoplay.
const POLL: Duration = Duration::from_millis(100);

/// Runs the stepper on the terminal until the user quits or a signal
/// arrives; the terminal is restored either way.
///
/// # Errors
/// When stdin or stdout is not a terminal, or the terminal fails.
pub fn run(mut app: App) -> Result<Ended, TuiError> {
    let hint = if app.source.is_some() {
        "`shapetrace view FILE --format table`"
    } else {
        "`shapetrace trace`"
    };
    if !io::stdin().is_terminal() {
        return Err(TuiError::NotATerminal("stdin", hint));
    }
    if !io::stdout().is_terminal() {
        return Err(TuiError::NotATerminal("stdout", hint));
    }
    let watcher = life::Watcher::start()?;
    let mut terminal = match ratatui::try_init() {
        Ok(t) => t,
        Err(e) => {
            life::restore();
            return Err(e.into());
        }
    };
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(io::stdout(), DisableMouseCapture);
        hook(info);
    }));
    let result = execute!(io::stdout(), EnableMouseCapture)
        .map_err(TuiError::from)
        .and_then(|()| event_loop(&mut terminal, &mut app, &watcher));
    // A draw that failed because the terminal went away is that hang-up.
    let result = match (result, watcher.stop()) {
        (Err(TuiError::Io(_)), Some(n)) => Ok(Ended::Signal(n)),
        (result, _) => result,
    };
    life::restore();
    // The terminal's drop shows the cursor and, when it cannot, prints to
    // stderr, which panics on a terminal that is gone (and the panic hook
    // prints again: an abort). Show it here; if that fails, skip the drop.
    if terminal.show_cursor().is_err() {
        std::mem::forget(terminal);
    }
    drop(watcher);
    result
}

/// A trace running on another thread, with its progress and a way to stop it.
struct Job {
    wanted: app::Wanted,
    done: Arc<AtomicUsize>,
    expected: Arc<AtomicUsize>,
    cancel: Arc<std::sync::atomic::AtomicBool>,
    handle: std::thread::JoinHandle<Result<crate::Run, crate::Error>>,
}

impl Job {
    fn start(wanted: app::Wanted, given: &app::Given) -> Self {
        let done = Arc::new(AtomicUsize::new(0));
        let expected = Arc::new(AtomicUsize::new(0));
        let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (d, e) = (Arc::clone(&done), Arc::clone(&expected));
        let hooks = crate::Hooks {
            progress: Some(Arc::new(move |p: crate::Progress| {
                d.store(p.done, Ordering::Relaxed);
                e.store(p.expected, Ordering::Relaxed);
            })),
            cancel: Some(Arc::clone(&cancel)),
        };
        let req = crate::Request {
            hooks,
            ..given.req.clone()
        };
        let cfg = wanted.cfg.clone();
        let handle = std::thread::spawn(move || crate::run_request(&cfg, &req));
        Self {
            wanted,
            done,
            expected,
            cancel,
            handle,
        }
    }

    fn stop(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Starts what the app asks for (stopping a trace it no longer wants) and
/// hands back a finished trace.
fn drive(app: &mut App, job: &mut Option<Job>) {
    if let Some(w) = app.wanted.take() {
        if let Some(old) = job.take() {
            old.stop();
        }
        *job = Some(Job::start(w, &app.given));
    }
    let Some(j) = job else { return };
    if j.handle.is_finished() {
        if let Some(j) = job.take() {
            let result = j.handle.join().unwrap_or(Err(crate::Error::Cancelled));
            app.finish(j.wanted.cfg, &j.wanted.what, result);
        }
    } else {
        app.progress = Some((
            j.done.load(Ordering::Relaxed),
            j.expected.load(Ordering::Relaxed),
        ));
    }
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    watcher: &life::Watcher,
) -> Result<Ended, TuiError> {
    let mut last_tick = Instant::now();
    let mut job: Option<Job> = None;
    loop {
        let stop = watcher.stop();
        if app.quit || stop.is_some() {
            // Quit at once: a running trace is told to stop and left behind.
            if let Some(j) = &job {
                j.stop();
            }
            return Ok(stop.map_or(Ended::Quit, Ended::Signal));
        }
        drive(app, &mut job);
        terminal.draw(|frame| frame.render_widget(&*app, frame.area()))?;
        let playing = app.autoplay.filter(|a| !a.paused);
        let timeout = playing.map_or(POLL, |a| {
            a.every.saturating_sub(last_tick.elapsed()).min(POLL)
        });
        if event::poll(timeout)? {
            let size = terminal.size()?;
            let area = ratatui::layout::Rect::new(0, 0, size.width, size.height);
            let action = match event::read()? {
                Event::Key(k) if k.kind == KeyEventKind::Press => map_key(k, app.key_mode()),
                Event::Mouse(m) if m.kind == MouseEventKind::Down(MouseButton::Left) => {
                    ui::step_at(app, area, m.column, m.row).map(Action::Select)
                }
                _ => None,
            };
            // While the screen is too small to show, only quitting works.
            let small = area.width < ui::MIN_SIZE.0 || area.height < ui::MIN_SIZE.1;
            let action = action.filter(|a| !small || *a == Action::Quit);
            if let Some(a) = action {
                if a == Action::TogglePause || a == Action::Next {
                    last_tick = Instant::now();
                }
                app.update(a);
            }
        }
        if app.autoplay.is_some_and(|a| !a.paused)
            && last_tick.elapsed() >= app.autoplay.map_or(POLL, |a| a.every)
        {
            app.update(Action::Tick);
            last_tick = Instant::now();
        }
    }
}
