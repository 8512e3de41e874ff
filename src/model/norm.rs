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
    pub op: Op,
    pub weight: Param<T>,
    pub bias: Option<Param<T>>,
}

impl<T: Clone> Norm<T> {
    /// `name.weight` = 1 and, for LayerNorm with biases, `name.bias` = 0.
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>, name: &str) -> Self {
        let d = b.cfg.d_model;
        let has_bias = b.cfg.bias && b.cfg.norm == NormKind::LayerNorm;
        Self {
            op: Op::Norm {
                kind: b.cfg.norm,
                axis: b.arch.norm_axis,
                eps: b.cfg.eps,
            },
            weight: b.param(&format!("{name}.weight"), &[d], &["d"], Init::Const(1.0)),
            bias: has_bias
                .then(|| b.param(&format!("{name}.bias"), &[d], &["d"], Init::Const(0.0))),
        }
    }

    /// Records `path = norm(x)`, a stream tensor (B, T, d).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        path: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        let mut ins = vec![In::Act(x), In::Param(&self.weight)];
        ins.extend(self.bias.as_ref().map(In::Param));
        rec.interface(path, &self.op, &ins)
    }

    /// γ, then β if any.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        std::iter::once(&self.weight).chain(self.bias.as_ref())
    }
}
