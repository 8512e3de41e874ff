//! The lab tabs' state: FFN by hand, norms, budget (in `budget`) and probes.
//!
//! Each lab reads the lesson, budget and probe APIs; nothing here computes
//! a number of its own.

mod budget;

use super::Tab;
use crate::check::influence::{Influence, Kind, Subject, influence};
use crate::config::ModelConfig;
use crate::lesson::by_hand::FfnByHand;
use crate::lesson::norms::NormCompare;
use crate::lesson::parse_vector;
use crate::tui::action::Action;
pub use budget::{BudgetLab, Field};
use budget::{budget_lab, set_budget};

/// Which vector is being typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditTarget {
    FfnX,
    NormX,
    /// A field of the budget lab's model.
    BudgetField(Field),
}

/// A vector being typed, e.g. `2,-1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub target: EditTarget,
    pub text: String,
    /// The value being replaced, shown beside the prompt.
    pub now: String,
    pub error: Option<String>,
}

/// The FFN worked example and how many of its steps are shown.
#[derive(Debug, Clone, PartialEq)]
pub struct FfnLab {
    pub ex: FfnByHand,
    /// Steps shown, from 1 to all of them.
    pub shown: usize,
}

/// The probe shown, for which token, and what changed.
#[derive(Debug, Clone)]
pub struct ProbesLab {
    pub kind: Kind,
    pub token: usize,
    /// `None` until computed for the current model, kind and token.
    pub view: Option<Result<Influence, String>>,
    /// The model the view was computed for.
    pub of: Option<ModelConfig>,
}

/// Every lab's state.
#[derive(Debug, Clone)]
pub struct Labs {
    pub ffn: FfnLab,
    pub norms: NormCompare,
    pub budget: Option<BudgetLab>,
    pub probes: ProbesLab,
    pub editing: Option<Edit>,
}

impl Default for Labs {
    fn default() -> Self {
        let ex =
            FfnByHand::lesson(&[1.0, 2.0]).unwrap_or_else(|e| panic!("the lesson example: {e}"));
        Self {
            ffn: FfnLab { ex, shown: 1 },
            norms: NormCompare::new(&[3.0, 4.0])
                .unwrap_or_else(|e| panic!("the lesson vector: {e}")),
            budget: None,
            probes: ProbesLab {
                kind: Kind::Causality,
                token: 0,
                view: None,
                of: None,
            },
            editing: None,
        }
    }
}

impl Labs {
    /// Applies a key's action to the lab on `tab`.
    pub fn update(&mut self, tab: Tab, action: Action, cfg: &ModelConfig) {
        if self.editing.is_some() {
            self.type_into(action);
            return;
        }
        match tab {
            Tab::Ffn => self.ffn_update(action),
            Tab::Norms if action == Action::Edit => {
                self.edit(EditTarget::NormX, &self.norms.x.clone())
            }
            Tab::Budget => self.budget_update(action, cfg),
            Tab::Probes => self.probes_update(action, cfg),
            _ => {}
        }
    }

    /// Computes what the shown lab needs and does not have yet.
    /// The Probes lab re-runs `subject`, the shown model with the
    /// session's loaded weights and input, if any.
    pub fn refresh(&mut self, tab: Tab, subject: Subject) {
        let cfg = subject.cfg;
        match tab {
            Tab::Budget if self.budget.as_ref().is_none_or(|b| &b.base != cfg) => {
                self.budget = budget_lab(cfg);
            }
            Tab::Probes if self.probes.view.is_none() || self.probes.of.as_ref() != Some(cfg) => {
                let p = &mut self.probes;
                p.token = p.token.min(cfg.seq.saturating_sub(1));
                p.view = Some(influence(subject, p.kind, &[p.token]).map(|mut v| v.remove(0)));
                p.of = Some(cfg.clone());
            }
            _ => {}
        }
    }

    /// Opens an empty prompt; the current value is shown beside it.
    fn edit(&mut self, target: EditTarget, now: &[f64]) {
        let now = now
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(",");
        self.editing = Some(Edit {
            target,
            text: String::new(),
            now,
            error: None,
        });
    }

    fn type_into(&mut self, action: Action) {
        let Some(e) = &mut self.editing else { return };
        match action {
            Action::Char(c) => e.text.push(c),
            Action::Backspace => {
                e.text.pop();
            }
            Action::ClearInput => e.text.clear(),
            Action::Cancel => self.editing = None,
            Action::Submit => {
                let text = e.text.clone();
                let vector = || parse_vector(&text).map_err(|err| err.to_string());
                let applied = match e.target {
                    EditTarget::FfnX => vector().and_then(|x| {
                        FfnByHand::lesson(&x)
                            .map(|ex| self.ffn = FfnLab { ex, shown: 1 })
                            .map_err(|err| err.to_string())
                    }),
                    EditTarget::NormX => vector().and_then(|x| {
                        NormCompare::new(&x)
                            .map(|n| self.norms = n)
                            .map_err(|err| err.to_string())
                    }),
                    EditTarget::BudgetField(field) => self
                        .budget
                        .as_mut()
                        .ok_or_else(String::new)
                        .and_then(|lab| {
                            let mut next = lab.cfg.clone();
                            field.set(&mut next, &text)?;
                            set_budget(lab, next)
                        }),
                };
                match applied {
                    Ok(()) => self.editing = None,
                    Err(msg) => {
                        if let Some(e) = &mut self.editing {
                            e.error = Some(msg);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn ffn_update(&mut self, action: Action) {
        let all = self.ffn.ex.steps.len();
        let f = &mut self.ffn;
        match action {
            Action::Next | Action::Down => f.shown = (f.shown + 1).min(all),
            Action::Prev | Action::Up => f.shown = f.shown.saturating_sub(1).max(1),
            Action::First => f.shown = 1,
            Action::Last => f.shown = all,
            Action::Edit => self.edit(EditTarget::FfnX, &self.ffn.ex.x.clone()),
            _ => {}
        }
    }

    fn probes_update(&mut self, action: Action, cfg: &ModelConfig) {
        let p = &mut self.probes;
        let last = cfg.seq.saturating_sub(1);
        match action {
            Action::Next => p.token = (p.token + 1).min(last),
            Action::Prev => p.token = p.token.saturating_sub(1),
            Action::First => p.token = 0,
            Action::Last => p.token = last,
            Action::Up | Action::Down => {
                p.kind = match p.kind {
                    Kind::Causality => Kind::Positionwise,
                    Kind::Positionwise => Kind::Causality,
                };
            }
            _ => return,
        }
        p.view = None;
    }
}
