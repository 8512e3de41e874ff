//! The aligned order of two traces that different programs wrote (a
//! model traced here against a log of the real PyTorch code), by each
//! step's class: what kind of op it is, the same whichever program
//! recorded it (coarser than its [`crate::trace::Role`] in the model).
//!
//! Paths do not line up across producers (`block1.attn.q_proj` here,
//! `block1.self_attn.q_proj.linear` in an exported log), and the other
//! program records many more small steps (an RMSNorm's `pow`, `mean`,
//! `rsqrt`, rotary's `neg` and `cat`, the mask's constants). So each step
//! gets a [`Class`] from its op (and, for a hand-written norm, from the
//! norm role its log's reading gave it), and the two traces are cut into their parts
//! ([`super::align::parts`]: the prefix, each block, the suffix) and paired
//! part by part, in two rounds:
//!
//! 1. The anchors, the steps both programs record as one op
//!    ([`Class::anchor`]: input, embedding, norm, projection, scores,
//!    softmax, weights·v, residual add), are diffed (Myers) by class and
//!    shape.
//! 2. Between two paired anchors, the remaining steps are diffed by class,
//!    shape and the paired anchor they come from (the nearest anchor up
//!    their inputs), so a layout step pairs only with one made from the
//!    same projection. A step left alone on each side of a part with the
//!    same key, once on each side, is one step that moved (the exported
//!    `q` split right after `q_proj`, ours after all three projections).
//!
//! The shape in the keys is the step's whole shape when both traces ran
//! the same stream shape (B, T, d), else its number of axes (the shapes
//! then differ and are marked so).

use super::align::{Part, parts};
use crate::shape::Axis;
use crate::trace::{Event, OpKind};
use serde::Serialize;
use similar::{Algorithm, DiffOp, capture_diff_slices};
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// What a step does, the same whichever program recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// The model's input: token ids or x0.
    Input,
    /// A lookup of token or position embeddings.
    Embedding,
    /// A LayerNorm or RMSNorm's output (ours one `rmsnorm` step; a
    /// hand-written norm's last step in the other program's log).
    Norm,
    /// A projection `x·W (+ b)`: q/k/v, out, up, gate, down, the LM head.
    Linear,
    /// The attention scores, a product whose last axes are (Tq, Tk).
    Scores,
    /// A softmax: the attention weights.
    Softmax,
    /// Another matrix product: the weights·v of attention.
    Attend,
    /// A residual add.
    Residual,
    /// Moving or regrouping elements without computing: view, reshape,
    /// transpose, split and merge of heads, repeat of K/V heads.
    Layout,
    /// An element-wise activation: relu, gelu, silu, tanh.
    Activation,
    /// An element-wise product: a gated MLP's `silu(g)·u` (ours one
    /// `swiglu` step), a scale.
    Product,
    /// An element-wise sum that is no residual add: rotary's `x·cos +
    /// rotate(x)·sin` (ours one `rope` step), a mask or ALiBi added.
    Sum,
    /// A change of dtype.
    Cast,
    /// Anything else, told apart by its op's name.
    Other,
}

impl Class {
    /// Whether both programs record this role as one step, so that it
    /// pairs first: input, embedding, norm, projection, scores, softmax,
    /// weights·v, residual add.
    #[must_use]
    pub fn anchor(self) -> bool {
        matches!(
            self,
            Self::Input
                | Self::Embedding
                | Self::Norm
                | Self::Linear
                | Self::Scores
                | Self::Softmax
                | Self::Attend
                | Self::Residual
        )
    }
}

/// The class of `e` by its op alone (a hand-written norm's output is
/// found by [`classes`]).
#[must_use]
pub fn class_of(e: &Event) -> Class {
    if e.is_residual() {
        return Class::Residual;
    }
    let name = e.op_name.as_deref().unwrap_or(e.op.as_str());
    let qk = matches!(e.axes.as_slice(), [.., Axis::Query, Axis::Key]);
    match e.op {
        OpKind::Input | OpKind::Tokens => return Class::Input,
        OpKind::Embedding | OpKind::Positions | OpKind::TokenType => return Class::Embedding,
        OpKind::LayerNorm | OpKind::RmsNorm => return Class::Norm,
        OpKind::Linear | OpKind::LmHead => return Class::Linear,
        OpKind::Scores => return Class::Scores,
        OpKind::Softmax => return Class::Softmax,
        OpKind::WeightedSum => return Class::Attend,
        OpKind::SplitHeads
        | OpKind::MergeHeads
        | OpKind::RepeatKv
        | OpKind::Reshape
        | OpKind::Columns => return Class::Layout,
        OpKind::Relu
        | OpKind::Gelu
        | OpKind::GeluTanh
        | OpKind::Silu
        | OpKind::Tanh
        | OpKind::SoftCap => return Class::Activation,
        OpKind::SwiGlu | OpKind::GeGlu | OpKind::Scale => return Class::Product,
        // Rotary's output is written `q * cos + rotate_half(q) * sin`.
        OpKind::Rope | OpKind::Alibi | OpKind::AddPositions | OpKind::Add => return Class::Sum,
        OpKind::Cast => return Class::Cast,
        _ => {}
    }
    match name.to_ascii_lowercase().as_str() {
        "layer_norm" | "rms_norm" | "group_norm" => Class::Norm,
        "addmm" | "conv1d" => Class::Linear,
        "matmul" | "bmm" | "einsum" | "baddbmm" if qk => Class::Scores,
        "matmul" | "bmm" | "einsum" | "baddbmm" | "scaled_dot_product_attention" => Class::Attend,
        "log_softmax" => Class::Softmax,
        "view" | "reshape" | "transpose" | "permute" | "contiguous" | "flatten" | "unflatten"
        | "expand" | "repeat" | "repeat_interleave" | "squeeze" | "unsqueeze" | "t" | "split"
        | "chunk" => Class::Layout,
        "relu" | "gelu" | "silu" | "tanh" | "sigmoid" | "gelu_new" => Class::Activation,
        "mul" | "mul_op" | "div" | "truediv" => Class::Product,
        "add_op" | "iadd" | "sub" => Class::Sum,
        "to" | "float" | "half" | "bfloat16" | "double" | "type_as" | "type" => Class::Cast,
        _ => Class::Other,
    }
}

/// Every step's class. A norm written by hand (RMSNorm's `pow`, `mean`,
/// `rsqrt`, `mul` inside a module named like a norm) has its last step as
/// the norm's output: the step the log's reading gave the norm's role
/// ([`crate::trace::role::infer`]), where the op alone says nothing.
#[must_use]
pub fn classes(events: &[Event]) -> Vec<Class> {
    events
        .iter()
        .map(|e| {
            if e.op == OpKind::Other && e.role.is_norm() {
                Class::Norm
            } else {
                class_of(e)
            }
        })
        .collect()
}

/// One row of the aligned order: a step of either side or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The left trace's step (its index in the events).
    pub left: Option<usize>,
    /// The right trace's step.
    pub right: Option<usize>,
    /// Both sides have the step, each in another place of its order.
    pub moved: bool,
    /// The role the row's step plays (the left's, else the right's).
    pub role: Class,
}

/// A part of the left trace and of the right, paired, or one alone.
type Paired = (Option<Range<usize>>, Option<Range<usize>>);

/// The key a step pairs by.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key {
    role: Class,
    /// The op's name, for [`Class::Other`] only.
    name: String,
    /// The shape, or only its number of axes when the streams differ.
    size: Vec<usize>,
    /// The paired anchor the step comes from (round 2 only).
    from: Option<usize>,
}

/// One side's steps with what the pairing reads of them.
struct Sided<'a> {
    events: &'a [Event],
    roles: Vec<Class>,
    /// The nearest anchor up each step's inputs (first input first).
    from: Vec<Option<usize>>,
    /// The pair number of each paired anchor.
    pair: Vec<Option<usize>>,
}

impl<'a> Sided<'a> {
    fn new(events: &'a [Event]) -> Self {
        let roles = classes(events);
        let mut at: HashMap<&str, usize> = HashMap::new();
        let mut from = vec![None; events.len()];
        for (i, e) in events.iter().enumerate() {
            from[i] = e.inputs.iter().find_map(|p| {
                let j = *at.get(p.as_str())?;
                if roles[j].anchor() { Some(j) } else { from[j] }
            });
            at.insert(&e.path, i);
        }
        Self {
            events,
            roles,
            from,
            pair: vec![None; events.len()],
        }
    }

    fn key(&self, i: usize, sized: bool, with_from: bool) -> Key {
        let e = &self.events[i];
        let role = self.roles[i];
        Key {
            role,
            name: if role == Class::Other {
                e.op_name.clone().unwrap_or_else(|| e.op.as_str().into())
            } else {
                String::new()
            },
            size: if sized {
                e.shape.clone()
            } else {
                vec![e.shape.len()]
            },
            from: if with_from {
                self.from[i].and_then(|a| self.pair[a])
            } else {
                None
            },
        }
    }
}

/// The pairs of equal elements a Myers diff of `l` and `r` finds, as
/// index pairs into them.
fn equal_pairs(l: &[Key], r: &[Key]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, l, r) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            out.extend((0..len).map(|k| (old_index + k, new_index + k)));
        }
    }
    out
}

/// Aligns `left` and `right` by role, part by part where both traces'
/// parts are in order (else whole).
#[must_use]
pub fn align(left: &[Event], right: &[Event]) -> Vec<Row> {
    let sized = stream(left) == stream(right);
    let (mut l, mut r) = (Sided::new(left), Sided::new(right));
    let whole = |n: usize| vec![(Part::Prefix, 0..n)];
    let (lparts, rparts) = match (parts(left), parts(right)) {
        (Some(a), Some(b)) => (a, b),
        _ => (whole(left.len()), whole(right.len())),
    };
    // The parts paired by kind and block number, or alone.
    let mut plan: Vec<Paired> = Vec::new();
    let (mut li, mut ri) = (lparts.into_iter().peekable(), rparts.into_iter().peekable());
    loop {
        match (li.peek(), ri.peek()) {
            (Some((a, _)), Some((b, _))) if a == b => {
                plan.push((li.next().map(|p| p.1), ri.next().map(|p| p.1)));
            }
            (Some((a, _)), Some((b, _))) if a < b => plan.push((li.next().map(|p| p.1), None)),
            (_, Some(_)) => plan.push((None, ri.next().map(|p| p.1))),
            (Some(_), None) => plan.push((li.next().map(|p| p.1), None)),
            (None, None) => break,
        }
    }
    // Round 1, every part first: a part's steps may come from an anchor
    // of an earlier part (a block's norm reads the last block's add).
    let mut anchors: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut pairs = 0;
    for (lr, rr) in &plan {
        let (Some(lr), Some(rr)) = (lr, rr) else {
            anchors.push(Vec::new());
            continue;
        };
        let la: Vec<usize> = lr.clone().filter(|&i| l.roles[i].anchor()).collect();
        let ra: Vec<usize> = rr.clone().filter(|&i| r.roles[i].anchor()).collect();
        let lk: Vec<Key> = la.iter().map(|&i| l.key(i, sized, false)).collect();
        let rk: Vec<Key> = ra.iter().map(|&i| r.key(i, sized, false)).collect();
        let found: Vec<(usize, usize)> = equal_pairs(&lk, &rk)
            .into_iter()
            .map(|(a, b)| (la[a], ra[b]))
            .collect();
        for &(a, b) in &found {
            l.pair[a] = Some(pairs);
            r.pair[b] = Some(pairs);
            pairs += 1;
        }
        anchors.push(found);
    }
    let mut rows = Vec::new();
    for ((lr, rr), found) in plan.into_iter().zip(anchors) {
        let (lr, rr) = match (lr, rr) {
            (Some(lr), Some(rr)) => (lr, rr),
            (Some(lr), None) => {
                rows.extend(lr.map(|i| only(&l, i, true)));
                continue;
            }
            (None, rr) => {
                rows.extend(rr.into_iter().flatten().map(|j| only(&r, j, false)));
                continue;
            }
        };
        let start = rows.len();
        let (mut lp, mut rp) = (lr.start, rr.start);
        let ends = found.iter().copied().map(Some).chain([None]);
        for anchor in ends {
            let (le, re) = anchor.unwrap_or((lr.end, rr.end));
            gap(&mut rows, (&l, lp..le), (&r, rp..re), sized);
            if let Some((a, b)) = anchor {
                rows.push(Row {
                    left: Some(a),
                    right: Some(b),
                    moved: false,
                    role: l.roles[a],
                });
                (lp, rp) = (a + 1, b + 1);
            }
        }
        moved(&mut rows, start, (&l, &r), sized);
    }
    rows
}

/// The stream's shape of a trace: its first (B, T, d) step's, as near as
/// the events tell (the first on-stream step's shape).
fn stream(events: &[Event]) -> Option<&[usize]> {
    events
        .iter()
        .find(|e| e.on_stream)
        .map(|e| e.shape.as_slice())
}

fn only(s: &Sided, i: usize, left: bool) -> Row {
    Row {
        left: left.then_some(i),
        right: (!left).then_some(i),
        moved: false,
        role: s.roles[i],
    }
}

/// Round 2 between two paired anchors (or a part's ends).
fn gap(
    rows: &mut Vec<Row>,
    (l, lr): (&Sided, Range<usize>),
    (r, rr): (&Sided, Range<usize>),
    sized: bool,
) {
    let lk: Vec<Key> = lr.clone().map(|i| l.key(i, sized, true)).collect();
    let rk: Vec<Key> = rr.clone().map(|j| r.key(j, sized, true)).collect();
    let (lo, ro) = (lr.start, rr.start);
    for op in capture_diff_slices(Algorithm::Myers, &lk, &rk) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => rows.extend((0..len).map(|k| Row {
                left: Some(lo + old_index + k),
                right: Some(ro + new_index + k),
                moved: false,
                role: l.roles[lo + old_index + k],
            })),
            DiffOp::Delete {
                old_index, old_len, ..
            } => rows.extend((0..old_len).map(|k| only(l, lo + old_index + k, true))),
            DiffOp::Insert {
                new_index, new_len, ..
            } => rows.extend((0..new_len).map(|k| only(r, ro + new_index + k, false))),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                rows.extend((0..old_len).map(|k| only(l, lo + old_index + k, true)));
                rows.extend((0..new_len).map(|k| only(r, ro + new_index + k, false)));
            }
        }
    }
}

/// A step alone on each side of one part (the rows from `start`) with the
/// same key, once on each side, moved: listed once, where the left has it.
fn moved(rows: &mut Vec<Row>, start: usize, (l, r): (&Sided, &Sided), sized: bool) {
    let mut lone: HashMap<Key, (Vec<usize>, Vec<usize>)> = HashMap::new();
    for (n, row) in rows.iter().enumerate().skip(start) {
        match (row.left, row.right) {
            (Some(i), None) => lone.entry(l.key(i, sized, true)).or_default().0.push(n),
            (None, Some(j)) => lone.entry(r.key(j, sized, true)).or_default().1.push(n),
            _ => {}
        }
    }
    let mut gone = HashSet::new();
    for (ls, rs) in lone.values() {
        if let ([a], [b]) = (ls.as_slice(), rs.as_slice()) {
            rows[*a].right = rows[*b].right;
            rows[*a].moved = true;
            gone.insert(*b);
        }
    }
    let mut n = 0;
    rows.retain(|_| {
        n += 1;
        !gone.contains(&(n - 1))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(path: &str, op: &str, shape: &[usize], inputs: &[&str]) -> Event {
        let line = serde_json::json!({
            "step": 0, "path": path, "op": "other", "op_name": op, "shape": shape,
            "axes": vec!["?"; shape.len()], "dtype": "f32", "on_stream": shape.len() == 3,
            "departs": false, "returns": false, "inputs": inputs, "formula": "", "stats": null,
        });
        let mut e: Event = serde_json::from_value(line).unwrap();
        if let Ok(k) = op.parse::<OpKind>() {
            e.op = k;
            e.op_name = None;
        }
        e
    }

    /// A product whose last axes are (Tq, Tk) is the scores; another,
    /// the weighted sum.
    #[test]
    fn a_product_ending_in_queries_and_keys_is_the_scores() {
        let mut e = ev("block1.attn.matmul", "matmul", &[2, 2, 4, 4], &[]);
        assert_eq!(class_of(&e), Class::Attend);
        e.axes = crate::shape::axes(&["B", "h", "Tq", "Tk"]);
        assert_eq!(class_of(&e), Class::Scores);
        e.axes = crate::shape::axes(&["B", "h", "Tk", "Tq"]);
        assert_eq!(class_of(&e), Class::Attend);
    }

    /// A hand-written RMSNorm's last step is the norm's output; ours,
    /// one `rmsnorm` step with casts around it, keeps its own.
    #[test]
    fn a_hand_written_norm_ends_at_its_modules_last_step() {
        let mut theirs = [
            ev("block1.input_layernorm.pow", "pow", &[2, 4, 8], &[]),
            ev("block1.input_layernorm.mul", "mul", &[2, 4, 8], &[]),
            ev("block1.input_layernorm.mul_2", "mul", &[2, 4, 8], &[]),
            ev("block1.mlp.up", "linear", &[2, 4, 8], &[]),
        ];
        // As the log's reading gives them.
        crate::trace::role::infer(&mut theirs, &[], true);
        assert_eq!(
            classes(&theirs),
            [Class::Other, Class::Product, Class::Norm, Class::Linear]
        );
        let ours = [
            ev("block1.ln_1.to_f32", "cast", &[2, 4, 8], &[]),
            ev("block1.ln_1", "rmsnorm", &[2, 4, 8], &[]),
            ev("block1.ln_1.to_bf16", "cast", &[2, 4, 8], &[]),
        ];
        assert_eq!(classes(&ours), [Class::Cast, Class::Norm, Class::Cast]);
    }

    /// The split of q that the other program makes right after q_proj
    /// pairs with ours made after all three projections, as moved; the
    /// projections pair first.
    #[test]
    fn anchors_pair_first_and_a_split_made_elsewhere_moved() {
        let ours = [
            ev("block1.q_proj", "linear", &[2, 4, 8], &[]),
            ev("block1.k_proj", "linear", &[2, 4, 4], &[]),
            ev("block1.q", "split_heads", &[2, 2, 4, 4], &["block1.q_proj"]),
            ev("block1.k", "split_heads", &[2, 1, 4, 4], &["block1.k_proj"]),
        ];
        let theirs = [
            ev("block1.a.q_proj.linear", "linear", &[2, 4, 8], &[]),
            ev(
                "block1.a.view",
                "view",
                &[2, 4, 2, 4],
                &["block1.a.q_proj.linear"],
            ),
            ev(
                "block1.a.transpose",
                "transpose",
                &[2, 2, 4, 4],
                &["block1.a.view"],
            ),
            ev("block1.a.k_proj.linear", "linear", &[2, 4, 4], &[]),
            ev(
                "block1.a.transpose_2",
                "transpose",
                &[2, 1, 4, 4],
                &["block1.a.k_proj.linear"],
            ),
        ];
        let rows = align(&ours, &theirs);
        let pair = |i: usize| rows.iter().find(|r| r.left == Some(i)).unwrap();
        assert_eq!((pair(0).right, pair(0).moved), (Some(0), false));
        assert_eq!((pair(1).right, pair(1).moved), (Some(3), false));
        assert_eq!((pair(2).right, pair(2).moved), (Some(2), true));
        assert_eq!((pair(3).right, pair(3).moved), (Some(4), false));
        // Every right step is on one row.
        let mut right: Vec<usize> = rows.iter().filter_map(|r| r.right).collect();
        right.sort_unstable();
        assert_eq!(right, [0, 1, 2, 3, 4]);
    }
}
