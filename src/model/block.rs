//! One transformer block, run as its [`Anatomy`](crate::arch::Anatomy) describes it: each
//! sublayer with its norm where the anatomy puts it, its update added
//! onto the residual stream.
//!
//! ```text
//! norm Before (Pre-LN):     x = x + f(LN(x))
//! norm After  (Post-LN):    x = LN(x + f(x))
//! norm Sandwich (Gemma 2):  x = x + LN_out(f(LN(x)))
//! parallel (GPT-NeoX):      x = x + (attn(LN1(x)) + mlp(LN2(x)))   one add
//! parallel, one norm:       x = x + (attn(LN1(x)) + mlp(LN1(x)))   (Falcon-7B)
//! ```
//!
//! # Shapes
//! - x, output: (B, T, d). Every sublayer maps (B, T, d) → (B, T, d).

use super::Builder;
use super::attention::Attention;
use super::decode::Kv;
use super::mlp::Mlp;
use super::moe::Moe;
use super::norm::Norm;
use super::shard;
use crate::arch::{NormAt, Sublayer, SublayerKind};
use crate::ops::{Backend, Op};
use crate::trace::Role;
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// What a sublayer computes.
pub enum Layer<T> {
    /// Multi-head self-attention: tokens read each other.
    Attention(Attention<T>),
    /// The position-wise MLP: each token on its own.
    Mlp(Mlp<T>),
    /// A mixture of experts: each token through the k expert MLPs its
    /// router picks.
    Moe(Moe<T>),
}

/// Sublayer i (from 1) of a block: its norm `ln_i`, its layer, and where
/// the norm sits.
pub struct Sub<T> {
    /// Which sublayer and where its norm sits (before or after the add).
    pub anatomy: Sublayer,
    /// The sublayer's norm `ln_i`, over (B, T, d); `None` when the
    /// block's one shared norm serves every sublayer.
    pub norm: Option<Norm<T>>,
    /// Sandwich norms' second norm `post_ln_i`, on the sublayer's output
    /// before the add; `None` otherwise.
    pub post: Option<Norm<T>>,
    /// Its attention or MLP.
    pub layer: Layer<T>,
    /// Under sequence parallelism, the devices whose positions the layer
    /// gathers first; `None` otherwise.
    pub gather: Option<usize>,
}

/// The sublayers of one block, in order.
pub struct Block<T> {
    /// One per sublayer of the anatomy: attention, then the MLP, in GPT-2's
    /// block.
    pub sublayers: Vec<Sub<T>>,
    /// Whether the sublayers run side by side on the block's input, their
    /// updates summed into one residual add (parallel residuals).
    pub parallel: bool,
    /// The one norm `ln_1` every parallel sublayer reads (Falcon-7B);
    /// `None` when each has its own.
    pub shared: Option<Norm<T>>,
    /// Its number in the model, from 1 (`blockN`), whichever pipeline
    /// stage holds it.
    pub n: usize,
}

impl<T: Clone> Block<T> {
    /// Block `n` (from 1) as the anatomy describes it, in `b`'s scope
    /// (`blockN`).
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>, n: usize) -> Self {
        let shared_norm = b.arch.anatomy.shared_norm;
        let window = b.arch.anatomy.window(b.cfg.window_at(n));
        let sublayers = b.arch.anatomy.sublayers.iter().enumerate();
        let sublayers = sublayers
            .map(|(i, &anatomy)| {
                let norm = (!shared_norm).then(|| Norm::new(&b.pp(&format!("ln_{}", i + 1))));
                let post = (anatomy.norm == NormAt::Sandwich)
                    .then(|| Norm::new(&b.pp(&format!("post_ln_{}", i + 1))));
                let inner = b.pp(anatomy.kind.as_str());
                let layer = match anatomy.kind {
                    SublayerKind::Attention => Layer::Attention(Attention::new(&inner, window)),
                    SublayerKind::Mlp => Layer::Mlp(Mlp::new(&inner)),
                    SublayerKind::Moe => Layer::Moe(Moe::new(&inner)),
                };
                let d = b.cfg.devices;
                Sub {
                    anatomy,
                    norm,
                    post,
                    layer,
                    gather: (d.split() && d.sp).then_some(d.tp),
                }
            })
            .collect();
        Self {
            n,
            sublayers,
            parallel: b.arch.anatomy.parallel,
            shared: shared_norm.then(|| Norm::new(&b.pp("ln_1"))),
        }
    }

    /// Records the block on x (B, T, d), in `rec`'s scope (`blockN`);
    /// with `kv`, its attention's place in generation.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x: &Val<T>,
        mut kv: Option<&mut Kv<T>>,
    ) -> Result<Val<T>, Stop> {
        if self.parallel {
            return self.parallel_forward(rec, x, kv);
        }
        let mut out: Option<Val<T>> = None;
        for (i, sub) in self.sublayers.iter().enumerate() {
            let x = out.as_ref().unwrap_or(x); // (B, T, d)
            out = Some(sub.forward(rec, i + 1, x, kv.as_deref_mut())?); // (B, T, d)
        }
        Ok(out.unwrap_or_else(|| x.clone()))
    }

    /// Parallel residuals: every sublayer reads x through its own norm,
    /// the updates are summed, and the sum is added onto x once.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    fn parallel_forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x: &Val<T>,
        mut kv: Option<&mut Kv<T>>,
    ) -> Result<Val<T>, Stop> {
        // One shared norm is computed once and read by every sublayer.
        let shared = match &self.shared {
            Some(norm) => Some(norm.forward(rec, "ln_1", x)?), // LN(x): (B, T, d)
            None => None,
        };
        let mut update: Option<Val<T>> = None;
        for (i, sub) in self.sublayers.iter().enumerate() {
            let h = match &shared {
                Some(h) => h.clone(),                                // LN(x): (B, T, d)
                None => sub.norm(rec, &format!("ln_{}", i + 1), x)?, // LN_i(x): (B, T, d)
            };
            let u = sub.layer(rec, &h, kv.as_deref_mut())?; // f_i(LN_i(x)): (B, T, d)
            update = Some(match update {
                None => u,
                // attn(LN1(x)) + mlp(LN2(x)): (B, T, d)
                Some(sum) => {
                    rec.role(Role::Update)
                        .op("update", &Op::Add, &[In::Act(&sum), In::Act(&u)])?
                }
            });
        }
        match update {
            Some(u) => rec.residual("resid_1", x, u), // x + Σ f_i(LN_i(x)): (B, T, d)
            None => Ok(x.clone()),
        }
    }

    /// Every parameter of the block: the shared norm if any, then each
    /// sublayer's norm and its layer.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        let shared = self.shared.iter().flat_map(Norm::params);
        shared.chain(self.sublayers.iter().flat_map(Sub::params))
    }
}

impl<T: Clone> Sub<T> {
    /// Records sublayer `n` on x (B, T, d): `ln_n`, the layer and the
    /// residual add `resid_n`, in the order the anatomy says.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        n: usize,
        x: &Val<T>,
        kv: Option<&mut Kv<T>>,
    ) -> Result<Val<T>, Stop> {
        let (ln, resid) = (format!("ln_{n}"), format!("resid_{n}"));
        match self.anatomy.norm {
            NormAt::Before => {
                let h = self.norm(rec, &ln, x)?; // LN(x): (B, T, d)
                let u = self.layer(rec, &h, kv)?; // f(LN(x)): (B, T, d)
                rec.residual(&resid, x, u) // x + f(LN(x)): (B, T, d)
            }
            NormAt::After => {
                let u = self.layer(rec, x, kv)?; // f(x): (B, T, d)
                let s = rec.residual(&resid, x, u)?; // x + f(x): (B, T, d)
                self.norm(rec, &ln, &s) // LN(x + f(x)): (B, T, d)
            }
            NormAt::Sandwich => {
                let h = self.norm(rec, &ln, x)?; // LN(x): (B, T, d)
                let u = self.layer(rec, &h, kv)?; // f(LN(x)): (B, T, d)
                let u = match &self.post {
                    Some(post) => post.on_output(rec, &format!("post_{ln}"), &u)?, // LN_out(f(LN(x)))
                    None => u,
                };
                rec.residual(&resid, x, u) // x + LN_out(f(LN(x))): (B, T, d)
            }
        }
    }

    /// Records `name` = the sublayer's norm of x (B, T, d); x itself when
    /// the block's shared norm stands in for it (parallel blocks only,
    /// which read the shared one).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    fn norm<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        name: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        match &self.norm {
            Some(norm) => norm.forward(rec, name, x), // LN(x): (B, T, d)
            None => Ok(x.clone()),
        }
    }

    /// The layer alone on x (B, T, d), in its own scope (`attn`, `mlp`,
    /// `moe`); `kv` is attention's place in generation, if any.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn layer<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x: &Val<T>,
        kv: Option<&mut Kv<T>>,
    ) -> Result<Val<T>, Stop> {
        let rec = &mut rec.pp(self.anatomy.kind.as_str());
        // Sequence parallelism: every position, from every device.
        let gathered;
        let x = match self.gather {
            Some(devices) => {
                gathered = shard::gather(rec, devices, x)?; // (B, T/N, d) → (B, T, d)
                &gathered
            }
            None => x,
        };
        match &self.layer {
            Layer::Attention(a) => a.forward(rec, x, kv),
            Layer::Mlp(m) => m.forward(rec, x),
            Layer::Moe(m) => m.forward(rec, x),
        }
    }

    /// The norm's parameters, then the layer's.
    pub fn params(&self) -> Box<dyn Iterator<Item = &Param<T>> + '_> {
        let layer: Box<dyn Iterator<Item = &Param<T>>> = match &self.layer {
            Layer::Attention(a) => Box::new(a.params()),
            Layer::Mlp(m) => Box::new(m.params()),
            Layer::Moe(m) => Box::new(m.params()),
        };
        let post: Box<dyn Iterator<Item = &Param<T>>> = match &self.post {
            Some(p) => Box::new(p.params()),
            None => Box::new(std::iter::empty()),
        };
        let norm = self.norm.iter().flat_map(Norm::params);
        Box::new(norm.chain(layer).chain(post))
    }
}
