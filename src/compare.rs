//! Two traces side by side: every step of either model aligned by its
//! path, with both shapes and dtypes, what each reads, and whether it is
//! the same, changed (its shape, dtype, op, inputs or place in the order),
//! or only on one side; then the parameter, FLOP and byte differences
//! with their formulas.
//!
//! Pre-LN against Post-LN has identical shapes: what changes is the
//! wiring, which tensor each norm reads and where it stands, and that is
//! what the comparison marks.
//!
//! The order is aligned block by block ([`align`]): the prefix, each block
//! and the suffix are paired, and the path sequences within a pair are
//! diffed (Myers, as `similar` computes it), so the work is linear in
//! depth; a path the diffs delete on one side and insert on the other is
//! one step that moved.

pub mod align;

use crate::budget::{Budget, thousands};
use crate::trace::{Event, Trace};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Keeps of `trace` what a comparison reads (each step's path, op, shape,
/// axes, dtype and inputs, the config and where it stopped) and frees the
/// rest: the formulas, the whys, the axes' sources, stats and values. A
/// deep trace holds about 2.5 KB a step, most of it words; `compare`
/// slims the first side before tracing the second, so that two 4096-block
/// traces are never held whole at once.
pub fn slim(trace: &mut Trace) {
    for e in &mut trace.events {
        e.formula = String::new();
        e.why_text = String::new();
        e.why = None;
        e.sources = Vec::new();
        e.stats = None;
        e.values = None;
        e.check = None;
    }
}

/// How a step differs between the two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The same shape, dtype and inputs, in the same place.
    Same,
    /// On both sides, with something different.
    Changed,
    /// Only in the left model.
    OnlyLeft,
    /// Only in the right model.
    OnlyRight,
}

/// What differs in a step that is on both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// Its shape.
    Shape,
    /// Its element type.
    Dtype,
    /// The op that computes it (a bare reshape for a merge, say).
    Op,
    /// The tensors it reads.
    Inputs,
    /// Its place in the order of the steps both sides have.
    Position,
}

/// One side's step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Side {
    /// Its step number in its own trace.
    pub step: usize,
    /// The op, as the trace names it.
    pub op: String,
    /// The shape, e.g. `[2, 2, 4, 16]`.
    pub shape: Vec<usize>,
    /// The shape with axis names, e.g. `(B=2,kv=2,T=4,hd=16)`.
    pub named: String,
    /// Its dtype.
    pub dtype: String,
    /// The paths of the tensors it reads.
    pub inputs: Vec<String>,
}

impl Side {
    fn of(e: &Event) -> Self {
        Self {
            step: e.step,
            op: e.op.to_string(),
            shape: e.shape.clone(),
            named: e.named_shape(),
            dtype: e.dtype.to_string(),
            inputs: e.inputs.clone(),
        }
    }
}

/// One aligned step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// Its path, the same on both sides.
    pub path: String,
    /// Same, changed, or on one side only.
    pub status: Status,
    /// What changed (empty unless `Changed`).
    pub changes: Vec<Change>,
    /// The left model's step, if it has one.
    pub left: Option<Side>,
    /// The right model's step, if it has one.
    pub right: Option<Side>,
}

/// One count on both sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Count {
    /// What is counted, e.g. `parameters`.
    pub what: &'static str,
    /// The left model's.
    pub left: u64,
    /// The right model's.
    pub right: u64,
    /// right − left.
    pub delta: i128,
    /// How the left one is computed, e.g. `2·d² + 2·d·kv·hd = …`.
    pub left_formula: String,
    /// How the right one is computed.
    pub right_formula: String,
}

/// How many steps are in each state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Summary {
    /// Steps the same on both sides.
    pub same: usize,
    /// Steps on both sides that differ.
    pub changed: usize,
    /// Steps of the left model alone.
    pub only_left: usize,
    /// Steps of the right model alone.
    pub only_right: usize,
}

/// Two models compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The left model's name.
    pub left: String,
    /// The right model's name.
    pub right: String,
    /// Every step, in the left model's order with the right's own steps
    /// where they fall.
    pub steps: Vec<Step>,
    /// Parameters, FLOPs and bytes on both sides.
    pub counts: Vec<Count>,
    /// The steps by state.
    pub summary: Summary,
    /// Where the left model's forward stopped, if it did: `check at path`.
    pub left_stopped: Option<String>,
    /// Where the right model's forward stopped, if it did.
    pub right_stopped: Option<String>,
}

impl Comparison {
    /// Aligns `left` and `right` (traces with their budgets) step by step.
    #[must_use]
    pub fn of(left: (&str, &Trace, &Budget), right: (&str, &Trace, &Budget)) -> Self {
        let (lt, rt) = (left.1, right.1);
        let align::Alignment {
            rows,
            deleted,
            inserted,
            ..
        } = align::align(&lt.events, &rt.events);
        // A path deleted on the left and inserted on the right moved.
        let moved: HashSet<&str> = deleted.intersection(&inserted).copied().collect();
        let le: HashMap<&str, &Event> = lt.events.iter().map(|e| (e.path.as_str(), e)).collect();
        let re: HashMap<&str, &Event> = rt.events.iter().map(|e| (e.path.as_str(), e)).collect();
        let mut steps = Vec::new();
        for (path, from_left) in rows {
            // A moved step is listed once, where the left model has it.
            if moved.contains(path) && !from_left {
                continue;
            }
            let (l, r) = (le.get(path).copied(), re.get(path).copied());
            let mut changes = Vec::new();
            if let (Some(l), Some(r)) = (l, r) {
                if l.shape != r.shape {
                    changes.push(Change::Shape);
                }
                if l.dtype != r.dtype {
                    changes.push(Change::Dtype);
                }
                if l.op != r.op {
                    changes.push(Change::Op);
                }
                if l.inputs != r.inputs {
                    changes.push(Change::Inputs);
                }
                if moved.contains(path) {
                    changes.push(Change::Position);
                }
            }
            let status = match (l, r) {
                (Some(_), None) => Status::OnlyLeft,
                (None, Some(_)) => Status::OnlyRight,
                _ if changes.is_empty() => Status::Same,
                _ => Status::Changed,
            };
            steps.push(Step {
                path: path.to_string(),
                status,
                changes,
                left: l.map(Side::of),
                right: r.map(Side::of),
            });
        }
        let mut summary = Summary::default();
        for s in &steps {
            *match s.status {
                Status::Same => &mut summary.same,
                Status::Changed => &mut summary.changed,
                Status::OnlyLeft => &mut summary.only_left,
                Status::OnlyRight => &mut summary.only_right,
            } += 1;
        }
        let stopped = |t: &Trace| {
            t.failure
                .as_ref()
                .map(|f| format!("{} stops the forward at {}", f.check, f.path))
        };
        Self {
            left: left.0.to_string(),
            right: right.0.to_string(),
            steps,
            counts: counts(left.2, right.2),
            summary,
            left_stopped: stopped(lt),
            right_stopped: stopped(rt),
        }
    }
}

/// The group row `name` of a budget's one-block subtotals: its count and
/// formula.
fn group(b: &Budget, name: &str) -> (u64, String) {
    b.groups
        .iter()
        .find(|r| r.path == name)
        .map_or((0, String::new()), |r| (r.count, r.formula.clone()))
}

fn counts(l: &Budget, r: &Budget) -> Vec<Count> {
    let count = |what, (left, lf): (u64, String), (right, rf): (u64, String)| Count {
        what,
        left,
        right,
        delta: i128::from(right) - i128::from(left),
        left_formula: lf,
        right_formula: rf,
    };
    let total = |b: &Budget| {
        let blocks = b.by_component.iter().find(|r| r.path == "blocks");
        let formula = blocks.map_or_else(String::new, |r| {
            format!(
                "blocks {} + the rest {}",
                r.formula,
                thousands(b.total - r.count)
            )
        });
        (b.total, formula)
    };
    let flops = |b: &Budget| {
        let f = &b.flops;
        (
            f.forward_per_token,
            format!(
                "L·block + head = {}·{} + {}",
                b.config.layers,
                thousands(f.per_token_per_block.total),
                thousands(f.split.head)
            ),
        )
    };
    let bytes = |b: &Budget| {
        (
            b.bytes.weights,
            format!(
                "{} parameters × {} bytes",
                thousands(b.total),
                b.bytes.dtype.size()
            ),
        )
    };
    let acts = |b: &Budget| {
        (
            b.bytes.activations,
            "Σ over steps of elements × element size".to_string(),
        )
    };
    vec![
        count("parameters", total(l), total(r)),
        count(
            "attention weights per block",
            group(l, "attention weights"),
            group(r, "attention weights"),
        ),
        count(
            "MLP weights per block",
            group(l, "MLP weights"),
            group(r, "MLP weights"),
        ),
        count("forward FLOPs per token", flops(l), flops(r)),
        count("weight bytes", bytes(l), bytes(r)),
        count("activation bytes of one forward", acts(l), acts(r)),
    ]
}
