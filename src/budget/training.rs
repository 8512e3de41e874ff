//! The memory of one training step: the weights, their gradients, the
//! optimizer's state, and every activation the backward needs, saved by
//! the forward until the backward has used it.
//!
//! ```text
//! weights      N · bytes(dtype)
//! gradients    N · bytes(dtype)           one per weight, its shape
//! Adam         8 · N                      two f32 moments per weight (SGD: none)
//! saved        one row per tensor a step keeps for its backward, each
//!              storage counted once
//! ```
//!
//! What each step keeps is autograd's rule for its op, as PyTorch's
//! `saved_tensors_hooks` sees it (tests/fixtures/saved-tensors-gpt2-block.json):
//! a linear keeps its input; LayerNorm its input, mean and rstd (RMSNorm its
//! input and rstd); q·kᵀ both q and k; the softmax its output; weights·v the
//! weights and v; an activation its input; the causal mask its bool (Tq, Tk);
//! the embedding its ids; the loss its log-softmax. Splitting heads or
//! taking a fused projection's columns makes views: they keep the storage
//! they view, counted once. Adds, scales, casts and the parameters
//! themselves keep nothing new.
//!
//! For one GPT-2 block in f32 without dropout this is
//! `64·sbh + 4·a·s²·b + 16·sb + s²` bytes (s = T, b = B, h = d, a = heads):
//! Korthikanti et al.'s sbh(34 + 5as/h) counted in 4 bytes without
//! dropout's masks, plus LayerNorm's statistics and the mask.

use crate::config::ModelConfig;
use crate::model::{Model, record_on};
use crate::ops::shape::ShapeOnly;
use crate::ops::{Op, fmt_shape};
use crate::trace::recorder::Watch;
use crate::trace::recorder::tape::{Key, Tape};
use serde::Serialize;
use std::collections::HashSet;

/// The optimizer whose state a step holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Optimizer {
    /// Adam(W): two f32 moments per weight, 8·N bytes.
    Adam,
    /// Plain SGD: no state.
    Sgd,
}

/// What the forward keeps for the backward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Recompute {
    /// Every saved tensor, from the forward to its backward.
    None,
    /// Each block's input alone; a block's own tensors are made again by
    /// running its forward once more during the backward, one block at a time.
    Full,
}

/// One tensor a step keeps for its backward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Saved {
    /// The step that keeps it: `block1.attn.scores`.
    pub by: String,
    /// The tensor kept: `block1.attn.q_proj` (its storage), `mean, rstd`.
    pub keeps: String,
    /// Why the backward needs it, in words.
    pub why: String,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its bytes; 0 where an earlier row keeps the same storage.
    pub bytes: u128,
    /// The block it belongs to (from 1); 0 outside the blocks.
    pub block: usize,
}

/// The training step's memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Training {
    /// B and T of the step.
    pub batch: usize,
    /// T.
    pub seq: usize,
    /// N, the parameters (a tied wte once).
    pub params: u128,
    /// The weights' bytes.
    pub weights: u128,
    /// The gradients' bytes: one per weight, in its dtype.
    pub grads: u128,
    /// The optimizer.
    pub optimizer: Optimizer,
    /// Its state's bytes.
    pub optimizer_bytes: u128,
    /// Recomputation.
    pub recompute: Recompute,
    /// Every saved tensor, in the order the forward kept it.
    pub saved: Vec<Saved>,
    /// Each block's saved bytes, block 1 first.
    pub per_block: Vec<u128>,
    /// The saved bytes held at the backward's start: all of them, or,
    /// under full recomputation, each block's input and the rows outside
    /// the blocks, plus the largest block's own while it is recomputed.
    pub activations: u128,
    /// weights + gradients + optimizer + activations.
    pub total: u128,
}

/// The training step of `cfg` under `optimizer` and `recompute`, counted
/// from a shape-only forward's tape.
#[must_use]
pub fn training(cfg: &ModelConfig, optimizer: Optimizer, recompute: Recompute) -> Training {
    let backend = ShapeOnly(cfg.dtype);
    let model = if cfg.vocab.size.is_some() {
        Model::build_lm(cfg, &backend, crate::model::Source::Seeded)
    } else {
        Model::build(cfg, &backend)
    };
    let watch = Watch {
        tape: true,
        ..Watch::default()
    };
    let cfg = &ModelConfig {
        backward: true,
        decode: 0,
        ..cfg.clone()
    };
    let tape = record_on(cfg, &backend, &model, (None, None), &watch)
        .backward
        .map(|(t, _)| t)
        .unwrap_or_default();
    let act = cfg.dtype.size() as u128;
    let params: u128 = tape
        .params
        .iter()
        .map(|p| p.shape.iter().product::<usize>() as u128)
        .sum();
    let saved = ledger(&tape, act);
    let mut per_block = vec![0u128; cfg.layers];
    for s in saved.iter().filter(|s| s.block > 0) {
        per_block[s.block - 1] += s.bytes;
    }
    let all: u128 = saved.iter().map(|s| s.bytes).sum();
    let activations = match recompute {
        Recompute::None => all,
        Recompute::Full => {
            let outside: u128 = saved.iter().filter(|s| s.block == 0).map(|s| s.bytes).sum();
            let stream: u128 = cfg.stream_shape().iter().product::<usize>() as u128 * act;
            let inputs = stream * cfg.layers as u128;
            outside + inputs + per_block.iter().copied().max().unwrap_or(0)
        }
    };
    let weights = params * act;
    let optimizer_bytes = match optimizer {
        Optimizer::Adam => 8 * params,
        Optimizer::Sgd => 0,
    };
    Training {
        batch: cfg.batch,
        seq: cfg.seq,
        params,
        weights,
        grads: weights,
        optimizer,
        optimizer_bytes,
        recompute,
        total: weights * 2 + optimizer_bytes + activations,
        saved,
        per_block,
        activations,
    }
}

/// What each step keeps, each storage once.
fn ledger(tape: &Tape, act: u128) -> Vec<Saved> {
    let mut out = Vec::new();
    let mut counted: HashSet<String> = HashSet::new();
    let shape_of = |k: &Key| tape.shape(k).map(<[usize]>::to_vec).unwrap_or_default();
    for step in &tape.steps {
        let Some(op) = &step.op else { continue };
        // The block it belongs to; 0 outside the blocks.
        let block = crate::trace::block_of(&step.path).unwrap_or(0);
        let mut keep = |keeps: &Key, why: &str, out: &mut Vec<Saved>| {
            let Key::Act(path) = keeps else { return };
            let root = storage(tape, path);
            let shape = shape_of(&Key::Act(root.clone()));
            let fresh = counted.insert(root.clone());
            let n: usize = shape.iter().product();
            out.push(Saved {
                by: step.path.clone(),
                keeps: root,
                why: why.to_string(),
                shape,
                bytes: if fresh { n as u128 * act } else { 0 },
                block,
            });
        };
        match op {
            Op::Linear | Op::LmHead { .. } => keep(&step.ins[0], "xᵀ·dy makes dW", &mut out),
            Op::Norm { kind, .. } => {
                keep(&step.ins[0], "x̂ is made again from x", &mut out);
                let rows = step.shape[..step.shape.len() - 1].to_vec();
                let n: usize = rows.iter().product();
                let stats = if *kind == crate::config::NormKind::LayerNorm {
                    2
                } else {
                    1
                };
                out.push(Saved {
                    by: step.path.clone(),
                    keeps: if stats == 2 {
                        "mean, rstd".into()
                    } else {
                        "rstd".into()
                    },
                    why: "1/σ per row scales dx".into(),
                    shape: [rows, vec![stats]].concat(),
                    bytes: (n * stats) as u128 * 4,
                    block,
                });
            }
            Op::Scores { .. } => {
                keep(&step.ins[0], "dk = dsᵀ·q", &mut out);
                keep(&step.ins[1], "dq = ds·k", &mut out);
            }
            Op::Softmax { mask } | Op::SoftmaxNoMax { mask } => {
                keep(
                    &Key::Act(step.path.clone()),
                    "ds = w ⊙ (dw − Σ w·dw)",
                    &mut out,
                );
                if mask.masks() {
                    let (tq, tk) = (
                        step.shape[step.shape.len() - 2],
                        step.shape[step.shape.len() - 1],
                    );
                    out.push(Saved {
                        by: step.path.clone(),
                        keeps: "causal mask".into(),
                        why: "masked scores get no gradient".into(),
                        shape: vec![1, 1, tq, tk],
                        bytes: (tq * tk) as u128,
                        block,
                    });
                }
            }
            Op::WeightedSum => {
                keep(&step.ins[0], "dv = wᵀ·dc", &mut out);
                keep(&step.ins[1], "dw = dc·vᵀ", &mut out);
            }
            Op::Act(_) => keep(&step.ins[0], "act′(x) needs x", &mut out),
            Op::SwiGlu | Op::GeGlu => {
                keep(&step.ins[0], "act′(g) and act(g)", &mut out);
                keep(&step.ins[1], "dg needs u", &mut out);
            }
            Op::SoftCap { .. } => keep(&Key::Act(step.path.clone()), "1 − (y/c)²", &mut out),
            Op::Gather => {
                let n: usize = shape_of(&step.ins[0]).iter().product();
                out.push(Saved {
                    by: step.path.clone(),
                    keeps: "ids".into(),
                    why: "which rows of dwte get each dx".into(),
                    shape: shape_of(&step.ins[0]),
                    bytes: n as u128 * 8,
                    block,
                });
            }
            _ => {}
        }
    }
    // The loss keeps its log-softmax over the vocabulary.
    if let Some(last) = tape
        .steps
        .last()
        .filter(|s| s.shape.len() == 3 && tape.step("tokens").is_some())
    {
        let n: usize = last.shape.iter().product();
        out.push(Saved {
            by: "loss".into(),
            keeps: format!("log_softmax({})", last.path),
            why: "dz = softmax(z) − onehot".into(),
            shape: last.shape.clone(),
            bytes: n as u128 * act,
            block: 0,
        });
    }
    out
}

/// The tensor whose storage `path` views: through split heads and a fused
/// projection's columns.
fn storage(tape: &Tape, path: &str) -> String {
    let mut at = path.to_string();
    while let Some(s) = tape.step(&at) {
        match (&s.op, s.ins.first()) {
            (Some(Op::SplitHeads { .. } | Op::Columns { .. }), Some(Key::Act(from))) => {
                at.clone_from(from);
            }
            _ => break,
        }
    }
    at
}

/// The ledger as a table.
#[must_use]
pub fn text(t: &Training) -> String {
    use std::fmt::Write;
    let h = |b: u128| crate::config::human_bytes(b);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nTraining step (B={}, T={}), every storage counted once",
        t.batch, t.seq
    );
    let _ = writeln!(
        s,
        "  weights        {:>12}  N = {} parameters",
        h(t.weights),
        t.params
    );
    let _ = writeln!(
        s,
        "  gradients      {:>12}  one per weight, its shape",
        h(t.grads)
    );
    let opt = match t.optimizer {
        Optimizer::Adam => "Adam: two f32 moments per weight, 8·N",
        Optimizer::Sgd => "SGD: no state",
    };
    let _ = writeln!(s, "  optimizer      {:>12}  {opt}", h(t.optimizer_bytes));
    let rec = match t.recompute {
        Recompute::None => "every saved tensor below",
        Recompute::Full => {
            "full recompute: each block's input, the rows outside the blocks, one block's own"
        }
    };
    let _ = writeln!(s, "  activations    {:>12}  {rec}", h(t.activations));
    let _ = writeln!(s, "  total          {:>12}", h(t.total));
    let _ = writeln!(
        s,
        "\n  saved by                          keeps                         shape              bytes  why"
    );
    for r in &t.saved {
        let bytes = if r.bytes == 0 {
            "(same storage)".to_string()
        } else {
            h(r.bytes)
        };
        let _ = writeln!(
            s,
            "  {:<33} {:<29} {:<18} {:>6}  {}",
            r.by,
            r.keeps,
            fmt_shape(&r.shape),
            bytes,
            r.why
        );
    }
    for (i, b) in t.per_block.iter().enumerate() {
        let _ = writeln!(s, "  block{:<2} saves {}", i + 1, h(*b));
    }
    s
}
