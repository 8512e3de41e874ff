//! The domain ops every layer is written against, and the two backends
//! that run them: [`numeric::Numeric`] (ndarray) and [`shape::ShapeOnly`].
//!
//! Each [`Op`] knows its output shape ([`Op::infer`]), the names of its
//! output axes ([`Op::axes`]) and its formula with shape arithmetic
//! ([`Op::formula`]). Both backends call `infer` first, so a shape that one
//! backend refuses is refused by the other with the same message.

mod formula;
mod infer;
pub mod numeric;
pub mod shape;

pub use infer::OpError;

use crate::config::{DType, NormKind};

/// A tensor shape, outermost axis first.
pub type Shape = Vec<usize>;

/// Formats a shape as `(2,4,64)`.
#[must_use]
pub fn fmt_shape(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(ToString::to_string).collect();
    format!("({})", parts.join(","))
}

/// Which axis a norm averages over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NormAxis {
    /// The feature axis d: position-wise, as every real model.
    Feature,
    /// The sequence axis T: the `norm-over-seq` fault.
    Seq,
}

/// An element-wise non-linearity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unary {
    Relu,
    Gelu,
    GeluTanh,
}

/// How the heads are merged back into (B, T, d).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// (B,h,T,hd) → transpose → (B,T,h,hd) → reshape (B,T,h·hd).
    Transpose,
    /// A bare reshape of (B,h,T,hd): the `merge-no-transpose` fault.
    BareReshape,
}

/// One step of the forward pass.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// `x·W (+ b)`: x (…, k), W (k, n), b (n) → (…, n).
    Linear,
    /// A norm over one axis, then `γ (⊙ … + β)` on the features.
    Norm {
        kind: NormKind,
        axis: NormAxis,
        eps: f64,
    },
    /// (B, T, h·hd) → (B, h, T, hd).
    SplitHeads { heads: usize, axis: &'static str },
    /// (B, kv, T, hd) → (B, kv·rep, T, hd); query head i reads kv head i / rep.
    RepeatKv { rep: usize },
    /// Rotary position embedding, (B, h, T, hd) → (B, h, T, hd): at token t
    /// the pair (i, i + hd/2) turns by the angle t·θ^(−2i/hd), as LLaMA's
    /// `rotate_half`.
    Rope { theta: f64 },
    /// q (B,h,T,hd) · kᵀ (B,h,hd,S) / √hd → (B,h,T,S).
    Scores { head_dim: usize },
    /// Row softmax over the last axis, with the causal mask when `causal`.
    Softmax { causal: bool },
    /// weights (B,h,T,S) · v (B,h,S,hd) → (B,h,T,hd).
    WeightedSum,
    /// (B,h,T,hd) → (B,T,h·hd).
    MergeHeads(Merge),
    /// Element-wise activation.
    Act(Unary),
    /// silu(gate) ⊙ up, both (…, f).
    SwiGlu,
    /// The residual add: stream + update, same shapes.
    Add,
}

/// How a parameter is initialised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Init {
    /// N(0, std²).
    Normal(f64),
    /// Every element equal to this value.
    Const(f64),
}

/// Summary statistics of one tensor.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Stats {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub std: f64,
    pub finite: bool,
}

/// Largest tensor whose values a trace keeps, for heatmaps.
pub const PREVIEW_MAX: usize = 4096;

/// Runs ops on one kind of tensor.
pub trait Backend {
    /// The tensor type: an array, or only a shape.
    type Tensor: Clone;

    /// Whether tensors hold values (false for shape-only).
    const NUMERIC: bool;

    /// Element type of every tensor.
    fn dtype(&self) -> DType;

    /// The tensor's shape.
    fn shape(t: &Self::Tensor) -> &[usize];

    /// A parameter tensor, drawn from `seed`.
    fn param(&self, shape: &[usize], init: Init, seed: u64) -> Self::Tensor;

    /// A tensor holding loaded f32 values (only their shape, shape-only).
    fn load(&self, values: &ndarray::ArrayD<f32>) -> Self::Tensor;

    /// An input tensor of N(0, 1) values, drawn from `seed`.
    fn normal(&self, shape: &[usize], seed: u64) -> Self::Tensor;

    /// Runs one op; refuses shapes as [`Op::infer`] does.
    ///
    /// # Errors
    /// [`OpError`] when the operand shapes do not fit the op.
    fn apply(&self, op: &Op, ins: &[&Self::Tensor]) -> Result<Self::Tensor, OpError>;

    /// As [`Backend::apply`] with `x` handed over as the first operand, so
    /// an op that keeps its shape may compute into it.
    ///
    /// # Errors
    /// As [`Backend::apply`].
    fn apply_owned(
        &self,
        op: &Op,
        x: Self::Tensor,
        rest: &[&Self::Tensor],
    ) -> Result<Self::Tensor, OpError> {
        let mut ins = vec![&x];
        ins.extend_from_slice(rest);
        self.apply(op, &ins)
    }

    /// Attention's core, [`Op::Scores`] then [`Op::Softmax`] then
    /// [`Op::WeightedSum`], in one pass that builds no (B, h, T, S) tensor:
    /// the stats of the scores and of the weights, and the context.
    /// `None` where the backend computes them one op at a time (shapes
    /// only, or tensors small enough to keep their values). The operands'
    /// shapes were accepted by the three ops' `infer`.
    fn attention(
        &self,
        _q: &Self::Tensor,
        _k: &Self::Tensor,
        _v: &Self::Tensor,
        _head_dim: usize,
        _causal: bool,
    ) -> Option<(Stats, Stats, Self::Tensor)> {
        None
    }

    /// `act(x·W + b)`: [`Op::Linear`] and then [`Op::Act`], in one pass over
    /// the product that builds no pre-activation tensor: that tensor's
    /// stats, and the activated one. `None` where the backend runs the two
    /// ops one at a time (shapes only, or tensors small enough to keep
    /// their values). The operands' shapes were accepted by `Op::Linear`.
    fn linear_act(
        &self,
        _x: &Self::Tensor,
        _w: &Self::Tensor,
        _b: Option<&Self::Tensor>,
        _act: Unary,
    ) -> Option<(Stats, Self::Tensor)> {
        None
    }

    /// Summary stats and, for a tensor of at most [`PREVIEW_MAX`] values,
    /// the values in row-major order. `None` in shape-only mode.
    fn summary(&self, t: &Self::Tensor) -> Option<(Stats, Option<Vec<f64>>)>;

    /// The values of `t` as f64, row-major; `None` in shape-only mode.
    fn values(&self, t: &Self::Tensor) -> Option<Vec<f64>>;
}
