//! The position-wise MLP: up, activation, down.
//!
//! - relu / gelu / gelu-tanh / silu: `act(x·W1 + b1)·W2 + b2`
//! - swiglu: `(silu(x·Wg) ⊙ x·Wu)·Wd`
//! - geglu: `(gelu_tanh(x·Wg) ⊙ x·Wu)·Wd` (Gemma)
//! - fused gate_up (Phi-3): `[g; u] = x·W_gu`, then `act(g) ⊙ u` as above
//!
//! The wrong forms a fault builds ([`MlpForm`]): no down projection
//! (`act(x·W1 + b1)`), the input returned (`x`, the hidden layer computed
//! and dropped), and the activation after the down projection
//! (`act(x·W1·W2)`, every shape as the right one's).
//!
//! # Shapes
//! - x: (B, T, d)
//! - gate, up, act: (B, T, d_ff)
//! - down: (B, T, d)

use super::Builder;
use super::linear::{Linear, Split};
use crate::arch::MlpForm;
use crate::config::Act;
use crate::ops::{Axis, Backend, Fusion, Op, Unary};
use crate::trace::Role;
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// The hidden layer's non-linearity.
pub enum Activation<T> {
    /// An element-wise function of the up projection.
    Unary(Unary),
    /// SwiGLU or GeGLU: `silu(x·Wg) ⊙ x·Wu` (`Op::SwiGlu`) or
    /// `gelu_tanh(x·Wg) ⊙ x·Wu` (`Op::GeGlu`), with its gate projection.
    Gated(Linear<T>, Op),
    /// As `Gated`, with gate and up one fused matrix (the MLP's `up`, (d,
    /// 2·d_ff), named `gate_up`) whose output splits into `[gate; up]`.
    FusedGated(Op),
}

/// The up projection, the activation and the down projection.
pub struct Mlp<T> {
    /// Up projection W1 (Wu under SwiGLU): (d, d_ff); the fused
    /// `gate_up` (d, 2·d_ff) when gate and up are one matrix.
    pub up: Linear<T>,
    /// The non-linearity on the hidden layer (B, T, d_ff).
    pub act: Activation<T>,
    /// `None` under the ffn-no-down fault.
    pub down: Option<Linear<T>>,
    /// Where the activation sits and what the MLP returns.
    pub form: MlpForm,
}

impl<T: Clone> Mlp<T> {
    /// `gate` (SwiGLU), `up` and `down`, in `b`'s scope.
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>) -> Self {
        let c = b.cfg;
        let (d, f) = (c.d_model, c.mlp.d_ff);
        let bias = |n| c.mlp_bias().then_some(n);
        let std = Builder::<B>::STD;
        let up_bias = bias(b.arch.up_bias_len.unwrap_or(f));
        let glu = if c.mlp.act == Act::Geglu {
            Op::GeGlu
        } else {
            Op::SwiGlu
        };
        let fused = c.mlp.fused_gate_up && c.mlp.act.is_gated();
        let act = match c.mlp.act {
            _ if fused => Activation::FusedGated(glu.clone()),
            Act::Relu => Activation::Unary(Unary::Relu),
            Act::Gelu => Activation::Unary(Unary::Gelu),
            Act::GeluTanh => Activation::Unary(Unary::GeluTanh),
            Act::Silu => Activation::Unary(Unary::Silu),
            Act::Swiglu | Act::Geglu => Activation::Gated(
                Linear::split(
                    &b.pp("gate"),
                    (d, f),
                    [Axis::Model, Axis::Hidden],
                    std,
                    bias(f),
                    Split::Columns,
                ),
                glu,
            ),
        };
        let up = if fused {
            let two = 2 * f;
            Linear::new(
                &b.pp("gate_up"),
                (d, two),
                [
                    Axis::Model,
                    Axis::Multiple {
                        times: 2,
                        of: Box::new(Axis::Hidden),
                    },
                ],
                std,
                bias(two),
            )
        } else {
            Linear::split(
                &b.pp("up"),
                (d, f),
                [Axis::Model, Axis::Hidden],
                std,
                up_bias,
                Split::Columns,
            )
        };
        Self {
            up,
            act,
            // W2 maps d_ff back to d; the down-to-ff fault keeps it d_ff wide.
            down: (b.arch.mlp != MlpForm::NoDown).then(|| {
                let out = b.arch.down_width.unwrap_or(d);
                let axis = if out == d { Axis::Model } else { Axis::Hidden };
                Linear::split(
                    &b.pp("down"),
                    (f, out),
                    [Axis::Hidden, axis],
                    b.out_std(),
                    bias(out),
                    Split::Rows,
                )
            }),
            form: b.arch.mlp,
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
        // The act-after-down fault: up, down, then the activation.
        if let (MlpForm::ActAfterDown, Activation::Unary(act), Some(down)) =
            (self.form, &self.act, &self.down)
        {
            let u = self.up.forward(rec.role(Role::MlpHidden), "up", x)?; // x·W1 + b1: (B, T, ff)
            let y = down.forward(rec.role(Role::MlpOut), "down", &u)?; // u·W2 + b2: (B, T, d)
            return rec.interface("act", &Op::Act(*act), &[In::Act(&y)]); // act(y): (B, T, d)
        }
        let h = self.hidden(rec, x)?; // (B, T, ff)
        match (self.form, &self.down) {
            // Down, back to the stream's width.
            (MlpForm::UpActDown | MlpForm::ActAfterDown, Some(down)) => {
                down.output(rec.role(Role::MlpOut), "down", &h) // h·W2 + b2: (B, T, d)
            }
            // The mlp-returns-input fault drops the hidden layer.
            (MlpForm::ReturnsInput, _) => Ok(x.clone()), // x: (B, T, d)
            // The ffn-no-down fault returns the hidden layer as it is.
            _ => Ok(h), // (B, T, ff)
        }
    }

    /// Records the MLP as one expert of a mixture on its batch of tokens
    /// x (n_e, d): the hidden layer and the down projection, whose output
    /// (n_e, d) is not yet the sublayer's (the combine is).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn rows<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        let h = self.hidden(rec, x)?; // (n_e, ff)
        match &self.down {
            Some(down) => down.forward(rec.role(Role::MlpOut), "down", &h), // h·W2 + b2: (n_e, d)
            None => Ok(h),
        }
    }

    /// The hidden layer `act(x·W1 + b1)` or `silu(x·Wg) ⊙ x·Wu` on x
    /// (B, T, d): (B, T, ff).
    fn hidden<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        match &self.act {
            // Up, then the activation. A backend may run the two steps in
            // one pass that never builds the pre-activation tensor.
            Activation::Unary(act) => {
                let up = Fusion::LinearAct(*act);
                rec.fusable(up, &self.up.operands(x), |rec| {
                    let u = self.up.forward(rec.role(Role::MlpHidden), "up", x)?; // x·W1 + b1: (B, T, ff)
                    rec.op_owned("act", &Op::Act(*act), u, &[]) // act(u): (B, T, ff)
                })
            }
            // SwiGLU or GeGLU: a gate and an up projection, multiplied.
            Activation::Gated(gate, glu) => {
                let g = gate.forward(rec.role(Role::MlpHidden), "gate", x)?; // x·Wg: (B, T, ff)
                let u = self.up.forward(rec.role(Role::MlpHidden), "up", x)?; // x·Wu: (B, T, ff)
                rec.op_owned("act", glu, g, &[In::Act(&u)]) // act(g) ⊙ u: (B, T, ff)
            }
            // Phi-3: one fused matmul, its output split into gate and up.
            Activation::FusedGated(glu) => {
                let gu = self.up.forward(rec.role(Role::MlpHidden), "gate_up", x)?; // x·W_gu: (B, T, 2·ff)
                let two = gu.shape.last().copied().unwrap_or(0);
                let half = |lo, hi| Op::Columns {
                    lo,
                    hi,
                    period: two,
                    axis: Axis::Hidden,
                };
                let gu = In::Act(&gu);
                let g = rec.op("gate", &half(0, two / 2), &[gu])?; // (B, T, ff)
                let u = rec.op("up", &half(two / 2, two), &[gu])?; // (B, T, ff)
                rec.op_owned("act", glu, g, &[In::Act(&u)]) // act(g) ⊙ u: (B, T, ff)
            }
        }
    }

    /// Gate, up and down parameters.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        let gate = match &self.act {
            Activation::Gated(g, _) => Some(g),
            Activation::Unary(_) | Activation::FusedGated(_) => None,
        };
        gate.into_iter()
            .chain([&self.up])
            .chain(self.down.iter())
            .flat_map(Linear::params)
    }
}
