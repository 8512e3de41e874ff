//! The model: a stack of transformer blocks over an input x0 of shape
//! (B, T, d_model), written once against [`crate::ops`] so the same code
//! runs numerically and shape-only.
//!
//! ```text
//! Pre-LN block:   x = x + Attn(LN1(x));   x = x + MLP(LN2(x))
//! Post-LN block:  x = LN1(x + Attn(x));   x = LN2(x + MLP(x))
//! ```
//!
//! The model records every intermediate into the [`Recorder`] it is handed.
//! It never checks shapes itself.

pub mod arch;
pub mod attention;
pub mod block;
pub mod embed;
pub mod linear;
pub mod mlp;
pub mod norm;

use crate::config::ModelConfig;
use crate::ops::{Backend, Init};
use crate::trace::recorder::{Param, Recorder, Stop, Val};
use crate::weights::Weights;
pub use arch::Arch;
use block::Block;
use norm::Norm;

/// FNV-1a hash of a name, for per-tensor seeds.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The seed of the tensor `name` under the run seed `seed`.
///
/// Each tensor draws from its own stream, so changing one layer (say the
/// activation) leaves every other weight, and the input, unchanged.
#[must_use]
pub fn seed_for(seed: u64, name: &str) -> u64 {
    // splitmix64 finaliser over the mixed value.
    let mut z = seed ^ fnv1a(name);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Where a model's weights come from.
#[derive(Debug, Clone, Copy, Default)]
pub enum Source<'a> {
    /// Drawn from the run seed with nanoGPT's init.
    #[default]
    Seeded,
    /// Taken from a checkpoint; a parameter it lacks (or holds in another
    /// shape, as a fault's wrong bias) is seeded.
    Loaded(&'a Weights),
}

/// Makes named parameters from a [`Source`]: loaded, or seeded with
/// nanoGPT's init from one run seed.
pub struct Builder<'b, B: Backend> {
    pub backend: &'b B,
    pub cfg: &'b ModelConfig,
    pub arch: Arch,
    pub source: Source<'b>,
}

impl<B: Backend> Builder<'_, B> {
    /// A parameter of `shape` named `name`, with axis names `axes`.
    pub fn param(
        &self,
        name: &str,
        shape: &[usize],
        axes: &[&str],
        init: Init,
    ) -> Param<B::Tensor> {
        let loaded = match self.source {
            Source::Loaded(w) => w.get(name, shape),
            Source::Seeded => None,
        };
        let t = match loaded {
            Some(w) => self.backend.load(w),
            None => self
                .backend
                .param(shape, init, seed_for(self.cfg.seed, name)),
        };
        Param {
            name: name.to_string(),
            t,
            axes: axes.iter().map(|a| (*a).to_string()).collect(),
        }
    }

    /// N(0, 0.02), nanoGPT's default for weights.
    pub const STD: f64 = 0.02;

    /// N(0, 0.02/√(2·layers)), nanoGPT's init for output projections.
    #[must_use]
    pub fn out_std(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let l = self.cfg.layers as f64;
        Self::STD / (2.0 * l).sqrt()
    }
}

/// The whole model: blocks, then an optional final norm.
pub struct Model<T> {
    pub blocks: Vec<Block<T>>,
    pub ln_f: Option<Norm<T>>,
    pub arch: Arch,
}

impl<T: Clone> Model<T> {
    /// Builds every weight of `cfg` on `backend`, seeded, as its fault variant says.
    pub fn build<B: Backend<Tensor = T>>(cfg: &ModelConfig, backend: &B) -> Self {
        Self::build_from(cfg, backend, Source::Seeded)
    }

    /// Builds every weight of `cfg` on `backend` from `source`.
    pub fn build_from<B: Backend<Tensor = T>>(
        cfg: &ModelConfig,
        backend: &B,
        source: Source,
    ) -> Self {
        let b = Builder {
            backend,
            cfg,
            arch: Arch::of(cfg),
            source,
        };
        let blocks = (1..=cfg.layers)
            .map(|i| Block::new(&b, &format!("block{i}")))
            .collect();
        let ln_f = cfg.final_norm.then(|| Norm::new(&b, "ln_f"));
        Self {
            blocks,
            ln_f,
            arch: b.arch,
        }
    }

    /// Every parameter, in build order.
    #[must_use]
    pub fn params(&self) -> Vec<&Param<T>> {
        let mut out: Vec<&Param<T>> = self.blocks.iter().flat_map(Block::params).collect();
        if let Some(n) = &self.ln_f {
            out.extend(n.params());
        }
        out
    }

    /// Runs the stack on x0 (B, T, d) and returns the output (B, T, d).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stopped the forward at a failed check.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x0: T,
    ) -> Result<Val<T>, Stop> {
        let x0 = rec.input(x0)?; // (B, T, d)
        let mut x = x0.clone();
        for (i, block) in self.blocks.iter().enumerate() {
            // The skip-block1 fault feeds x0 to block 2: Block2(x), not Block2(Block1(x)).
            let input = if i == 1 && self.arch.skip_block1 {
                &x0
            } else {
                &x
            };
            x = block.forward(rec, &format!("block{}", i + 1), input)?; // (B, T, d)
        }
        match &self.ln_f {
            Some(n) => n.forward(rec, "ln_f", &x),
            None => Ok(x),
        }
    }
}

/// The input x0 ~ N(0, 1) of shape (B, T, d), drawn from the run seed.
pub fn input<B: Backend>(cfg: &ModelConfig, backend: &B) -> B::Tensor {
    backend.normal(&cfg.stream_shape(), seed_for(cfg.seed, "input"))
}
