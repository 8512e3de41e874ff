//! The model configuration: every option that changes what is traced.
//!
//! A config starts from a preset (`lesson` by default), is overlaid by a
//! model file (`--config FILE.toml`) and then by command-line flags, each a
//! [`file::Overlay`]: the one list of the fields a config has.
//! [`ModelConfig::validate`] turns every impossible combination into one
//! [`ConfigError`] that names the bad value and what is allowed.

mod attention;
mod devices;
pub mod fault;
pub mod file;
mod flat;
pub mod hf;
mod mixture;
mod mlp;
pub mod names;
mod norms;
mod overlay;
mod positions;
pub mod preset;
mod rope;
mod validate;
mod vocab;

/// Kept in [`crate::text`], a leaf that the file readers use too.
pub use crate::text::human_bytes;
use crate::why::Why;
pub use attention::Attention;
pub use devices::{Devices, MAX_EP, MAX_MICRO_BATCHES, MAX_PP, MAX_TP, padding_rows};
pub use fault::{Fault, FaultSpec};
use flat::Flat;
pub use mixture::Mixture;
pub use mlp::Mlp;
use names::{UnknownName, named_enum};
pub use norms::Norms;
pub use positions::Positions;
pub use rope::RopeScaling;
use serde::{Deserialize, Serialize};
pub use vocab::Vocab;

named_enum! {
    /// The MLP's non-linearity.
    Act, "activation" {
        /// `max(0, x)`.
        Relu = "relu",
        /// Exact erf form, as PyTorch's `nn.GELU()`.
        Gelu = "gelu",
        /// The tanh approximation, as GPT-2's original code.
        GeluTanh = "gelu-tanh",
        /// `(silu(x·Wg) ⊙ x·Wu)·Wd`.
        Swiglu = "swiglu",
        /// `x·σ(x)`, not gated: GPT-2's `activation_function = "silu"`.
        Silu = "silu",
        /// `(gelu_tanh(x·Wg) ⊙ x·Wu)·Wd`: Gemma's gated GELU.
        Geglu = "geglu",
    }
}

named_enum! {
    /// The normalisation layer.
    NormKind, "norm" {
        /// `γ·(x − mean)/√(var + eps) + β` over the last axis (d_model).
        LayerNorm = "layernorm",
        /// `γ·x/√(mean(x²) + eps)`: no centring and no β, as LLaMA.
        RmsNorm = "rmsnorm",
        /// `(1 + w)·x/√(mean(x²) + eps)`: RMSNorm whose stored weight w is
        /// the offset from 1 (initialised to 0), as Gemma's.
        RmsNormPlusOne = "rmsnorm-plus-one",
    }
}

named_enum! {
    /// Where the norms sit relative to the residual add.
    Placement, "placement" {
        /// `x = x + f(LN(x))`, as GPT-2 and nanoGPT.
        Pre = "pre",
        /// `x = LN(x + f(x))`, as the original Transformer.
        Post = "post",
        /// `x = x + LN_out(f(LN(x)))`: a norm on each sublayer's input and
        /// another on its output before the add, as Gemma 2.
        Sandwich = "sandwich",
    }
}

named_enum! {
    /// How positions enter the model.
    #[derive(Default)]
    PosEmb, "positions" {
        /// A learned position embedding wpe (context, d), as GPT-2.
        #[default]
        Learned = "learned",
        /// Rotary embeddings in attention, as LLaMA: no parameters; q and k
        /// are rotated as steps of their own (`attn.q_rot`, `attn.k_rot`).
        Rope = "rope",
        /// ALiBi (Press et al.; BLOOM, MPT): no parameters and no rotation;
        /// each head adds m_h·(j − t) to its scores (`attn.scores.alibi`), a
        /// penalty growing with the distance back to key j, its slope m_h
        /// from BLOOM's geometric series (2^(−8/h), 2^(−16/h), …).
        Alibi = "alibi",
    }
}

named_enum! {
    /// What a model with a vocabulary ends in.
    #[derive(Default)]
    Head, "head" {
        /// The LM head: a score per token of the vocabulary, (B, T, V).
        #[default]
        Lm = "lm",
        /// BERT's pooler: `tanh(x[:, 0]·W + b)`, one vector per sequence
        /// from its first token, (B, d); no LM head.
        Pooler = "pooler",
    }
}

named_enum! {
    /// How attention's q, k and v projections are stored: apart, or as one
    /// fused matrix whose output is split, a step of its own.
    #[derive(Default)]
    QkvFusion, "qkv fusion" {
        /// Three matrices, q_proj, k_proj and v_proj.
        #[default]
        Apart = "apart",
        /// One matrix `qkv_proj` (d, (h + 2·kv)·hd), its output `[q; k; v]`
        /// (Phi-3, Falcon-7B's multi-query attention).
        Concat = "concat",
        /// One matrix whose output is `[q_g; k_g; v_g]` for every K/V group
        /// g, each group's h/kv query heads beside its key and value head
        /// (GPT-NeoX, Falcon-40B).
        Grouped = "grouped",
    }
}

named_enum! {
    /// Element type of a tensor. A model runs in one of the floats (its
    /// stream and weights); the token ids are i64.
    DType, "dtype" {
        /// 32-bit float, 4 bytes an element.
        F32 = "f32",
        /// 64-bit float, 8 bytes an element.
        F64 = "f64",
        /// bfloat16: f32's 8-bit exponent with a 7-bit mantissa, 2 bytes.
        /// Run as frameworks run it: values rounded to bf16 after each op,
        /// products summed in f32, norms and softmax in f32.
        BF16 = "bf16",
        /// IEEE half precision (5-bit exponent, 10-bit mantissa), 2 bytes.
        /// Run as bf16 is.
        F16 = "f16",
        /// 64-bit integer: the token ids, never a model's dtype.
        I64 = "i64",
    }
}

impl Act {
    /// Whether the MLP has a gate projection: SwiGLU and GeGLU.
    #[must_use]
    pub fn is_gated(self) -> bool {
        matches!(self, Act::Swiglu | Act::Geglu)
    }
}

impl DType {
    /// The dtypes a model may run in, as `--dtype` and config files allow.
    pub const MODEL: [DType; 4] = [DType::F32, DType::F64, DType::BF16, DType::F16];

    /// Bytes per element.
    #[must_use]
    pub fn size(self) -> usize {
        match self {
            DType::BF16 | DType::F16 => 2,
            DType::F32 => 4,
            DType::F64 | DType::I64 => 8,
        }
    }

    /// A 16-bit float: the model casts up to f32 for its norms and softmax
    /// and back down after them.
    #[must_use]
    pub fn is_half(self) -> bool {
        matches!(self, DType::BF16 | DType::F16)
    }

    /// The dtype an element-wise op on `self` and `other` gives, as
    /// PyTorch promotes: the same, or the wider float (bf16 and f16 meet
    /// in f32). Integers (ids) index; they never widen a float.
    #[must_use]
    pub fn promote(self, other: DType) -> DType {
        match (self, other) {
            (a, b) if a == b => a,
            (DType::I64, x) | (x, DType::I64) => x,
            (DType::F64, _) | (_, DType::F64) => DType::F64,
            _ => DType::F32,
        }
    }

    /// `s` as a model dtype: one of [`DType::MODEL`].
    ///
    /// # Errors
    /// [`names::UnknownName`] naming `s` and the model dtypes.
    pub fn parse_model(s: &str) -> Result<DType, names::UnknownName> {
        let allowed = || DType::MODEL.map(DType::as_str).join(", ");
        match s.parse::<DType>() {
            Ok(d) if DType::MODEL.contains(&d) => Ok(d),
            _ => Err(names::UnknownName {
                what: "dtype",
                got: s.to_string(),
                allowed: allowed(),
            }),
        }
    }
}

/// Everything that decides the traced model and its input: the model-wide
/// settings here, the rest in one part per piece of the model.
///
/// Read and written as `Flat` (TOML model files, presets, a log's
/// header): one level of keys, a part's `None` written as 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "Flat", into = "Flat")]
pub struct ModelConfig {
    /// The preset this config started from.
    pub preset: String,
    /// B, the number of sequences run side by side.
    pub batch: usize,
    /// T, the number of positions (tokens) in each sequence: the prompt,
    /// when the run decodes.
    pub seq: usize,
    /// Decode steps after the prompt's prefill, each feeding one token and
    /// reading the key/value cache ([`crate::model::decode`]); 0 runs the
    /// training-time forward alone.
    pub decode: usize,
    /// After the forward, a loss and the backward from it to every
    /// parameter ([`crate::model::backward`]): the training step's
    /// gradients, each of its tensor's shape.
    pub backward: bool,
    /// The width of the residual stream: every sublayer maps
    /// (B, T, d_model) → (B, T, d_model).
    pub d_model: usize,
    /// How many blocks are stacked.
    pub layers: usize,
    /// Whether the linear layers (and LayerNorm's β) have biases, unless a
    /// part says otherwise ([`Mlp::bias`], [`Norms::bias`],
    /// [`Attention::qkv_bias`]).
    pub bias: bool,
    /// Parallel residuals, as GPT-NeoX: attention and the MLP both read
    /// the block's input (each through its own norm) and their updates are
    /// summed into one residual add, `x + attn(LN1(x)) + mlp(LN2(x))`.
    /// Pre-LN only.
    pub parallel: bool,
    /// An encoder (as BERT): attention reads every position, before and
    /// after; a decoder's (the default) reads the past only.
    pub encoder: bool,
    /// The attention sublayer: heads, head width, projections, window.
    pub attention: Attention,
    /// The MLP sublayer: hidden width, activation, biases.
    pub mlp: Mlp,
    /// A mixture of experts in the MLP's place; `None` (written
    /// `experts = 0`) for one dense MLP.
    pub mixture: Option<Mixture>,
    /// The norms: kind, placement, β, which exist, ε.
    pub norms: Norms,
    /// The position embedding and its settings.
    pub positions: Positions,
    /// The vocabulary, the embeddings and the head.
    pub vocab: Vocab,
    /// The element type of every tensor of a numeric run.
    pub dtype: DType,
    /// The run seed: every seeded tensor draws from its own stream derived
    /// from it and the tensor's name ([`crate::seed::seed_for`]).
    pub seed: u64,
    /// The teaching fault built into the model; `None` for the correct model.
    pub fault: Option<Fault>,
    /// How the model is split across devices ([`Devices`]); one device
    /// by default.
    pub devices: Devices,
}

/// Most experts a mixture-of-experts MLP may have (DeepSeek-V3 routes
/// among 256).
pub const MAX_EXPERTS: usize = 256;

/// Largest value allowed for any one dimension.
pub const MAX_DIM: usize = 1 << 20;

/// Most blocks a model may have. The deepest published transformers have
/// a few hundred; every event of every block is held in the trace, so the
/// depth bounds a shape-only run's memory (about 30 MB per 1,000 blocks).
pub const MAX_LAYERS: usize = 4096;

/// Most decode steps a run takes: each is a pass of its own in the trace.
pub const MAX_DECODE: usize = 4096;

/// An impossible or unsupported configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A dimension that must be positive is 0.
    #[error("{}", self.en())]
    Zero {
        /// The dimension, e.g. `heads`.
        name: &'static str,
    },
    /// A dimension is over its limit ([`MAX_DIM`], [`MAX_LAYERS`]).
    #[error("{}", self.en())]
    TooLarge {
        /// The dimension, e.g. `d_model`.
        name: &'static str,
        /// The value given.
        got: usize,
        /// The largest value allowed.
        max: usize,
    },
    /// d_model does not split into `heads` equal slices.
    #[error("{}", self.en())]
    HeadsDontDivide {
        /// The model width.
        d_model: usize,
        /// The heads asked for.
        heads: usize,
        /// The divisors of d_model, listed for the message.
        allowed: String,
    },
    /// The query heads do not split into equal groups over the K/V heads.
    #[error("{}", self.en())]
    KvHeadsDontDivide {
        /// The query heads.
        heads: usize,
        /// The K/V heads asked for.
        kv_heads: usize,
        /// The divisors of heads, listed for the message.
        allowed: String,
    },
    /// T is longer than the positions the position embedding holds.
    #[error("{}", self.en())]
    SeqOverContext {
        /// T asked for.
        seq: usize,
        /// Positions the embedding holds.
        context: usize,
    },
    /// The norms' ε (the value given) is not a positive finite number.
    #[error("{}", self.en())]
    Eps(f64),
    /// The rotary θ (the value given) is not a finite number above 1.
    #[error("{}", self.en())]
    RopeTheta(f64),
    /// A rope scaling factor out of range.
    #[error("rope_scaling {kind}: {field} {got} is out of range; allowed: {allowed}")]
    RopeScaling {
        /// `linear` or `llama3`.
        kind: &'static str,
        /// The factor, e.g. `high_freq_factor`.
        field: &'static str,
        /// Its value.
        got: f64,
        /// What it may be.
        allowed: &'static str,
    },
    /// Parallel residuals asked of a block whose norms are not all before
    /// their sublayers.
    #[error("{}", self.en())]
    ParallelPlacement(Placement),
    /// A setting of rotary positions on a model with learned ones.
    #[error("{0} needs rotary positions (pos_emb = \"rope\"); this model learns its positions")]
    NeedsRotary(&'static str),
    /// Rotary positions turn pairs of features: an odd head width has none
    /// for its last.
    #[error("{}", self.en())]
    OddRotary(usize),
    /// A sliding window asked of an encoder, whose attention reads both ways.
    #[error("{}", self.en())]
    WindowInEncoder(usize),
    /// `experts` or `top_k` out of range.
    #[error("{what} {got}; allowed: {allowed}")]
    Experts {
        /// `experts` or `top_k`.
        what: &'static str,
        /// The value given.
        got: usize,
        /// What is allowed, in words.
        allowed: String,
    },
    /// The fault would not show on this model (e.g. `bias-w1-64` when
    /// d_ff = d_model).
    #[error("fault {fault} {needs}")]
    FaultNeeds {
        /// The fault asked for.
        fault: Fault,
        /// What the model lacks, e.g. `needs seq at least 2`.
        needs: &'static str,
    },
    /// A numeric run would need more memory than `--max-memory` allows.
    #[error("{}", self.en())]
    TooBig {
        /// The estimated need, human-readable (e.g. `1.5 GiB`).
        need: String,
        /// The limit, human-readable.
        limit: String,
        /// What asked for the numbers, e.g. `--weights`.
        why: &'static str,
    },
    /// Two options that cannot go together, e.g. `--shape-only` with an
    /// option that needs a numeric run.
    #[error("{}", self.en())]
    Conflict {
        /// The first option, e.g. `--shape-only`.
        a: &'static str,
        /// The option that needs numbers.
        b: &'static str,
    },
    /// A tensor or weight count would pass [`MAX_ELEMENTS`].
    #[error("{what} would hold {got} elements, too many to count; allowed: at most 2^48 ({max}); lower the dimensions", max = MAX_ELEMENTS)]
    TooManyElements {
        /// Which count, with its formula, e.g. `the scores (B·heads·T·T)`.
        what: &'static str,
        /// The count it would be.
        got: u128,
    },
    /// A name outside its set, e.g. `dtype = "i64"` for a model.
    #[error(transparent)]
    Name(UnknownName),
    /// A dimension the tensor- or expert-parallel devices cannot split
    /// evenly.
    #[error("{}", self.en())]
    Split {
        /// The field, e.g. `heads`.
        field: &'static str,
        /// Its value.
        got: usize,
        /// The split's flag: `tp` or `ep`.
        by: &'static str,
        /// The devices asked for.
        n: usize,
        /// Every N of that split this model allows.
        allowed: String,
    },
    /// Blocks the pipeline stages cannot split evenly.
    #[error("{}", self.en())]
    Stages {
        /// The blocks.
        got: usize,
        /// The stages asked for.
        pp: usize,
        /// Every pp this model allows.
        allowed: String,
    },
    /// A field with a value it may not take on this model.
    #[error("{field} {got}; allowed: {allowed}")]
    Field {
        /// The field, e.g. `rotary_dims`.
        field: &'static str,
        /// Its value, as written.
        got: String,
        /// What it may be here, in words.
        allowed: String,
    },
}

impl ConfigError {
    /// This error as a catalog message (`err-config-…`), whose English is
    /// the `Display`; `None` where the message still holds the library's
    /// English words (a fault's need, a rope factor's range, a name).
    #[must_use]
    pub fn why(&self) -> Option<Why> {
        let w = match self {
            Self::Zero { name } => Why::new("err-config-zero").arg("name", *name),
            Self::TooLarge { name, got, max } => Why::new("err-config-too-large")
                .arg("name", *name)
                .arg("got", got.to_string())
                .arg("max", *max),
            Self::HeadsDontDivide {
                d_model,
                heads,
                allowed,
            } => Why::new("err-config-heads")
                .arg("d", *d_model)
                .arg("heads", *heads)
                .arg("allowed", allowed.as_str()),
            Self::KvHeadsDontDivide {
                heads,
                kv_heads,
                allowed,
            } => Why::new("err-config-kv-heads")
                .arg("heads", *heads)
                .arg("kv", *kv_heads)
                .arg("allowed", allowed.as_str()),
            Self::SeqOverContext { seq, context } => Why::new("err-config-seq")
                .arg("seq", seq.to_string())
                .arg("context", *context),
            Self::Eps(v) => Why::new("err-config-eps").arg("got", v.to_string()),
            Self::RopeTheta(v) => Why::new("err-config-rope-theta").arg("got", v.to_string()),
            Self::ParallelPlacement(p) => Why::new("err-config-parallel").arg("got", p.to_string()),
            Self::OddRotary(hd) => Why::new("err-config-odd-rotary").arg("hd", *hd),
            Self::WindowInEncoder(w) => Why::new("err-config-window-encoder").arg("window", *w),
            Self::TooBig { need, limit, why } => Why::new("err-config-too-big")
                .arg("need", need.as_str())
                .arg("limit", limit.as_str())
                .arg("why", *why),
            Self::Conflict { a, b } => Why::new("err-config-conflict").arg("a", *a).arg("b", *b),
            Self::Split {
                field,
                got,
                by,
                n,
                allowed,
            } => Why::new("err-config-split")
                .arg("field", *field)
                .arg("got", got.to_string())
                .arg("by", *by)
                .arg("n", *n)
                .arg("allowed", allowed.as_str()),
            Self::Stages { got, pp, allowed } => Why::new("err-config-stages")
                .arg("got", *got)
                .arg("pp", pp.to_string())
                .arg("allowed", allowed.as_str()),
            Self::RopeScaling { .. }
            | Self::NeedsRotary(_)
            | Self::Experts { .. }
            | Self::FaultNeeds { .. }
            | Self::TooManyElements { .. }
            | Self::Name(_)
            | Self::Field { .. } => return None,
        };
        Some(w)
    }

    /// The English of a variant whose `Display` is its catalog message
    /// (`#[error("{}", self.en())]`), each worded by [`Self::why`].
    fn en(&self) -> String {
        self.why()
            .expect("a variant displayed from the catalog is worded by why()")
            .text()
    }
}

/// Why an overlay gave no config: its base preset is unknown, or the
/// config it gives breaks a rule ([`file::Overlay::resolve`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResolveError {
    /// The base preset is not one of [`preset::PRESETS`].
    #[error(transparent)]
    Preset(#[from] UnknownName),
    /// The config breaks a rule of [`ModelConfig::validate`].
    #[error(transparent)]
    Invalid(#[from] ConfigError),
}

/// The largest tensor or weight count a config may imply, so that every
/// count, FLOP and byte total stays far inside u64.
pub const MAX_ELEMENTS: u128 = 1 << 48;

/// The divisors of `n`, comma separated: what heads may be for a d_model.
#[must_use]
pub fn divisors(n: usize) -> String {
    (1..=n)
        .filter(|k| n.is_multiple_of(*k))
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl ModelConfig {
    /// Size of one attention head, hd: [`Attention::head_dim`], else
    /// d_model / heads.
    #[must_use]
    pub fn head_dim(&self) -> usize {
        self.attention
            .head_dim
            .unwrap_or(self.d_model / self.attention.heads.max(1))
    }

    /// The width of the merged heads, h·hd: q's width, and the output
    /// projection's input. d_model unless `head_dim` says otherwise.
    #[must_use]
    pub fn attn_width(&self) -> usize {
        self.attention.heads * self.head_dim()
    }

    /// The width of k and v, kv·hd.
    #[must_use]
    pub fn kv_width(&self) -> usize {
        self.attention.kv_heads * self.head_dim()
    }

    /// Whether the MLP's projections have biases: [`Mlp::bias`], or `bias`.
    #[must_use]
    pub fn mlp_bias(&self) -> bool {
        self.mlp.bias.unwrap_or(self.bias)
    }

    /// Whether the norms have β: LayerNorm only, as [`Norms::bias`] or
    /// `bias`.
    #[must_use]
    pub fn norm_bias(&self) -> bool {
        self.norms.kind == NormKind::LayerNorm && self.norms.bias.unwrap_or(self.bias)
    }

    /// The sliding window of block `n` (from 1): [`Attention::window`], or
    /// `None` (every earlier key) on every `full_every`-th block.
    #[must_use]
    pub fn window_at(&self, n: usize) -> Option<usize> {
        match self.attention.full_every {
            Some(every) if n.is_multiple_of(every) => None,
            _ => self.attention.window,
        }
    }

    /// The features of each head rotary positions turn:
    /// [`Positions::rotary_dims`], or hd.
    #[must_use]
    pub fn rotary_dims(&self) -> usize {
        self.positions
            .rotary_dims
            .unwrap_or_else(|| self.head_dim())
    }

    /// The number whose √ divides attention's scores:
    /// [`Attention::query_scale`], or hd.
    #[must_use]
    pub fn score_scale(&self) -> usize {
        self.attention
            .query_scale
            .unwrap_or_else(|| self.head_dim())
    }

    /// The experts of the MLP: [`Mixture::experts`], or 0 for a dense MLP
    /// (the count every per-expert sum and the router's width read).
    #[must_use]
    pub fn experts(&self) -> usize {
        self.mixture.map_or(0, |m| m.experts)
    }

    /// The shape every stream tensor keeps: (B, T, d_model).
    #[must_use]
    pub fn stream_shape(&self) -> Vec<usize> {
        vec![self.batch, self.seq, self.d_model]
    }

    /// Positions the position embedding holds: [`Positions::context`], or
    /// `seq` (and the decode steps after it).
    #[must_use]
    pub fn context(&self) -> usize {
        self.positions
            .context
            .unwrap_or(self.seq.saturating_add(self.decode))
    }

    /// Rows of the position embedding: [`ModelConfig::context`] and the
    /// [`Positions::offset`] rows before position 0.
    #[must_use]
    pub fn positions(&self) -> usize {
        self.context().saturating_add(self.positions.offset)
    }
}
