//! The position-wise MLP: up, activation, down.
//!
//! - relu / gelu / gelu-tanh: `act(x·W1 + b1)·W2 + b2`
//! - swiglu: `(silu(x·Wg) ⊙ x·Wu)·Wd`
//!
//! # Shapes
//! - x: (B, T, d)
//! - gate, up, act: (B, T, d_ff)
//! - down: (B, T, d)

use super::Builder;
use super::linear::Linear;
use crate::config::Act;
use crate::ops::{Backend, Fusion, Op, Unary};
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// The hidden layer's non-linearity.
pub enum Activation<T> {
    /// An element-wise function of the up projection.
    Unary(Unary),
    /// SwiGLU: `silu(x·Wg) ⊙ x·Wu`, with its gate projection.
    Gated(Linear<T>),
}

/// The up projection, the activation and the down projection.
pub struct Mlp<T> {
    pub up: Linear<T>,
    pub act: Activation<T>,
    /// `None` under the ffn-no-down fault.
    pub down: Option<Linear<T>>,
}

impl<T: Clone> Mlp<T> {
    /// `gate` (SwiGLU), `up` and `down`, in `b`'s scope.
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>) -> Self {
        let c = b.cfg;
        let (d, f) = (c.d_model, c.d_ff);
        let bias = |n| c.bias.then_some(n);
        let std = Builder::<B>::STD;
        let up_bias = bias(b.arch.up_bias_len.unwrap_or(f));
        let act = match c.act {
            Act::Relu => Activation::Unary(Unary::Relu),
            Act::Gelu => Activation::Unary(Unary::Gelu),
            Act::GeluTanh => Activation::Unary(Unary::GeluTanh),
            Act::Swiglu => Activation::Gated(Linear::new(
                &b.pp("gate"),
                (d, f),
                ["d", "ff"],
                std,
                bias(f),
            )),
        };
        Self {
            up: Linear::new(&b.pp("up"), (d, f), ["d", "ff"], std, up_bias),
            act,
            down: b
                .arch
                .mlp_down
                .then(|| Linear::new(&b.pp("down"), (f, d), ["ff", "d"], b.out_std(), bias(d))),
        }
    }

    /// Records the MLP sublayer on x (B, T, d), in `rec`'s scope
    /// (`blockN.mlp`), one step per line.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        let h = match &self.act {
            // Up, then the activation. A backend may run the two steps in
            // one pass that never builds the pre-activation tensor.
            Activation::Unary(act) => {
                let up = Fusion::LinearAct(*act);
                rec.fusable(up, &self.up.operands(x), |rec| {
                    let u = self.up.forward(rec, "up", x)?; // x·W1 + b1: (B, T, ff)
                    rec.op_owned("act", &Op::Act(*act), u, &[]) // act(u): (B, T, ff)
                })?
            }
            // SwiGLU: a gate and an up projection, multiplied.
            Activation::Gated(gate) => {
                let g = gate.forward(rec, "gate", x)?; // x·Wg: (B, T, ff)
                let u = self.up.forward(rec, "up", x)?; // x·Wu: (B, T, ff)
                rec.op_owned("act", &Op::SwiGlu, g, &[In::Act(&u)])? // silu(g) ⊙ u: (B, T, ff)
            }
        };
        // Down, back to the stream's width; the ffn-no-down fault returns
        // the hidden layer as it is.
        match &self.down {
            Some(down) => down.output(rec, "down", &h), // h·W2 + b2: (B, T, d)
            None => Ok(h),
        }
    }

    /// Gate, up and down parameters.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        let gate = match &self.act {
            Activation::Gated(g) => Some(g),
            Activation::Unary(_) => None,
        };
        gate.into_iter()
            .chain([&self.up])
            .chain(self.down.iter())
            .flat_map(Linear::params)
    }
}
