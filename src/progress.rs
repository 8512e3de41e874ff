//! The progress bar of a long numeric trace: on stderr, only when stderr
//! is a terminal, and only once the run has taken about half a second.
//! indicatif ignores a failed draw, so an unwritable stderr cannot end the
//! run.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use shapetrace::plan::{Hooks, Progress};
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a run goes on before its bar appears.
const DELAY: Duration = Duration::from_millis(500);

/// A bar that stays hidden until [`DELAY`] has passed; cleared on drop.
pub struct Bar(ProgressBar);

impl Bar {
    /// A hidden bar, and the hooks that drive it.
    pub fn new() -> (Self, Hooks) {
        let bar = ProgressBar::hidden();
        bar.set_style(
            ProgressStyle::with_template("{spinner} tracing {bar:30} {pos}/{len} events {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let start = Instant::now();
        let tty = std::io::stderr().is_terminal();
        let b = bar.clone();
        let progress = Arc::new(move |p: Progress| {
            b.set_length(p.expected as u64);
            b.set_position(p.done as u64);
            if tty && b.is_hidden() && start.elapsed() >= DELAY {
                b.set_draw_target(ProgressDrawTarget::stderr());
            }
        });
        let hooks = Hooks {
            progress: Some(progress),
            cancel: None,
        };
        (Self(bar), hooks)
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
