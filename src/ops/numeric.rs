//! The numeric backend: every op on ndarray arrays of f32 or f64.
//!
//! Shapes are checked by [`Op::infer`] before any array is touched, so the
//! array code below never meets shapes it cannot handle.

use super::{Backend, Init, Merge, NormAxis, Op, OpError, PREVIEW_MAX, Stats, Unary};
use crate::config::{DType, NormKind};
use ndarray::{
    Array2, ArrayBase, ArrayD, ArrayView2, Axis, Data, Ix1, Ix2, IxDyn, LinalgScalar,
    ScalarOperand, Zip, s,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use std::marker::PhantomData;

/// An element type the numeric backend runs in.
pub trait Scalar:
    LinalgScalar
    + ScalarOperand
    + num_traits::Float
    + num_traits::FromPrimitive
    + std::ops::AddAssign
    + std::ops::MulAssign
    + Send
    + Sync
    + std::fmt::Debug
{
    const DTYPE: DType;
    fn erf(self) -> Self;
    fn of(v: f64) -> Self;
    fn f64(self) -> f64;
}

impl Scalar for f32 {
    const DTYPE: DType = DType::F32;
    fn erf(self) -> Self {
        libm::erff(self)
    }
    #[allow(clippy::cast_possible_truncation)]
    fn of(v: f64) -> Self {
        v as f32
    }
    fn f64(self) -> f64 {
        f64::from(self)
    }
}

impl Scalar for f64 {
    const DTYPE: DType = DType::F64;
    fn erf(self) -> Self {
        libm::erf(self)
    }
    fn of(v: f64) -> Self {
        v
    }
    fn f64(self) -> f64 {
        self
    }
}

/// Runs ops on `ArrayD<F>`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Numeric<F>(PhantomData<F>);

impl<F: Scalar> Numeric<F> {
    #[must_use]
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

// Shapes reaching the helpers below were accepted by `Op::infer`, so the
// reshapes cannot fail; `expect` states that invariant.
const CHECKED: &str = "shape checked by Op::infer";

/// Row-major copy of `a` in `shape` (same number of elements).
fn relayout<F: Scalar, S: Data<Elem = F>>(a: &ArrayBase<S, IxDyn>, shape: &[usize]) -> ArrayD<F> {
    let v: Vec<F> = a.iter().copied().collect();
    ArrayD::from_shape_vec(IxDyn(shape), v).expect(CHECKED)
}

/// x (…, k) · W (k, n) + b (n) → (…, n), as one (rows, k) · (k, n) product.
fn linear<F: Scalar>(
    x: &ArrayD<F>,
    w: &ArrayD<F>,
    b: Option<&ArrayD<F>>,
    out: &[usize],
) -> ArrayD<F> {
    let k = w.shape()[0];
    let x2 = x.to_shape((x.len() / k.max(1), k)).expect(CHECKED);
    let w2 = w.view().into_dimensionality::<Ix2>().expect(CHECKED);
    let mut y = x2.dot(&w2);
    if let Some(b) = b {
        y += &b.view().into_dimensionality::<Ix1>().expect(CHECKED);
    }
    y.into_dyn()
        .into_shape_with_order(IxDyn(out))
        .expect(CHECKED)
}

fn norm<F: Scalar>(
    x: &ArrayD<F>,
    kind: NormKind,
    axis: NormAxis,
    eps: f64,
    g: &ArrayD<F>,
    b: Option<&ArrayD<F>>,
) -> ArrayD<F> {
    let mut y = x.to_owned();
    let ax = match axis {
        NormAxis::Feature => Axis(2),
        NormAxis::Seq => Axis(1),
    };
    let eps = F::of(eps);
    for mut lane in y.lanes_mut(ax) {
        let n = F::of(lane.len() as f64);
        match kind {
            NormKind::LayerNorm => {
                let mean = lane.sum() / n;
                let var = lane
                    .iter()
                    .map(|&v| (v - mean) * (v - mean))
                    .fold(F::zero(), |a, v| a + v)
                    / n;
                let inv = (var + eps).sqrt().recip();
                lane.mapv_inplace(|v| (v - mean) * inv);
            }
            NormKind::RmsNorm => {
                let ms = lane.iter().map(|&v| v * v).fold(F::zero(), |a, v| a + v) / n;
                let inv = (ms + eps).sqrt().recip();
                lane.mapv_inplace(|v| v * inv);
            }
        }
    }
    let g = g.view().into_dimensionality::<Ix1>().expect(CHECKED);
    let b = b.map(|b| b.view().into_dimensionality::<Ix1>().expect(CHECKED));
    for mut row in y.lanes_mut(Axis(2)) {
        Zip::from(&mut row).and(&g).for_each(|v, &g| *v *= g);
        if let Some(b) = &b {
            Zip::from(&mut row).and(b).for_each(|v, &b| *v += b);
        }
    }
    y
}

/// Applies `f(a[b,h], c[b,h])` for every batch and head of rank-4 arrays.
fn per_head<F: Scalar>(
    a: &ArrayD<F>,
    c: &ArrayD<F>,
    out: &[usize],
    f: impl Fn(ArrayView2<F>, ArrayView2<F>) -> Array2<F>,
) -> ArrayD<F> {
    let mut y = ArrayD::zeros(IxDyn(out));
    for bi in 0..out[0] {
        for hi in 0..out[1] {
            let ai = a.slice(s![bi, hi, .., ..]);
            let ci = c.slice(s![bi, hi, .., ..]);
            y.slice_mut(s![bi, hi, .., ..]).assign(&f(ai, ci));
        }
    }
    y
}

fn softmax<F: Scalar>(x: &ArrayD<F>, causal: bool) -> ArrayD<F> {
    let mut y = x.to_owned();
    let nd = y.ndim();
    for (i, mut row) in y.lanes_mut(Axis(nd - 1)).into_iter().enumerate() {
        // Row i of a (…, T, S) tensor is query position i % T.
        let t = i % x.shape()[nd - 2];
        let keep = |j: usize| !causal || j <= t;
        let max = row
            .iter()
            .enumerate()
            .filter(|(j, _)| keep(*j))
            .map(|(_, v)| *v)
            .fold(F::neg_infinity(), F::max);
        let mut sum = F::zero();
        for (j, v) in row.iter_mut().enumerate() {
            *v = if keep(j) { (*v - max).exp() } else { F::zero() };
            sum += *v;
        }
        row.mapv_inplace(|v| v / sum);
    }
    y
}

fn unary<F: Scalar>(u: Unary, v: F) -> F {
    let half = F::of(0.5);
    let one = F::one();
    match u {
        Unary::Relu => v.max(F::zero()),
        Unary::Gelu => half * v * (one + (v * F::of(std::f64::consts::FRAC_1_SQRT_2)).erf()),
        Unary::GeluTanh => {
            let c = F::of((2.0 / std::f64::consts::PI).sqrt());
            half * v * (one + (c * (v + F::of(0.044_715) * v * v * v)).tanh())
        }
    }
}

fn silu<F: Scalar>(v: F) -> F {
    v / (F::one() + (-v).exp())
}

impl<F: Scalar> Backend for Numeric<F> {
    const NUMERIC: bool = true;
    type Tensor = ArrayD<F>;

    fn dtype(&self) -> DType {
        F::DTYPE
    }

    fn shape(t: &ArrayD<F>) -> &[usize] {
        t.shape()
    }

    fn param(&self, shape: &[usize], init: Init, seed: u64) -> ArrayD<F> {
        match init {
            Init::Const(c) => ArrayD::from_elem(IxDyn(shape), F::of(c)),
            Init::Normal(std) => {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                ArrayD::from_shape_simple_fn(IxDyn(shape), || {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    F::of(z * std)
                })
            }
        }
    }

    fn normal(&self, shape: &[usize], seed: u64) -> ArrayD<F> {
        self.param(shape, Init::Normal(1.0), seed)
    }

    fn apply(&self, op: &Op, ins: &[&ArrayD<F>]) -> Result<ArrayD<F>, OpError> {
        let shapes: Vec<&[usize]> = ins.iter().map(|t| t.shape()).collect();
        let out = op.infer(&shapes)?;
        let x = ins[0];
        Ok(match op {
            Op::Linear => linear(x, ins[1], ins.get(2).copied(), &out),
            Op::Norm { kind, axis, eps } => {
                norm(x, *kind, *axis, *eps, ins[1], ins.get(2).copied())
            }
            Op::SplitHeads { heads, .. } => {
                // (B,T,h·hd) → (B,T,h,hd) → (B,h,T,hd)
                let (b, t, hd) = (out[0], out[2], out[3]);
                let v = x.to_shape(IxDyn(&[b, t, *heads, hd])).expect(CHECKED);
                relayout(&v.view().permuted_axes(IxDyn(&[0, 2, 1, 3])), &out)
            }
            Op::RepeatKv { rep } => {
                let mut y = ArrayD::zeros(IxDyn(&out));
                for h in 0..out[1] {
                    y.slice_mut(s![.., h, .., ..])
                        .assign(&x.slice(s![.., h / rep, .., ..]));
                }
                y
            }
            Op::Scores { head_dim } => {
                let scale = F::of(1.0 / (*head_dim as f64).sqrt());
                per_head(x, ins[1], &out, |q, k| q.dot(&k.t()) * scale)
            }
            Op::Softmax { causal } => softmax(x, *causal),
            Op::WeightedSum => per_head(x, ins[1], &out, |w, v| w.dot(&v)),
            Op::MergeHeads(Merge::Transpose) => {
                // (B,h,T,hd) → (B,T,h,hd) → (B,T,h·hd)
                relayout(&x.view().permuted_axes(IxDyn(&[0, 2, 1, 3])), &out)
            }
            Op::MergeHeads(Merge::BareReshape) => relayout(x, &out),
            Op::Act(u) => x.mapv(|v| unary(*u, v)),
            Op::SwiGlu => {
                let mut y = x.mapv(silu);
                y *= ins[1];
                y
            }
            Op::Add => x + ins[1],
        })
    }

    fn summary(&self, t: &ArrayD<F>) -> Option<(Stats, Option<Vec<f64>>)> {
        let n = t.len().max(1) as f64;
        let (mut min, mut max, mut sum, mut finite) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, true);
        for v in t.iter().map(|v| v.f64()) {
            min = min.min(v);
            max = max.max(v);
            sum += v;
            finite &= v.is_finite();
        }
        let mean = sum / n;
        let var = t.iter().map(|v| (v.f64() - mean).powi(2)).sum::<f64>() / n;
        let preview = (t.len() <= PREVIEW_MAX).then(|| t.iter().map(|v| v.f64()).collect());
        Some((
            Stats {
                min,
                max,
                mean,
                std: var.sqrt(),
                finite,
            },
            preview,
        ))
    }

    fn values(&self, t: &ArrayD<F>) -> Option<Vec<f64>> {
        Some(t.iter().map(|v| v.f64()).collect())
    }
}
