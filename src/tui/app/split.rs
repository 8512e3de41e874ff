//! The split view (`shapetrace --compare RIGHT`): the stepper's model on
//! the left and a second model on the right, aligned step by step as
//! `shapetrace compare` aligns them ([`Comparison`]), stepped together.
//!
//! ```text
//!   path            lesson (pre-LN)        lesson-post-ln
//! ▶ ≠ block1.ln_1   (B=2,T=4,d=64) f32     (B=2,T=4,d=64) f32
//! ```
//!
//! `a` `m` `p` `f` switch a setting of the side `b` points at: the left
//! side is the stepper's own model, re-traced as any switch is; the right
//! side is traced for its shapes at once (shapes are all a comparison
//! reads). The comparison is made again whenever either side changes.

use super::{App, Showing, Switch, Tab};
use crate::budget::Budget;
use crate::compare::{Comparison, Status};
use crate::config::ModelConfig;
use crate::trace::Trace;
use crate::tui::action::Action;
use crate::why::Why;

/// The side the switches act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The stepper's own model.
    Left,
    /// The model given to `--compare`.
    Right,
}

/// The second model and the comparison of the two.
#[derive(Debug, Clone)]
pub struct Split {
    /// The right model's name as given (a preset or a file).
    pub right_name: String,
    /// The right model's shape-only trace, slimmed ([`crate::compare::slim`]).
    pub right: Trace,
    right_budget: Budget,
    /// The two traces aligned.
    pub cmp: Comparison,
    /// The aligned row selected.
    pub row: usize,
    /// The side `a` `m` `p` `f` switch.
    pub focus: Focus,
    /// The left model's generation and config the comparison was made of.
    made_of: (u64, ModelConfig),
}

/// A right model that cannot be traced or counted.
fn shapes(cfg: &ModelConfig) -> Result<(Trace, Budget), crate::error::Error> {
    let mut trace = crate::trace_request(cfg, &crate::Request::shapes())?.trace;
    let budget = Budget::of_trace(cfg, &trace)?;
    // The comparison reads its shapes, the switches its config.
    crate::compare::slim(&mut trace);
    Ok((trace, budget))
}

/// The left model's name: its preset, or `left` for a model of no name.
fn left_name(cfg: &ModelConfig) -> String {
    if cfg.preset.is_empty() {
        "left".to_string()
    } else {
        cfg.preset.clone()
    }
}

impl App {
    /// Opens the split view beside the stepper's model: `name` is how the
    /// user gave the right model, `cfg` the model.
    ///
    /// # Errors
    /// When either model cannot be traced or counted.
    pub fn open_split(&mut self, name: &str, cfg: &ModelConfig) -> Result<(), crate::error::Error> {
        let (right, right_budget) = shapes(cfg)?;
        let left = Budget::of(self.cfg())?;
        let l = left_name(self.cfg());
        let cmp = Comparison::of((&l, &self.run.trace, &left), (name, &right, &right_budget));
        self.split = Some(Split {
            right_name: name.to_string(),
            right,
            right_budget,
            cmp,
            row: 0,
            focus: Focus::Left,
            made_of: (self.generation, self.cfg().clone()),
        });
        self.showing = match self.showing {
            Showing::Presenter { .. } => Showing::Presenter { split: true },
            Showing::Tabs | Showing::Split => Showing::Split,
        };
        // On the step the stepper opened at (`--at`).
        self.row_follows_cursor();
        Ok(())
    }

    /// Whether the screen shows the split view now: it is the view shown
    /// and the Steps tab is on, and no overlay that follows one model (the
    /// quiz, reveal mode) lies over it.
    #[must_use]
    pub fn split_shown(&self) -> bool {
        self.showing == Showing::Split
            && self.tab == Tab::Steps
            && !self.overlay.one_model()
            && self.split.is_some()
    }

    /// The split view's row moves to the left model's cursor, where the
    /// comparison has its step: while the one-model view is in charge.
    fn row_follows_cursor(&mut self) {
        let cursor = self.cursor;
        let Some(s) = &mut self.split else { return };
        if let Some(i) = s
            .cmp
            .steps
            .iter()
            .position(|st| st.left.as_ref().is_some_and(|l| l.step == cursor))
        {
            s.row = i;
        }
    }

    /// `|` and `b`, in any view: the split view or the left model's own
    /// (in presenter mode, which of the two comes back after it), and the
    /// side `a` `m` `p` `f` switch. Without a second model, how to get one.
    pub(super) fn split_shared(&mut self, action: Action) {
        let Some(split) = &mut self.split else {
            self.status = Some(self.t("ui-split-needs-compare"));
            return;
        };
        if action == Action::ToggleSplit {
            self.showing = match self.showing {
                Showing::Tabs => Showing::Split,
                Showing::Split => Showing::Tabs,
                Showing::Presenter { split } => Showing::Presenter { split: !split },
            };
            return;
        }
        split.focus = match split.focus {
            Focus::Left => Focus::Right,
            Focus::Right => Focus::Left,
        };
        let side = match split.focus {
            Focus::Left => left_name(&self.run.trace.config),
            Focus::Right => split.right_name.clone(),
        };
        let side = crate::text::shown(&side).to_string();
        self.status = Some(self.tr(&Why::new("ui-split-now-switch").arg("name", side)));
    }

    /// The split view's keys while it is on screen: the step keys move
    /// through the aligned rows, the switches act on the side `b` points
    /// at, autoplay steps both. The rest is returned.
    pub(super) fn split_keys(&mut self, action: Action) -> Option<Action> {
        use Action as A;
        let Some(split) = &self.split else {
            return Some(action);
        };
        match action {
            // The right model: switched here, traced for its shapes.
            A::CycleAct | A::ToggleNorm | A::TogglePlacement | A::CycleFault | A::CycleDevice
                if split.focus == Focus::Right =>
            {
                if let Some((cfg, switch)) = super::switched(&split.right.config, action) {
                    self.switch_right(cfg, switch);
                }
            }
            // Space at the last row under autoplay replays from the first.
            A::TogglePause => {
                let last = split.cmp.steps.len();
                if self.autoplay.is_some_and(|a| a.paused) && self.split_row() + 1 >= last {
                    self.split_goto(0);
                }
                return Some(action);
            }
            A::Next | A::Down => self.split_goto(self.split_row() + 1),
            A::Prev | A::Up => self.split_goto(self.split_row().saturating_sub(1)),
            A::First => self.split_goto(0),
            A::Last => self.split_goto(usize::MAX),
            A::PageDown => self.split_goto(self.split_row() + 10),
            A::PageUp => self.split_goto(self.split_row().saturating_sub(10)),
            A::NextDeparture | A::PrevDeparture => {
                let to = self.split_find(action == A::NextDeparture, |s| s.status != Status::Same);
                self.split_jump(to, "ui-what-differing-step");
            }
            A::NextResidual | A::PrevResidual => {
                let to = self.split_find(action == A::NextResidual, |s| {
                    s.path
                        .rsplit('.')
                        .next()
                        .is_some_and(|l| l.starts_with("resid"))
                });
                self.split_jump(to, "ui-what-residual-add");
            }
            A::Select(i) => self.split_goto(i),
            // Autoplay's tick, when autoplay runs and is not paused.
            A::Tick if self.autoplay.is_none_or(|a| a.paused) => {}
            A::Tick => {
                let last = split.cmp.steps.len();
                if self.split_row() + 1 < last {
                    self.split_goto(self.split_row() + 1);
                } else if let Some(a) = &mut self.autoplay {
                    a.paused = true;
                }
            }
            _ => return Some(action),
        }
        None
    }

    fn split_row(&self) -> usize {
        self.split.as_ref().map_or(0, |s| s.row)
    }

    /// Selects aligned row `to` (the last one past the end) and moves the
    /// left model's cursor to its step there, if it has one.
    fn split_goto(&mut self, to: usize) {
        if let Some(s) = &mut self.split {
            s.row = to.min(s.cmp.steps.len().saturating_sub(1));
        }
        self.sync_cursor();
    }

    /// The nearest aligned row after the selected one (or before it) that
    /// `pred` picks.
    fn split_find(
        &self,
        forward: bool,
        pred: impl Fn(&crate::compare::Step) -> bool,
    ) -> Option<usize> {
        let s = self.split.as_ref()?;
        let steps = &s.cmp.steps;
        if forward {
            (s.row + 1..steps.len()).find(|&i| pred(&steps[i]))
        } else {
            (0..s.row.min(steps.len())).rev().find(|&i| pred(&steps[i]))
        }
    }

    fn split_jump(&mut self, to: Option<usize>, what: &str) {
        match to {
            Some(i) => {
                self.split_goto(i);
                self.status = None;
            }
            None => self.no_further(what),
        }
    }

    /// The left model's cursor follows the split view's row, where the
    /// left model has that step.
    fn sync_cursor(&mut self) {
        let Some(s) = &self.split else { return };
        if let Some(l) = s.cmp.steps.get(s.row).and_then(|st| st.left.as_ref()) {
            self.cursor = l.step;
        }
    }

    /// Traces the right model with one setting switched, and compares again.
    fn switch_right(&mut self, cfg: ModelConfig, switch: Switch) {
        let Some(split) = &mut self.split else { return };
        match shapes(&cfg) {
            Ok((trace, budget)) => {
                split.right = trace;
                split.right_budget = budget;
                let said = Why::new("ui-split-switched")
                    .arg("name", crate::text::shown(&split.right_name).to_string())
                    .arg("what", self.said(super::Retrace::Switch(switch)))
                    .arg("value", switch.value(&cfg));
                self.status = Some(self.tr(&said));
                self.compare_again();
            }
            Err(e) => {
                self.status = Some(format!(
                    "{}: {}",
                    crate::text::shown(&split.right_name),
                    crate::text::one_line(&e.to_string())
                ));
            }
        }
    }

    /// After any update: a left model that changed (a switch's trace came
    /// back, a watched file was edited) is compared again.
    pub(super) fn refresh_split(&mut self) {
        let Some(s) = &self.split else { return };
        if s.made_of.0 != self.generation || &s.made_of.1 != self.cfg() {
            self.compare_again();
        }
        if !self.split_shown() {
            self.row_follows_cursor();
        }
    }

    /// Aligns the two traces again, keeping the selected row's path.
    fn compare_again(&mut self) {
        let Some(s) = &self.split else { return };
        let left = match Budget::of(self.cfg()) {
            Ok(b) => b,
            Err(e) => {
                self.status = Some(crate::text::one_line(&e.to_string()));
                return;
            }
        };
        let l = left_name(self.cfg());
        let path = s.cmp.steps.get(s.row).map(|st| st.path.clone());
        let cmp = Comparison::of(
            (&l, &self.run.trace, &left),
            (&s.right_name, &s.right, &s.right_budget),
        );
        let made_of = (self.generation, self.cfg().clone());
        if let Some(s) = &mut self.split {
            s.row = path
                .and_then(|p| cmp.steps.iter().position(|st| st.path == p))
                .unwrap_or(s.row)
                .min(cmp.steps.len().saturating_sub(1));
            s.cmp = cmp;
            s.made_of = made_of;
        }
        if self.split_shown() {
            self.sync_cursor();
        }
    }
}
