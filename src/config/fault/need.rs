//! What a model needs for a fault to show: one condition each, with the
//! words validation says when it is not met.

use crate::config::{DType, ModelConfig, Placement};

/// A condition on the model a fault needs to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// A mixture of at least 2 experts.
    Experts,
    /// top_k below the number of experts: with k = E every token takes
    /// every expert, ⌈B·T·k/E⌉ = B·T rows, and none is ever dropped.
    TopKBelowExperts,
    /// One dense MLP (in a mixture each expert is one).
    DenseMlp,
    /// Biases on the linears.
    Bias,
    /// d_ff different from d_model, so a wrong width shows.
    WideFf,
    /// At least 2 blocks.
    Layers2,
    /// At least 2 heads.
    Heads2,
    /// A sequence of at least 2 tokens.
    Seq2,
    /// A batch of at least 2.
    Batch2,
    /// A decoder: an encoder has no causal mask to leave out.
    Decoder,
    /// An element-wise activation (not a gated one).
    ElementwiseAct,
    /// A Pre-LN model.
    PreLn,
    /// Sequential sublayers, each with its own residual add.
    Sequential,
    /// Not f64: exp overflows past 88.7 in f32 but only past 709.8 in f64,
    /// far beyond the scores the fault draws.
    NotF64,
    /// A sliding window on block 1 shorter than the sequence, so that some
    /// key lies outside it.
    Window,
    /// A window of at least 2 positions: one short of 1 is no window.
    Window2,
    /// A 16-bit model, where norms and softmax run in f32: in f32 and f64
    /// nothing is cast, so there is no cast to forget.
    Half,
    /// At least one decode step: the cache is read only when decoding.
    Decode,
    /// Rotary positions, which turn q and k by each token's position.
    Rotary,
    /// A layer whose causal mask has no sliding window: the one a mask
    /// aligned at the top left replaces.
    FullCausal,
    /// The backward runs (`--backward`): the fault is in it.
    Backward,
    /// A vocabulary whose LM head is wte itself, tied.
    TiedHead,
    /// The model split across at least 2 devices (`--tp 2`).
    Tp,
    /// Sequence parallelism (`--tp 2 --sp`).
    Sp,
    /// The stack split into at least 2 pipeline stages (`--pp 2`).
    Pp,
    /// A mixture's experts split across devices (`--ep 2`).
    Ep,
    /// A vocabulary: token embeddings and a head.
    Vocab,
}

impl Need {
    /// Whether `cfg` meets this need.
    #[must_use]
    pub fn met(self, cfg: &ModelConfig) -> bool {
        match self {
            Need::Experts => cfg.experts() >= 2,
            Need::TopKBelowExperts => cfg.mixture.is_some_and(|m| m.top_k < m.experts),
            Need::DenseMlp => cfg.mixture.is_none(),
            Need::Bias => cfg.bias,
            // On one of N devices the hidden units are d_ff/N wide.
            Need::WideFf => cfg.mlp.d_ff / cfg.devices.tp.max(1) != cfg.d_model,
            Need::Layers2 => cfg.layers >= 2,
            Need::Heads2 => cfg.attention.heads >= 2,
            Need::Seq2 => cfg.seq >= 2,
            Need::Batch2 => cfg.batch >= 2,
            Need::Decoder => !cfg.encoder,
            Need::ElementwiseAct => !cfg.mlp.act.is_gated(),
            Need::PreLn => cfg.norms.placement == Placement::Pre,
            Need::Sequential => !cfg.parallel,
            Need::NotF64 => cfg.dtype != DType::F64,
            Need::Half => cfg.dtype.is_half(),
            Need::Window => cfg.window_at(1).is_some_and(|w| w < cfg.seq),
            Need::Window2 => cfg.attention.window.is_some_and(|w| w >= 2),
            Need::Decode => cfg.decode >= 1,
            Need::Rotary => cfg.positions.kind == crate::config::PosEmb::Rope,
            Need::Backward => cfg.backward,
            Need::Tp => cfg.devices.split(),
            Need::Sp => cfg.devices.split() && cfg.devices.sp,
            Need::Pp => cfg.devices.piped(),
            Need::Ep => cfg.devices.experts_split(),
            Need::Vocab => cfg.vocab.size.is_some(),
            Need::TiedHead => cfg.vocab.size.is_some() && cfg.vocab.tied,
            Need::FullCausal => (1..=cfg.layers).any(|n| cfg.window_at(n).is_none()),
        }
    }

    /// What is needed and how to get it, as validation says it.
    #[must_use]
    pub fn words(self) -> &'static str {
        match self {
            Need::Experts => {
                "needs a mixture of experts; add --experts 4 (or use --preset lesson-moe)"
            }
            Need::TopKBelowExperts => {
                "needs top_k below experts, or no expert is ever over capacity"
            }
            Need::DenseMlp => "needs a dense MLP: in a mixture each expert is one; drop --experts",
            Need::Bias => "needs biases; drop --no-bias",
            Need::WideFf => "needs d_ff different from d_model (on each of --tp N devices, d_ff/N)",
            Need::Layers2 => "needs at least 2 layers",
            Need::Heads2 => "needs at least 2 heads",
            Need::Seq2 => "needs seq at least 2",
            Need::Batch2 => "needs batch at least 2",
            Need::Decoder => {
                "needs a decoder: an encoder has no causal mask to leave out; drop encoder"
            }
            Need::ElementwiseAct => {
                "needs an element-wise activation (relu, gelu, gelu-tanh, silu); drop --act swiglu"
            }
            Need::PreLn => "needs a Pre-LN model; use --placement pre",
            Need::Sequential => {
                "needs sequential sublayers, each with its own add; drop --parallel"
            }
            Need::NotF64 => "needs f32: in f64 exp overflows only past 709; drop --dtype f64",
            Need::Window => {
                "needs a sliding window on block 1 shorter than the sequence; add --window 2"
            }
            Need::Window2 => "needs a window of at least 2 positions; add --window 2",
            Need::Decode => "needs decode steps, where the cache is read; add --decode 3",
            Need::Rotary => "needs rotary positions; add --pos-emb rope",
            Need::FullCausal => {
                "needs a layer with a causal mask and no sliding window; drop --window"
            }
            Need::Backward => "needs the backward, where the fault is; add --backward",
            Need::Tp => "needs the model split across devices, where the fault is; add --tp 2",
            Need::Sp => "needs sequence parallelism, where the fault is; add --tp 2 --sp",
            Need::Pp => {
                "needs the blocks split into pipeline stages, where the fault is; add --pp 2"
            }
            Need::Vocab => "needs a vocabulary, where the fault is; use --preset lesson-lm",
            Need::Ep => {
                "needs a mixture's experts split across devices, where the fault is; use --preset lesson-moe --ep 2"
            }
            Need::TiedHead => {
                "needs a vocabulary whose LM head is wte, tied; use --preset lesson-lm"
            }
            Need::Half => {
                "needs a 16-bit model, where norms and softmax run in f32; add --dtype bf16 or --dtype f16"
            }
        }
    }
}
