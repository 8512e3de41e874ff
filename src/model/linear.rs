//! `y = x·W + b`.
//!
//! # Shapes
//! - x: (…, in)
//! - W: (in, out), b: (out)
//! - y: (…, out)

use super::Builder;
use crate::ops::{Axis, Backend, Init, Op};
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// A dense layer, with an optional bias.
pub struct Linear<T> {
    /// W: (in, out), so `y = x·W`.
    pub weight: Param<T>,
    /// b: (out); `None` for a model without biases.
    pub bias: Option<Param<T>>,
}

impl<T: Clone> Linear<T> {
    /// `weight` of (in, out) ~ N(0, std) and, when `bias_len` is given,
    /// `bias` of zeros, in `b`'s scope. `axes` names the weight's two axes.
    pub fn new<B: Backend<Tensor = T>>(
        b: &Builder<B>,
        (fan_in, fan_out): (usize, usize),
        axes: [Axis; 2],
        std: f64,
        bias_len: Option<usize>,
    ) -> Self {
        Self {
            weight: b.param("weight", &[fan_in, fan_out], &axes, Init::Normal(std)),
            bias: bias_len.map(|n| b.param("bias", &[n], &axes[1..], Init::Const(0.0))),
        }
    }

    /// x, W and b: the operands of `x·W + b`.
    pub fn operands<'a>(&'a self, x: &'a Val<T>) -> Vec<In<'a, T>> {
        let mut ins = vec![In::Act(x), In::Param(&self.weight)];
        ins.extend(self.bias.as_ref().map(In::Param));
        ins
    }

    /// Records step `name` = x·W + b inside a sublayer.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        name: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        rec.op(name, &Op::Linear, &self.operands(x))
    }

    /// Records step `name` = x·W + b as a sublayer's output, which must be
    /// (B, T, d).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn output<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        name: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        rec.interface(name, &Op::Linear, &self.operands(x))
    }

    /// The weight, then the bias if any.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        std::iter::once(&self.weight).chain(self.bias.as_ref())
    }
}
