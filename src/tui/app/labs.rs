//! The lab tabs' state: FFN by hand, norms, budget and probes.
//!
//! Each lab reads the lesson, budget and probe APIs; nothing here computes
//! a number of its own.

use super::Tab;
use crate::budget::Budget;
use crate::check::influence::{Influence, Kind, Subject, influence};
use crate::config::{Act, ModelConfig, preset};
use crate::lesson::by_hand::FfnByHand;
use crate::lesson::norms::NormCompare;
use crate::lesson::parse_vector;
use crate::tui::action::Action;

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

/// A budget field the user can change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    DModel,
    DFf,
    Heads,
    Layers,
    Seq,
    Act,
}

impl Field {
    pub const ALL: [Field; 6] = [
        Field::DModel,
        Field::DFf,
        Field::Heads,
        Field::Layers,
        Field::Seq,
        Field::Act,
    ];

    /// The field `by` places further down the list, wrapping round.
    fn step(self, by: usize) -> Field {
        let n = Field::ALL.len();
        Field::ALL[(self as usize + by) % n]
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Field::DModel => "d_model",
            Field::DFf => "d_ff",
            Field::Heads => "heads",
            Field::Layers => "layers",
            Field::Seq => "T",
            Field::Act => "act",
        }
    }

    /// Sets this field of `cfg` from typed text.
    ///
    /// # Errors
    /// The text is not a whole number ≥ 1 (or, for act, an activation).
    pub fn set(self, cfg: &mut ModelConfig, text: &str) -> Result<(), String> {
        let text = text.trim();
        if self == Field::Act {
            cfg.act = text
                .parse()
                .map_err(|e: crate::config::names::UnknownName| e.to_string())?;
            return Ok(());
        }
        let v: usize = text
            .parse()
            .ok()
            .filter(|v| *v >= 1)
            .ok_or_else(|| format!("{} = '{text}' is not a whole number ≥ 1", self.name()))?;
        match self {
            Field::DModel => cfg.d_model = v,
            Field::DFf => cfg.d_ff = v,
            Field::Heads => (cfg.heads, cfg.kv_heads) = (v, v),
            Field::Layers => cfg.layers = v,
            Field::Seq => cfg.seq = v,
            Field::Act => {}
        }
        Ok(())
    }

    /// The value of this field in `cfg`, as shown.
    #[must_use]
    pub fn value(self, cfg: &ModelConfig) -> String {
        match self {
            Field::DModel => cfg.d_model.to_string(),
            Field::DFf => cfg.d_ff.to_string(),
            Field::Heads => cfg.heads.to_string(),
            Field::Layers => cfg.layers.to_string(),
            Field::Seq => cfg.seq.to_string(),
            Field::Act => cfg.act.to_string(),
        }
    }
}

/// A budget for an editable copy of the model, beside GPT-2 small's.
#[derive(Debug, Clone)]
pub struct BudgetLab {
    /// The stepper's model this copy started from.
    pub base: ModelConfig,
    pub cfg: ModelConfig,
    /// The field under the cursor.
    pub field: Field,
    pub ours: Budget,
    pub gpt2: Budget,
    /// Why the last change was refused.
    pub error: Option<String>,
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

fn step_size(v: usize) -> usize {
    if v >= 64 { 64 } else { (v / 2).max(1) }
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

    fn budget_update(&mut self, action: Action, cfg: &ModelConfig) {
        let Some(lab) = &mut self.budget else { return };
        let field = lab.field;
        let up = match action {
            Action::Down => {
                lab.field = field.step(1);
                return;
            }
            Action::Up => {
                lab.field = field.step(Field::ALL.len() - 1);
                return;
            }
            Action::First => {
                self.budget = budget_lab(cfg);
                return;
            }
            Action::Edit => {
                let now = field.value(&lab.cfg);
                self.editing = Some(Edit {
                    target: EditTarget::BudgetField(field),
                    text: String::new(),
                    now,
                    error: None,
                });
                return;
            }
            Action::Next => true,
            Action::Prev => false,
            _ => return,
        };
        let mut next = lab.cfg.clone();
        let divisors: Vec<usize> = (1..=next.d_model)
            .filter(|k| next.d_model % k == 0)
            .collect();
        match (field, up) {
            (Field::DModel, true) => next.d_model += step_size(next.d_model),
            (Field::DModel, false) => next.d_model -= step_size(next.d_model).min(next.d_model - 1),
            (Field::DFf, true) => next.d_ff += step_size(next.d_ff),
            (Field::DFf, false) => next.d_ff -= step_size(next.d_ff).min(next.d_ff - 1),
            (Field::Heads, true) => {
                next.heads = divisors
                    .iter()
                    .copied()
                    .find(|&k| k > next.heads)
                    .unwrap_or(next.heads)
            }
            (Field::Heads, false) => {
                next.heads = divisors
                    .iter()
                    .rev()
                    .copied()
                    .find(|&k| k < next.heads)
                    .unwrap_or(next.heads)
            }
            (Field::Layers, true) => next.layers += 1,
            (Field::Layers, false) => next.layers = (next.layers - 1).max(1),
            (Field::Seq, true) => next.seq *= 2,
            (Field::Seq, false) => next.seq = (next.seq / 2).max(1),
            (Field::Act, _) => next.act = super::next_of(Act::ALL, next.act),
        }
        if field == Field::Heads {
            next.kv_heads = next.heads;
        }
        lab.error = set_budget(lab, next).err();
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

/// Recounts the lab's budget for `next`, keeping the old one if it is invalid.
fn set_budget(lab: &mut BudgetLab, mut next: ModelConfig) -> Result<(), String> {
    if next.context != 0 && next.seq > next.context {
        next.context = next.seq;
    }
    let b = Budget::of(&next).map_err(|e| e.to_string())?;
    lab.cfg = next;
    lab.ours = b;
    lab.error = None;
    Ok(())
}

/// The budget lab for `cfg`, or `None` when GPT-2 small or `cfg` cannot be counted.
fn budget_lab(cfg: &ModelConfig) -> Option<BudgetLab> {
    let gpt2 = preset::by_name("gpt2-small")
        .ok()
        .and_then(|c| Budget::of(&c).ok())?;
    let ours = Budget::of(cfg).ok()?;
    Some(BudgetLab {
        base: cfg.clone(),
        cfg: cfg.clone(),
        field: Field::DModel,
        ours,
        gpt2,
        error: None,
    })
}
