//! What the stepper shows and what lies over it, as two states, each with
//! its own key handler. An action goes to the overlay's handler first,
//! which takes it or passes it on; then to the split view's handler while
//! the split view is on screen; then to the keys every view shares; what
//! is left moves through the steps or goes to the lab on the tab.
//!
//! ```text
//! key ─▶ Overlay: Help │ Quiz │ Reveal │ CountQuiz │ None
//!          └─ passed ─▶ Showing::Split (shown) ─▶ shared keys ─▶ steps or lab
//! ```

use super::labs::CountQuiz;
use super::{App, Quiz, Tab};
use crate::tui::action::{Action, KeyMode};

/// What the stepper's body shows, under any overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Showing {
    /// The tab's own panes: the steps, diagram and detail, the Checks
    /// tab, or a lab.
    Tabs,
    /// The split view beside a second model (`--compare`), on the Steps
    /// tab, unless the quiz or reveal mode, which follow one model, lies
    /// over it.
    Split,
    /// Presenter mode: the current step in large text, whatever the tab.
    Presenter {
        /// Whether the split view comes back when presenter mode ends.
        split: bool,
    },
}

/// What lies over the body and takes keys before it.
#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    /// Nothing: every key goes to the body.
    None,
    /// The key help, scrolled to its line `at`, over what was there.
    Help {
        /// The first line shown.
        at: usize,
        /// The overlay under the help, back when it closes.
        under: Box<Overlay>,
    },
    /// The quiz: each new shape is predicted before it is shown.
    Quiz(Quiz),
    /// Reveal mode: the last step whose shape is shown; every later
    /// step's is hidden until the step key reveals it.
    Reveal(usize),
    /// The Budget tab's count quiz.
    CountQuiz(CountQuiz),
}

impl Overlay {
    /// The overlay under the help, or this one.
    #[must_use]
    pub fn below_help(&self) -> &Overlay {
        match self {
            Overlay::Help { under, .. } => under.below_help(),
            other => other,
        }
    }

    fn below_help_mut(&mut self) -> &mut Overlay {
        match self {
            Overlay::Help { under, .. } => under.below_help_mut(),
            other => other,
        }
    }

    /// The first line of the help shown, while the help is open.
    #[must_use]
    pub fn help(&self) -> Option<usize> {
        match self {
            Overlay::Help { at, .. } => Some(*at),
            _ => None,
        }
    }

    /// Whether it follows one model, so the split view gives way to the
    /// left model's own steps: the quiz and reveal mode.
    #[must_use]
    pub fn one_model(&self) -> bool {
        matches!(self.below_help(), Overlay::Quiz(_) | Overlay::Reveal(_))
    }
}

impl App {
    /// The quiz, while it is on (under the help too).
    #[must_use]
    pub fn quiz(&self) -> Option<&Quiz> {
        match self.overlay.below_help() {
            Overlay::Quiz(q) => Some(q),
            _ => None,
        }
    }

    pub(super) fn quiz_mut(&mut self) -> Option<&mut Quiz> {
        match self.overlay.below_help_mut() {
            Overlay::Quiz(q) => Some(q),
            _ => None,
        }
    }

    /// Reveal mode's last shown step, while it is on.
    #[must_use]
    pub fn reveal(&self) -> Option<usize> {
        match self.overlay.below_help() {
            Overlay::Reveal(r) => Some(*r),
            _ => None,
        }
    }

    /// The count quiz, while it is on.
    #[must_use]
    pub fn count_quiz(&self) -> Option<&CountQuiz> {
        match self.overlay.below_help() {
            Overlay::CountQuiz(q) => Some(q),
            _ => None,
        }
    }

    /// Whether presenter mode is on.
    #[must_use]
    pub fn presenting(&self) -> bool {
        matches!(self.showing, Showing::Presenter { .. })
    }

    /// Which keys are live now: a prompt waiting for typing, the help,
    /// autoplay's space, or every key.
    #[must_use]
    pub fn key_mode(&self) -> KeyMode {
        let typing = match &self.overlay {
            Overlay::Help { .. } => return KeyMode::Help,
            Overlay::Quiz(q) => q.asking.is_some(),
            Overlay::CountQuiz(q) => q.asking,
            Overlay::None | Overlay::Reveal(_) => false,
        };
        if typing || self.labs.editing.is_some() {
            KeyMode::Typing
        } else if self.autoplay.is_some() {
            KeyMode::Autoplay
        } else {
            KeyMode::Normal
        }
    }

    /// Applies one action: the overlay's handler first, then the body's.
    pub fn update(&mut self, action: Action) {
        let rest = match &self.overlay {
            Overlay::None => Some(action),
            Overlay::Help { .. } => self.help_keys(action),
            Overlay::Quiz(_) => self.quiz_keys(action),
            Overlay::Reveal(_) => self.reveal_keys(action),
            Overlay::CountQuiz(_) => self.count_quiz_keys(action),
        };
        if let Some(action) = rest {
            self.body_keys(action);
        }
        self.settle();
        self.refresh_labs();
        self.refresh_split();
    }

    /// The body's keys: the split view's while it is on screen, then the
    /// keys every view shares, then moving through the steps or the lab.
    fn body_keys(&mut self, action: Action) {
        let action = if self.split_shown() {
            match self.split_keys(action) {
                Some(a) => a,
                None => return,
            }
        } else {
            action
        };
        let Some(action) = self.shared_keys(action) else {
            return;
        };
        if self.steps_move() {
            self.navigate(action);
        } else {
            self.lab_update(action);
        }
    }

    /// Whether the step keys move through the steps: presenter mode, the
    /// Steps and the Checks tabs (the labs take them otherwise).
    pub(super) fn steps_move(&self) -> bool {
        self.presenting() || matches!(self.tab, Tab::Steps | Tab::Checks)
    }

    /// After every action: the count quiz belongs to the Budget tab and
    /// the model it was asked of, so it ends when either is left.
    pub(super) fn settle(&mut self) {
        if let Overlay::CountQuiz(q) = &self.overlay
            && (self.tab != Tab::Budget || self.presenting() || q.of != self.generation)
        {
            self.overlay = Overlay::None;
        }
    }

    /// Presenter mode on, or off (back to the split view if it was on).
    fn toggle_present(&mut self) {
        self.showing = match self.showing {
            Showing::Tabs => Showing::Presenter { split: false },
            Showing::Split => Showing::Presenter { split: true },
            Showing::Presenter { split: true } => Showing::Split,
            Showing::Presenter { split: false } => Showing::Tabs,
        };
    }

    /// The keys every view shares: quitting, tabs, the help, switches,
    /// the modes' on keys, autoplay. The rest is returned.
    fn shared_keys(&mut self, action: Action) -> Option<Action> {
        use Action as A;
        match action {
            A::Quit => self.quit = true,
            A::NextTab | A::PrevTab => {
                let by = if action == A::NextTab {
                    1
                } else {
                    Tab::ALL.len() - 1
                };
                self.tab = self.tab.step(by);
                // A message belongs to the tab it was said on.
                self.status = None;
            }
            A::ToggleHelp => {
                let under = std::mem::replace(&mut self.overlay, Overlay::None);
                self.overlay = Overlay::Help {
                    at: 0,
                    under: Box::new(under),
                };
            }
            A::CycleAct | A::ToggleNorm | A::TogglePlacement | A::CycleFault | A::CycleDevice => {
                if let Some((cfg, switch)) = super::switched(&self.next_cfg(), action) {
                    self.rerun(cfg, switch);
                }
            }
            A::ToggleQuiz => self.start_quiz(),
            A::ToggleReveal => {
                self.overlay = Overlay::Reveal(self.cursor);
                self.status = Some(self.t("ui-status-reveal-on"));
            }
            A::TogglePresent => self.toggle_present(),
            A::TogglePause => self.toggle_pause(),
            A::Tick => self.tick(),
            A::BackToReplay => self.back_to_replay(),
            A::ToggleWhy => self.why_whole = !self.why_whole,
            A::ToggleCharts => {
                self.charts = !self.charts;
                if self.tab != Tab::Budget {
                    self.status = Some(if self.charts {
                        self.t("ui-status-charts-on")
                    } else {
                        self.t("ui-status-charts-off")
                    });
                }
            }
            A::ToggleSplit | A::SwitchSide => self.split_shared(action),
            // No prompt of an overlay is open: the lab's, if any.
            A::Char(_) | A::Backspace | A::ClearInput | A::Submit | A::Cancel => {
                self.lab_update(action);
            }
            _ => return Some(action),
        }
        None
    }
}

mod overlays;
#[cfg(test)]
mod tests;
