//! `y = x·W + b`.
//!
//! # Shapes
//! - x: (…, in)
//! - W: (in, out), b: (out)
//! - y: (…, out)

use super::Builder;
use crate::ops::{Backend, Init, Op, Unary};
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// A dense layer, with an optional bias.
pub struct Linear<T> {
    pub weight: Param<T>,
    pub bias: Option<Param<T>>,
}

impl<T: Clone> Linear<T> {
    /// `name.weight` of (in, out) ~ N(0, std) and, when `bias_len` is given,
    /// `name.bias` of zeros. `axes` names the weight's two axes.
    pub fn new<B: Backend<Tensor = T>>(
        b: &Builder<B>,
        name: &str,
        (fan_in, fan_out): (usize, usize),
        axes: [&str; 2],
        std: f64,
        bias_len: Option<usize>,
    ) -> Self {
        Self {
            weight: b.param(
                &format!("{name}.weight"),
                &[fan_in, fan_out],
                &axes,
                Init::Normal(std),
            ),
            bias: bias_len
                .map(|n| b.param(&format!("{name}.bias"), &[n], &axes[1..], Init::Const(0.0))),
        }
    }

    fn operands<'a>(&'a self, x: &'a Val<T>) -> Vec<In<'a, T>> {
        let mut ins = vec![In::Act(x), In::Param(&self.weight)];
        ins.extend(self.bias.as_ref().map(In::Param));
        ins
    }

    /// Records `path = x·W + b` inside a sublayer.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        path: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        rec.op(path, &Op::Linear, &self.operands(x))
    }

    /// `act(x·W + b)`, recorded as `path` and then `act_path`.
    ///
    /// # Shapes
    /// - x: (B, T, fan_in) → (B, T, fan_out), both events
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn activated<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        path: &str,
        act_path: &str,
        act: Unary,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        rec.linear_act(path, act_path, act, &self.operands(x))
    }

    /// Records `path = x·W + b` as a sublayer's output, which must be (B,T,d).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn output<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        path: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        rec.interface(path, &Op::Linear, &self.operands(x))
    }

    /// The weight, then the bias if any.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        std::iter::once(&self.weight).chain(self.bias.as_ref())
    }
}
