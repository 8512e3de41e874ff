//! Runs what the app wants on worker threads: each [`Wanted`] becomes a
//! thread that sends its [`Done`] back to the event loop's channel. The
//! running trace shows its progress and is stopped when a newer trace
//! supersedes it or the stepper ends.

use super::app::{Done, Wanted};
use super::msg::Msg;
use crate::check::influence::{influence, opening, tokens};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;

/// A trace running on a worker thread: its progress and a way to stop it.
struct Running {
    ticket: u64,
    done: Arc<AtomicUsize>,
    expected: Arc<AtomicUsize>,
    cancel: Arc<AtomicBool>,
}

/// The jobs the event loop started and has not heard back from.
#[derive(Default)]
pub(super) struct Jobs {
    /// The newest trace; older ones were told to stop.
    trace: Option<Running>,
}

impl Jobs {
    /// Starts `wanted` on a thread of its own under `req` (the session's
    /// weights, input and limits); its result goes to `tx`. A trace stops
    /// the trace running before it.
    pub(super) fn start(&mut self, wanted: Wanted, req: &crate::Request, tx: &Sender<Msg>) {
        let tx = tx.clone();
        match wanted {
            Wanted::Trace { ticket, cfg, what } => {
                self.stop();
                let running = Running {
                    ticket,
                    done: Arc::new(AtomicUsize::new(0)),
                    expected: Arc::new(AtomicUsize::new(0)),
                    cancel: Arc::new(AtomicBool::new(false)),
                };
                let (d, e) = (Arc::clone(&running.done), Arc::clone(&running.expected));
                let hooks = crate::Hooks {
                    progress: Some(Arc::new(move |p: crate::Progress| {
                        d.store(p.done, Ordering::Relaxed);
                        e.store(p.expected, Ordering::Relaxed);
                    })),
                    cancel: Some(Arc::clone(&running.cancel)),
                };
                let req = crate::Request {
                    hooks,
                    ..req.clone()
                };
                self.trace = Some(running);
                std::thread::spawn(move || {
                    // A trace that panicked counts as stopped.
                    let result = catch_unwind(AssertUnwindSafe(|| crate::run_request(&cfg, &req)))
                        .unwrap_or(Err(crate::error::Error::Cancelled));
                    let _ = tx.send(Msg::Done(Done::Trace {
                        ticket,
                        what,
                        result: Box::new(result),
                    }));
                });
            }
            Wanted::Probe { key, cfg } => {
                let req = req.clone();
                std::thread::spawn(move || {
                    let probe = || {
                        let subject = crate::check::influence::Subject::of(&cfg, &req);
                        match key.token {
                            Some(t) => influence(subject, key.kind, &[t]).map(|mut v| v.remove(0)),
                            None => {
                                let runs = influence(subject, key.kind, &tokens(cfg.seq))?;
                                opening(runs, cfg.seq).ok_or_else(|| "no token to move".into())
                            }
                        }
                    };
                    let result = catch_unwind(AssertUnwindSafe(probe))
                        .unwrap_or_else(|_| Err("the probe stopped unexpectedly".into()));
                    let _ = tx.send(Msg::Done(Done::Probe { key, result }));
                });
            }
        }
    }

    /// Forgets the trace that `done` reports.
    pub(super) fn finished(&mut self, done: &Done) {
        if let Done::Trace { ticket, .. } = done
            && self.trace.as_ref().is_some_and(|r| r.ticket == *ticket)
        {
            self.trace = None;
        }
    }

    /// How far the running trace has got: (events done, expected).
    pub(super) fn progress(&self) -> Option<(usize, usize)> {
        self.trace.as_ref().map(|r| {
            (
                r.done.load(Ordering::Relaxed),
                r.expected.load(Ordering::Relaxed),
            )
        })
    }

    /// Tells the running trace to stop; it is left behind. A probe is
    /// short (the probes refuse large models) and runs to its end.
    pub(super) fn stop(&self) {
        if let Some(r) = &self.trace {
            r.cancel.store(true, Ordering::Relaxed);
        }
    }
}
