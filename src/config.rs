//! The model configuration: every option that changes what is traced.
//!
//! A config starts from a preset (`lesson` by default), is overlaid by a
//! model file (`--config FILE.toml`) and then by command-line flags, each a
//! [`file::Overlay`]: the one list of the fields a config has.
//! [`ModelConfig::validate`] turns every impossible combination into one
//! [`ConfigError`] that names the bad value and what is allowed.

mod fault;
pub mod file;
pub mod hf;
pub mod names;
mod overlay;
pub mod preset;
mod validate;

/// Kept in [`crate::text`], a leaf that the file readers use too.
pub use crate::text::human_bytes;
pub use fault::Fault;
use names::{UnknownName, named_enum};
use serde::{Deserialize, Serialize};

named_enum! {
    /// The MLP's non-linearity.
    Act, "activation" {
        Relu = "relu",
        /// Exact erf form, as PyTorch's `nn.GELU()`.
        Gelu = "gelu",
        /// The tanh approximation, as GPT-2's original code.
        GeluTanh = "gelu-tanh",
        /// `(silu(x·Wg) ⊙ x·Wu)·Wd`.
        Swiglu = "swiglu",
    }
}

named_enum! {
    /// The normalisation layer.
    NormKind, "norm" { LayerNorm = "layernorm", RmsNorm = "rmsnorm" }
}

named_enum! {
    /// Where the norms sit relative to the residual add.
    Placement, "placement" {
        /// `x = x + f(LN(x))`, as GPT-2 and nanoGPT.
        Pre = "pre",
        /// `x = LN(x + f(x))`, as the original Transformer.
        Post = "post",
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
    }
}

named_enum! {
    /// Element type of every tensor in a run.
    DType, "dtype" { F32 = "f32", F64 = "f64" }
}

impl DType {
    /// Bytes per element.
    #[must_use]
    pub fn size(self) -> usize {
        match self {
            DType::F32 => 4,
            DType::F64 => 8,
        }
    }
}

/// Everything that decides the traced model and its input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    /// The preset this config started from.
    #[serde(default)]
    pub preset: String,
    /// B.
    pub batch: usize,
    /// T.
    pub seq: usize,
    pub d_model: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub d_ff: usize,
    pub layers: usize,
    pub act: Act,
    pub norm: NormKind,
    pub placement: Placement,
    pub bias: bool,
    pub final_norm: bool,
    /// V, the vocabulary size; `None` models the blocks alone, with no
    /// embeddings and no LM head.
    #[serde(default)]
    pub vocab: Option<usize>,
    /// Positions the position embedding holds (nanoGPT's block_size); 0
    /// means as many as `seq`. T may not exceed it.
    #[serde(default)]
    pub context: usize,
    /// The LM head reuses the token embedding wte (as GPT-2), adding no
    /// parameters; untied, it is its own (d, V) matrix.
    #[serde(default = "tied_by_default")]
    pub tied: bool,
    /// Learned positions (wpe) or rotary ones (no parameters).
    #[serde(default)]
    pub pos_emb: PosEmb,
    /// θ of the rotary embedding (rotary positions only).
    #[serde(default = "rope_theta_by_default")]
    pub rope_theta: f64,
    pub dtype: DType,
    pub seed: u64,
    pub eps: f64,
    #[serde(default)]
    pub fault: Option<Fault>,
}

fn tied_by_default() -> bool {
    true
}

fn rope_theta_by_default() -> f64 {
    10_000.0
}

/// Largest value allowed for any one dimension.
pub const MAX_DIM: usize = 1 << 20;

/// Most blocks a model may have. The deepest published transformers have
/// a few hundred; every event of every block is held in the trace, so the
/// depth bounds a shape-only run's memory (about 30 MB per 1,000 blocks).
pub const MAX_LAYERS: usize = 4096;

/// An impossible or unsupported configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("{name} must be at least 1 (got 0)")]
    Zero { name: &'static str },
    #[error("{name} {got} is too large; allowed: 1..={max}")]
    TooLarge {
        name: &'static str,
        got: usize,
        max: usize,
    },
    #[error("d_model {d_model} is not divisible by heads {heads}; allowed heads: {allowed}")]
    HeadsDontDivide {
        d_model: usize,
        heads: usize,
        allowed: String,
    },
    #[error("heads {heads} is not divisible by kv-heads {kv_heads}; allowed kv-heads: {allowed}")]
    KvHeadsDontDivide {
        heads: usize,
        kv_heads: usize,
        allowed: String,
    },
    #[error(
        "seq {seq} is longer than context {context}; allowed: seq 1..={context}, or raise --context"
    )]
    SeqOverContext { seq: usize, context: usize },
    #[error("eps {0} must be a finite number > 0")]
    Eps(f64),
    #[error("rope_theta {0} must be a finite number > 1")]
    RopeTheta(f64),
    #[error("fault {fault} {needs}")]
    FaultNeeds { fault: Fault, needs: &'static str },
    #[error(
        "a numeric run ({why}) needs about {need} of memory, over the --max-memory limit of {limit}; raise --max-memory, or lower the dimensions"
    )]
    TooBig {
        need: String,
        limit: String,
        why: &'static str,
    },
    #[error("{a} conflicts with {b}: {b} needs a numeric run; drop one of them")]
    Conflict { a: &'static str, b: &'static str },
    #[error("{what} would hold {got} elements, too many to count; allowed: at most 2^48 ({max}); lower the dimensions", max = MAX_ELEMENTS)]
    TooManyElements { what: &'static str, got: u128 },
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
    /// Size of one attention head.
    #[must_use]
    pub fn head_dim(&self) -> usize {
        self.d_model / self.heads.max(1)
    }

    /// The shape every stream tensor keeps: (B, T, d_model).
    #[must_use]
    pub fn stream_shape(&self) -> Vec<usize> {
        vec![self.batch, self.seq, self.d_model]
    }

    /// Rows of the position embedding: `context`, or `seq` when it is 0.
    #[must_use]
    pub fn positions(&self) -> usize {
        if self.context == 0 {
            self.seq
        } else {
            self.context
        }
    }
}
