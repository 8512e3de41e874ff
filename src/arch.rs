//! The architecture a model is built as, as data: the block's anatomy
//! (its sublayers, where each norm sits, how each update reaches the
//! stream, the attention's mask, which block reads what) and the choices
//! each layer makes. A correct model is [`Arch::of`] a config without a
//! fault; each teaching fault maps to one wrong variant here and nowhere
//! else.
//!
//! The model runs the anatomy it is given, and the trace records it, so
//! a view of the trace draws the block without building a model.
//!
//! ```text
//! Pre-LN   (norm: Before):  x = x + Attn(LN1(x));   x = x + MLP(LN2(x))
//! Post-LN  (norm: After):   x = LN1(x + Attn(x));   x = LN2(x + MLP(x))
//! ```

use crate::config::names::named_enum;
use crate::config::{Fault, ModelConfig, Placement};
use crate::ops::{Merge, NormAxis};
use serde::{Deserialize, Serialize};

named_enum! {
    /// What a sublayer computes; also its path inside a block.
    SublayerKind, "sublayer" {
        /// Causal multi-head self-attention.
        Attention = "attn",
        /// The position-wise MLP.
        Mlp = "mlp",
    }
}

named_enum! {
    /// Where a sublayer's norm sits.
    NormAt, "norm placement" {
        /// On the sublayer's input: `x + f(LN(x))` (Pre-LN).
        Before = "before",
        /// On the residual sum: `LN(x + f(x))` (Post-LN).
        After = "after",
    }
}

named_enum! {
    /// Which scores the attention's softmax may read.
    Mask, "mask" {
        /// Position t reads positions ≤ t only.
        Causal = "causal",
        /// Every position reads every position: the `no-causal-mask` fault.
        None = "none",
    }
}

/// One sublayer of a block: number i (from 1) has the norm `ln_i` and
/// the residual add `resid_i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sublayer {
    pub kind: SublayerKind,
    pub norm: NormAt,
}

/// The shape of every block and how the blocks are wired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anatomy {
    /// The sublayers, in order; each adds its update onto the stream.
    pub sublayers: Vec<Sublayer>,
    pub mask: Mask,
    /// The block that reads the model's input x0 instead of the previous
    /// block's output: block 2 under the `skip-block1` fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads_input: Option<usize>,
}

impl Anatomy {
    /// The block of `placement`: attention, then the MLP.
    #[must_use]
    pub fn block(placement: Placement) -> Self {
        let norm = match placement {
            Placement::Pre => NormAt::Before,
            Placement::Post => NormAt::After,
        };
        let sublayers = [SublayerKind::Attention, SublayerKind::Mlp]
            .map(|kind| Sublayer { kind, norm })
            .to_vec();
        Self {
            sublayers,
            mask: Mask::Causal,
            reads_input: None,
        }
    }

    /// Most sublayers an anatomy may list.
    pub const MAX_SUBLAYERS: usize = 8;

    /// Why this anatomy cannot be the block of a model of `layers`
    /// blocks, if it cannot: a replayed log's is read, not built, so it is
    /// checked here.
    ///
    /// # Errors
    /// What is wrong and what is allowed.
    pub fn fits(&self, layers: usize) -> Result<(), String> {
        let n = self.sublayers.len();
        if !(1..=Self::MAX_SUBLAYERS).contains(&n) {
            return Err(format!(
                "the anatomy lists {n} sublayers; allowed: 1 to {}",
                Self::MAX_SUBLAYERS
            ));
        }
        for (i, s) in self.sublayers.iter().enumerate() {
            if self.sublayers[..i].iter().any(|t| t.kind == s.kind) {
                return Err(format!(
                    "the anatomy lists sublayer {} twice; allowed: each kind once",
                    s.kind
                ));
            }
        }
        match self.reads_input {
            Some(b) if b < 2 || b > layers => Err(format!(
                "the anatomy's reads_input is {b}; allowed: a block from 2 to {layers}"
            )),
            _ => Ok(()),
        }
    }

    /// Whether attention applies the causal mask.
    #[must_use]
    pub fn causal(&self) -> bool {
        self.mask == Mask::Causal
    }

    /// Whether block `n` (from 1) reads the model's input x0 rather than
    /// the previous block's output.
    #[must_use]
    pub fn reads_x0(&self, n: usize) -> bool {
        n == 1 || self.reads_input == Some(n)
    }
}

/// The block's anatomy and the choices each layer makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arch {
    pub anatomy: Anatomy,
    /// How attention merges its heads; `None` never merges them.
    pub merge: Option<Merge>,
    /// Whether the MLP has its down projection.
    pub mlp_down: bool,
    /// Length of the MLP's first bias, when it is wrong.
    pub up_bias_len: Option<usize>,
    /// The axis every norm averages over.
    pub norm_axis: NormAxis,
    /// Whether attention has its output projection.
    pub attn_out: bool,
}

impl Arch {
    /// The variant `cfg` asks for: correct, or the one its fault names.
    #[must_use]
    pub fn of(cfg: &ModelConfig) -> Self {
        let ok = Self {
            anatomy: Anatomy::block(cfg.placement),
            merge: Some(Merge::Transpose),
            mlp_down: true,
            up_bias_len: None,
            norm_axis: NormAxis::Feature,
            attn_out: true,
        };
        match cfg.fault {
            None => ok,
            Some(Fault::FfnNoDown) => Self {
                mlp_down: false,
                ..ok
            },
            Some(Fault::AttnNoMerge) => Self { merge: None, ..ok },
            Some(Fault::BiasW164) => Self {
                up_bias_len: Some(cfg.d_model),
                ..ok
            },
            Some(Fault::MergeNoTranspose) => Self {
                merge: Some(Merge::BareReshape),
                ..ok
            },
            Some(Fault::NoCausalMask) => Self {
                anatomy: Anatomy {
                    mask: Mask::None,
                    ..ok.anatomy.clone()
                },
                ..ok
            },
            Some(Fault::SkipBlock1) => Self {
                anatomy: Anatomy {
                    reads_input: Some(2),
                    ..ok.anatomy.clone()
                },
                ..ok
            },
            Some(Fault::NormOverSeq) => Self {
                norm_axis: NormAxis::Seq,
                ..ok
            },
            Some(Fault::NoOutProj) => Self {
                attn_out: false,
                ..ok
            },
        }
    }
}
