//! LayerNorm and RMSNorm over the features of each token.
//!
//! - LayerNorm: `(x − mean) / √(var + eps) · γ + β`
//! - RMSNorm: `x / √(mean(x²) + eps) · γ`
//! - Gemma's RMSNorm: `x / √(mean(x²) + eps) · (1 + w)`, w stored (and
//!   initialised to 0) as the offset from 1
//!
//! In a bf16 or f16 model the norm runs in f32, as frameworks run it:
//! `y = norm(x.to(f32)).to(bf16)`, each cast a step of its own.
//!
//! # Shapes
//! - x, y: (B, T, d); γ, β: (d)

use super::Builder;
use crate::config::{DType, NormKind};
use crate::ops::{Axis, Backend, Init, Op};
use crate::trace::Role;
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
    /// A 16-bit model's dtype, which the norm casts up from (to f32) and,
    /// unless `norm-no-cast-back`, back to; `None` in f32 and f64.
    pub half: Option<DType>,
    /// Whether the f32 result is cast back to `half`.
    pub cast_back: bool,
}

impl<T: Clone> Norm<T> {
    /// `weight` = 1 and, for LayerNorm with biases, `bias` = 0, in `b`'s scope.
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>) -> Self {
        let d = b.cfg.d_model;
        let has_bias = b.cfg.norm_bias();
        // Gemma's weight is the offset from 1: 0 scales by 1.
        let one = if b.cfg.norms.kind == NormKind::RmsNormPlusOne {
            0.0
        } else {
            1.0
        };
        Self {
            op: Op::Norm {
                kind: b.cfg.norms.kind,
                axis: b.arch.norm_axis,
                eps: b.cfg.norms.eps,
            },
            weight: b.param("weight", &[d], &[Axis::Model], Init::Const(one)),
            bias: has_bias.then(|| b.param("bias", &[d], &[Axis::Model], Init::Const(0.0))),
            half: b.cfg.dtype.is_half().then_some(b.cfg.dtype),
            cast_back: b.arch.norm_cast_back,
        }
    }

    /// Records step `name` = norm(x), a stream tensor (B, T, d). In a
    /// 16-bit model: `name.to_f32`, the norm `name` in f32, then
    /// `name.to_bf16` (or `to_f16`), the stream tensor.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        name: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        self.forward_as(rec, name, x, Role::Norm)
    }

    /// As [`Norm::forward`], on a sublayer's output before its residual
    /// add (Gemma 2's sandwich norm): its steps are [`Role::OutputNorm`].
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn on_output<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        name: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        self.forward_as(rec, name, x, Role::OutputNorm)
    }

    /// The norm's steps, each in `role`: its casts are the norm's too.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward_as<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        name: &str,
        x: &Val<T>,
        role: Role,
    ) -> Result<Val<T>, Stop> {
        let Some(half) = self.half else {
            return rec.role(role).interface(name, &self.op, &self.operands(x)); // (B, T, d)
        };
        let up = Op::Cast { to: DType::F32 };
        let x = rec
            .role(role)
            .op(&format!("{name}.to_f32"), &up, &[In::Act(x)])?; // (B, T, d) f32
        if !self.cast_back {
            // norm-no-cast-back: the f32 result goes on as the stream tensor.
            return rec.role(role).interface(name, &self.op, &self.operands(&x)); // (B, T, d) f32
        }
        let y = rec.role(role).op(name, &self.op, &self.operands(&x))?; // (B, T, d) f32
        let back = Op::Cast { to: half };
        rec.role(role)
            .interface(&format!("{name}.to_{half}"), &back, &[In::Act(&y)]) // (B, T, d) bf16
    }

    /// x, γ and β: the operands of the norm.
    fn operands<'a>(&'a self, x: &'a Val<T>) -> Vec<In<'a, T>> {
        let mut ins = vec![In::Act(x), In::Param(&self.weight)];
        ins.extend(self.bias.as_ref().map(In::Param));
        ins
    }

    /// γ, then β if any.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        std::iter::once(&self.weight).chain(self.bias.as_ref())
    }
}
