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
//!
//! Two traces from different programs (a model traced here against a log
//! of the real PyTorch code, [`AlignBy::Role`]) share no paths: their steps
//! pair by what they do instead ([`class`]), and only their shapes and
//! dtypes are compared, each program naming its ops and paths its own way.

pub mod align;
pub mod class;

use crate::budget::{Budget, thousands};
use crate::trace::{Event, Trace};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Keeps of `trace` what a comparison reads (each step's path, op, shape,
/// axes, dtype and inputs, whether it is a residual add, the config and
/// where it stopped) and frees the rest: the formulas, the whys, the axes'
/// sources, stats and values. A
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
    /// Its path in its own trace (the two differ when the rows pair by
    /// role).
    pub path: String,
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
            path: e.path.clone(),
            op: e.op_label().to_string(),
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
    /// Its path: the same on both sides when the rows pair by path; by
    /// role, the left side's (the right's where the left has none), each
    /// side's own in its [`Side::path`].
    pub path: String,
    /// The role the two steps were paired by ([`AlignBy::Role`] only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<class::Class>,
    /// Same, changed, or on one side only.
    pub status: Status,
    /// What changed (empty unless `Changed`).
    pub changes: Vec<Change>,
    /// The left model's step, if it has one.
    pub left: Option<Side>,
    /// The right model's step, if it has one.
    pub right: Option<Side>,
}

/// One count on both sides; `None` on a side that is a trace log, which
/// holds no model to count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Count {
    /// What is counted, e.g. `parameters`.
    pub what: &'static str,
    /// The left model's.
    pub left: Option<u64>,
    /// The right model's.
    pub right: Option<u64>,
    /// right − left, when both are known.
    pub delta: Option<i128>,
    /// How the left one is computed, e.g. `2·d² + 2·d·kv·hd = …`, or
    /// [`NOT_IN_A_LOG`].
    pub left_formula: String,
    /// How the right one is computed.
    pub right_formula: String,
}

/// The formula of a count a trace log cannot give.
pub const NOT_IN_A_LOG: &str = "not in a log (a log holds no model to count)";

/// How the steps of the two sides were paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlignBy {
    /// By path ([`align`]): two traces of shapetrace's, or two logs of one
    /// program.
    Path,
    /// By role ([`class`]): traces of different programs, whose paths and
    /// op names differ.
    Role,
}

impl AlignBy {
    /// How two traces written by `left` and `right` pair: by path when one
    /// program wrote both (`None` or `shapetrace …` is shapetrace itself),
    /// else by role.
    #[must_use]
    pub fn between(left: Option<&str>, right: Option<&str>) -> Self {
        fn who(p: Option<&str>) -> Option<&str> {
            p.filter(|p| !p.starts_with("shapetrace "))
        }
        if who(left) == who(right) {
            Self::Path
        } else {
            Self::Role
        }
    }
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
    /// How the steps were paired.
    pub aligned_by: AlignBy,
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

/// One side to compare: its name, its trace, and its budget when it is a
/// model's (`None` for a trace log).
pub type Of<'a> = (&'a str, &'a Trace, Option<&'a Budget>);

impl Comparison {
    /// Aligns `left` and `right` (traces with their budgets) step by step,
    /// by path.
    #[must_use]
    pub fn of(left: (&str, &Trace, &Budget), right: (&str, &Trace, &Budget)) -> Self {
        Self::aligned(
            (left.0, left.1, Some(left.2)),
            (right.0, right.1, Some(right.2)),
            AlignBy::Path,
        )
    }

    /// Aligns `left` and `right` step by step, `by` path or role.
    #[must_use]
    pub fn aligned(left: Of, right: Of, by: AlignBy) -> Self {
        let (lt, rt) = (left.1, right.1);
        let steps = match by {
            AlignBy::Path => by_path(lt, rt),
            AlignBy::Role => by_role(lt, rt),
        };
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
            aligned_by: by,
            steps,
            counts: counts(left.2, right.2),
            summary,
            left_stopped: stopped(lt),
            right_stopped: stopped(rt),
        }
    }
}

/// The status of a row from its sides and what changed.
fn status(l: Option<&Event>, r: Option<&Event>, changes: &[Change]) -> Status {
    match (l, r) {
        (Some(_), None) => Status::OnlyLeft,
        (None, Some(_)) => Status::OnlyRight,
        _ if changes.is_empty() => Status::Same,
        _ => Status::Changed,
    }
}

/// The steps paired by path ([`align`]): shape, dtype, op, inputs and
/// place compared.
fn by_path(lt: &Trace, rt: &Trace) -> Vec<Step> {
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
        steps.push(Step {
            path: path.to_string(),
            status: status(l, r, &changes),
            changes,
            role: None,
            left: l.map(Side::of),
            right: r.map(Side::of),
        });
    }
    steps
}

/// The steps paired by role ([`class`]): shape, dtype and place compared;
/// ops and inputs are each program's own names, so not.
fn by_role(lt: &Trace, rt: &Trace) -> Vec<Step> {
    class::align(&lt.events, &rt.events)
        .into_iter()
        .map(|row| {
            let l = row.left.map(|i| &lt.events[i]);
            let r = row.right.map(|j| &rt.events[j]);
            let mut changes = Vec::new();
            if let (Some(l), Some(r)) = (l, r) {
                if l.shape != r.shape {
                    changes.push(Change::Shape);
                }
                if l.dtype != r.dtype {
                    changes.push(Change::Dtype);
                }
                if row.moved {
                    changes.push(Change::Position);
                }
            }
            let path = l.or(r).map_or_else(String::new, |e| e.path.clone());
            Step {
                path,
                status: status(l, r, &changes),
                changes,
                role: Some(row.role),
                left: l.map(Side::of),
                right: r.map(Side::of),
            }
        })
        .collect()
}

/// The group row `name` of a budget's one-block subtotals: its count and
/// formula.
fn group(b: &Budget, name: &str) -> (u64, String) {
    b.groups
        .iter()
        .find(|r| r.path == name)
        .map_or((0, String::new()), |r| (r.count, r.formula.clone()))
}

fn counts(l: Option<&Budget>, r: Option<&Budget>) -> Vec<Count> {
    // A log's side of each count: unknown, never made up.
    let side = |b: Option<&Budget>, f: &dyn Fn(&Budget) -> (u64, String)| {
        b.map_or((None, NOT_IN_A_LOG.to_string()), |b| {
            let (n, formula) = f(b);
            (Some(n), formula)
        })
    };
    let count = |what, f: &dyn Fn(&Budget) -> (u64, String)| {
        let ((left, left_formula), (right, right_formula)) = (side(l, f), side(r, f));
        Count {
            what,
            left,
            right,
            delta: left.zip(right).map(|(a, b)| i128::from(b) - i128::from(a)),
            left_formula,
            right_formula,
        }
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
                b.config.held_layers(),
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
        count("parameters", &total),
        count("attention weights per block", &|b| {
            group(b, "attention weights")
        }),
        count("MLP weights per block", &|b| group(b, "MLP weights")),
        count("forward FLOPs per token", &flops),
        count("weight bytes", &bytes),
        count("activation bytes of one forward", &acts),
    ]
}
