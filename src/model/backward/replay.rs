//! The forward again from its tape, with one tensor changed: the loss as
//! a function of any parameter or activation, for finite differences.
//! Every step is run by the numeric backend in f64, as the forward ran
//! it; the steps before the changed tensor keep their taped values.

use super::loss;
use crate::ops::Backend;
use crate::ops::numeric::{Numeric, Tensor};
use crate::trace::recorder::tape::{Key, Step, Tape};
use ndarray::ArrayD;
use std::collections::HashMap;

/// The loss of the taped forward with `changed` in place of the tensor
/// `key`: a parameter, or a step's output (the steps after it run
/// again). `None` shape-only, or where a step refuses its operands.
#[must_use]
pub fn loss_with(tape: &Tape, key: &Key, changed: &ArrayD<f64>) -> Option<f64> {
    let backend = Numeric::<f64>::new();
    // The first step the change reaches.
    let from = tape.steps.iter().position(|s| match key {
        Key::Act(p) => &s.path == p,
        Key::Param(_) => s.ins.contains(key),
    })?;
    let mut acts: HashMap<&str, Tensor<f64>> = HashMap::new();
    let mut params: HashMap<&str, Tensor<f64>> = HashMap::new();
    for p in &tape.params {
        let v = if *key == Key::Param(p.name.clone()) {
            changed.clone()
        } else {
            p.values.clone()?
        };
        params.insert(p.name.as_str(), Tensor::Owned(v));
    }
    let mut last: Option<ArrayD<f64>> = None;
    for (i, step) in tape.steps.iter().enumerate() {
        let out = if i < from {
            step.out.clone()?
        } else if *key == Key::Act(step.path.clone()) {
            changed.clone()
        } else {
            let op = step.op.as_ref()?;
            let mut ins: Vec<&Tensor<f64>> = Vec::with_capacity(step.ins.len());
            for k in &step.ins {
                let t = match k {
                    Key::Act(p) => acts.get(p.as_str())?,
                    Key::Param(n) => params.get(n.as_str())?,
                };
                ins.push(t);
            }
            backend.apply(op, &ins).ok()?.into_array()
        };
        if i + 1 == tape.steps.len() {
            last = Some(out.clone());
        }
        acts.insert(step.path.as_str(), Tensor::Owned(out));
    }
    let last_step = tape.steps.last()?;
    let tokens = tape.step("tokens");
    let lm = tokens.is_some() && last_step.shape.len() == 3;
    let step = Step {
        out: last,
        ..last_step.clone()
    };
    loss::of(&step, lm, tokens.and_then(|s| s.out.as_ref())).0
}
