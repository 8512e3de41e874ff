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
//! MoE      (kind: Moe):     x = x + Σ_top-k w_e·MLP_e(LN2(x)), in the MLP's place
//! parallel:                 x = x + Attn(LN1(x)) + MLP(LN2(x)), one add
//! parallel, shared_norm:    x = x + Attn(LN1(x)) + MLP(LN1(x)), one norm
//! ```

use crate::config::fault::Variant;
use crate::config::names::named_enum;
use crate::config::{ModelConfig, Placement};
use crate::ops::{Merge, NormAxis};
use serde::{Deserialize, Serialize};

named_enum! {
    /// What a sublayer computes; also its path inside a block.
    SublayerKind, "sublayer" {
        /// Causal multi-head self-attention.
        Attention = "attn",
        /// The position-wise MLP.
        Mlp = "mlp",
        /// A mixture of experts: a router sends each token to k of E
        /// expert MLPs and mixes their outputs (Mixtral's sparse MoE).
        Moe = "moe",
    }
}

named_enum! {
    /// Where a sublayer's norm sits.
    NormAt, "norm placement" {
        /// On the sublayer's input: `x + f(LN(x))` (Pre-LN).
        Before = "before",
        /// On the residual sum: `LN(x + f(x))` (Post-LN).
        After = "after",
        /// On the input and on the output before the add:
        /// `x + LN_out(f(LN(x)))` (sandwich norms, as Gemma 2).
        Sandwich = "sandwich",
    }
}

named_enum! {
    /// Which scores the attention's softmax may read.
    Mask, "mask" {
        /// Position t reads positions ≤ t only.
        Causal = "causal",
        /// Every position reads every position: the `no-causal-mask` fault.
        None = "none",
        /// Every position reads every position by design: an encoder's
        /// attention (BERT), before and after each token.
        TwoWay = "two-way",
    }
}

named_enum! {
    /// How attention builds the declared sliding window of w positions.
    WindowForm, "window form" {
        /// As declared: each query reads the last w positions, itself
        /// included.
        Declared = "declared",
        /// Left out: plain causal attention (`no-sliding-window`).
        Ignored = "ignored",
        /// One short: the last w − 1 positions (`window-off-by-one`, a `<`
        /// written for `<=`).
        OneShort = "one-short",
    }
}

/// One sublayer of a block: number i (from 1) has the norm `ln_i` and
/// the residual add `resid_i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sublayer {
    /// Attention or MLP.
    pub kind: SublayerKind,
    /// Whether its norm sits before it (Pre-LN) or after the add (Post-LN).
    pub norm: NormAt,
}

/// The shape of every block and how the blocks are wired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anatomy {
    /// The sublayers, in order; each adds its update onto the stream.
    pub sublayers: Vec<Sublayer>,
    /// Which scores the attention's softmax may read.
    pub mask: Mask,
    /// Parallel residuals: every sublayer reads the block's input through
    /// its own norm, and their updates are summed (`update`) and added onto
    /// the stream once (`resid_1`): one add per block, not one per sublayer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub parallel: bool,
    /// Parallel sublayers read one norm, `ln_1`, computed once (Falcon-7B,
    /// GPT-J), instead of each its own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shared_norm: bool,
    /// The block that reads the model's input x0 instead of the previous
    /// block's output: block 2 under the `skip-block1` fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads_input: Option<usize>,
    /// How attention builds the config's sliding window: as declared, or
    /// (a window fault) left out or one short. Recorded, so a replay's
    /// heatmap draws the window the model ran.
    #[serde(default = "declared", skip_serializing_if = "is_declared")]
    pub window: WindowForm,
}

fn declared() -> WindowForm {
    WindowForm::Declared
}

fn is_declared(w: &WindowForm) -> bool {
    *w == WindowForm::Declared
}

impl Anatomy {
    /// The block of `placement`: attention, then the MLP.
    #[must_use]
    pub fn block(placement: Placement) -> Self {
        let norm = match placement {
            Placement::Pre => NormAt::Before,
            Placement::Post => NormAt::After,
            Placement::Sandwich => NormAt::Sandwich,
        };
        let sublayers = [SublayerKind::Attention, SublayerKind::Mlp]
            .map(|kind| Sublayer { kind, norm })
            .to_vec();
        Self {
            sublayers,
            mask: Mask::Causal,
            parallel: false,
            shared_norm: false,
            reads_input: None,
            window: WindowForm::Declared,
        }
    }

    /// The window attention builds for a declared window of `declared`
    /// positions (`None`: every earlier key).
    #[must_use]
    pub fn window(&self, declared: Option<usize>) -> Option<usize> {
        match self.window {
            WindowForm::Declared => declared,
            WindowForm::Ignored => None,
            WindowForm::OneShort => declared.and_then(|w| w.checked_sub(1)).filter(|&w| w > 0),
        }
    }

    /// The residual adds one block makes: one per sublayer, or one in all
    /// for parallel residuals.
    #[must_use]
    pub fn adds_per_block(&self) -> usize {
        if self.parallel {
            1
        } else {
            self.sublayers.len()
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
        if self.parallel && self.sublayers.iter().any(|s| s.norm != NormAt::Before) {
            return Err(
                "the anatomy is parallel with a norm not before its sublayer; allowed: parallel with every norm before".into(),
            );
        }
        if self.shared_norm && !self.parallel {
            return Err(
                "the anatomy shares one norm without parallel sublayers; allowed: shared_norm with parallel".into(),
            );
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

    /// Which keys each query reads: the causal mask within a sliding
    /// `window` (`None`: none), every key by design (an encoder), or every key
    /// by mistake (the `no-causal-mask` fault).
    #[must_use]
    pub fn masking(&self, window: Option<usize>) -> crate::ops::Masking {
        use crate::ops::Masking;
        match (self.mask, window) {
            (Mask::TwoWay, _) => Masking::TwoWay,
            (Mask::None, _) => Masking::Full,
            (Mask::Causal, None) => Masking::Causal,
            (Mask::Causal, Some(w)) => Masking::Window(w),
        }
    }

    /// Whether block `n` (from 1) reads the model's input x0 rather than
    /// the previous block's output.
    #[must_use]
    pub fn reads_x0(&self, n: usize) -> bool {
        n == 1 || self.reads_input == Some(n)
    }
}

/// How the MLP turns its input x into its update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MlpForm {
    /// `act(x·W1 + b1)·W2 + b2`: the activation between up and down.
    UpActDown,
    /// `act(x·W1 + b1)`: no down projection (`ffn-no-down`).
    NoDown,
    /// `act(x·W1 + b1)` is computed and x returned (`mlp-returns-input`).
    ReturnsInput,
    /// `act(x·W1·W2)`: the activation after the down projection
    /// (`act-after-down`).
    ActAfterDown,
}

/// The block's anatomy and the choices each layer makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arch {
    /// The block's sublayers, mask and wiring.
    pub anatomy: Anatomy,
    /// How attention merges its heads; `None` never merges them.
    pub merge: Option<Merge>,
    /// Where the MLP's activation sits and what it returns.
    pub mlp: MlpForm,
    /// Output width of the MLP's down projection, when it is wrong.
    pub down_width: Option<usize>,
    /// Length of the MLP's first bias, when it is wrong.
    pub up_bias_len: Option<usize>,
    /// The axis every norm averages over.
    pub norm_axis: NormAxis,
    /// Whether attention has its output projection.
    pub attn_out: bool,
    /// Whether the softmax subtracts each row's maximum before its exps.
    pub softmax_max: bool,
    /// Whether the q and k projections are drawn N(0, 1), as
    /// `torch.randn(d, d)`, instead of nanoGPT's N(0, 0.02).
    pub qk_randn: bool,
    /// Whether, in a 16-bit model, each norm casts its f32 result back to
    /// the stream's dtype (`norm-no-cast-back` does not).
    pub norm_cast_back: bool,
    /// Whether, in a 16-bit model, the f32 softmax's weights are cast back
    /// before weights·v (`softmax-no-cast-back` does not).
    pub softmax_cast_back: bool,
    /// The most tokens each expert of a mixture takes (`moe-capacity`:
    /// ⌈B·T·k/E⌉, later tokens dropped); `None` takes every routed token.
    pub capacity: Option<usize>,
    /// Whether a decode step writes its new key and value into the cache
    /// before reading it (`decode-no-append` does not).
    pub cache_append: bool,
    /// Whether a decode step turns its new token at its true position
    /// (`decode-rope-at-zero` turns it at 0).
    pub rope_at_position: bool,
    /// Whether the causal mask is aligned at the top left,
    /// `tril(ones(Tq, Tk))` (`decode-mask-top-left`).
    pub mask_top_left: bool,
    /// The backward's rules a fault makes wrong (`grad-tied-once`,
    /// `softmax-grad-no-sub`); none by default.
    pub backward: crate::model::backward::Wrongs,
    /// Whether a row-parallel layer's partial sums are summed across the
    /// devices (`tp-no-allreduce`: not).
    pub all_reduce: bool,
    /// Whether sequence parallelism's reduce-scatter sums before it cuts
    /// (`sp-scatter-no-sum`: not).
    pub scatter_sums: bool,
    /// Whether a pipeline stage waits for its receive before reading the
    /// buffer (`pp-recv-no-wait`: not).
    pub recv_waits: bool,
    /// Whether a vocabulary-parallel lookup zeroes the vectors of the ids
    /// another device holds (`vocab-no-mask`: not; they take row 0).
    pub lookup_masks: bool,
    /// Whether an expert-parallel return stacks the devices' parts in
    /// device order (`ep-return-order`: in reverse).
    pub return_in_order: bool,
}

impl Arch {
    /// The variant `cfg` asks for: correct, or the one its fault names.
    #[must_use]
    pub fn of(cfg: &ModelConfig) -> Self {
        // An encoder's attention reads both ways; a decoder's is causal.
        let mut anatomy = Anatomy::block(cfg.norms.placement);
        if cfg.encoder {
            anatomy.mask = Mask::TwoWay;
        }
        anatomy.parallel = cfg.parallel;
        anatomy.shared_norm = cfg.norms.shared;
        let mut arch = Self::variant(cfg, anatomy);
        // A mixture of experts in the MLP's place, whatever the fault.
        if cfg.mixture.is_some() {
            for s in &mut arch.anatomy.sublayers {
                if s.kind == SublayerKind::Mlp {
                    s.kind = SublayerKind::Moe;
                }
            }
        }
        arch
    }

    /// The variant of `cfg`'s fault on the correct block `anatomy` (whose
    /// MLP [`Arch::of`] then makes a mixture, if `cfg` has experts).
    fn variant(cfg: &ModelConfig, anatomy: Anatomy) -> Self {
        let ok = Self {
            anatomy,
            merge: Some(Merge::Transpose),
            mlp: MlpForm::UpActDown,
            down_width: None,
            up_bias_len: None,
            norm_axis: NormAxis::Feature,
            attn_out: true,
            softmax_max: true,
            qk_randn: false,
            norm_cast_back: true,
            softmax_cast_back: true,
            capacity: None,
            cache_append: true,
            rope_at_position: true,
            mask_top_left: false,
            backward: crate::model::backward::Wrongs::default(),
            all_reduce: true,
            scatter_sums: true,
            recv_waits: true,
            return_in_order: true,
            lookup_masks: true,
        };
        let Some(fault) = cfg.fault else {
            return ok;
        };
        match fault.spec().builds {
            Variant::MlpNoDown => Self {
                mlp: MlpForm::NoDown,
                ..ok
            },
            Variant::HeadsNotMerged => Self { merge: None, ..ok },
            Variant::UpBiasOfDModel => Self {
                up_bias_len: Some(cfg.d_model),
                ..ok
            },
            Variant::MergeByReshape => Self {
                merge: Some(Merge::BareReshape),
                ..ok
            },
            Variant::NoMask => Self {
                anatomy: Anatomy {
                    mask: Mask::None,
                    ..ok.anatomy.clone()
                },
                ..ok
            },
            Variant::SecondBlockReadsInput => Self {
                anatomy: Anatomy {
                    reads_input: Some(2),
                    ..ok.anatomy.clone()
                },
                ..ok
            },
            Variant::NormOverSeq => Self {
                norm_axis: NormAxis::Seq,
                ..ok
            },
            Variant::NoOutProj => Self {
                attn_out: false,
                ..ok
            },
            Variant::ActAfterDown => Self {
                mlp: MlpForm::ActAfterDown,
                ..ok
            },
            Variant::MlpReturnsInput => Self {
                mlp: MlpForm::ReturnsInput,
                ..ok
            },
            Variant::DownToFf => Self {
                down_width: Some(cfg.mlp.d_ff),
                ..ok
            },
            // Post-LN's anatomy, `x = LN(x + f(x))`, in a model whose
            // config says Pre-LN.
            Variant::PostLnAnatomy => Self {
                anatomy: Anatomy::block(Placement::Post),
                ..ok
            },
            Variant::NormOverBatch => Self {
                norm_axis: NormAxis::Batch,
                ..ok
            },
            // Scores of a few hundred: the q and k projections drawn
            // N(0, 1), as `torch.randn(d, d)` without nanoGPT's 0.02, give
            // q and k entries of std ≈ √d and scores q·kᵀ/√hd of std ≈ d
            // (64 on the lesson model), so the largest of a row's scores
            // passes 88.7, where e^s overflows f32. The stable softmax
            // takes e^(s − max) ≤ 1 of the same scores and never does.
            Variant::SoftmaxNoMaxOnLargeScores => Self {
                softmax_max: false,
                qk_randn: true,
                ..ok
            },
            Variant::NormNoCastBack => Self {
                norm_cast_back: false,
                ..ok
            },
            Variant::SoftmaxNoCastBack => Self {
                softmax_cast_back: false,
                ..ok
            },
            Variant::WindowIgnored => Self {
                anatomy: Anatomy {
                    window: WindowForm::Ignored,
                    ..ok.anatomy.clone()
                },
                ..ok
            },
            Variant::WindowOneShort => Self {
                anatomy: Anatomy {
                    window: WindowForm::OneShort,
                    ..ok.anatomy.clone()
                },
                ..ok
            },
            Variant::CacheNotAppended => Self {
                cache_append: false,
                ..ok
            },
            Variant::NewTokenAtZero => Self {
                rope_at_position: false,
                ..ok
            },
            Variant::MaskTopLeft => Self {
                mask_top_left: true,
                ..ok
            },
            Variant::TiedGradOnce => Self {
                backward: crate::model::backward::Wrongs {
                    tied_once: true,
                    ..ok.backward
                },
                ..ok
            },
            Variant::NoAllReduce => Self {
                all_reduce: false,
                ..ok
            },
            Variant::ScatterNoSum => Self {
                scatter_sums: false,
                ..ok
            },
            Variant::RecvNoWait => Self {
                recv_waits: false,
                ..ok
            },
            Variant::LookupNoMask => Self {
                lookup_masks: false,
                ..ok
            },
            Variant::ReturnReversed => Self {
                return_in_order: false,
                ..ok
            },
            Variant::SoftmaxGradNoSub => Self {
                backward: crate::model::backward::Wrongs {
                    softmax_no_sub: true,
                    ..ok.backward
                },
                ..ok
            },
            // Capacity factor 1: an even share of the B·T·k routes each.
            Variant::ExpertCapacity => Self {
                capacity: cfg
                    .mixture
                    .map(|m| (cfg.batch * cfg.seq * m.top_k).div_ceil(m.experts)),
                ..ok
            },
        }
    }
}
