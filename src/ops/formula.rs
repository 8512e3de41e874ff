//! Each op's formula with its shape arithmetic, as the trace shows it.

use super::{Masking, Merge, NormAxis, Op, Route, Unary, fmt_shape};
use crate::config::NormKind;

impl Op {
    /// A one-line formula with the shape arithmetic, e.g.
    /// `q·kᵀ/√16 : (2,4,4,16)·(2,4,16,4) → (2,4,4,4)`.
    #[must_use]
    pub fn formula(&self, ins: &[&[usize]], out: &[usize]) -> String {
        let s = |i: usize| ins.get(i).map_or_else(String::new, |v| fmt_shape(v));
        let o = fmt_shape(out);
        match self {
            Op::Linear if ins.len() > 2 => format!("x·W+b : {}·{}+{} → {o}", s(0), s(1), s(2)),
            Op::Linear => format!("x·W : {}·{} → {o}", s(0), s(1)),
            Op::Norm { kind, axis, .. } => {
                let name = match kind {
                    NormKind::LayerNorm => "LayerNorm",
                    NormKind::RmsNorm => "RMSNorm",
                    NormKind::RmsNormPlusOne => "RMSNorm·(1+w)",
                };
                let over = match axis {
                    NormAxis::Feature => "d",
                    NormAxis::Seq => "T",
                    NormAxis::Batch => "B",
                };
                format!("{name}(x) over {over} : {} → {o}", s(0))
            }
            Op::SplitHeads { heads, .. } => format!("split into {heads} heads : {} → {o}", s(0)),
            Op::RepeatKv { rep, .. } => format!("repeat kv ×{rep} : {} → {o}", s(0)),
            Op::Rope {
                theta,
                scaling,
                dims,
                start,
            } => {
                let scaled = scaling.map_or(String::new(), |s| format!(", {} scaling", s.kind()));
                let hd = ins.first().and_then(|x| x.last()).copied().unwrap_or(*dims);
                let part = if *dims < hd {
                    format!(", first {dims} of {hd}")
                } else {
                    String::new()
                };
                let from = if *start > 0 {
                    format!(", from position {start}")
                } else {
                    String::new()
                };
                format!(
                    "rotate by position (θ {theta}{scaled}{part}{from}) : {} → {o}",
                    s(0)
                )
            }
            Op::Scores { head_dim } => {
                let k = ins.get(1).map_or_else(Vec::new, |k| {
                    let mut t = k.to_vec();
                    if t.len() == 4 {
                        t.swap(2, 3);
                    }
                    t
                });
                format!("q·kᵀ/√{head_dim} : {}·{} → {o}", s(0), fmt_shape(&k))
            }
            Op::Softmax {
                mask: Masking::Full,
            } => format!("softmax(s) : {} → {o}", s(0)),
            Op::Softmax {
                mask: Masking::Window(w),
            } => format!("softmax(mask_{w}(s)) : {} → {o}", s(0)),
            Op::Softmax {
                mask: Masking::TwoWay,
            } => format!("softmax(s), two-way : {} → {o}", s(0)),
            Op::Softmax { .. } => format!("softmax(mask(s)) : {} → {o}", s(0)),
            Op::SoftmaxNoMax { mask } => {
                let m = if mask.masks() { "mask(s)" } else { "s" };
                format!("e^{m}/Σe^{m}, no max subtracted : {} → {o}", s(0))
            }
            Op::WeightedSum => format!("w·v : {}·{} → {o}", s(0), s(1)),
            Op::MergeHeads(Merge::Transpose) => format!("transpose, merge heads : {} → {o}", s(0)),
            Op::MergeHeads(Merge::BareReshape) => {
                format!("reshape without transpose : {} → {o}", s(0))
            }
            Op::Act(u) => {
                let name = match u {
                    Unary::Relu => "relu",
                    Unary::Gelu => "gelu",
                    Unary::GeluTanh => "gelu_tanh",
                    Unary::Silu => "silu",
                    Unary::Tanh => "tanh",
                };
                format!("{name}(x) : {} → {o}", s(0))
            }
            Op::SwiGlu => format!("silu(g)⊙u : {}⊙{} → {o}", s(0), s(1)),
            Op::GeGlu => format!("gelu_tanh(g)⊙u : {}⊙{} → {o}", s(0), s(1)),
            Op::Alibi => format!("s + m_h·(j − t) : {} → {o}", s(0)),
            Op::SoftCap { cap } => format!("{cap}·tanh(x/{cap}) : {} → {o}", s(0)),
            Op::Scale { by } => format!("x·{by:.4} : {} → {o}", s(0)),
            Op::Columns { lo, hi, period, .. } => {
                let w = ins.first().and_then(|x| x.last()).copied().unwrap_or(0);
                if *period == w {
                    format!("x[…, {lo}..{hi}] : {} → {o}", s(0))
                } else {
                    format!("x[…, {lo}..{hi} of every {period}] : {} → {o}", s(0))
                }
            }
            Op::Add => format!("x + f(x) : {}+{} → {o}", s(0), s(1)),
            Op::Gather => format!("wte[ids] : {}[{}] → {o}", s(1), s(0)),
            Op::GatherPart { from, .. } => {
                let rows = ins.get(1).and_then(|w| w.first()).copied().unwrap_or(0);
                format!(
                    "wte[ids − {from}] where {from} ≤ id < {}, else 0 : {}[{}] → {o}",
                    from + rows,
                    s(1),
                    s(0)
                )
            }
            Op::Pad { axis, to } => format!("pad axis {axis} with zeros to {to} : {} → {o}", s(0)),
            Op::Positions { offset, start } => {
                let t = ins.get(1).and_then(|i| i.get(1)).copied().unwrap_or(0);
                let first = offset + start;
                format!("wpe[{first}..{}] : {} → {o}", t + first, s(0))
            }
            Op::KvCache { window, at } => {
                let new = ins.last().and_then(|x| x.get(2)).copied().unwrap_or(0);
                let end = at + new;
                let cache = if ins.len() == 2 {
                    format!("{} + {}", s(0), s(1))
                } else {
                    s(0)
                };
                match window {
                    Some(w) if end > *w => format!(
                        "cache ← positions {at}..{end}, slot p mod {w} (a ring) : {cache} → {o}"
                    ),
                    _ => format!("cache ← positions {at}..{end} : {cache} → {o}"),
                }
            }
            Op::TokenType { id } => format!("wtt[{id}] for every token : {} → {o}", s(0)),
            Op::FirstToken => format!("x[:, 0] : {} → {o}", s(0)),
            Op::AddPositions => format!("tok_emb + pos_emb : {}+{} → {o}", s(0), s(1)),
            Op::LmHead { tied: true } => {
                let wt = ins.get(1).map_or_else(String::new, |w| {
                    fmt_shape(&w.iter().rev().copied().collect::<Vec<_>>())
                });
                format!("x·wteᵀ (tied) : {}·{wt} → {o}", s(0))
            }
            Op::LmHead { tied: false } => format!("x·W_head : {}·{} → {o}", s(0), s(1)),
            Op::Cast { to } => format!("x.to({to}) : {} → {o}", s(0)),
            Op::RouterSoftmax => format!("softmax over experts : {} → {o}", s(0)),
            Op::TopK { k } => {
                let e = ins.first().and_then(|x| x.last()).copied().unwrap_or(0);
                format!("top-{k} of {e} experts : {} → {o}", s(0))
            }
            Op::RouteWeights => format!("p[top]/Σp[top] : {}[{}] → {o}", s(0), s(1)),
            Op::Dispatch {
                expert,
                capacity: None,
            } => format!("x[tokens → expert {}] : {} → {o}", expert + 1, s(0)),
            Op::Dispatch {
                expert,
                capacity: Some(c),
            } => format!(
                "x[first {c} tokens → expert {}] : {} → {o}",
                expert + 1,
                s(0)
            ),
            Op::Combine { packed: true, .. } => {
                format!("Σ_e w_e·y_e onto tokens : {} in expert order → {o}", s(2))
            }
            Op::Combine { .. } => {
                let ys: Vec<String> = ins.iter().skip(2).map(|y| fmt_shape(y)).collect();
                format!("Σ_e w_e·y_e onto tokens : {} → {o}", ys.join("+"))
            }
            Op::AllToAll {
                devices,
                route: route @ Route::Dispatch { .. },
            } => format!(
                "all_to_all: x[tokens → expert {}] from {devices} devices{} : {} → {o}",
                route.expert(*devices).unwrap_or(0) + 1,
                rows_said(route.received()),
                s(0)
            ),
            Op::AllToAll {
                devices,
                route: route @ Route::Return { .. },
            } => {
                let ys: Vec<String> = ins.iter().skip(1).map(|y| fmt_shape(y)).collect();
                format!(
                    "all_to_all: y_e back to {devices} devices, this one's tokens' rows from each{} : {} → {o}",
                    rows_said(route.received()),
                    ys.join("+")
                )
            }
            Op::AllReduce { devices } if ins.len() > 1 => {
                format!("Σ over {devices} devices + b : {}+{} → {o}", s(0), s(1))
            }
            Op::AllReduce { devices } => format!("Σ over {devices} devices : {} → {o}", s(0)),
            Op::AllGather { devices, axis } => {
                format!(
                    "gather {devices} devices along {} : {} → {o}",
                    axis_name(*axis),
                    s(0)
                )
            }
            Op::ReduceScatter {
                devices,
                axis,
                rank,
            } => format!(
                "Σ over {devices} devices, keep {} part {}/{devices}{} : {}{} → {o}",
                axis_name(*axis),
                rank + 1,
                plus_b(ins),
                s(0),
                b_shape(ins),
            ),
            Op::Send { to } => format!("send to stage {} : {} → {o}", to + 1, s(0)),
            Op::Recv { from } => format!("recv from stage {} : buffer {} → {o}", from + 1, s(0)),
            Op::Scatter {
                devices,
                axis,
                rank,
            } => format!(
                "keep {} part {}/{devices}{} : {}{} → {o}",
                axis_name(*axis),
                rank + 1,
                plus_b(ins),
                s(0),
                b_shape(ins),
            ),
        }
    }
}

/// A split axis by its place in a (B, T, d) tensor.
fn axis_name(axis: usize) -> String {
    match axis {
        0 => "B".into(),
        1 => "T".into(),
        2 => "d".into(),
        n => format!("axis {n}"),
    }
}

/// ` + b` when a communication step adds a bias after it.
fn plus_b(ins: &[&[usize]]) -> &'static str {
    if ins.len() > 1 { " + b" } else { "" }
}

/// `+(d)`: the added bias's shape, when there is one.
fn b_shape(ins: &[&[usize]]) -> String {
    ins.get(1)
        .map_or_else(String::new, |b| format!("+{}", fmt_shape(b)))
}

/// The rows each device sent, as ` (rows 3+2)`, or past 8 devices as
/// ` (rows from 5 of 64 devices)`; nothing when not known.
fn rows_said(rows: &[usize]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    if rows.len() > 8 {
        let from = rows.iter().filter(|&&r| r > 0).count();
        let sum: usize = rows.iter().sum();
        return format!(" ({sum} rows from {from} of {} devices)", rows.len());
    }
    let each: Vec<String> = rows.iter().map(ToString::to_string).collect();
    format!(" (rows {})", each.join("+"))
}
