//! The budget lab: an editable copy of the stepper's model, its parameter,
//! FLOP and memory budget recounted on every change, beside GPT-2 small's.
//! `z` starts its quiz: predict a row of the table before it is shown
//! (the judge is [`crate::quiz::count`]).

use super::{Action, Edit, EditTarget, Labs};
use crate::budget::Budget;
use crate::config::{Act, ModelConfig, preset};
pub use quiz::CountQuiz;

mod quiz;

/// A budget field the user can change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The model width d_model.
    DModel,
    /// The MLP's hidden size d_ff.
    DFf,
    /// The attention heads h (and as many K/V heads).
    Heads,
    /// The number of blocks.
    Layers,
    /// The sequence length T.
    Seq,
    /// The MLP's activation (relu, gelu, gelu-tanh or swiglu).
    Act,
}

impl Field {
    /// Every field, in the order the lab lists them.
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

    /// The field's name as the lab shows it, e.g. `d_model` or `T`.
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
            cfg.mlp.act = text
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
            Field::DFf => cfg.mlp.d_ff = v,
            Field::Heads => (cfg.attention.heads, cfg.attention.kv_heads) = (v, v),
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
            Field::DFf => cfg.mlp.d_ff.to_string(),
            Field::Heads => cfg.attention.heads.to_string(),
            Field::Layers => cfg.layers.to_string(),
            Field::Seq => cfg.seq.to_string(),
            Field::Act => cfg.mlp.act.to_string(),
        }
    }
}

/// A budget for an editable copy of the model, beside GPT-2 small's.
#[derive(Debug, Clone)]
pub struct BudgetLab {
    /// The generation of the stepper's model this copy started from; a
    /// new model starts the lab over.
    pub of: u64,
    /// The lab's own model: the stepper's, as the user edits it.
    pub cfg: ModelConfig,
    /// The field under the cursor.
    pub field: Field,
    /// The lab's model's parameters, FLOPs and bytes.
    pub ours: Budget,
    /// GPT-2 small's, for scale.
    pub gpt2: Budget,
    /// Why the last change was refused.
    pub error: Option<String>,
}

fn step_size(v: usize) -> usize {
    if v >= 64 { 64 } else { (v / 2).max(1) }
}

impl Labs {
    /// Moves between fields, steps or edits the one under the cursor, or
    /// starts over from the stepper's model (`First`).
    pub(super) fn budget_update(&mut self, action: Action, generation: u64, cfg: &ModelConfig) {
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
                self.budget = budget_lab(generation, cfg);
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
            (Field::DFf, true) => next.mlp.d_ff += step_size(next.mlp.d_ff),
            (Field::DFf, false) => next.mlp.d_ff -= step_size(next.mlp.d_ff).min(next.mlp.d_ff - 1),
            (Field::Heads, true) => {
                next.attention.heads = divisors
                    .iter()
                    .copied()
                    .find(|&k| k > next.attention.heads)
                    .unwrap_or(next.attention.heads)
            }
            (Field::Heads, false) => {
                next.attention.heads = divisors
                    .iter()
                    .rev()
                    .copied()
                    .find(|&k| k < next.attention.heads)
                    .unwrap_or(next.attention.heads)
            }
            (Field::Layers, true) => next.layers += 1,
            (Field::Layers, false) => next.layers = (next.layers - 1).max(1),
            (Field::Seq, true) => next.seq *= 2,
            (Field::Seq, false) => next.seq = (next.seq / 2).max(1),
            (Field::Act, _) => next.mlp.act = super::super::next_of(Act::ALL, next.mlp.act),
        }
        if field == Field::Heads {
            next.attention.kv_heads = next.attention.heads;
        }
        lab.error = set_budget(lab, next).err();
    }
}

/// Recounts the lab's budget for `next`, keeping the old one if it is invalid.
pub(super) fn set_budget(lab: &mut BudgetLab, mut next: ModelConfig) -> Result<(), String> {
    if next.positions.context.is_some_and(|c| next.seq > c) {
        next.positions.context = Some(next.seq);
    }
    let b = Budget::of(&next).map_err(|e| e.to_string())?;
    lab.cfg = next;
    lab.ours = b;
    lab.error = None;
    Ok(())
}

/// The budget lab for `cfg`, the stepper's model of `generation`, or
/// `None` when GPT-2 small or `cfg` cannot be counted.
pub(super) fn budget_lab(generation: u64, cfg: &ModelConfig) -> Option<BudgetLab> {
    let gpt2 = preset::by_name("gpt2-small")
        .ok()
        .and_then(|c| Budget::of(&c).ok())?;
    let ours = Budget::of(cfg).ok()?;
    Some(BudgetLab {
        of: generation,
        cfg: cfg.clone(),
        field: Field::DModel,
        ours,
        gpt2,
        error: None,
    })
}
