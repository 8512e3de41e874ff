//! The architecture variant a model is built as. A correct model is
//! [`Arch::default`]; each teaching fault maps to one wrong variant here and
//! nowhere else.

use crate::config::{Fault, ModelConfig};
use crate::ops::{Merge, NormAxis};

/// The choices a layer makes that a mistake can get wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arch {
    /// How attention merges its heads; `None` never merges them.
    pub merge: Option<Merge>,
    /// Whether attention applies the causal mask.
    pub causal: bool,
    /// Whether the MLP has its down projection.
    pub mlp_down: bool,
    /// Length of the MLP's first bias, when it is wrong.
    pub up_bias_len: Option<usize>,
    /// The axis every norm averages over.
    pub norm_axis: NormAxis,
    /// Block 2 reads x0 instead of block 1's output.
    pub skip_block1: bool,
    /// Whether attention has its output projection.
    pub attn_out: bool,
}

impl Default for Arch {
    fn default() -> Self {
        Self {
            merge: Some(Merge::Transpose),
            causal: true,
            mlp_down: true,
            up_bias_len: None,
            norm_axis: NormAxis::Feature,
            skip_block1: false,
            attn_out: true,
        }
    }
}

impl Arch {
    /// The variant `cfg` asks for: correct, or the one its fault names.
    #[must_use]
    pub fn of(cfg: &ModelConfig) -> Self {
        let ok = Self::default();
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
                causal: false,
                ..ok
            },
            Some(Fault::SkipBlock1) => Self {
                skip_block1: true,
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
