//! The interactive stepper: a terminal UI over the trace.
//!
//! [`app`](mod@app) holds the state and its `update`, [`action`] maps keys to
//! actions, [`ui`] draws the state (`impl Widget for &App`), [`theme`] holds
//! every style. [`event_loop`] takes input and finished jobs, updates the
//! app and draws it; `jobs` runs what the app wants (traces, probes) on
//! worker threads. [`run`] owns the terminal: raw mode, the alternate
//! screen and the mouse, restored on exit, on error and on panic; [`life`]
//! ends the stepper on a signal or when the terminal goes away.

pub mod action;
pub mod app;
pub mod event_loop;
mod jobs;
pub mod life;
pub mod msg;
pub mod theme;
pub mod ui;
pub mod watch;

use action::Action;
use app::{App, Autoplay};
use event_loop::{EventLoop, Msg};
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;
use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::Duration;

/// How the stepper opens.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Launch {
    /// Open with the quiz on (`--quiz`): predict each new shape first.
    pub quiz: bool,
    /// Open in presenter mode (`--present`): large text for a projector.
    pub present: bool,
    /// Seconds between automatic steps.
    pub autoplay: Option<f64>,
    /// The step to open at (`--at block1.attn.scores`); `None` opens at
    /// step 0.
    pub at: Option<String>,
    /// Draw the glyphs and box drawing as ASCII (`--ascii`, or a Linux
    /// console, whose font lacks them).
    pub ascii: bool,
    /// The language of the screens (`--lang`, else `LC_ALL`,
    /// `LC_MESSAGES`, `LANG`).
    pub lang: crate::i18n::Lang,
}

/// Why the stepper could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// Stdin or stdout (the first field) is not a terminal; the second is
    /// the command that prints the same as text.
    #[error("{0} is not a terminal; the stepper needs one (for text output use {1})")]
    NotATerminal(&'static str, &'static str),
    /// `--at` names no step of the model.
    #[error("--at '{}' is not a step of this model; allowed: a step path such as {allowed} (shapetrace trace lists every one)", crate::text::one_line(.got))]
    At {
        /// The path given.
        got: String,
        /// A few of the model's paths, for the message.
        allowed: String,
    },
    /// The `--autoplay` interval, in seconds, is out of range.
    #[error("--autoplay {0} must be a number of seconds from 0.1 to 3600")]
    Autoplay(f64),
    /// The model could not be traced: its config is refused.
    #[error(transparent)]
    Model(#[from] crate::error::Error),
    /// `--watch` could not watch the model file's folder.
    #[error("--watch {0}")]
    Watch(String),
    /// The terminal failed: raw mode, drawing or reading input.
    #[error("terminal: {0}")]
    Io(#[from] io::Error),
}

/// A backend that cannot fail (a test's) fails no loop.
impl From<std::convert::Infallible> for TuiError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
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
    // The step first: the quiz, if asked, starts from it.
    if let Some(at) = &launch.at {
        let found = (0..app.rows()).find(|&i| app.path(i) == Some(at.as_str()));
        let Some(i) = found else {
            let some: Vec<&str> = (0..app.rows())
                .filter_map(|i| app.path(i))
                .take(40)
                .collect();
            let pick = [
                "input",
                "block1.ln_1",
                "block1.attn.scores",
                "block1.resid_1",
            ];
            let allowed: Vec<&str> = pick.into_iter().filter(|p| some.contains(p)).collect();
            return Err(TuiError::At {
                got: at.clone(),
                allowed: allowed.join(", "),
            });
        };
        app.cursor = i;
    }
    if launch.quiz {
        app.update(Action::ToggleQuiz);
    }
    if launch.present {
        app.showing = app::Showing::Presenter { split: false };
    }
    app.ascii = launch.ascii;
    app.lang = launch.lang;
    if let Some(secs) = launch.autoplay {
        if !(0.1..=3600.0).contains(&secs) {
            return Err(TuiError::Autoplay(secs));
        }
        app.showing = app::Showing::Presenter { split: false };
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

/// How often the loop wakes to check signals, autoplay and the progress
/// of a running trace.
const POLL: Duration = Duration::from_millis(100);

/// Runs the stepper on the terminal until the user quits or a signal
/// arrives; the terminal is restored either way.
///
/// # Errors
/// When stdin or stdout is not a terminal, or the terminal fails.
pub fn run(
    app: App,
    watch: Option<(std::path::PathBuf, crate::Overlay)>,
) -> Result<Ended, TuiError> {
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
    let terminal = match ratatui::try_init() {
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
    let mut lp = EventLoop::new(app, terminal);
    // Held to the end: dropping it stops the watch.
    let _watch = match watch {
        Some((path, flags)) => match watch::start(&path, flags, lp.sender()) {
            Ok(w) => Some(w),
            Err(e) => {
                life::restore();
                return Err(TuiError::Watch(format!(
                    "{}: {e}",
                    crate::text::shown_os(path.as_os_str())
                )));
            }
        },
        None => None,
    };
    let reading = Arc::new(AtomicBool::new(true));
    let result = execute!(io::stdout(), EnableMouseCapture)
        .and_then(|()| read_terminal(lp.sender(), Arc::clone(&reading)))
        .map_err(TuiError::from)
        .and_then(|()| drive(&mut lp, &watcher));
    reading.store(false, Ordering::Relaxed);
    // A draw that failed because the terminal went away is that hang-up.
    let result = match (result, watcher.stop()) {
        (Err(TuiError::Io(_)), Some(n)) => Ok(Ended::Signal(n)),
        (result, _) => result,
    };
    life::restore();
    // The terminal's drop shows the cursor and, when it cannot, prints to
    // stderr, which panics on a terminal that is gone (and the panic hook
    // prints again: an abort). Show it here; if that fails, skip the drop.
    if lp.terminal.show_cursor().is_err() {
        std::mem::forget(lp);
    }
    drop(watcher);
    result
}

/// Turns the loop until the user quits or the watcher says to stop; a
/// running trace is then told to stop and left behind.
fn drive(
    lp: &mut EventLoop<ratatui::backend::CrosstermBackend<io::Stdout>>,
    watcher: &life::Watcher,
) -> Result<Ended, TuiError> {
    lp.show()?;
    loop {
        let stop = watcher.stop();
        if lp.app.quit || stop.is_some() {
            lp.stop_jobs();
            return Ok(stop.map_or(Ended::Quit, Ended::Signal));
        }
        lp.turn(POLL)?;
    }
}

/// Reads the terminal's events on a thread of its own and sends them to
/// the loop, until `reading` is cleared or the loop is gone. The thread is
/// left behind when the stepper ends: when the terminal has gone away,
/// crossterm's read never returns.
fn read_terminal(tx: Sender<Msg>, reading: Arc<AtomicBool>) -> io::Result<()> {
    std::thread::Builder::new()
        .name("terminal reader".into())
        .spawn(move || {
            while reading.load(Ordering::Relaxed) {
                let msg = match event::poll(POLL) {
                    Ok(false) => continue,
                    Ok(true) => event::read().map_or_else(Msg::InputFailed, Msg::Input),
                    Err(e) => Msg::InputFailed(e),
                };
                let failed = matches!(msg, Msg::InputFailed(_));
                if tx.send(msg).is_err() || failed {
                    return;
                }
            }
        })?;
    Ok(())
}
