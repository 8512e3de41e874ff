//! Work the app hands to the event loop, which runs it on a worker thread
//! so keys stay live, and what comes back.
//!
//! The app asks by pushing a [`Wanted`] onto `App::wanted`; the event loop
//! takes it, runs it under the session's [`super::Given`] request and hands
//! the [`Done`] result to [`App::finish`]. A newer ask supersedes an older
//! one: a trace carries a ticket and only the newest ticket's result is
//! shown; a probe carries the [`ProbeKey`] it was asked for and a result
//! for another model, probe or token is dropped.

use super::App;
use super::labs::ProbeKey;
use super::retrace::Retrace;
use crate::Run;
use crate::check::influence::Influence;
use crate::config::ModelConfig;

/// Work the app asks the event loop to run off the UI thread.
#[derive(Debug, Clone, PartialEq)]
pub enum Wanted {
    /// Trace `cfg`, the model asked for (the shown one stays until this
    /// one is done): the first full trace, or a live switch.
    Trace {
        /// Identifies this ask; only the newest ticket's result is shown.
        ticket: u64,
        /// The model to trace.
        cfg: ModelConfig,
        /// What the trace is for: the first values, or a switch.
        what: Retrace,
    },
    /// Run the probe `key` on `cfg`, the model shown when it was asked.
    Probe {
        /// The model, probe and token asked for; the result carries it back.
        key: ProbeKey,
        /// The model to re-run.
        cfg: ModelConfig,
    },
}

/// A finished job, for [`App::finish`].
#[derive(Debug)]
pub enum Done {
    /// The trace asked with `ticket` (boxed: a run is large beside the
    /// other messages).
    Trace {
        /// The ticket the trace was asked with.
        ticket: u64,
        /// What it was asked for, as in [`Wanted::Trace`].
        what: Retrace,
        /// The run, or why the model could not be traced.
        result: Box<Result<Run, crate::error::Error>>,
    },
    /// The probe asked for `key`.
    Probe {
        /// What the probe was computed for.
        key: ProbeKey,
        /// The rows each tensor changed, or why the probe could not run.
        result: Result<Influence, String>,
    },
}

impl App {
    /// Asks for a trace of `cfg`; the result of any trace asked before is
    /// dropped when it comes.
    pub(super) fn ask_trace(&mut self, cfg: ModelConfig, what: Retrace) {
        self.tickets += 1;
        self.tracing = Some(self.tickets);
        self.asked = Some(cfg.clone());
        self.wanted.push(Wanted::Trace {
            ticket: self.tickets,
            cfg,
            what,
        });
    }

    /// Takes a finished job's result: shows the newest trace asked for, or
    /// the probe for the model, probe and token now shown; drops the rest.
    pub fn finish(&mut self, done: Done) {
        match done {
            Done::Trace {
                ticket,
                what,
                result,
            } => {
                if self.tracing != Some(ticket) {
                    return;
                }
                self.tracing = None;
                self.asked = None;
                self.traced(what, *result);
            }
            Done::Probe { key, result } => {
                let now = self.generation;
                self.labs.probes.came(key, now, result);
            }
        }
        // A new model ends the count quiz asked of the old one.
        self.settle();
        self.refresh_labs();
        self.refresh_split();
    }

    /// Asks for what the shown lab needs and does not have yet: the Budget
    /// lab's closed form is counted here; the Probes lab re-runs the shown
    /// model with the session's weights and input, so it is a job.
    pub(super) fn refresh_labs(&mut self) {
        // Another program's log: no model of ours to count or re-run.
        if self.foreign.is_some() {
            return;
        }
        let cfg = &self.run.trace.config;
        if let Some(w) = self.labs.refresh(self.tab, self.generation, cfg) {
            self.wanted.push(w);
        }
    }
}
