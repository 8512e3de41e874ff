//! One backward per op: given the op's operands, its output y and dL/dy,
//! the gradient of the loss with respect to each operand, each of its
//! operand's shape. Every rule is the chain rule written out, in f64.
//!
//! # Shapes (the lesson model's, B 2, T 4, d 64, h 4, hd 16, ff 256)
//! - linear: x (2,4,64), W (64,256), dy (2,4,256) → dx (2,4,64), dW (64,256), db (256)
//! - scores: q, k (2,4,4,16), ds (2,4,4,4) → dq, dk (2,4,4,16)
//! - softmax: w, dw (2,4,4,4) → ds (2,4,4,4)
//! - weighted sum: w (2,4,4,4), v (2,4,4,16), dc (2,4,4,16) → dw, dv

use crate::config::NormKind;
use crate::ops::numeric::{Numeric, Scalar, Tensor};
use crate::ops::{Backend, Merge, NormAxis, Op, Unary};
use ndarray::{Array2, ArrayD, ArrayView2, Axis, Ix2, IxDyn, s};

/// The wrong backward a teaching fault builds in place of the right one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wrongs {
    /// A tied LM head's weight gets no gradient from the head
    /// (`grad-tied-once`): wte's gradient is the embedding's alone.
    pub tied_once: bool,
    /// The softmax's backward leaves out the row's weighted sum
    /// (`softmax-grad-no-sub`): ds = w ⊙ dw instead of w ⊙ (dw − Σ w·dw).
    pub softmax_no_sub: bool,
}

/// dL/d(operand) for each operand of `op` on `ins` that gave `y`, from
/// `dy` = dL/dy; `None` for an operand with no gradient (token ids).
#[must_use]
pub fn backward(
    op: &Op,
    ins: &[&ArrayD<f64>],
    y: &ArrayD<f64>,
    dy: &ArrayD<f64>,
    wrong: Wrongs,
) -> Vec<Option<ArrayD<f64>>> {
    let some = |v: Vec<ArrayD<f64>>| v.into_iter().map(Some).collect();
    match op {
        // y = x·W + b: dx = dy·Wᵀ, dW = xᵀ·dy and db = Σ dy, summed over every row.
        Op::Linear => {
            let (x, w) = (rows(ins[0]), as2(ins[1]));
            let d = rows(dy);
            let mut out = vec![
                unrows(&d.dot(&w.t()), ins[0].shape()),
                x.t().dot(&d).into_dyn(),
            ];
            if ins.len() > 2 {
                out.push(d.sum_axis(Axis(0)).into_dyn());
            }
            some(out)
        }
        Op::Norm { kind, axis, eps } => some(norm(*kind, *axis, *eps, ins, dy)),
        // A split, a merge, a reshape: the same values moved, the gradient moved back.
        Op::SplitHeads { .. } => some(vec![merge(dy)]),
        Op::MergeHeads(Merge::Transpose) => some(vec![split(dy, ins[0].shape())]),
        Op::MergeHeads(Merge::BareReshape) => some(vec![reshape(dy, ins[0].shape())]),
        // Query head i read K/V head i / rep: each K/V head sums its copies' gradients.
        Op::RepeatKv { rep, .. } => {
            let mut dx = ArrayD::zeros(ins[0].shape());
            for h in 0..dy.shape()[1] {
                let mut g = dx.slice_mut(s![.., h / rep, .., ..]);
                g += &dy.slice(s![.., h, .., ..]);
            }
            some(vec![dx])
        }
        Op::Rope { .. } => some(vec![rope(op, dy)]),
        // s = q·kᵀ/√hd: dq = ds·k/√hd, dk = dsᵀ·q/√hd, head by head.
        Op::Scores { head_dim } => {
            #[allow(clippy::cast_precision_loss)]
            let scale = 1.0 / (*head_dim as f64).sqrt();
            let (q, k) = (ins[0], ins[1]);
            let dq = per_head(q.shape(), |b, h| head(dy, b, h).dot(&head(k, b, h)) * scale);
            let dk = per_head(k.shape(), |b, h| {
                head(dy, b, h).t().dot(&head(q, b, h)) * scale
            });
            some(vec![dq, dk])
        }
        // A constant added (ALiBi's penalty), a dtype changed: dx = dy.
        Op::Alibi | Op::Cast { .. } => some(vec![dy.clone()]),
        // y = c·tanh(x/c): dx = dy·(1 − (y/c)²).
        Op::SoftCap { cap } => some(vec![dy * &y.mapv(|v| 1.0 - (v / cap) * (v / cap))]),
        Op::Scale { by } => some(vec![dy * *by]),
        // w = softmax(s): ds = w ⊙ (dw − Σⱼ wⱼ·dwⱼ), row by row. A
        // masked key has w = 0, so no gradient reaches its score.
        Op::Softmax { .. } | Op::SoftmaxNoMax { .. } | Op::RouterSoftmax => {
            let weighted = (y * dy)
                .sum_axis(Axis(y.ndim() - 1))
                .insert_axis(Axis(y.ndim() - 1));
            let ds = if wrong.softmax_no_sub {
                y * dy
            } else {
                y * &(dy - &weighted)
            };
            some(vec![ds])
        }
        // c = w·v: dw = dc·vᵀ, dv = wᵀ·dc, head by head.
        Op::WeightedSum => {
            let (w, v) = (ins[0], ins[1]);
            let dw = per_head(w.shape(), |b, h| head(dy, b, h).dot(&head(v, b, h).t()));
            let dv = per_head(v.shape(), |b, h| head(w, b, h).t().dot(&head(dy, b, h)));
            some(vec![dw, dv])
        }
        // y = act(x): dx = dy·act′(x).
        Op::Act(u) => some(vec![dy * &ins[0].mapv(|x| act_slope(*u, x))]),
        // y = act(g) ⊙ u: dg = dy ⊙ u ⊙ act′(g), du = dy ⊙ act(g).
        Op::SwiGlu | Op::GeGlu => {
            let act = if *op == Op::SwiGlu {
                Unary::Silu
            } else {
                Unary::GeluTanh
            };
            let (g, u) = (ins[0], ins[1]);
            let dg = dy * u * &g.mapv(|x| act_slope(act, x));
            let du = dy * &g.mapv(|x| act_value(act, x));
            some(vec![dg, du])
        }
        // y = a + b: each operand gets dy (tok_emb + pos_emb sums over B).
        Op::Add => some(vec![dy.clone(), dy.clone()]),
        Op::AddPositions => some(vec![dy.clone(), dy.sum_axis(Axis(0))]),
        // x = wte[ids]: each token's row of dwte gathers its dx.
        Op::Gather => {
            let (ids, table) = (ins[0], ins[1]);
            let mut dw = ArrayD::zeros(table.shape());
            for ((b, t), id) in ids_of(ids) {
                let mut row = dw.index_axis_mut(Axis(0), id);
                row += &dy.slice(s![b, t, ..]);
            }
            vec![None, Some(dw)]
        }
        // pos = wpe[o + start .. o + start + T]: row o + start + t gets dpos[t].
        Op::Positions { offset, start } => {
            let mut dw = ArrayD::zeros(ins[0].shape());
            for t in 0..dy.shape()[0] {
                let mut row = dw.index_axis_mut(Axis(0), offset + start + t);
                row += &dy.index_axis(Axis(0), t);
            }
            vec![Some(dw), None]
        }
        // Every token reads row `id` of wtt: it gets Σ over B and T.
        Op::TokenType { id } => {
            let mut dw = ArrayD::zeros(ins[0].shape());
            let mut row = dw.index_axis_mut(Axis(0), *id);
            row += &rows(dy).sum_axis(Axis(0));
            vec![Some(dw), None]
        }
        // y = x[:, 0]: only the first token gets a gradient.
        Op::FirstToken => {
            let mut dx = ArrayD::zeros(ins[0].shape());
            dx.index_axis_mut(Axis(1), 0).assign(dy);
            some(vec![dx])
        }
        // z = x·wteᵀ (tied): dx = dz·wte, dwte = dzᵀ·x; untied z = x·W:
        // dx = dz·Wᵀ, dW = xᵀ·dz. Both summed over every row B·T.
        Op::LmHead { tied } => {
            let (x, w) = (rows(ins[0]), as2(ins[1]));
            let d = rows(dy);
            let (dx, dw) = if *tied {
                (d.dot(&w), d.t().dot(&x))
            } else {
                (d.dot(&w.t()), x.t().dot(&d))
            };
            // grad-tied-once: the head's share of wte's gradient is lost.
            let dw = if *tied && wrong.tied_once {
                dw * 0.0
            } else {
                dw
            };
            some(vec![unrows(&dx, ins[0].shape()), dw.into_dyn()])
        }
        // y = columns lo..hi of every period: dx holds dy there, 0 elsewhere.
        Op::Columns { lo, hi, period, .. } => {
            let mut dx = ArrayD::zeros(ins[0].shape());
            let (width, last) = (hi - lo, ins[0].ndim() - 1);
            for (j, col) in dy.axis_iter(Axis(last)).enumerate() {
                let at = (j / width) * period + lo + j % width;
                dx.index_axis_mut(Axis(last), at).assign(&col);
            }
            some(vec![dx])
        }
        // Data-dependent routing, the decode cache and the devices'
        // communication have no backward here: validation refuses
        // `--backward` on them.
        Op::TopK { .. }
        | Op::RouteWeights
        | Op::Dispatch { .. }
        | Op::Combine { .. }
        | Op::KvCache { .. }
        | Op::AllReduce { .. }
        | Op::AllToAll { .. }
        | Op::AllGather { .. }
        | Op::ReduceScatter { .. }
        | Op::Scatter { .. }
        | Op::Send { .. }
        | Op::GatherPart { .. }
        | Op::Pad { .. }
        | Op::Recv { .. } => vec![None; ins.len()],
    }
}

/// LayerNorm x̂ = (x − μ)/σ, y = x̂·γ + β; RMSNorm x̂ = x/rms, y = x̂·γ
/// (Gemma's x̂·(1 + w)). With dx̂ = dy·γ:
/// - LayerNorm: dx = (dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)) / σ
/// - RMSNorm:   dx = (dx̂ − x̂·mean(dx̂·x̂)) / rms
///
/// the means over the normalised axis; dγ = Σ dy·x̂, dβ = Σ dy over every
/// row.
fn norm(
    kind: NormKind,
    axis: NormAxis,
    eps: f64,
    ins: &[&ArrayD<f64>],
    dy: &ArrayD<f64>,
) -> Vec<ArrayD<f64>> {
    let (x, gamma) = (ins[0], ins[1]);
    let over = Axis(match axis {
        NormAxis::Feature => x.ndim() - 1,
        NormAxis::Seq => 1,
        NormAxis::Batch => 0,
    });
    let centred = kind == NormKind::LayerNorm;
    let scale = if kind == NormKind::RmsNormPlusOne {
        gamma.mapv(|w| 1.0 + w)
    } else {
        gamma.to_owned()
    };
    let mut xhat = x.clone();
    let mut dx = dy * &scale;
    for (mut xl, mut dl) in xhat.lanes_mut(over).into_iter().zip(dx.lanes_mut(over)) {
        #[allow(clippy::cast_precision_loss)]
        let n = xl.len() as f64;
        let mu = if centred { xl.sum() / n } else { 0.0 };
        xl.mapv_inplace(|v| v - mu);
        let sigma = (xl.iter().map(|v| v * v).sum::<f64>() / n + eps).sqrt();
        xl.mapv_inplace(|v| v / sigma);
        // dl holds dx̂ = dy·γ for this lane; it becomes dx.
        let mean_d = if centred { dl.sum() / n } else { 0.0 };
        let mean_dx = dl.iter().zip(xl.iter()).map(|(d, h)| d * h).sum::<f64>() / n;
        for (d, h) in dl.iter_mut().zip(xl.iter()) {
            *d = (*d - mean_d - h * mean_dx) / sigma;
        }
    }
    let mut out = vec![dx, rows(&(dy * &xhat)).sum_axis(Axis(0)).into_dyn()];
    if ins.len() > 2 {
        out.push(rows(dy).sum_axis(Axis(0)).into_dyn());
    }
    out
}

/// Rotary positions turn each pair (xᵢ, xᵢ₊ₕ) by its angle: y = R·x with
/// R orthogonal, so dx = Rᵀ·dy, the turn undone. cos and sin are read off
/// the op itself, by turning the unit pair (1, 0): it lands on (cos, sin).
fn rope(op: &Op, dy: &ArrayD<f64>) -> ArrayD<f64> {
    let (t, hd) = (dy.shape()[2], dy.shape()[3]);
    let dims = match op {
        Op::Rope { dims, .. } => *dims,
        _ => hd,
    };
    let half = dims / 2;
    let mut unit = ArrayD::<f64>::zeros(IxDyn(&[1, 1, t, hd]));
    unit.slice_mut(s![.., .., .., ..half]).fill(1.0);
    let turned = Numeric::<f64>::new()
        .apply(op, &[&Tensor::Owned(unit)])
        .map(Tensor::into_array)
        .unwrap_or_else(|_| ArrayD::zeros(IxDyn(&[1, 1, t, hd])));
    let mut dx = dy.clone();
    for p in 0..t {
        for i in 0..half {
            let (c, sn) = (turned[[0, 0, p, i]], turned[[0, 0, p, i + half]]);
            // y₁ = x₁·c − x₂·s, y₂ = x₂·c + x₁·s  ⇒  dx₁ = dy₁·c + dy₂·s, dx₂ = dy₂·c − dy₁·s
            let (d1, d2) = (
                dy.slice(s![.., .., p, i]).to_owned(),
                dy.slice(s![.., .., p, i + half]).to_owned(),
            );
            dx.slice_mut(s![.., .., p, i]).assign(&(&d1 * c + &d2 * sn));
            dx.slice_mut(s![.., .., p, i + half])
                .assign(&(&d2 * c - &d1 * sn));
        }
    }
    dx
}

/// act′(x).
fn act_slope(u: Unary, x: f64) -> f64 {
    match u {
        Unary::Relu => f64::from(u8::from(x > 0.0)),
        // x·Φ(x): Φ(x) + x·φ(x).
        Unary::Gelu => {
            let phi = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
            0.5 * (1.0 + Scalar::erf(x / std::f64::consts::SQRT_2)) + x * phi
        }
        // ½x(1 + tanh(u)), u = √(2/π)(x + 0.044715x³).
        Unary::GeluTanh => {
            let k = (2.0 / std::f64::consts::PI).sqrt();
            let th = (k * (x + 0.044_715 * x * x * x)).tanh();
            0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * k * (1.0 + 3.0 * 0.044_715 * x * x)
        }
        // x·σ(x): σ(x)·(1 + x·(1 − σ(x))).
        Unary::Silu => {
            let sg = 1.0 / (1.0 + (-x).exp());
            sg * (1.0 + x * (1.0 - sg))
        }
        Unary::Tanh => 1.0 - x.tanh() * x.tanh(),
    }
}

/// act(x), for a gated MLP's up branch.
fn act_value(u: Unary, x: f64) -> f64 {
    match u {
        Unary::Silu => x / (1.0 + (-x).exp()),
        Unary::GeluTanh => {
            let k = (2.0 / std::f64::consts::PI).sqrt();
            0.5 * x * (1.0 + (k * (x + 0.044_715 * x * x * x)).tanh())
        }
        Unary::Relu => x.max(0.0),
        Unary::Gelu => 0.5 * x * (1.0 + Scalar::erf(x / std::f64::consts::SQRT_2)),
        Unary::Tanh => x.tanh(),
    }
}

/// The token ids of a (B, T) tensor, with their place.
fn ids_of(ids: &ArrayD<f64>) -> Vec<((usize, usize), usize)> {
    ids.indexed_iter()
        .map(|(i, &v)| {
            // Ids are whole numbers in 0..V, exact in f64.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let id = v as usize;
            ((i[0], i[1]), id)
        })
        .collect()
}

/// (…, n) as (rows, n): every leading axis is a row.
fn rows(a: &ArrayD<f64>) -> Array2<f64> {
    let n = a.shape().last().copied().unwrap_or(1);
    let r = a.len() / n.max(1);
    a.to_owned()
        .into_shape_with_order((r, n))
        .unwrap_or_else(|_| Array2::zeros((r, n)))
}

/// (rows, n) back to `shape`.
fn unrows(a: &Array2<f64>, shape: &[usize]) -> ArrayD<f64> {
    reshape(&a.clone().into_dyn(), shape)
}

/// A 2-D parameter as a matrix.
fn as2(a: &ArrayD<f64>) -> ArrayView2<'_, f64> {
    a.view()
        .into_dimensionality::<Ix2>()
        .expect("a weight is 2-D: the op accepted its shapes")
}

/// `a` laid out row-major in `shape` (same count).
fn reshape(a: &ArrayD<f64>, shape: &[usize]) -> ArrayD<f64> {
    ArrayD::from_shape_vec(IxDyn(shape), a.iter().copied().collect())
        .unwrap_or_else(|_| ArrayD::zeros(IxDyn(shape)))
}

/// (B, h, T, hd) → (B, T, h·hd): heads side by side.
fn merge(a: &ArrayD<f64>) -> ArrayD<f64> {
    let s = a.shape().to_vec();
    let moved = a.view().permuted_axes(IxDyn(&[0, 2, 1, 3]));
    reshape(&moved.to_owned(), &[s[0], s[2], s[1] * s[3]])
}

/// (B, T, h·hd) → (B, h, T, hd), for `to` = (B, h, T, hd).
fn split(a: &ArrayD<f64>, to: &[usize]) -> ArrayD<f64> {
    let heads = reshape(a, &[to[0], to[2], to[1], to[3]]);
    heads
        .permuted_axes(IxDyn(&[0, 2, 1, 3]))
        .as_standard_layout()
        .to_owned()
}

/// Head (b, h) of a (B, h, T, ·) tensor, as a matrix.
fn head(a: &ArrayD<f64>, b: usize, h: usize) -> ArrayView2<'_, f64> {
    a.slice(s![b, h, .., ..])
}

/// A (B, h, ·, ·) tensor of `shape` made head by head.
fn per_head(shape: &[usize], f: impl Fn(usize, usize) -> Array2<f64>) -> ArrayD<f64> {
    let mut out = ArrayD::zeros(IxDyn(shape));
    for b in 0..shape[0] {
        for h in 0..shape[1] {
            out.slice_mut(s![b, h, .., ..]).assign(&f(b, h));
        }
    }
    out
}
