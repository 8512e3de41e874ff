//! One transformer block: attention and MLP sublayers around the residual
//! stream, with the norms before (Pre-LN) or after (Post-LN) each add.
//!
//! # Shapes
//! - x, output: (B, T, d). Every sublayer maps (B, T, d) → (B, T, d).

use super::Builder;
use super::attention::Attention;
use super::mlp::Mlp;
use super::norm::Norm;
use crate::config::Placement;
use crate::ops::Backend;
use crate::trace::recorder::{Param, Recorder, Stop, Val};

/// Norms, attention and MLP of one block.
pub struct Block<T> {
    pub ln_1: Norm<T>,
    pub attn: Attention<T>,
    pub ln_2: Norm<T>,
    pub mlp: Mlp<T>,
    pub placement: Placement,
}

impl<T: Clone> Block<T> {
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>, name: &str) -> Self {
        Self {
            ln_1: Norm::new(b, &format!("{name}.ln_1")),
            attn: Attention::new(b, &format!("{name}.attn")),
            ln_2: Norm::new(b, &format!("{name}.ln_2")),
            mlp: Mlp::new(b, &format!("{name}.mlp")),
            placement: b.cfg.placement,
        }
    }

    /// Records the block on x (B, T, d) under `p` (`blockN`).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        p: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        let path = |s: &str| format!("{p}.{s}");
        match self.placement {
            Placement::Pre => {
                let h = self.ln_1.forward(rec, &path("ln_1"), x)?;
                let a = self.attn.forward(rec, &path("attn"), &h)?;
                let x = rec.residual(&path("resid_1"), x, a)?; // x + Attn(LN1(x))
                let h = self.ln_2.forward(rec, &path("ln_2"), &x)?;
                let m = self.mlp.forward(rec, &path("mlp"), &h)?;
                rec.residual(&path("resid_2"), &x, m) // x + MLP(LN2(x))
            }
            Placement::Post => {
                let a = self.attn.forward(rec, &path("attn"), x)?;
                let x = rec.residual(&path("resid_1"), x, a)?;
                let x = self.ln_1.forward(rec, &path("ln_1"), &x)?; // LN1(x + Attn(x))
                let m = self.mlp.forward(rec, &path("mlp"), &x)?;
                let x = rec.residual(&path("resid_2"), &x, m)?;
                self.ln_2.forward(rec, &path("ln_2"), &x) // LN2(x + MLP(x))
            }
        }
    }

    /// Every parameter of the block.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        self.ln_1
            .params()
            .chain(self.attn.params())
            .chain(self.ln_2.params())
            .chain(self.mlp.params())
    }
}
