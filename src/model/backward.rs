//! The backward: after the forward, one number, the loss, then the
//! gradient of the loss with respect to every tensor the forward made and
//! every parameter it read, from the loss back to the embeddings, in the
//! order autograd runs them.
//!
//! ```text
//! L = −mean log softmax(z)[b, t, ids[b, t+1]]    z (B, T, V), over B·(T−1)
//! L = mean(y²)                                   without a vocabulary: y (B, T, d)
//! grad.P = Σ over the steps that read P of what each sends back     P's shape
//! grad.W = Σ over the steps that read W                             W's shape
//! ```
//!
//! A gradient has the shape of what it differentiates: dL/dW1 is (d, ff)
//! because W1 is, and a linear's dW = xᵀ·dy sums over B·T. Each op's rule
//! is in [`ops`], its formula in shapes in [`formula`]; the forward's
//! values come from its [`Tape`]. Activation gradients are recorded when
//! complete (every step that read the tensor has sent its share back), a
//! parameter's after the first step that read it, which runs last.

pub mod formula;
pub mod loss;
pub mod ops;
pub mod replay;

use crate::ops::{Axis, OpKind, Stats};
use crate::trace::recorder::tape::{Key, Tape};
use crate::trace::{Event, Role};
use crate::why::{AxisSource, Why};
use ndarray::ArrayD;
use std::collections::HashMap;

pub use ops::Wrongs;

/// What the backward gives: the loss, its events and every gradient.
#[derive(Debug, Clone, Default)]
pub struct Backward {
    /// The loss; `None` shape-only.
    pub loss: Option<f64>,
    /// `loss`, then `grad.…` for each activation and parameter, in the
    /// order computed.
    pub events: Vec<Event>,
    /// Every parameter's gradient (values, shape-only `None`), in the
    /// order the forward first read them.
    pub params: Vec<(String, Vec<usize>, Option<ArrayD<f64>>)>,
    /// Every activation's gradient, by path.
    pub acts: HashMap<String, ArrayD<f64>>,
}

/// Runs the backward over `tape`: the loss on its last step (the logits
/// against `ids` shifted by one, or the output's mean square), then every
/// step's rule in reverse, its gradients stored as a `dtype` model's; `first` the number of the
/// first event, `keep` the largest tensor whose values an event keeps (0:
/// none).
#[must_use]
pub fn run(
    tape: &Tape,
    dtype: crate::config::DType,
    first: usize,
    keep: usize,
    wrong: Wrongs,
) -> Backward {
    let mut out = Backward::default();
    let Some(last) = tape.steps.last() else {
        return out;
    };
    // A language model's last step is its logits (B, T, V).
    let tokens = tape.step("tokens");
    let lm = tokens.is_some() && last.shape.len() == 3;
    let ids = tokens.and_then(|s| s.out.as_ref());
    let (loss, dz, why, formula) = loss::of(last, lm, ids);
    out.loss = loss;
    // Gradients are computed in f64, and stored as an f32 model's are.
    let dtype = if dtype == crate::config::DType::F64 {
        dtype
    } else {
        crate::config::DType::F32
    };
    let mut events = Events {
        list: Vec::new(),
        dtype,
        first,
        keep,
    };
    events.push(
        ("loss", OpKind::Loss, Role::Loss),
        (&[], &[]),
        (vec![last.path.clone()], formula, why),
        loss.map(|l| ArrayD::from_elem(ndarray::IxDyn(&[]), l))
            .as_ref(),
    );

    // grads[key]: the sum so far; terms[key]: the formulas summed into it.
    let mut grads: HashMap<Key, Option<ArrayD<f64>>> = HashMap::new();
    let mut terms: HashMap<Key, Vec<(String, String)>> = HashMap::new();
    grads.insert(Key::Act(last.path.clone()), dz);
    let shape = crate::ops::fmt_shape(&last.shape);
    let count: usize = last.shape.iter().product();
    let dz_rule = if lm {
        let n = last.shape[0] * last.shape[1].saturating_sub(1);
        format!(
            "(softmax({p}) − onehot(ids[b, t+1]))/{n}, 0 at t = T−1 : {shape}",
            p = last.path
        )
    } else {
        format!("2·{}/{count} : {shape}", last.path)
    };
    terms.insert(Key::Act(last.path.clone()), vec![("loss".into(), dz_rule)]);
    // Each parameter's gradient is complete after its first reader.
    let mut first_read: HashMap<&str, usize> = HashMap::new();
    for (i, s) in tape.steps.iter().enumerate() {
        for k in &s.ins {
            if let Key::Param(n) = k {
                first_read.entry(n.as_str()).or_insert(i);
            }
        }
    }
    for (i, step) in tape.steps.iter().enumerate().rev() {
        let key = Key::Act(step.path.clone());
        let Some(dy) = grads.remove(&key) else {
            continue; // nothing the loss depends on
        };
        let sent = terms.remove(&key).unwrap_or_default();
        events.push(
            (&format!("grad.{}", step.path), OpKind::Grad, Role::Gradient),
            (&step.shape, &step.axes),
            grad_words(&step.path, &step.shape, &sent),
            dy.as_ref(),
        );
        let Some(op) = &step.op else {
            continue; // x0 or the token ids: a leaf
        };
        let ins: Vec<Option<&ArrayD<f64>>> = step.ins.iter().map(|k| tape.values(k)).collect();
        let numeric: Option<Vec<&ArrayD<f64>>> = ins.iter().copied().collect();
        let sent_back = match (numeric, step.out.as_ref(), dy.as_ref()) {
            (Some(ins), Some(y), Some(dy)) => ops::backward(op, &ins, y, dy, wrong),
            _ => vec![None; step.ins.len()],
        };
        let named: Vec<(&str, &[usize])> = step
            .ins
            .iter()
            .map(|k| (name_of(k), tape.shape(k).unwrap_or(&[])))
            .collect();
        for (j, k) in step.ins.iter().enumerate() {
            // Token ids have no gradient.
            if matches!(op, crate::ops::Op::Gather) && j == 0
                || matches!(
                    op,
                    crate::ops::Op::Positions { .. } | crate::ops::Op::TokenType { .. }
                ) && j == 1
            {
                continue;
            }
            let g = sent_back.get(j).cloned().flatten();
            let slot = grads.entry(k.clone()).or_insert(None);
            *slot = match (slot.take(), g) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            };
            let rule = formula::term(op, j, &named, (&step.path, &step.shape));
            terms
                .entry(k.clone())
                .or_default()
                .push((format!("grad.{}", step.path), rule));
        }
        // A parameter read first here has every share of its gradient now.
        for p in &tape.params {
            if first_read.get(p.name.as_str()) != Some(&i) {
                continue;
            }
            let k = Key::Param(p.name.clone());
            let g = grads.remove(&k).flatten();
            let sent = terms.remove(&k).unwrap_or_default();
            events.push(
                (&format!("grad.{}", p.name), OpKind::Grad, Role::Gradient),
                (&p.shape, &p.axes),
                grad_words(&p.name, &p.shape, &sent),
                g.as_ref(),
            );
            out.params.push((p.name.clone(), p.shape.clone(), g));
        }
        if let Some(g) = dy {
            out.acts.insert(step.path.clone(), g);
        }
    }
    // Parameters in the order the forward first read them.
    let order: HashMap<&str, usize> = tape
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.as_str(), i))
        .collect();
    out.params
        .sort_by_key(|(n, _, _)| order.get(n.as_str()).copied().unwrap_or(usize::MAX));
    out.events = events.list;
    out
}

/// The name an operand goes by in a formula.
fn name_of(k: &Key) -> &str {
    match k {
        Key::Act(p) | Key::Param(p) => p,
    }
}

/// The inputs, formula and why of the gradient of `of` (of `shape`),
/// from the terms its readers sent.
fn grad_words(of: &str, shape: &[usize], sent: &[(String, String)]) -> (Vec<String>, String, Why) {
    let inputs = sent.iter().map(|(from, _)| from.clone()).collect();
    let sum: Vec<&str> = sent.iter().map(|(_, rule)| rule.as_str()).collect();
    let formula = format!("grad.{of} = {}", sum.join("  +  "));
    let why = Why::new("why-grad")
        .arg("of", of)
        .arg("shape", crate::ops::fmt_shape(shape))
        .arg("n", sent.len());
    (inputs, formula, why)
}

/// The backward's events as they are made.
struct Events {
    list: Vec<Event>,
    dtype: crate::config::DType,
    first: usize,
    keep: usize,
}

impl Events {
    /// Records one gradient (or the loss).
    fn push(
        &mut self,
        (path, op, role): (&str, OpKind, Role),
        (shape, axes): (&[usize], &[Axis]),
        (inputs, formula, why): (Vec<String>, String, Why),
        values: Option<&ArrayD<f64>>,
    ) {
        let f32s = self.dtype == crate::config::DType::F32;
        #[allow(clippy::cast_possible_truncation)]
        let stored = |v: f64| if f32s { f64::from(v as f32) } else { v };
        let flat: Option<Vec<f64>> = values.map(|v| v.iter().map(|&x| stored(x)).collect());
        let stats: Option<Stats> = flat.as_deref().map(crate::ops::numeric::stats);
        let sources = shape
            .iter()
            .zip(axes)
            .map(|(&size, axis)| AxisSource {
                axis: axis.clone(),
                size,
                from: format!("{} of {}", axis, path.strip_prefix("grad.").unwrap_or(path)),
            })
            .collect();
        self.list.push(Event {
            step: self.first + self.list.len(),
            path: path.to_string(),
            op,
            op_name: None,
            role,
            shape: shape.to_vec(),
            axes: axes.to_vec(),
            dtype: self.dtype,
            on_stream: false,
            // The backward is not the shape contract: nothing departs.
            departs: false,
            leaves_dtype: None,
            returns: false,
            inputs,
            formula,
            stats,
            check: None,
            values: flat.filter(|v| v.len() <= self.keep),
            sources,
            why_text: why.text(),
            why: Some(why),
            line: None,
            operands: None,
            args: None,
            replaces_stream: None,
            replaced_at: None,
            pre_mask: false,
        });
    }
}
