//! The lab tabs' state: FFN by hand, norms, budget (in `budget`) and
//! probes (in `probes`).
//!
//! Each lab reads the lesson, budget and probe APIs; nothing here computes
//! a number of its own. A lab that depends on the stepper's model keeps
//! the model's generation it was made for, not a copy of the model.

mod budget;
mod ffn;
mod probes;

use super::{Tab, Wanted};
use crate::config::ModelConfig;
use crate::lesson::norms::NormCompare;
use crate::lesson::parse_vector;
use crate::tui::action::Action;
pub use budget::{BudgetLab, CountQuiz, Field};
use budget::{budget_lab, set_budget};
pub use ffn::FfnLab;
pub use probes::{ProbeKey, ProbesLab};

/// Which vector is being typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditTarget {
    /// The FFN lab's input token x (width d).
    FfnX,
    /// The Norms lab's input vector.
    NormX,
    /// A field of the budget lab's model.
    BudgetField(Field),
}

/// A vector being typed, e.g. `2,-1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Which vector or field the text goes into.
    pub target: EditTarget,
    /// What has been typed so far.
    pub text: String,
    /// The value being replaced, shown beside the prompt.
    pub now: String,
    /// Why the last Enter was refused; the prompt stays open.
    pub error: Option<String>,
}

/// Every lab's state.
#[derive(Debug, Clone)]
pub struct Labs {
    /// The lesson's FFN by hand, or its gated variant.
    pub ffn: FfnLab,
    /// LayerNorm and RMSNorm on one vector, side by side.
    pub norms: NormCompare,
    /// Made when the Budget tab first opens for a model; `None` before, or
    /// when the model cannot be counted.
    pub budget: Option<BudgetLab>,
    /// Which rows a probe changed, for the token chosen.
    pub probes: ProbesLab,
    /// The vector or field being typed, if any.
    pub editing: Option<Edit>,
}

impl Default for Labs {
    fn default() -> Self {
        Self {
            ffn: FfnLab::default(),
            norms: NormCompare::new(&[3.0, 4.0])
                .unwrap_or_else(|e| panic!("the lesson vector: {e}")),
            budget: None,
            probes: ProbesLab::default(),
            editing: None,
        }
    }
}

impl Labs {
    /// Applies a key's action to the lab on `tab`; `cfg` is the stepper's
    /// model, of generation `generation`.
    pub fn update(&mut self, tab: Tab, action: Action, generation: u64, cfg: &ModelConfig) {
        if self.editing.is_some() {
            self.type_into(action);
            return;
        }
        match tab {
            Tab::Ffn => self.ffn_update(action),
            Tab::Norms if action == Action::Edit => {
                self.edit(EditTarget::NormX, &self.norms.x.clone())
            }
            Tab::Budget => self.budget_update(action, generation, cfg),
            Tab::Probes => self.probes.update(action, cfg),
            _ => {}
        }
    }

    /// Makes what the lab on `tab` needs for the stepper's model `cfg` (of
    /// generation `generation`) and does not have yet: the budget is
    /// counted at once; a probe is asked of the event loop (the returned
    /// job), since it re-runs the model.
    pub fn refresh(&mut self, tab: Tab, generation: u64, cfg: &ModelConfig) -> Option<Wanted> {
        match tab {
            Tab::Budget if self.budget.as_ref().is_none_or(|b| b.of != generation) => {
                self.budget = budget_lab(generation, cfg);
                None
            }
            Tab::Probes => self.probes.ask(generation, cfg),
            _ => None,
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
                    EditTarget::FfnX => self.ffn.typed(&text),
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
        match action {
            Action::Edit => self.edit(EditTarget::FfnX, &self.ffn.ex.x.clone()),
            _ => self.ffn.update(action),
        }
    }
}
