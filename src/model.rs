//! The model: a stack of transformer blocks over an input x0 of shape
//! (B, T, d_model), written once against [`crate::ops`] so the same code
//! runs numerically and shape-only. A model with a vocabulary can run from
//! token ids (B, T) to logits (B, T, V) ([`Model::forward_lm`]).
//!
//! ```text
//! x0 = wte[ids] + wpe[0..T]                          (B, T, d)
//! Pre-LN block:   x = x + Attn(LN1(x));   x = x + MLP(LN2(x))
//! Post-LN block:  x = LN1(x + Attn(x));   x = LN2(x + MLP(x))
//! logits = LN_f(x)·wteᵀ                              (B, T, V)
//! ```
//!
//! In bf16 or f16 every weight and every step's output is stored in that
//! dtype, and each norm and softmax casts up to f32 and back.
//!
//! The model records every intermediate into the [`Recorder`] it is handed.
//! It never checks shapes itself.

pub mod attention;
pub mod backward;
pub mod block;
pub mod decode;
pub(crate) mod devices;
pub mod embed;
pub mod linear;
pub mod mlp;
pub mod moe;
pub mod norm;
mod record;
pub mod shard;

pub use crate::arch::Arch;
use crate::config::ModelConfig;
use crate::ops::{Axis, Backend, Init, Op};
use crate::seed::seed_for;
use crate::trace::recorder::{Param, Recorder, Stop, Val};
use crate::weights::Weights;
use block::Block;
use embed::Embeddings;
use norm::Norm;
pub(crate) use record::{record, record_on};

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
/// nanoGPT's init from one run seed. Names come from scopes, as candle's
/// `VarBuilder::pp`: `b.pp("block1").pp("attn")` names its `weight`
/// `block1.attn.weight`.
pub struct Builder<'b, B: Backend> {
    /// Runs the ops: numeric or shape-only.
    pub backend: &'b B,
    /// The model being built: sizes, init seed, dtype.
    pub cfg: &'b ModelConfig,
    /// The block's anatomy and the wrong variants the config's fault picks.
    pub arch: &'b Arch,
    /// Where weights come from: seeded, or loaded from a checkpoint.
    pub source: Source<'b>,
    /// The prefix of every name, e.g. `block1.attn.q_proj`.
    scope: String,
}

impl<'b, B: Backend> Builder<'b, B> {
    /// The builder at the root scope.
    #[must_use]
    pub fn new(backend: &'b B, cfg: &'b ModelConfig, arch: &'b Arch, source: Source<'b>) -> Self {
        Self {
            backend,
            cfg,
            arch,
            source,
            scope: String::new(),
        }
    }

    /// The builder inside scope `name`.
    #[must_use]
    pub fn pp(&self, name: &str) -> Self {
        let scope = match self.scope.as_str() {
            "" => name.to_string(),
            s => format!("{s}.{name}"),
        };
        Self {
            scope,
            ..Self::new(self.backend, self.cfg, self.arch, self.source)
        }
    }

    /// A parameter of `shape` named `name` in this scope, with axis names `axes`.
    pub fn param(
        &self,
        name: &str,
        shape: &[usize],
        axes: &[Axis],
        init: Init,
    ) -> Param<B::Tensor> {
        let name = &self.pp(name).scope;
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
        // A 16-bit model stores its weights in 16 bits.
        let t = if self.cfg.dtype.is_half() {
            self.backend.cast(t, self.cfg.dtype)
        } else {
            t
        };
        Param {
            name: name.to_string(),
            t,
            axes: axes.to_vec(),
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

/// Every parameter the model of `cfg` reads, by name and shape: the
/// one-device model its config declares (no fault, which may change a
/// shape on purpose), with its ends (embeddings, head or pooler) when `lm`,
/// a run from token ids. What a checkpoint must hold ([`crate::weights`]).
#[must_use]
pub fn params_read(cfg: &ModelConfig, lm: bool) -> Vec<(String, Vec<usize>)> {
    use crate::ops::shape::ShapeOnly;
    let cfg = ModelConfig {
        fault: None,
        devices: crate::config::Devices::default(),
        ..cfg.clone()
    };
    let backend = ShapeOnly(cfg.dtype);
    let model = if lm && cfg.vocab.size.is_some() {
        Model::build_lm(&cfg, &backend, Source::Seeded)
    } else {
        Model::build_from(&cfg, &backend, Source::Seeded)
    };
    model
        .params()
        .into_iter()
        .map(|p| (p.name.clone(), ShapeOnly::shape(&p.t).to_vec()))
        .collect()
}

/// The whole model: blocks, then an optional final norm.
pub struct Model<T> {
    /// The blocks, `block1` … `blockN`, in order.
    pub blocks: Vec<Block<T>>,
    /// The final norm `ln_f`, (B, T, d) → (B, T, d); `None` when the config
    /// has no final norm.
    pub ln_f: Option<Norm<T>>,
    /// The embeddings and the LM head, built by [`Model::build_lm`] for a
    /// config with a vocabulary; `None` for the blocks alone.
    pub ends: Option<Embeddings<T>>,
    /// The anatomy its blocks run and the choices its layers made.
    pub arch: Arch,
    /// Under sequence parallelism, this device's part of the positions;
    /// `None` otherwise.
    pub positions: Option<shard::Cut>,
    /// Under expert parallelism, this device's part of the sequences (the
    /// expert-parallel devices are data-parallel outside the experts);
    /// `None` otherwise.
    pub sequences: Option<shard::Cut>,
    /// Under pipeline parallelism, this device's stage; `None` otherwise.
    pub stage: Option<Stage>,
}

/// One stage of a pipeline: it holds a run of the blocks, receives the
/// stream from the stage before (but the first, which embeds) and sends
/// it to the stage after (but the last, which ends the model).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stage {
    /// This stage, from 0.
    pub index: usize,
    /// M, the stages.
    pub stages: usize,
    /// Whether it reads the buffer it receives into only after the
    /// receive completes (`pp-recv-no-wait`: not).
    pub waits: bool,
}

impl Stage {
    /// Whether this is the first stage: it starts from x0 or the tokens.
    #[must_use]
    pub fn first(self) -> bool {
        self.index == 0
    }

    /// Whether this is the last stage: it ends the model.
    #[must_use]
    pub fn last(self) -> bool {
        self.index + 1 == self.stages
    }
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
        let arch = Arch::of(cfg);
        let b = Builder::new(backend, cfg, &arch, source);
        // A pipeline stage holds its run of the blocks; one device all.
        let d = cfg.devices;
        let blocks = d
            .blocks(cfg.layers)
            .map(|i| Block::new(&b.pp(&format!("block{i}")), i))
            .collect();
        let ln_f = (cfg.norms.final_norm && d.last_stage()).then(|| Norm::new(&b.pp("ln_f")));
        let positions = b.cut().filter(|_| d.sp);
        let sequences = d.experts_split().then_some(shard::Cut {
            parts: d.ep,
            rank: d.rank(),
        });
        let stage = d.piped().then_some(Stage {
            index: d.stage(),
            stages: d.pp,
            waits: arch.recv_waits,
        });
        Self {
            blocks,
            ln_f,
            arch,
            ends: None,
            positions,
            sequences,
            stage,
        }
    }

    /// As [`Model::build_from`], with the embeddings and the LM head when
    /// `cfg` has a vocabulary, so it can run from token ids.
    pub fn build_lm<B: Backend<Tensor = T>>(
        cfg: &ModelConfig,
        backend: &B,
        source: Source,
    ) -> Self {
        let model = Self::build_from(cfg, backend, source);
        let b = Builder::new(backend, cfg, &model.arch, source);
        // A pipeline's middle stages hold neither end.
        let d = cfg.devices;
        let ends = Embeddings::new(&b).filter(|_| d.first_stage() || d.last_stage());
        Self { ends, ..model }
    }

    /// Every parameter, in build order.
    #[must_use]
    pub fn params(&self) -> Vec<&Param<T>> {
        let mut out: Vec<&Param<T>> = self.blocks.iter().flat_map(Block::params).collect();
        if let Some(n) = &self.ln_f {
            out.extend(n.params());
        }
        if let Some(e) = &self.ends {
            out.extend(e.params());
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
        // A pipeline stage after the first receives its input instead.
        let x0 = match self.stage {
            Some(s) if !s.first() => None,
            _ => Some(rec.input(x0)?), // (B, T, d)
        };
        self.stack(rec, x0)
    }

    /// Runs the language model on token ids (B, T) and returns the logits
    /// (B, T, V): the embeddings give x0, the blocks and the final norm
    /// run as in [`Model::forward`], the LM head scores the vocabulary.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stopped the forward at a failed check.
    pub fn forward_lm<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        ends: &Embeddings<T>,
        ids: T,
    ) -> Result<Val<T>, Stop> {
        // A pipeline's first stage embeds, its last scores; between, the
        // stages send the stream on.
        let (first, last) = self.stage.map_or((true, true), |s| (s.first(), s.last()));
        let x0 = if first {
            Some(ends.embed_at(rec, ids, 0)?) // wte[ids] + wpe[0..T]: (B, T) → (B, T, d)
        } else {
            None
        };
        let x = self.stack(rec, x0)?; // (B, T, d)
        if last {
            ends.head(rec, &x) // x·wteᵀ: (B, T, V), or BERT's pooler: (B, d)
        } else {
            Ok(x)
        }
    }

    /// The blocks and the final norm on x0 (B, T, d); a pipeline stage
    /// after the first (`x0` `None`) receives its x0 from the stage before.
    fn stack<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x0: Option<Val<T>>,
    ) -> Result<Val<T>, Stop> {
        self.stack_kv(rec, x0, None)
    }

    /// As [`Model::stack`]; with `kv` (one per block) a pass of
    /// generation, each block's attention reading and writing its cache.
    fn stack_kv<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x0: Option<Val<T>>,
        kv: Option<&mut Vec<decode::Kv<T>>>,
    ) -> Result<Val<T>, Stop> {
        // Sequence parallelism: each device keeps its T/N positions;
        // expert parallelism: its B/N sequences.
        let whole = rec.stream().clone();
        let split = self.stream_split();
        if let Some((cut, axis)) = split {
            let mut part = whole.clone();
            part[axis] /= cut.parts;
            rec.set_stream(part);
        }
        let x0 = match (x0, split) {
            (Some(x0), Some((cut, axis))) => {
                rec.collective("scatter", &cut.op(axis), &x0, &[], true)?
            } // (B, T, d) → (B, T/N, d) or (B/N, T, d)
            (Some(x0), None) => x0,
            (None, _) => self.recv(rec)?, // (B, T, d), or (B, T/N, d)
        };
        let x = self.blocks_kv(rec, x0, kv)?; // (B, T, d)
        // A pipeline stage but the last sends the stream to the next.
        if let Some(s) = self.stage.filter(|s| !s.last()) {
            let send = Op::Send { to: s.index + 1 };
            return rec.collective("send", &send, &x, &[], true); // (B, T, d) → stage s+1
        }
        // …and every device's part is gathered back at the end.
        match split {
            Some((cut, axis)) => {
                rec.set_stream(whole);
                let all = Op::AllGather {
                    devices: cut.parts,
                    axis,
                };
                rec.collective("all_gather", &all, &x, &[], true) // (B, T/N, d) or (B/N, T, d) → (B, T, d)
            }
            None => Ok(x),
        }
    }

    /// The stream's split across devices, and its axis: the positions
    /// (1) under sequence parallelism, the sequences (0) under expert
    /// parallelism; `None` when each device holds all of it.
    fn stream_split(&self) -> Option<(shard::Cut, usize)> {
        self.positions
            .map(|c| (c, 1))
            .or(self.sequences.map(|c| (c, 0)))
    }

    /// A pipeline stage's x0: the stream the stage before sent, received
    /// into a buffer of the stream's shape, (B, T, d) or under sequence
    /// parallelism (B, T/N, d).
    fn recv<B: Backend<Tensor = T>>(&self, rec: &mut Recorder<B>) -> Result<Val<T>, Stop> {
        let shape = rec.stream().clone();
        let seq = match self.positions {
            Some(cut) => Axis::Seq.split(cut.parts),
            None => Axis::Seq,
        };
        let from = self.stage.map_or(0, |s| s.index.saturating_sub(1));
        let waits = self.stage.is_none_or(|s| s.waits);
        // torch.distributed.recv fills a buffer the stage allocated.
        let buffer = rec.backend().param(&shape, Init::Const(0.0), 0);
        rec.recv(from, buffer, &[Axis::Batch, seq, Axis::Model], waits)
    }

    /// The blocks and the final norm on x0 (B, T, d), with `kv` as
    /// [`Model::stack_kv`] says.
    fn blocks_kv<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x0: Val<T>,
        mut kv: Option<&mut Vec<decode::Kv<T>>>,
    ) -> Result<Val<T>, Stop> {
        let mut x = x0.clone();
        for (i, block) in self.blocks.iter().enumerate() {
            // A pipeline stage's blocks keep the model's numbers.
            let n = block.n;
            // Block n reads the previous block's output; under the
            // skip-block1 fault block 2 reads x0 instead.
            let input = if self.arch.anatomy.reads_x0(n) {
                &x0
            } else {
                &x
            };
            let cache = kv.as_deref_mut().and_then(|kv| kv.get_mut(i));
            x = block.forward(&mut rec.pp(&format!("block{n}")), input, cache)?; // (B, T, d)
        }
        match &self.ln_f {
            Some(n) => n.forward(rec, "ln_f", &x), // (B, T, d)
            None => Ok(x),
        }
    }
}

/// The input x0 ~ N(0, 1) of shape (B, T, d), drawn from the run seed.
pub fn input<B: Backend>(cfg: &ModelConfig, backend: &B) -> B::Tensor {
    backend.normal(&cfg.stream_shape(), seed_for(cfg.seed, "input"))
}

/// Token ids (B, T), each drawn uniformly from 0..V by the run seed; `None`
/// without a vocabulary.
#[must_use]
pub fn tokens(cfg: &ModelConfig) -> Option<ndarray::Array2<i64>> {
    use rand::{RngExt, SeedableRng};
    let v = i64::try_from(cfg.vocab.size?).ok()?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed_for(cfg.seed, "tokens"));
    Some(ndarray::Array2::from_shape_fn((cfg.batch, cfg.seq), |_| {
        rng.random_range(0..v)
    }))
}
