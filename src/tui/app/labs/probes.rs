//! The probes lab: which rows change when one input row changes. The
//! probe re-runs the model, so it is computed by the event loop on a
//! worker thread: the lab asks for one probe at a time and, when it comes
//! back, asks for the newest token and probe if they changed meanwhile.
//! For each model it opens on the token the `probes` command shows: the
//! first one whose move leaks, else the middle one
//! ([`crate::check::influence::opening`]).

use super::super::Wanted;
use crate::check::influence::{Influence, Kind};
use crate::config::ModelConfig;
use crate::tui::action::Action;

/// What a probe was computed for: the stepper's model (by its
/// generation), the probe and the token moved; `None` for the opening
/// token, which the probe finds by moving each token in turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeKey {
    /// The stepper's model's generation ([`crate::tui::app::App::generation`]).
    pub generation: u64,
    /// Which probe.
    pub kind: Kind,
    /// The token moved; `None` for the opening probe, which tries each.
    pub token: Option<usize>,
}

/// The probe shown, for which token, and what changed.
#[derive(Debug, Clone)]
pub struct ProbesLab {
    /// The probe shown: causality or positionwise.
    pub kind: Kind,
    /// The token moved; `None` until the opening probe has found it.
    pub token: Option<usize>,
    /// The model the token was chosen for: a new model opens again.
    of: Option<u64>,
    /// The last probe that came back, with what it was computed for.
    pub view: Option<(ProbeKey, Result<Influence, String>)>,
    /// The probe being computed on a worker thread, if any.
    pub running: Option<ProbeKey>,
}

impl Default for ProbesLab {
    fn default() -> Self {
        Self {
            kind: Kind::Causality,
            token: None,
            of: None,
            view: None,
            running: None,
        }
    }
}

impl ProbesLab {
    /// What the lab shows for the model of `generation`.
    #[must_use]
    pub fn key(&self, generation: u64) -> ProbeKey {
        ProbeKey {
            generation,
            kind: self.kind,
            token: self.token,
        }
    }

    /// The probe for the model of `generation` and the token and probe
    /// chosen; `None` while it is being computed.
    #[must_use]
    pub fn current(&self, generation: u64) -> Option<&Result<Influence, String>> {
        let key = self.key(generation);
        self.view
            .as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }

    /// Moves the token or switches the probe.
    pub(super) fn update(&mut self, action: Action, cfg: &ModelConfig) {
        let last = cfg.seq.saturating_sub(1);
        let now = self.token.unwrap_or(cfg.seq / 2);
        match action {
            Action::Next => self.token = Some((now + 1).min(last)),
            Action::Prev => self.token = Some(now.saturating_sub(1)),
            Action::First => self.token = Some(0),
            Action::Last => self.token = Some(last),
            Action::Up | Action::Down => {
                self.kind = match self.kind {
                    Kind::Causality => Kind::Positionwise,
                    Kind::Positionwise => Kind::Causality,
                };
                // The other probe may leak at another token.
                self.token = None;
            }
            _ => {}
        }
    }

    /// The probe to compute for `cfg`, the model of `generation`, unless
    /// it is shown already or another probe is still running (the newest
    /// is asked for when that one comes back).
    pub(super) fn ask(&mut self, generation: u64, cfg: &ModelConfig) -> Option<Wanted> {
        if self.of != Some(generation) {
            // Another model: open on its leak again.
            self.of = Some(generation);
            self.token = None;
        }
        self.token = self.token.map(|t| t.min(cfg.seq.saturating_sub(1)));
        if self.running.is_some() || self.current(generation).is_some() {
            return None;
        }
        let key = self.key(generation);
        self.running = Some(key);
        Some(Wanted::Probe {
            key,
            cfg: cfg.clone(),
        })
    }

    /// Keeps a probe that came back if it is for what is shown now, the
    /// model of `generation`; drops it otherwise.
    pub(in crate::tui::app) fn came(
        &mut self,
        key: ProbeKey,
        generation: u64,
        result: Result<Influence, String>,
    ) {
        if self.running == Some(key) {
            self.running = None;
        }
        if key != self.key(generation) {
            return;
        }
        // The opening probe found its token: shown as that token's.
        let key = match (&result, key.token) {
            (Ok(view), None) => {
                self.token = Some(view.token);
                self.key(generation)
            }
            _ => key,
        };
        self.view = Some((key, result));
    }
}
