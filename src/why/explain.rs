//! The why of one recorded step, from its op, its operands and its
//! output: every output axis's source, and the catalog message.
//!
//! # Shapes (the lesson's numbers)
//! - split: (B,T,d) = (2,4,64) → (B,h,T,hd) = (2,4,4,16), hd = d / h
//! - scores: q (B,h,Tq,hd) · kᵀ → (B,h,Tq,Tk) = (2,4,4,4)
//! - MLP: (B,T,d) → (B,T,ff) = (2,4,256) → (B,T,d)

use super::{AxisSource, Why};
use crate::config::{DType, NormKind};
use crate::ops::{Masking, Merge, NormAxis, Op, Route, Unary};
use crate::shape::{Axis, fmt_shape};
use crate::trace::{Role, block_of};

/// One operand of a step: its path (or parameter name), shape and axes.
#[derive(Debug, Clone, Copy)]
pub struct Part<'a> {
    /// The event path or parameter name, e.g. `block1.ln_1` or
    /// `block1.attn.q_proj.weight`.
    pub path: &'a str,
    /// Its shape, e.g. `[2, 4, 64]`.
    pub shape: &'a [usize],
    /// Its axes, one per dimension, e.g. (B, T, d).
    pub axes: &'a [Axis],
    /// Its element type, e.g. bf16.
    pub dtype: DType,
    /// An activation's role in the model; `None` for a parameter.
    pub role: Option<Role>,
}

/// A step to explain: the op, the step's own name (`q_proj`, `up`), its
/// operands, its output and the stream's (B, T, d).
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    /// The operation the step computes.
    pub op: &'a Op,
    /// The step's own name in its layer, e.g. `q_proj`, `up`.
    pub name: &'a str,
    /// What its output is in the model, e.g. [`Role::Key`].
    pub role: Role,
    /// Its whole path, e.g. `block2.resid_1`.
    pub path: &'a str,
    /// Its operands, in the op's order.
    pub ins: &'a [Part<'a>],
    /// Its output shape.
    pub out: &'a [usize],
    /// The output's axes, one per dimension.
    pub axes: &'a [Axis],
    /// The residual stream's shape (B, T, d_model).
    pub stream: &'a [usize],
    /// The output's element type.
    pub dtype: DType,
    /// The stream's element type: the model's.
    pub stream_dtype: DType,
}

impl Step<'_> {
    fn dim(&self, i: usize, axis: usize) -> usize {
        self.ins
            .get(i)
            .and_then(|p| p.shape.get(axis))
            .copied()
            .unwrap_or(0)
    }

    fn path(&self, i: usize) -> &str {
        self.ins.get(i).map_or("?", |p| p.path)
    }

    /// The role of operand `i`, an activation's; `None` for a parameter.
    fn role_of(&self, i: usize) -> Option<Role> {
        self.ins.get(i).and_then(|p| p.role)
    }

    fn last(&self, i: usize) -> usize {
        self.ins
            .get(i)
            .and_then(|p| p.shape.last())
            .copied()
            .unwrap_or(0)
    }

    fn shape(&self) -> String {
        fmt_shape(self.out)
    }

    fn out(&self, axis: usize) -> usize {
        self.out.get(axis).copied().unwrap_or(0)
    }
}

/// The input x0: B, T and d come from the config.
#[must_use]
pub fn input(shape: &[usize]) -> (Vec<AxisSource>, Why) {
    let names = [Axis::Batch, Axis::Seq, Axis::Model];
    let from = ["batch", "seq", "d_model"];
    let sources = shape
        .iter()
        .zip(names.into_iter().zip(from))
        .map(|(&size, (axis, from))| AxisSource {
            axis,
            size,
            from: format!("config {from}"),
        })
        .collect();
    let at = |i: usize| shape.get(i).copied().unwrap_or(0);
    let why = Why::new("why-input")
        .arg("B", at(0))
        .arg("T", at(1))
        .arg("d", at(2))
        .arg("shape", fmt_shape(shape));
    (sources, why)
}

/// A pipeline stage's received stream, of `shape` and `axes` ((B, T, d),
/// or under sequence parallelism (B, T/N, d)), from stage `from` (from 0):
/// each axis's source and the message.
#[must_use]
pub fn recv(shape: &[usize], axes: &[Axis], from: usize) -> (Vec<AxisSource>, Why) {
    let sources = shape
        .iter()
        .zip(axes)
        .map(|(&size, axis)| AxisSource {
            axis: axis.clone(),
            size,
            from: format!("the buffer for stage {}'s output ({axis})", from + 1),
        })
        .collect();
    let why = Why::new("why-recv")
        .arg("stage", from + 1)
        .arg("shape", fmt_shape(shape));
    (sources, why)
}

/// Every output axis's source and the message of step `s`.
#[must_use]
pub fn explain(s: &Step) -> (Vec<AxisSource>, Why) {
    (sources(s), message(s))
}

/// Where each output axis's size comes from: op arithmetic where the op
/// makes the size, else the operand axis it is carried from.
fn sources(s: &Step) -> Vec<AxisSource> {
    let n = s.out.len();
    (0..n)
        .map(|i| {
            let axis = s.axes.get(i).cloned().unwrap_or(Axis::Unknown);
            let size = s.out[i];
            let from = made(s, i).unwrap_or_else(|| carried(s, i));
            AxisSource { axis, size, from }
        })
        .collect()
}

/// The source of output axis `i` when the op makes its size.
fn made(s: &Step, i: usize) -> Option<String> {
    let n = s.out.len();
    match s.op {
        Op::Linear if i + 1 == n => Some(format!("columns of {}", s.path(1))),
        // q's heads are `heads`; k's and v's (grouped-query) `kv_heads`.
        Op::SplitHeads { heads, axis } if i == 1 => Some(format!("{} = {heads}", heads_of(axis))),
        Op::SplitHeads { heads, axis } if i == 3 => Some(format!(
            "{} / {} = {} / {heads}",
            s.ins
                .first()
                .and_then(|p| p.axes.last())
                .unwrap_or(&Axis::Model),
            heads_of(axis),
            s.last(0)
        )),
        Op::RepeatKv { rep, .. } if i == 1 => Some(format!("kv × rep = {} × {rep}", s.dim(0, 1))),
        Op::Scores { .. } if i == 3 => {
            let keys = s
                .ins
                .get(1)
                .and_then(|p| p.axes.get(2))
                .unwrap_or(&Axis::Seq);
            Some(format!("{keys} of {}", s.path(1)))
        }
        // The positions held: the cache's and the new rows', at most the ring.
        Op::KvCache { window, at } if i == 2 => {
            let new = s.dim(s.ins.len().saturating_sub(1), 2);
            let last = s.path(s.ins.len().saturating_sub(1));
            Some(match window {
                Some(w) if at + new > *w => {
                    format!("min(positions {} + {new} of {last}, window {w})", at)
                }
                _ if s.ins.len() == 2 => format!("S of {} + T of {last} = {at} + {new}", s.path(0)),
                _ => format!("T of {last}"),
            })
        }
        Op::WeightedSum if i == 3 => Some(format!("hd of {}", s.path(1))),
        Op::MergeHeads(_) if i == 1 => Some(format!("T of {}", s.path(0))),
        Op::MergeHeads(_) if i == 2 => Some(format!("h × hd = {} × {}", s.dim(0, 1), s.dim(0, 3))),
        Op::Gather | Op::GatherPart { .. } if i == 2 => Some(format!("columns of {}", s.path(1))),
        Op::Positions { .. } if i == 0 => Some(format!("T of {}", s.path(1))),
        Op::LmHead { tied: true } if i + 1 == n => Some(format!("rows of {} (V)", s.path(1))),
        Op::LmHead { tied: false } if i + 1 == n => Some(format!("columns of {} (V)", s.path(1))),
        Op::TopK { k } if i == 2 => Some(format!("top_k = {k}")),
        // How many tokens chose the expert: the data's, not the config's.
        Op::Dispatch { capacity, .. } if i == 0 => Some(match capacity {
            None => format!(
                "data: the tokens of {} that chose this expert, ≤ B·T = {}",
                s.path(1),
                s.dim(0, 0) * s.dim(0, 1)
            ),
            Some(c) => format!(
                "data: the tokens of {} that chose this expert, the first {c} kept",
                s.path(1)
            ),
        }),
        // An expert's batch from every device: the data's, like a dispatch's.
        Op::AllToAll {
            devices,
            route: Route::Dispatch { .. },
        } if i == 0 => Some(format!(
            "data: the tokens of all {devices} devices that chose this expert, ≤ B·T = {}",
            devices * s.dim(0, 0) * s.dim(0, 1)
        )),
        // Every route of this device's tokens: one row each.
        Op::AllToAll {
            route: Route::Return { .. },
            ..
        } if i == 0 => Some(format!(
            "b·T·k = {}·{}·{} of {}",
            s.dim(0, 0),
            s.dim(0, 1),
            s.dim(0, 2),
            s.path(0)
        )),
        Op::Combine { .. } if i < 2 => Some(format!(
            "{} of {}",
            s.ins
                .first()
                .and_then(|p| p.axes.get(i))
                .unwrap_or(&Axis::Unknown),
            s.path(0)
        )),
        _ => None,
    }
}

/// The source of output axis `i` carried from an operand: the first
/// operand axis of the same name and size, else the first operand's axis
/// at the same place.
fn carried(s: &Step, i: usize) -> String {
    let (axis, size) = (s.axes.get(i), s.out.get(i));
    let same = s.ins.iter().find_map(|p| {
        let at = p.axes.iter().position(|a| Some(a) == axis)?;
        (p.shape.get(at) == size).then_some((p.path, axis?.clone()))
    });
    let (path, name) = same.unwrap_or_else(|| {
        let x = s.ins.first();
        let name = x.and_then(|p| p.axes.get(i)).cloned();
        (s.path(0), name.unwrap_or(Axis::Unknown))
    });
    format!("{name} of {path}")
}

/// The catalog message of step `s`. A new op or variant is one arm here
/// and one message in the catalog.
fn message(s: &Step) -> Why {
    let shape = s.shape();
    let d = s.stream.get(2).copied().unwrap_or(0);
    let t = s.stream.get(1).copied().unwrap_or(0);
    // A split model's device holds h/N heads: the N, read off the axis.
    let split_by = match s.ins.first().and_then(|x| x.axes.get(1)) {
        Some(Axis::Fraction { of, by }) if **of == Axis::Heads => Some(*by),
        _ => None,
    };
    match s.op {
        Op::Linear => linear(s),
        Op::Norm { kind, axis, .. } => {
            let name = match kind {
                NormKind::LayerNorm => "LayerNorm",
                NormKind::RmsNorm | NormKind::RmsNormPlusOne => "RMSNorm",
            };
            let key = match axis {
                NormAxis::Feature => "why-norm",
                NormAxis::Seq => "why-norm-seq",
                NormAxis::Batch => "why-norm-batch",
            };
            Why::new(key)
                .arg("norm", name)
                .arg("d", s.last(0))
                .arg("T", s.dim(0, 1))
                .arg("B", s.dim(0, 0))
                .arg("shape", shape)
        }
        Op::SplitHeads { heads, axis } => {
            // The query heads: all h, or one device's h/N.
            let query = match axis {
                Axis::Fraction { of, .. } => **of == Axis::Heads,
                a => *a == Axis::Heads,
            };
            let key = if query { "why-split" } else { "why-split-kv" };
            Why::new(key)
                .arg("d", s.last(0))
                .arg("wide", yes_no(s.stream.last() != Some(&s.last(0))))
                .arg("heads", *heads)
                .arg("hd", s.out(3))
                .arg("T", s.out(2))
                .arg("shape", shape)
        }
        // A decode step's new token turns at its true position, not 0.
        Op::Rope { start, .. } if *start > 0 => Why::new("why-rope-decode")
            .arg("pos", *start)
            .arg("hd", s.out(3))
            .arg("shape", shape),
        Op::Rope { dims, .. } if *dims < s.out(3) => Why::new("why-rope-partial")
            .arg("hd", s.out(3))
            .arg("dims", *dims)
            .arg("pairs", dims / 2)
            .arg("rest", s.out(3) - dims)
            .arg("shape", shape),
        Op::Rope { .. } => Why::new("why-rope")
            .arg("hd", s.out(3))
            .arg("pairs", s.out(3) / 2)
            .arg("shape", shape),
        Op::SoftCap { cap } if s.role == Role::Logits => Why::new("why-softcap-logits")
            .arg("cap", cap.to_string())
            .arg("shape", shape),
        Op::SoftCap { cap } => Why::new("why-softcap")
            .arg("cap", cap.to_string())
            .arg("shape", shape),
        Op::Alibi => {
            let slopes = crate::ops::alibi_slopes(s.out(1));
            let shown = |m: Option<&f64>| m.map_or_else(String::new, |m| format!("{m:.4}"));
            Why::new("why-alibi")
                .arg("heads", s.out(1))
                .arg("first", shown(slopes.first()))
                .arg("last", shown(slopes.last()))
                .arg("shape", shape)
        }
        Op::Scale { by } => Why::new("why-scale-embed")
            .arg("d", s.last(0))
            .arg("by", format!("{by:.2}"))
            .arg("shape", shape),
        Op::RepeatKv { rep, .. } => Why::new("why-repeat-kv")
            .arg("kv", s.dim(0, 1))
            .arg("rep", *rep)
            .arg("h", s.out(1))
            .arg("shape", shape),
        // One new query row over every cached key.
        Op::Scores { head_dim } if s.out(2) < s.out(3) => Why::new("why-scores-decode")
            .arg("Tq", s.out(2))
            .arg("Tk", s.out(3))
            .arg("hd", *head_dim)
            .arg("shape", shape),
        Op::Scores { head_dim } => Why::new("why-scores")
            .arg("h", s.out(1))
            .arg("Tq", s.out(2))
            .arg("Tk", s.out(3))
            .arg("hd", *head_dim)
            .arg("shape", shape)
            .arg("wrong", fmt_shape(&[s.out(0), s.out(2), d])),
        Op::Softmax {
            mask: Masking::TopLeft,
        } if s.out(2) < s.out(3) => Why::new("why-softmax-top-left")
            .arg("Tq", s.out(2))
            .arg("Tk", s.out(3))
            .arg("shape", shape),
        Op::Softmax {
            mask: Masking::Causal | Masking::Window(_) | Masking::TopLeft,
        } if s.out(2) < s.out(3) => Why::new("why-softmax-decode")
            .arg("Tq", s.out(2))
            .arg("Tk", s.out(3))
            .arg("shape", shape),
        Op::Softmax { mask } => Why::new(match mask {
            Masking::Causal | Masking::TopLeft => "why-softmax-causal",
            Masking::Window(_) => "why-softmax-window",
            Masking::Full => "why-softmax",
            Masking::TwoWay => "why-softmax-two-way",
        })
        .arg(
            "w",
            match mask {
                Masking::Window(w) => *w,
                _ => s.out(3),
            },
        )
        .arg("Tk", s.out(3))
        .arg("shape", shape),
        Op::SoftmaxNoMax { .. } => Why::new("why-softmax-no-max")
            .arg("Tk", s.out(3))
            .arg("shape", shape),
        Op::WeightedSum => Why::new("why-weighted-sum")
            .arg("Tq", s.dim(0, 2))
            .arg("Tk", s.dim(0, 3))
            .arg("hd", s.out(3))
            .arg("shape", shape),
        Op::MergeHeads(merge) => Why::new(match merge {
            Merge::Transpose => "why-merge",
            Merge::BareReshape => "why-reshape",
        })
        .arg("h", s.dim(0, 1))
        .arg("hd", s.dim(0, 3))
        .arg("d", s.out(2))
        .arg("dm", s.stream.last().copied().unwrap_or(0))
        .arg(
            "wide",
            // One device's heads (h/N) merge to its share of the width.
            match split_by {
                Some(_) => "split",
                None => yes_no(s.stream.last() != s.out.last()),
            },
        )
        .arg("N", split_by.unwrap_or(1))
        .arg("T", t)
        .arg("shape", shape),
        // BERT's pooler: one vector per sequence.
        Op::Act(Unary::Tanh) => Why::new("why-pooler").arg("shape", shape),
        // After the down projection (the act-after-down fault) it acts on
        // the stream's features, not the hidden units.
        Op::Act(u) => Why::new(if s.role_of(0) == Some(Role::MlpOut) {
            "why-act-after-down"
        } else {
            "why-act"
        })
        .arg(
            "act",
            match u {
                Unary::Relu => "ReLU",
                Unary::Gelu => "GELU",
                Unary::GeluTanh => "GELU (tanh)",
                Unary::Silu => "SiLU",
                Unary::Tanh => "tanh",
            },
        )
        .arg("ff", s.last(0))
        .arg("shape", shape),
        Op::SwiGlu => Why::new("why-swiglu")
            .arg("ff", s.last(0))
            .arg("shape", shape),
        // A vocabulary padded for the devices: its scores dropped.
        Op::Columns {
            hi,
            period,
            axis: Axis::Vocab,
            ..
        } => Why::new("why-vocab-unpad")
            .arg("V", *hi)
            .arg("pad", period - hi)
            .arg("shape", shape),
        Op::Columns { lo, hi, period, .. } => Why::new(if *period == s.last(0) {
            "why-columns"
        } else {
            "why-columns-grouped"
        })
        .arg("from", s.path(0))
        .arg("width", s.last(0))
        .arg("lo", *lo)
        .arg("hi", *hi)
        .arg("period", *period)
        .arg("groups", s.last(0) / (*period).max(1))
        .arg("shape", shape),
        Op::GeGlu => Why::new("why-geglu")
            .arg("ff", s.last(0))
            .arg("shape", shape),
        // A later block's add onto x0: the block before it was skipped
        // (the skip-block1 fault).
        Op::Add
            if matches!(s.role_of(0), Some(Role::Input | Role::Embedding))
                && block_of(s.path).is_some_and(|b| b > 1) =>
        {
            let block = block_of(s.path).unwrap_or(0);
            Why::new("why-add-reads-x0")
                .arg("update", s.path(1))
                .arg("block", block)
                .arg("prev", block - 1)
                .arg("shape", shape)
        }
        // The heads merged and added with no output projection (no-out-proj).
        Op::Add if s.role_of(1) == Some(Role::MergedHeads) => Why::new("why-add-no-out-proj")
            .arg("update", s.path(1))
            .arg("d", d)
            .arg("shape", shape),
        // An update straight from a norm: the sublayer was skipped (the
        // mlp-returns-input fault).
        Op::Add if s.role_of(1) == Some(Role::Norm) => Why::new("why-add-skips-sublayer")
            .arg("stream", s.path(0))
            .arg("update", s.path(1))
            .arg("shape", shape),
        // Parallel residuals: the sublayers' updates summed, not yet added.
        Op::Add if s.role == Role::Update => Why::new("why-add-updates")
            .arg("a", s.path(0))
            .arg("b", s.path(1))
            .arg("shape", shape),
        Op::Add => Why::new("why-add")
            .arg("stream", s.path(0))
            .arg("update", s.path(1))
            .arg("shape", shape)
            .arg("d", d),
        Op::GatherPart { from, .. } => Why::new("why-embedding-part")
            .arg("from", *from)
            .arg("to", from + s.dim(1, 0))
            .arg("d", s.dim(1, 1))
            .arg("shape", shape),
        Op::Pad { to, .. } => Why::new("why-pad").arg("to", *to).arg("shape", shape),
        Op::Gather => Why::new("why-embedding")
            .arg("V", s.dim(1, 0))
            .arg("d", s.dim(1, 1))
            .arg("B", s.out(0))
            .arg("T", s.out(1))
            .arg("shape", shape),
        Op::TokenType { id } => Why::new("why-token-type")
            .arg("id", *id)
            .arg("types", s.dim(0, 0))
            .arg("d", s.dim(0, 1))
            .arg("shape", shape),
        Op::FirstToken => Why::new("why-first-token")
            .arg("B", s.out(0))
            .arg("T", s.dim(0, 1))
            .arg("shape", shape),
        Op::KvCache { window, at } => {
            let (new, s_len) = (s.dim(s.ins.len().saturating_sub(1), 2), s.out(2));
            let end = at + new;
            match window {
                Some(w) if end > *w => Why::new("why-kv-cache-ring")
                    .arg("w", *w)
                    .arg("pos", end - 1)
                    .arg("slot", (end - 1) % w)
                    .arg("old", end - 1 - w)
                    .arg("shape", shape),
                _ if s.ins.len() < 2 => Why::new("why-kv-cache-prefill")
                    .arg("new", new)
                    .arg("shape", shape),
                _ => Why::new("why-kv-cache")
                    .arg("S", s_len)
                    .arg("held", *at)
                    .arg("new", new)
                    .arg("shape", shape),
            }
        }
        Op::Positions { offset, start } if *start > 0 => Why::new("why-positions-decode")
            .arg("pos", offset + start)
            .arg("start", *start)
            .arg("shape", shape),
        Op::Positions { offset, .. } if *offset > 0 => Why::new("why-positions-offset")
            .arg("ctx", s.dim(0, 0))
            .arg("d", s.dim(0, 1))
            .arg("T", s.out(0))
            .arg("offset", *offset)
            .arg("end", s.out(0) + offset)
            .arg("shape", shape),
        Op::Positions { .. } => Why::new("why-positions")
            .arg("ctx", s.dim(0, 0))
            .arg("d", s.dim(0, 1))
            .arg("T", s.out(0))
            .arg("shape", shape),
        Op::AddPositions => Why::new("why-add-positions")
            .arg("tok", fmt_shape(s.ins.first().map_or(&[][..], |p| p.shape)))
            .arg("pos", fmt_shape(s.ins.get(1).map_or(&[][..], |p| p.shape)))
            .arg("B", s.out(0))
            .arg("shape", shape),
        // One device's columns of the head: its rows of the vocabulary.
        Op::LmHead { .. }
            if s.ins
                .get(1)
                .is_some_and(|w| w.axes.iter().any(is_split_vocab)) =>
        {
            Why::new("why-lm-head-part")
                .arg("V", s.out.last().copied().unwrap_or(0))
                .arg("shape", shape)
        }
        Op::LmHead { tied } => Why::new(if *tied {
            "why-lm-head-tied"
        } else {
            "why-lm-head"
        })
        .arg("d", s.last(0))
        .arg("V", s.out.last().copied().unwrap_or(0))
        .arg("w", s.path(1))
        .arg("shape", shape),
        Op::RouterSoftmax => Why::new("why-router-softmax")
            .arg("E", s.last(0))
            .arg("shape", shape),
        Op::TopK { k } => Why::new("why-top-k")
            .arg("k", *k)
            .arg("E", s.last(0))
            .arg("shape", shape),
        Op::RouteWeights => Why::new("why-route-weights")
            .arg("k", s.last(1))
            .arg("shape", shape),
        Op::Dispatch { expert, capacity } => Why::new("why-dispatch")
            .arg("e", expert + 1)
            .arg("n", s.out(0))
            .arg("tokens", s.dim(0, 0) * s.dim(0, 1))
            .arg("capacity", capacity.unwrap_or(0))
            .arg("d", s.last(0))
            .arg("shape", shape),
        // Shape-only: each expert's rows are known by their bound alone.
        Op::Combine { .. }
            if s.ins
                .iter()
                .skip(2)
                .any(|p| p.axes.first().is_some_and(Axis::is_bound)) =>
        {
            Why::new("why-combine-bound")
                .arg("E", s.ins.len().saturating_sub(2))
                .arg("slots", s.dim(0, 0) * s.dim(0, 1) * s.last(0))
                .arg("shape", shape)
        }
        // The vocabulary-parallel lookup: each token's row on one device.
        Op::AllReduce { devices }
            if s.ins.first().and_then(|p| p.role) == Some(Role::Embedding) =>
        {
            Why::new("why-all-reduce-embedding")
                .arg("N", *devices)
                .arg("bytes", comm_bytes(s))
                .arg("shape", shape)
        }
        Op::AllGather { devices, .. }
            if s.ins.first().and_then(|p| p.role) == Some(Role::Logits) =>
        {
            Why::new("why-all-gather-vocab")
                .arg("N", *devices)
                .arg("bytes", comm_bytes(s))
                .arg("shape", shape)
        }
        // Expert parallelism's data-parallel batch: B/N sequences each.
        Op::AllGather { devices, axis: 0 } => Why::new("why-all-gather-batch")
            .arg("N", *devices)
            .arg("bytes", comm_bytes(s))
            .arg("shape", shape),
        Op::Scatter {
            devices,
            rank,
            axis: 0,
        } => Why::new("why-scatter-batch")
            .arg("N", *devices)
            .arg("part", rank + 1)
            .arg("shape", shape),
        Op::AllToAll {
            devices,
            route: route @ Route::Dispatch { .. },
        } => Why::new("why-all-to-all-dispatch")
            .arg("N", *devices)
            .arg("e", route.expert(*devices).unwrap_or(0) + 1)
            .arg("rows", joined(route.received()))
            .arg("n", s.out(0))
            .arg("bytes", a2a_bytes(s))
            .arg("shape", shape),
        // A shape-only run knows the routes, not where their rows were.
        Op::AllToAll {
            devices,
            route: route @ Route::Return { .. },
        } if route.received().is_empty() => Why::new("why-all-to-all-return-bound")
            .arg("N", *devices)
            .arg("E", s.ins.len().saturating_sub(1))
            .arg("routes", s.out(0))
            .arg("bytes", comm_bytes(s))
            .arg("shape", shape),
        Op::AllToAll {
            devices,
            route: route @ Route::Return { .. },
        } => Why::new("why-all-to-all-return")
            .arg("N", *devices)
            .arg("E", s.ins.len().saturating_sub(1))
            .arg("rows", joined(route.received()))
            .arg("routes", s.out(0))
            .arg("bytes", a2a_bytes(s))
            .arg("shape", shape),
        Op::Combine { packed: true, .. } => Why::new("why-combine-packed")
            .arg("k", s.last(0))
            .arg("slots", s.dim(0, 0) * s.dim(0, 1) * s.last(0))
            .arg("shape", shape),
        Op::AllReduce { devices } => Why::new("why-all-reduce")
            .arg("N", *devices)
            .arg("bias", usize::from(s.ins.len() > 1))
            .arg("bytes", comm_bytes(s))
            .arg("shape", shape),
        Op::AllGather { devices, .. } => Why::new("why-all-gather")
            .arg("N", *devices)
            .arg("bytes", comm_bytes(s))
            .arg("shape", shape),
        Op::ReduceScatter { devices, .. } => Why::new("why-reduce-scatter")
            .arg("N", *devices)
            .arg("bytes", comm_bytes(s))
            .arg("shape", shape),
        Op::Send { to } => Why::new("why-send")
            .arg("stage", to + 1)
            .arg("bytes", comm_bytes(s))
            .arg("shape", shape),
        Op::Recv { from } => Why::new("why-recv")
            .arg("stage", from + 1)
            .arg("shape", shape),
        Op::Scatter { devices, rank, .. } => Why::new("why-scatter")
            .arg("N", *devices)
            .arg("part", rank + 1)
            .arg("shape", shape),
        Op::Combine { .. } => Why::new("why-combine")
            .arg("E", s.ins.len().saturating_sub(2))
            .arg("k", s.last(0))
            .arg(
                "routed",
                s.ins
                    .iter()
                    .skip(2)
                    .map(|p| p.shape.first().copied().unwrap_or(0))
                    .sum::<usize>(),
            )
            .arg("slots", s.dim(0, 0) * s.dim(0, 1) * s.last(0))
            .arg("shape", shape),
        // Up to f32 before a norm or softmax; back to the stream's dtype after.
        Op::Cast { to } => {
            let from = s.ins.first().map_or(s.stream_dtype, |p| p.dtype);
            let key = if *to == s.stream_dtype {
                "why-cast-back"
            } else {
                "why-cast-up"
            };
            let what = if matches!(s.role, Role::Scores | Role::Weights) {
                "softmax"
            } else {
                "norm"
            };
            Why::new(key)
                .arg("from", from.as_str())
                .arg("to", to.as_str())
                .arg("what", what)
                .arg("bits", if from == DType::F16 { 11 } else { 8 })
                .arg("shape", shape)
        }
    }
}

/// The token ids (B, T): the batch and sequence from the config or from
/// `--tokens`.
#[must_use]
pub fn tokens(shape: &[usize]) -> (Vec<AxisSource>, Why) {
    let sources = shape
        .iter()
        .zip([(Axis::Batch, "rows of the ids"), (Axis::Seq, "ids per row")])
        .map(|(&size, (axis, from))| AxisSource {
            axis,
            size,
            from: from.to_string(),
        })
        .collect();
    let at = |i: usize| shape.get(i).copied().unwrap_or(0);
    let why = Why::new("why-tokens")
        .arg("B", at(0))
        .arg("T", at(1))
        .arg("shape", fmt_shape(shape));
    (sources, why)
}

/// The config field that gives the heads of a split: `heads` for the
/// query heads (axis `h`), `kv_heads` for grouped-query K/V heads.
fn heads_of(axis: &Axis) -> &'static str {
    if *axis == Axis::Heads {
        "heads"
    } else {
        "kv_heads"
    }
}

/// A selector's `yes` or `no`.
fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// A linear layer's message, by its role (a gated MLP's gate and up are
/// both its hidden units; the step's name tells which of the two).
fn linear(s: &Step) -> Why {
    let (rows, cols) = (s.dim(1, 0), s.dim(1, 1));
    // One device's part of a split layer: W's axis cut is a fraction.
    let w_axis = |i: usize| s.ins.get(1).and_then(|w| w.axes.get(i));
    let cut = |i: usize| {
        w_axis(i).is_some_and(|a| match a {
            Axis::Fraction { .. } => true,
            Axis::Product(parts) => matches!(parts.first(), Some(Axis::Fraction { .. })),
            _ => false,
        })
    };
    let kv = matches!(s.role, Role::Key | Role::Value);
    let key = match s.role {
        Role::AttnOut | Role::MlpOut if cut(0) => "why-linear-partial",
        _ if kv && w_axis(1) == Some(&Axis::HeadDim) && cols < rows => "why-linear-kv-replicated",
        _ if cut(1) => "why-linear-column",
        Role::Query => "why-linear-q",
        Role::Key | Role::Value => "why-linear-kv",
        Role::AttnOut => "why-linear-out",
        Role::MlpHidden if s.name == "gate" => "why-linear-gate",
        Role::MlpHidden if s.name == "up" => "why-linear-up",
        Role::MlpOut => "why-linear-down",
        Role::Router => "why-linear-router",
        _ => "why-linear",
    };
    let bias = s
        .ins
        .get(2)
        .map_or(0, |b| b.shape.first().copied().unwrap_or(0));
    Why::new(key)
        .arg("w", s.path(1))
        .arg("rows", rows)
        .arg("cols", cols)
        .arg("bias", bias)
        // Narrower than d_model: fewer K/V heads than query heads (a width
        // given apart from d / h can make k wider, which is no GQA).
        .arg("gqa", if cols < rows { "yes" } else { "no" })
        .arg("role", if s.role == Role::Key { "key" } else { "value" })
        .arg("wide", yes_no(cols != rows))
        .arg("shape", s.shape())
}

/// What a communication step sends from each device, in words (`1.5 KiB`).
/// Whether an axis is a split vocabulary, V/N.
fn is_split_vocab(a: &Axis) -> bool {
    matches!(a, Axis::Fraction { of, .. } if **of == Axis::Vocab)
}

/// Rows per device, as `3 + 2`.
fn joined(rows: &[usize]) -> String {
    let each: Vec<String> = rows.iter().map(ToString::to_string).collect();
    each.join(" + ")
}

/// What an all-to-all brought this device from the others, in words:
/// every row that arrived but its own (the balanced figure while none
/// has arrived).
fn a2a_bytes(s: &Step) -> String {
    let Op::AllToAll { route, .. } = s.op else {
        return comm_bytes(s);
    };
    let (rank, arrived) = match route {
        Route::Dispatch { rank, .. } | Route::Return { rank, .. } => (*rank, route.received()),
    };
    if arrived.is_empty() {
        return comm_bytes(s);
    }
    let d = s.out.get(1).copied().unwrap_or(0);
    let others: usize = arrived.iter().sum::<usize>() - arrived.get(rank).copied().unwrap_or(0);
    crate::text::human_bytes((others * d * s.dtype.size()) as u128)
}

fn comm_bytes(s: &Step) -> String {
    let elems: usize = s.out.iter().product();
    let sent = s.op.sent_bytes(elems, s.dtype.size()).unwrap_or(0);
    crate::text::human_bytes(sent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::axes;

    fn part<'a>(path: &'a str, shape: &'a [usize], axes: &'a [Axis]) -> Part<'a> {
        Part {
            path,
            shape,
            axes,
            dtype: DType::F32,
            role: None,
        }
    }

    fn step<'a>(op: &'a Op, ins: &'a [Part<'a>], out: &'a [usize], axes: &'a [Axis]) -> Step<'a> {
        Step {
            op,
            name: "k",
            role: Role::Key,
            path: "block1.attn.k",
            ins,
            out,
            axes,
            stream: &[2, 4, 64],
            dtype: DType::F32,
            stream_dtype: DType::F32,
        }
    }

    /// A split into the query heads `h` reads `heads`; into the K/V heads
    /// `kv`, `kv_heads`.
    #[test]
    fn a_split_reads_its_heads_by_the_axis_it_makes() {
        let (x_axes, out_axes) = (axes(&["B", "T", "d"]), axes(&["B", "kv", "T", "hd"]));
        let x = [part("block1.attn.k_proj", &[2, 4, 32], &x_axes)];
        for (axis, key, heads) in [
            (Axis::Heads, "why-split", "heads"),
            (Axis::KvHeads, "why-split-kv", "kv_heads"),
        ] {
            let op = Op::SplitHeads { heads: 2, axis };
            let (sources, why) = explain(&step(&op, &x, &[2, 2, 4, 16], &out_axes));
            assert_eq!(why.key, key);
            assert_eq!(sources[1].from, format!("{heads} = 2"));
            assert_eq!(sources[3].from, format!("d / {heads} = 32 / 2"));
        }
    }

    /// A combine of experts whose rows are known by their bound alone
    /// (`n_e≤`) says so; of counted rows (`n_e`), how many were routed.
    #[test]
    fn a_combine_of_bound_experts_says_it_knows_only_the_bound() {
        let ids_axes = axes(&["B", "T", "k"]);
        let out_axes = axes(&["B", "T", "d"]);
        for (first, key) in [("n_e≤", "why-combine-bound"), ("n_e", "why-combine")] {
            let y_axes = axes(&[first, "d"]);
            let ins = [
                part("ids", &[2, 4, 2], &ids_axes),
                part("w", &[2, 4, 2], &ids_axes),
                part("y", &[8, 64], &y_axes),
            ];
            let op = Op::Combine {
                capacity: None,
                packed: false,
            };
            let (_, why) = explain(&step(&op, &ins, &[2, 4, 64], &out_axes));
            assert_eq!(why.key, key, "{first}");
        }
    }
}
