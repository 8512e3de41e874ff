//! LayerNorm and RMSNorm over the features of each token.
//!
//! - LayerNorm: `(x − mean) / √(var + eps) · γ + β`
//! - RMSNorm: `x / √(mean(x²) + eps) · γ`
//!
//! # Shapes
//! - x, y: (B, T, d); γ, β: (d)

use super::Builder;
use crate::config::NormKind;
use crate::ops::{Backend, Init, Op};
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// A norm layer; LayerNorm has β when the model has biases.
pub struct Norm<T> {
    /// The norm step: LayerNorm or RMSNorm, its axis (the features, unless a
    /// fault normalises over T or B) and eps.
    pub op: Op,
    /// γ: (d), initialised to 1.
    pub weight: Param<T>,
    /// β: (d), initialised to 0; LayerNorm with biases only.
    pub bias: Option<Param<T>>,
}

impl<T: Clone> Norm<T> {
    /// `weight` = 1 and, for LayerNorm with biases, `bias` = 0, in `b`'s scope.
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>) -> Self {
        let d = b.cfg.d_model;
        let has_bias = b.cfg.bias && b.cfg.norm == NormKind::LayerNorm;
        Self {
            op: Op::Norm {
                kind: b.cfg.norm,
                axis: b.arch.norm_axis,
                eps: b.cfg.eps,
            },
            weight: b.param("weight", &[d], &["d"], Init::Const(1.0)),
            bias: has_bias.then(|| b.param("bias", &[d], &["d"], Init::Const(0.0))),
        }
    }

    /// Records step `name` = norm(x), a stream tensor (B, T, d).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        name: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        let mut ins = vec![In::Act(x), In::Param(&self.weight)];
        ins.extend(self.bias.as_ref().map(In::Param));
        rec.interface(name, &self.op, &ins) // (B, T, d)
    }

    /// γ, then β if any.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        std::iter::once(&self.weight).chain(self.bias.as_ref())
    }
}
