//! The model configuration: every option that changes what is traced.
//!
//! A config starts from a preset (`lesson` by default), is overlaid by a
//! model file (`--config FILE.toml`) and then by command-line flags.
//! [`ModelConfig::validate`] turns every impossible combination into one
//! [`ConfigError`] that names the bad value and what is allowed.

pub mod file;
pub mod names;
pub mod preset;

use names::named_enum;
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
    /// Element type of every tensor in a run.
    DType, "dtype" { F32 = "f32", F64 = "f64" }
}

impl Fault {
    /// The mistake this fault builds, in one sentence.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Fault::FfnNoDown => "the MLP returns its hidden layer: no down projection",
            Fault::AttnNoMerge => "the attention heads are never merged back",
            Fault::BiasW164 => "b1 is sized d_model instead of d_ff",
            Fault::MergeNoTranspose => {
                "the heads are merged by a bare reshape, without the transpose"
            }
            Fault::NoCausalMask => "the causal mask is left out",
            Fault::SkipBlock1 => "Block2(x) instead of Block2(Block1(x))",
            Fault::NormOverSeq => "the norm averages over the sequence instead of the features",
        }
    }
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

named_enum! {
    /// A teaching fault: a known mistake built as a wrong variant of the model.
    Fault, "fault" {
        /// The MLP returns its hidden layer (no down projection).
        FfnNoDown = "ffn-no-down",
        /// The heads are never merged back.
        AttnNoMerge = "attn-no-merge",
        /// b1 is sized d_model instead of d_ff.
        BiasW164 = "bias-w1-64",
        /// The heads are merged by a bare reshape, without the transpose.
        MergeNoTranspose = "merge-no-transpose",
        /// The causal mask is left out.
        NoCausalMask = "no-causal-mask",
        /// Block2(x) instead of Block2(Block1(x)).
        SkipBlock1 = "skip-block1",
        /// The norm averages over the sequence instead of the features.
        NormOverSeq = "norm-over-seq",
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
    pub dtype: DType,
    pub seed: u64,
    pub eps: f64,
    #[serde(default)]
    pub fault: Option<Fault>,
}

/// Largest value allowed for any one dimension.
pub const MAX_DIM: usize = 1 << 20;

/// Largest numeric run, in bytes of weights plus live activations.
pub const MAX_NUMERIC_BYTES: u128 = 4 << 30;

/// An impossible or unsupported configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("{name} must be at least 1 (got 0)")]
    Zero { name: &'static str },
    #[error("{name} {got} is too large; allowed: 1..={max}", max = MAX_DIM)]
    TooLarge { name: &'static str, got: usize },
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
    #[error("eps {0} must be a finite number > 0")]
    Eps(f64),
    #[error("fault {fault} {needs}")]
    FaultNeeds { fault: Fault, needs: &'static str },
    #[error(
        "a numeric run needs about {need} of memory, over the {limit} limit; lower the dimensions"
    )]
    TooBig { need: String, limit: String },
}

fn divisors(n: usize) -> String {
    (1..=n)
        .filter(|k| n.is_multiple_of(*k))
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Formats a byte count with a binary unit, e.g. `1.5 GiB`.
#[must_use]
pub fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    #[allow(clippy::cast_precision_loss)]
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
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

    /// Checks every rule a model must satisfy before it is built.
    ///
    /// # Errors
    /// The first broken rule, naming the value and what is allowed.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let dims = [
            ("batch", self.batch),
            ("seq", self.seq),
            ("d_model", self.d_model),
            ("heads", self.heads),
            ("kv_heads", self.kv_heads),
            ("d_ff", self.d_ff),
            ("layers", self.layers),
        ];
        for (name, got) in dims {
            if got == 0 {
                return Err(ConfigError::Zero { name });
            }
            if got > MAX_DIM {
                return Err(ConfigError::TooLarge { name, got });
            }
        }
        if !self.d_model.is_multiple_of(self.heads) {
            return Err(ConfigError::HeadsDontDivide {
                d_model: self.d_model,
                heads: self.heads,
                allowed: divisors(self.d_model),
            });
        }
        if !self.heads.is_multiple_of(self.kv_heads) {
            return Err(ConfigError::KvHeadsDontDivide {
                heads: self.heads,
                kv_heads: self.kv_heads,
                allowed: divisors(self.heads),
            });
        }
        if !(self.eps.is_finite() && self.eps > 0.0) {
            return Err(ConfigError::Eps(self.eps));
        }
        if let Some(fault) = self.fault
            && let Some(needs) = self.fault_needs(fault)
        {
            return Err(ConfigError::FaultNeeds { fault, needs });
        }
        let need = self.numeric_bytes();
        if need > MAX_NUMERIC_BYTES {
            return Err(ConfigError::TooBig {
                need: human_bytes(need),
                limit: human_bytes(MAX_NUMERIC_BYTES),
            });
        }
        Ok(())
    }

    /// Why a fault would not show on this model, if it would not.
    fn fault_needs(&self, fault: Fault) -> Option<&'static str> {
        match fault {
            Fault::BiasW164 if !self.bias => Some("needs biases; drop --no-bias"),
            Fault::BiasW164 | Fault::FfnNoDown if self.d_ff == self.d_model => {
                Some("needs d_ff different from d_model")
            }
            Fault::SkipBlock1 if self.layers < 2 => Some("needs at least 2 layers"),
            Fault::MergeNoTranspose if self.heads < 2 || self.seq < 2 => {
                Some("needs at least 2 heads and seq at least 2")
            }
            Fault::NoCausalMask | Fault::NormOverSeq if self.seq < 2 => {
                Some("needs seq at least 2")
            }
            _ => None,
        }
    }

    /// Rough bytes a numeric run holds at once: weights, the input and a few
    /// live activations of the widest kind, in the run's dtype.
    #[must_use]
    pub fn numeric_bytes(&self) -> u128 {
        let (b, t, d, f, l) = (
            self.batch as u128,
            self.seq as u128,
            self.d_model as u128,
            self.d_ff as u128,
            self.layers as u128,
        );
        let h = self.heads as u128;
        let weights = l * (4 * d * d + 3 * d * f);
        let widest = (b * t * f).max(b * h * t * t).max(b * t * d);
        (weights + 6 * widest) * self.dtype.size() as u128
    }
}

impl Default for ModelConfig {
    fn default() -> Self {
        preset::lesson()
    }
}
