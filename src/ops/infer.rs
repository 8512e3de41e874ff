//! What each [`Op`] does to shapes: its name, the shape it gives for the
//! shapes it is handed (or why it refuses them), and its output's axes.

use super::{Axis, Merge, Op, OpKind, Route, Shape, Unary, fmt_shape};
use crate::config::NormKind;

/// An op refused the shapes it was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OpError(pub String);

fn need(ok: bool, msg: impl FnOnce() -> String) -> Result<(), OpError> {
    if ok { Ok(()) } else { Err(OpError(msg())) }
}

/// A bias `b` added after a communication step fits the last axis of `x`.
fn bias_fits(x: &[usize], b: Option<&[usize]>) -> Result<(), OpError> {
    match b {
        Some(b) => need(b.len() == 1 && x.last() == Some(&b[0]), || {
            format!(
                "bias {} does not match the last axis of {}",
                fmt_shape(b),
                fmt_shape(x)
            )
        }),
        None => Ok(()),
    }
}

fn rank(shape: &[usize], r: usize, what: &str) -> Result<(), OpError> {
    need(shape.len() == r, || {
        format!("{what} must have rank {r}, got {}", fmt_shape(shape))
    })
}

impl Op {
    /// The op's kind, as in the trace's `op` field.
    #[must_use]
    pub fn kind(&self) -> OpKind {
        match self {
            Op::Linear => OpKind::Linear,
            Op::Norm {
                kind: NormKind::LayerNorm,
                ..
            } => OpKind::LayerNorm,
            Op::Norm {
                kind: NormKind::RmsNorm | NormKind::RmsNormPlusOne,
                ..
            } => OpKind::RmsNorm,
            Op::SplitHeads { .. } => OpKind::SplitHeads,
            Op::RepeatKv { .. } => OpKind::RepeatKv,
            Op::Rope { .. } => OpKind::Rope,
            Op::Scores { .. } => OpKind::Scores,
            Op::Softmax { .. } | Op::SoftmaxNoMax { .. } => OpKind::Softmax,
            Op::WeightedSum => OpKind::WeightedSum,
            Op::MergeHeads(Merge::Transpose) => OpKind::MergeHeads,
            Op::MergeHeads(Merge::BareReshape) => OpKind::Reshape,
            Op::Act(Unary::Relu) => OpKind::Relu,
            Op::Act(Unary::Gelu) => OpKind::Gelu,
            Op::Act(Unary::GeluTanh) => OpKind::GeluTanh,
            Op::Act(Unary::Silu) => OpKind::Silu,
            Op::Act(Unary::Tanh) => OpKind::Tanh,
            Op::TokenType { .. } => OpKind::TokenType,
            Op::FirstToken => OpKind::FirstToken,
            Op::SwiGlu => OpKind::SwiGlu,
            Op::GeGlu => OpKind::GeGlu,
            Op::SoftCap { .. } => OpKind::SoftCap,
            Op::Scale { .. } => OpKind::Scale,
            Op::Alibi => OpKind::Alibi,
            Op::Columns { .. } => OpKind::Columns,
            Op::Add => OpKind::Add,
            Op::Gather => OpKind::Embedding,
            Op::Positions { .. } => OpKind::Positions,
            Op::KvCache { .. } => OpKind::KvCache,
            Op::AddPositions => OpKind::AddPositions,
            Op::LmHead { .. } => OpKind::LmHead,
            Op::Cast { .. } => OpKind::Cast,
            Op::RouterSoftmax => OpKind::RouterSoftmax,
            Op::TopK { .. } => OpKind::TopK,
            Op::RouteWeights => OpKind::RouteWeights,
            Op::Dispatch { .. } => OpKind::Dispatch,
            Op::Combine { .. } => OpKind::Combine,
            Op::AllReduce { .. } => OpKind::AllReduce,
            Op::AllToAll { .. } => OpKind::AllToAll,
            Op::AllGather { .. } => OpKind::AllGather,
            Op::ReduceScatter { .. } => OpKind::ReduceScatter,
            Op::Scatter { .. } => OpKind::Scatter,
            Op::Send { .. } => OpKind::Send,
            Op::GatherPart { .. } => OpKind::Embedding,
            Op::Pad { .. } => OpKind::Pad,
            Op::Recv { .. } => OpKind::Recv,
        }
    }

    /// The output shape for these input shapes, or why they do not fit.
    ///
    /// # Errors
    /// [`OpError`] naming the operand shapes that do not fit.
    pub fn infer(&self, ins: &[&[usize]]) -> Result<Shape, OpError> {
        let x = ins.first().copied().unwrap_or(&[]);
        match self {
            Op::Linear => {
                let w = ins.get(1).copied().unwrap_or(&[]);
                rank(w, 2, "W")?;
                need(x.last() == Some(&w[0]), || {
                    format!(
                        "x·W needs x's last axis = W's rows: {} · {}",
                        fmt_shape(x),
                        fmt_shape(w)
                    )
                })?;
                if let Some(b) = ins.get(2) {
                    need(b.len() == 1 && b[0] == w[1], || {
                        format!(
                            "bias {} does not match x·W's last axis {}",
                            fmt_shape(b),
                            w[1]
                        )
                    })?;
                }
                let mut out = x.to_vec();
                *out.last_mut().unwrap_or(&mut 0) = w[1];
                Ok(out)
            }
            Op::Norm { .. } => {
                rank(x, 3, "norm input")?;
                for p in &ins[1..] {
                    need(p.len() == 1 && p[0] == x[2], || {
                        format!("norm weight {} does not match d={}", fmt_shape(p), x[2])
                    })?;
                }
                Ok(x.to_vec())
            }
            Op::SplitHeads { heads, .. } => {
                rank(x, 3, "split_heads input")?;
                need(*heads > 0 && x[2] % heads == 0, || {
                    format!("{} does not split into {heads} heads", x[2])
                })?;
                Ok(vec![x[0], *heads, x[1], x[2] / heads])
            }
            Op::Rope { dims, .. } => {
                rank(x, 4, "rope input")?;
                need(x[3] % 2 == 0, || {
                    format!("rope needs an even head size, got {}", x[3])
                })?;
                need(*dims <= x[3] && dims % 2 == 0, || {
                    format!("rope turns {dims} features of a head of {}", x[3])
                })?;
                Ok(x.to_vec())
            }
            Op::RepeatKv { rep, .. } => {
                rank(x, 4, "repeat_kv input")?;
                Ok(vec![x[0], x[1] * rep, x[2], x[3]])
            }
            Op::Scores { .. } => {
                let k = ins.get(1).copied().unwrap_or(&[]);
                rank(x, 4, "q")?;
                rank(k, 4, "k")?;
                need(x[0] == k[0] && x[1] == k[1] && x[3] == k[3], || {
                    format!("q {} and k {} do not pair", fmt_shape(x), fmt_shape(k))
                })?;
                Ok(vec![x[0], x[1], x[2], k[2]])
            }
            Op::Alibi => {
                rank(x, 4, "alibi input")?;
                Ok(x.to_vec())
            }
            Op::Softmax { .. }
            | Op::SoftmaxNoMax { .. }
            | Op::Act(_)
            | Op::Cast { .. }
            | Op::SoftCap { .. }
            | Op::Scale { .. } => Ok(x.to_vec()),
            Op::Gather | Op::GatherPart { .. } => {
                let table = ins.get(1).copied().unwrap_or(&[]);
                rank(x, 2, "token ids")?;
                rank(table, 2, "wte")?;
                Ok(vec![x[0], x[1], table[1]])
            }
            Op::Positions { offset, start } => {
                let ids = ins.get(1).copied().unwrap_or(&[]);
                rank(x, 2, "wpe")?;
                rank(ids, 2, "token ids")?;
                let first = offset.saturating_add(*start);
                need(ids[1].saturating_add(first) <= x[0], || {
                    format!(
                        "positions {start}..{} after offset {offset} need {} ≤ wpe's {} rows",
                        start.saturating_add(ids[1]),
                        ids[1].saturating_add(first),
                        x[0]
                    )
                })?;
                Ok(vec![ids[1], x[1]])
            }
            // [cache,] new: (B, kv, S, hd), (B, kv, n, hd) → (B, kv, S + n, hd).
            Op::KvCache { window, at } => {
                let (cache, new) = match ins {
                    [new] => (None, *new),
                    [cache, new] => (Some(*cache), *new),
                    _ => return Err(OpError("kv_cache takes a cache and new rows".into())),
                };
                rank(new, 4, "new keys or values")?;
                let held = match cache {
                    None => 0,
                    Some(c) => {
                        rank(c, 4, "cache")?;
                        need(c[0] == new[0] && c[1] == new[1] && c[3] == new[3], || {
                            format!(
                                "cache {} and new rows {} do not pair",
                                fmt_shape(c),
                                fmt_shape(new)
                            )
                        })?;
                        need(c[2] == window.map_or(*at, |w| (*at).min(w)), || {
                            format!("a cache of {} positions after {at} tokens", c[2])
                        })?;
                        c[2]
                    }
                };
                let s = held.saturating_add(new[2]);
                let s = window.map_or(s, |w| s.min(w));
                Ok(vec![new[0], new[1], s, new[3]])
            }
            Op::TokenType { id } => {
                let ids = ins.get(1).copied().unwrap_or(&[]);
                rank(x, 2, "wtt")?;
                rank(ids, 2, "token ids")?;
                need(*id < x[0], || {
                    format!("token type {id} needs a row of wtt's {}", x[0])
                })?;
                Ok(vec![ids[0], ids[1], x[1]])
            }
            Op::FirstToken => {
                rank(x, 3, "first_token input")?;
                need(x[1] >= 1, || "first_token needs T ≥ 1".to_string())?;
                Ok(vec![x[0], x[2]])
            }
            Op::AddPositions => {
                let p = ins.get(1).copied().unwrap_or(&[]);
                rank(x, 3, "tok_emb")?;
                need(p.len() == 2 && p == &x[1..], || {
                    format!(
                        "pos_emb {} does not broadcast onto tok_emb {}: it must be (T, d) = {}",
                        fmt_shape(p),
                        fmt_shape(x),
                        fmt_shape(&x[1..])
                    )
                })?;
                Ok(x.to_vec())
            }
            Op::LmHead { tied } => {
                let w = ins.get(1).copied().unwrap_or(&[]);
                rank(w, 2, "the head's W")?;
                // Tied: wte (V, d), read transposed; untied: W (d, V).
                let (rows, v) = if *tied { (w[1], w[0]) } else { (w[0], w[1]) };
                need(x.last() == Some(&rows), || {
                    let wt = if *tied { "wteᵀ" } else { "W" };
                    format!(
                        "x·{wt} needs x's last axis = d: {} · {}",
                        fmt_shape(x),
                        fmt_shape(&[rows, v])
                    )
                })?;
                let mut out = x.to_vec();
                *out.last_mut().unwrap_or(&mut 0) = v;
                Ok(out)
            }
            Op::WeightedSum => {
                let v = ins.get(1).copied().unwrap_or(&[]);
                rank(x, 4, "weights")?;
                rank(v, 4, "v")?;
                need(x[0] == v[0] && x[1] == v[1] && x[3] == v[2], || {
                    format!(
                        "weights {} and v {} do not pair",
                        fmt_shape(x),
                        fmt_shape(v)
                    )
                })?;
                Ok(vec![x[0], x[1], x[2], v[3]])
            }
            Op::MergeHeads(_) => {
                rank(x, 4, "merge input")?;
                Ok(vec![x[0], x[2], x[1] * x[3]])
            }
            Op::Columns { lo, hi, period, .. } => {
                let w = x.last().copied().unwrap_or(0);
                need(
                    !x.is_empty()
                        && lo < hi
                        && hi <= period
                        && *period > 0
                        && w.is_multiple_of(*period),
                    || {
                        format!(
                            "columns {lo}..{hi} of every {period} do not fit a last axis of {w}"
                        )
                    },
                )?;
                let mut out = x.to_vec();
                if let Some(last) = out.last_mut() {
                    *last = (hi - lo) * (w / period);
                }
                Ok(out)
            }
            Op::SwiGlu | Op::GeGlu | Op::Add => {
                let y = ins.get(1).copied().unwrap_or(&[]);
                need(x == y, || {
                    format!("{} and {} differ", fmt_shape(x), fmt_shape(y))
                })?;
                Ok(x.to_vec())
            }
            Op::RouterSoftmax => {
                rank(x, 3, "router logits")?;
                Ok(x.to_vec())
            }
            Op::TopK { k } => {
                rank(x, 3, "router probabilities")?;
                need(*k >= 1 && *k <= x[2], || {
                    format!("top-{k} of {} experts: k must be 1 to {}", x[2], x[2])
                })?;
                Ok(vec![x[0], x[1], *k])
            }
            Op::RouteWeights => {
                let ids = ins.get(1).copied().unwrap_or(&[]);
                rank(x, 3, "router probabilities")?;
                rank(ids, 3, "expert ids")?;
                need(ids[..2] == x[..2] && ids[2] <= x[2], || {
                    format!(
                        "expert ids {} do not index probabilities {}",
                        fmt_shape(ids),
                        fmt_shape(x)
                    )
                })?;
                Ok(ids.to_vec())
            }
            Op::Dispatch { capacity, .. } => {
                routed(x, ins.get(1).copied().unwrap_or(&[]))?;
                let tokens = x[0] * x[1];
                Ok(vec![capacity.map_or(tokens, |c| c.min(tokens)), x[2]])
            }
            Op::Combine { packed: true, .. } => {
                let w = ins.get(1).copied().unwrap_or(&[]);
                let y = ins.get(2).copied().unwrap_or(&[]);
                rank(x, 3, "expert ids")?;
                let routes = x[0] * x[1] * x[2];
                need(w == x && y.len() == 2 && y[0] == routes, || {
                    format!(
                        "weights {} and the experts' rows {} do not fit expert ids {} ({routes} routes)",
                        fmt_shape(w),
                        fmt_shape(y),
                        fmt_shape(x)
                    )
                })?;
                Ok(vec![x[0], x[1], y[1]])
            }
            Op::Combine { .. } => {
                let w = ins.get(1).copied().unwrap_or(&[]);
                rank(x, 3, "expert ids")?;
                need(w == x, || {
                    format!(
                        "route weights {} and expert ids {} differ",
                        fmt_shape(w),
                        fmt_shape(x)
                    )
                })?;
                let ys = ins.get(2..).unwrap_or(&[]);
                need(!ys.is_empty(), || {
                    "combine needs one output per expert".into()
                })?;
                let d = ys[0].last().copied().unwrap_or(0);
                for y in ys {
                    need(y.len() == 2 && y[1] == d && y[0] <= x[0] * x[1], || {
                        format!(
                            "an expert's output {} is not (n_e ≤ {}, d = {d})",
                            fmt_shape(y),
                            x[0] * x[1]
                        )
                    })?;
                }
                Ok(vec![x[0], x[1], d])
            }
            Op::AllReduce { .. } => {
                bias_fits(x, ins.get(1).copied())?;
                Ok(x.to_vec())
            }
            Op::AllToAll {
                devices,
                route: Route::Dispatch { .. },
            } => {
                routed(x, ins.get(1).copied().unwrap_or(&[]))?;
                // Each of the N devices' b·T tokens chose the expert at most
                // once: the bound; the data's count arrives with the rows.
                Ok(vec![devices * x[0] * x[1], x[2]])
            }
            Op::AllToAll {
                route: Route::Return { rows, .. },
                ..
            } => {
                rank(x, 3, "expert ids")?;
                let ys = ins.get(1..).unwrap_or(&[]);
                need(
                    !ys.is_empty() && (rows.is_empty() || rows.len() == ys.len()),
                    || {
                        format!(
                            "the return needs one output per expert of this device, got {}",
                            ys.len()
                        )
                    },
                )?;
                let d = ys[0].last().copied().unwrap_or(0);
                for y in ys {
                    need(y.len() == 2 && y[1] == d, || {
                        format!("an expert's output {} is not (n_e, d = {d})", fmt_shape(y))
                    })?;
                }
                Ok(vec![x[0] * x[1] * x[2], d])
            }
            Op::Pad { axis, to } => {
                need(x.get(*axis).is_some_and(|n| n <= to), || {
                    format!("{} has no axis {axis} of at most {to} to pad", fmt_shape(x))
                })?;
                let mut out = x.to_vec();
                out[*axis] = *to;
                Ok(out)
            }
            // Point to point: what is sent is what arrives.
            Op::Send { .. } | Op::Recv { .. } => Ok(x.to_vec()),
            Op::AllGather { devices, axis } => {
                need(*axis < x.len(), || {
                    format!("{} has no axis {axis} to gather along", fmt_shape(x))
                })?;
                let mut out = x.to_vec();
                out[*axis] *= devices;
                Ok(out)
            }
            Op::ReduceScatter {
                devices,
                axis,
                rank,
            }
            | Op::Scatter {
                devices,
                axis,
                rank,
            } => {
                bias_fits(x, ins.get(1).copied())?;
                let n = x.get(*axis).copied();
                need(
                    *devices > 0
                        && *rank < *devices
                        && n.is_some_and(|n| n.is_multiple_of(*devices)),
                    || {
                        format!(
                            "axis {axis} of {} does not split into {devices} equal slices",
                            fmt_shape(x)
                        )
                    },
                )?;
                let mut out = x.to_vec();
                out[*axis] /= devices;
                Ok(out)
            }
        }
    }

    /// The output's axes, from the input axes.
    #[must_use]
    pub fn axes(&self, ins: &[&[Axis]]) -> Vec<Axis> {
        let x = ins.first().copied().unwrap_or(&[]);
        let at = |v: &[Axis], i: usize| v.get(i).cloned().unwrap_or(Axis::Unknown);
        match self {
            Op::Linear => {
                let mut out = x.to_vec();
                if let (Some(last), Some(w)) = (out.last_mut(), ins.get(1)) {
                    *last = at(w, 1);
                }
                out
            }
            Op::SplitHeads { axis, .. } => vec![at(x, 0), axis.clone(), at(x, 1), Axis::HeadDim],
            Op::RepeatKv { heads, .. } => vec![at(x, 0), heads.clone(), at(x, 2), at(x, 3)],
            // Query and key positions are two axes: (B, h, Tq, Tk).
            // A decode step's keys are a cache's S positions: Tk all the same.
            Op::Scores { .. } => {
                let k = ins.get(1).copied().unwrap_or(&[]);
                let (tq, tk) = match (at(x, 2), at(k, 2)) {
                    (Axis::Seq, Axis::Seq | Axis::Cached) => (Axis::Query, Axis::Key),
                    pair => pair,
                };
                vec![at(x, 0), at(x, 1), tq, tk]
            }
            // The key axis is summed away; the query positions are T again.
            Op::WeightedSum => {
                let v = ins.get(1).copied().unwrap_or(&[]);
                let t = match at(x, 2) {
                    Axis::Query => Axis::Seq,
                    t => t,
                };
                vec![at(x, 0), at(x, 1), t, at(v, 3)]
            }
            Op::MergeHeads(_) => vec![at(x, 0), at(x, 2), Axis::Model],
            Op::Gather | Op::GatherPart { .. } => {
                let w = ins.get(1).copied().unwrap_or(&[]);
                vec![at(x, 0), at(x, 1), at(w, 1)]
            }
            Op::Positions { .. } => {
                let ids = ins.get(1).copied().unwrap_or(&[]);
                vec![at(ids, 1), at(x, 1)]
            }
            // The new rows' positions join the cached ones: S.
            Op::KvCache { .. } => {
                let new = ins.last().copied().unwrap_or(&[]);
                vec![at(new, 0), at(new, 1), Axis::Cached, at(new, 3)]
            }
            Op::LmHead { tied } => {
                let w = ins.get(1).copied().unwrap_or(&[]);
                let mut out = x.to_vec();
                if let Some(last) = out.last_mut() {
                    *last = at(w, usize::from(!*tied));
                }
                out
            }
            Op::TopK { .. } => vec![at(x, 0), at(x, 1), Axis::Chosen],
            Op::TokenType { .. } => {
                let ids = ins.get(1).copied().unwrap_or(&[]);
                vec![at(ids, 0), at(ids, 1), at(x, 1)]
            }
            Op::FirstToken => vec![at(x, 0), at(x, 2)],
            Op::Columns { axis, .. } => {
                let mut out = x.to_vec();
                if let Some(last) = out.last_mut() {
                    last.clone_from(axis);
                }
                out
            }
            Op::RouteWeights => ins.get(1).map_or_else(Vec::new, |ids| ids.to_vec()),
            Op::Dispatch { .. }
            | Op::AllToAll {
                route: Route::Dispatch { .. },
                ..
            } => vec![Axis::Routed, at(x, 2)],
            // Every route of this device's tokens: b·T·k rows.
            Op::AllToAll {
                route: Route::Return { .. },
                ..
            } => {
                let y = ins.get(1).copied().unwrap_or(&[]);
                vec![Axis::Product(vec![at(x, 0), at(x, 1), at(x, 2)]), at(y, 1)]
            }
            Op::Combine { .. } => {
                let y = ins.get(2).copied().unwrap_or(&[]);
                vec![at(x, 0), at(x, 1), at(y, 1)]
            }
            // A gathered axis is whole again: T/N → T.
            Op::AllGather { devices, axis } => {
                let mut out = x.to_vec();
                if let Some(a) = out.get_mut(*axis) {
                    *a = match &*a {
                        Axis::Fraction { of, by } if by == devices => (**of).clone(),
                        a => Axis::Multiple {
                            times: *devices,
                            of: Box::new(a.clone()),
                        },
                    };
                }
                out
            }
            // A split axis is a fraction: T → T/N.
            Op::ReduceScatter { devices, axis, .. } | Op::Scatter { devices, axis, .. } => {
                let mut out = x.to_vec();
                if let Some(a) = out.get_mut(*axis) {
                    *a = a.split(*devices);
                }
                out
            }
            _ => x.to_vec(),
        }
    }
}

/// A dispatch's operands: x (B, T, d) and expert ids (B, T, k), one row
/// of ids per token.
fn routed(x: &[usize], ids: &[usize]) -> Result<(), OpError> {
    rank(x, 3, "dispatch input")?;
    rank(ids, 3, "expert ids")?;
    need(ids[..2] == x[..2], || {
        format!(
            "expert ids {} are not one row per token of {}",
            fmt_shape(ids),
            fmt_shape(x)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::axes;

    /// q's and k's positions T become the scores' (Tq, Tk); the weighted
    /// sum gives the queries' T back; a dispatch counts the expert's rows.
    #[test]
    fn the_scores_name_queries_and_keys_and_the_sum_gives_t_back() {
        let qk = axes(&["B", "h", "T", "hd"]);
        let scores = Op::Scores { head_dim: 16 }.axes(&[&qk, &qk]);
        assert_eq!(scores, axes(&["B", "h", "Tq", "Tk"]));
        let v = axes(&["B", "h", "T", "hd"]);
        assert_eq!(Op::WeightedSum.axes(&[&scores, &v]), v);
        // Positions already told apart are kept.
        let cached = axes(&["B", "h", "Tk", "hd"]);
        assert_eq!(
            Op::Scores { head_dim: 16 }.axes(&[&qk, &cached])[2..],
            [Axis::Seq, Axis::Key]
        );
        let x = axes(&["B", "T", "d"]);
        let ids = axes(&["B", "T", "k"]);
        let op = Op::Dispatch {
            expert: 0,
            capacity: None,
        };
        assert_eq!(op.axes(&[&x, &ids]), [Axis::Routed, Axis::Model]);
        let merged = Op::MergeHeads(Merge::Transpose).axes(&[&v]);
        assert_eq!(merged, axes(&["B", "T", "d"]));
    }
}
