//! The position-wise MLP.
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
use crate::ops::{Backend, Op, Unary};
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// Up (and gate) projections, the activation and the down projection.
pub struct Mlp<T> {
    pub gate: Option<Linear<T>>,
    pub up: Linear<T>,
    pub act: Act,
    /// `None` under the ffn-no-down fault.
    pub down: Option<Linear<T>>,
}

impl<T: Clone> Mlp<T> {
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>, name: &str) -> Self {
        let c = b.cfg;
        let (d, f) = (c.d_model, c.d_ff);
        let bias = |n| c.bias.then_some(n);
        let std = Builder::<B>::STD;
        let up_bias = bias(b.arch.up_bias_len.unwrap_or(f));
        Self {
            gate: (c.act == Act::Swiglu).then(|| {
                Linear::new(
                    b,
                    &format!("{name}.gate"),
                    (d, f),
                    ["d", "ff"],
                    std,
                    bias(f),
                )
            }),
            up: Linear::new(b, &format!("{name}.up"), (d, f), ["d", "ff"], std, up_bias),
            act: c.act,
            down: b.arch.mlp_down.then(|| {
                Linear::new(
                    b,
                    &format!("{name}.down"),
                    (f, d),
                    ["ff", "d"],
                    b.out_std(),
                    bias(d),
                )
            }),
        }
    }

    /// Records the MLP sublayer on x (B, T, d) under `p` (`blockN.mlp`).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        p: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        let (up, act) = (format!("{p}.up"), format!("{p}.act"));
        let h = match (&self.gate, self.act) {
            (Some(gate), _) => {
                let g = gate.forward(rec, &format!("{p}.gate"), x)?; // (B, T, f)
                let u = self.up.forward(rec, &up, x)?; // (B, T, f)
                rec.op_owned(&act, &Op::SwiGlu, g, &[In::Act(&u)])?
            }
            (None, a) => {
                let u = match a {
                    Act::Relu => Unary::Relu,
                    Act::GeluTanh => Unary::GeluTanh,
                    Act::Gelu | Act::Swiglu => Unary::Gelu,
                };
                self.up.activated(rec, &up, &act, u, x)?
            }
        }; // (B, T, f)
        // The ffn-no-down fault returns the hidden layer as it is.
        match &self.down {
            Some(down) => down.output(rec, &format!("{p}.down"), &h), // (B, T, d)
            None => Ok(h),
        }
    }

    /// Gate, up and down parameters.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        self.gate
            .iter()
            .chain([&self.up])
            .chain(self.down.iter())
            .flat_map(Linear::params)
    }
}
