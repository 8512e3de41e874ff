//! The terminal's life around the stepper: signals, the terminal going
//! away, restoring it, and ending the process when the event loop cannot.
//!
//! Why a thread of its own: when the terminal goes away (a closed window,
//! `tmux kill-session`), crossterm's reader loops on `read() = 0` inside
//! `event::poll` and never returns, so the event loop can neither see a
//! flag nor restore anything; and a handler installed for SIGTERM replaces
//! its default action, so without someone acting on it SIGTERM does
//! nothing. The watcher notices a signal or the lost terminal, raises the
//! stop flag the event loop checks every 100 ms, and if the loop
//! has not ended within [`GRACE`] (stuck in a read, or in a write to a
//! terminal nobody reads), restores what it can and ends the process with
//! the same exit code the loop would have given.

use ratatui::crossterm::event::DisableMouseCapture;
use ratatui::crossterm::execute;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::{Handle, Signals};
use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the watcher looks for a signal or a lost terminal.
const TICK: Duration = Duration::from_millis(20);
/// How long the event loop has to end by itself once told to stop.
pub const GRACE: Duration = Duration::from_millis(300);
/// How long the watcher waits for a restore that may block on a terminal
/// nobody reads before it ends the process anyway.
const RESTORE_WAIT: Duration = Duration::from_millis(200);

/// Watches for SIGINT, SIGTERM, SIGHUP and the terminal going away while
/// the stepper runs.
pub struct Watcher {
    /// 0 while running; else the signal that asks the stepper to end
    /// (SIGHUP when the terminal went away).
    stop: Arc<AtomicI32>,
    /// Set once the stepper has restored the terminal and is returning, so
    /// the watcher leaves the exit to it.
    done: Arc<AtomicBool>,
    signals: Handle,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Starts watching; call before the terminal enters raw mode.
    ///
    /// # Errors
    /// When the signal handlers cannot be installed.
    pub fn start() -> io::Result<Self> {
        let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
        let stop = Arc::new(AtomicI32::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let handle = signals.handle();
        let (s, d) = (Arc::clone(&stop), Arc::clone(&done));
        let thread = std::thread::Builder::new()
            .name("terminal watcher".into())
            .spawn(move || watch(&mut signals, &s, &d))?;
        Ok(Self {
            stop,
            done,
            signals: handle,
            thread: Some(thread),
        })
    }

    /// The signal that asks the stepper to end, if one came; SIGHUP once
    /// the terminal is gone, whichever thread notices first.
    pub fn stop(&self) -> Option<i32> {
        let n = self.stop.load(Ordering::Relaxed);
        if n != 0 {
            return Some(n);
        }
        terminal_gone().then(|| {
            self.stop.store(SIGHUP, Ordering::Relaxed);
            SIGHUP
        })
    }
}

impl Drop for Watcher {
    /// The stepper has restored the terminal: stop watching (the signals
    /// get their old actions back when the watcher's `Signals` drops).
    fn drop(&mut self) {
        if self.stop.load(Ordering::Relaxed) == SIGHUP {
            // The kernel makes the terminal refuse requests before it sends
            // SIGHUP, so the stepper may be past its restore when the
            // signal lands; absorb it (left registered on purpose) so the
            // process ends with 129 as returned, not killed by the signal.
            let _ = signal_hook::flag::register(SIGHUP, Arc::new(AtomicBool::new(false)));
        }
        self.done.store(true, Ordering::Relaxed);
        self.signals.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// True once stdin or stdout is no longer a terminal: after a hang-up the
/// kernel answers every terminal request on the old descriptor with an
/// error, which is also what end of input and read errors come from here.
fn terminal_gone() -> bool {
    !io::stdin().is_terminal() || !io::stdout().is_terminal()
}

fn watch(signals: &mut Signals, stop: &AtomicI32, done: &AtomicBool) {
    loop {
        if done.load(Ordering::Relaxed) || signals.is_closed() {
            return;
        }
        let why = signals
            .pending()
            .next()
            .or_else(|| terminal_gone().then_some(SIGHUP));
        if let Some(n) = why {
            stop.store(n, Ordering::Relaxed);
            end_unless_done(n, done);
            return;
        }
        std::thread::sleep(TICK);
    }
}

/// Gives the event loop [`GRACE`] to end by itself; then restores what can
/// be restored and ends the process with 128 + `signal`. Background
/// traces end with it.
fn end_unless_done(signal: i32, done: &AtomicBool) {
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline {
        if done.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(TICK.min(deadline.saturating_duration_since(Instant::now())));
    }
    if done.load(Ordering::Relaxed) {
        return;
    }
    // The restore writes to stdout, whose lock a draw stuck on a full
    // terminal may hold: run it aside and do not wait for it long.
    let (tx, rx) = std::sync::mpsc::channel();
    let restorer = std::thread::Builder::new().spawn(move || {
        restore();
        let _ = tx.send(());
    });
    if restorer.is_ok() {
        let _ = rx.recv_timeout(RESTORE_WAIT);
    }
    std::process::exit(128 + signal);
}

/// Leaves mouse capture, raw mode and the alternate screen, as far as the
/// terminal still allows.
pub fn restore() {
    let _ = execute!(io::stdout(), DisableMouseCapture);
    let _ = ratatui::try_restore();
}
