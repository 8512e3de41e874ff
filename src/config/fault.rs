//! The teaching faults, one row each in [`TABLE`]: the fault's name, the
//! mistake in words (a catalog key), the wrong [`Variant`] of the
//! architecture it builds, what a model [`Need`]s for it to show, the
//! checks that catch it, where it shows on the lesson model and why it is
//! caught. Validation, `check`, the architecture, `shapetrace faults`,
//! the tests and the README's table all read these rows; nothing else
//! lists a fault's facts.

use super::ModelConfig;
use super::names::CheckName::{
    self, Causality, Decode, Finite, Grads, OpShapes, Params, Positionwise, Reference, Residual,
    Returns, Routing, Shard, Stream, Wiring,
};
use super::names::named_enum;
pub use need::Need;
pub use variant::Variant;

mod need;
mod variant;

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
        /// Attention has no output projection: the merged heads are its output.
        NoOutProj = "no-out-proj",
        /// The activation comes after the down projection: `act(x·W1·W2)`.
        ActAfterDown = "act-after-down",
        /// The norm sits after the residual add in a model declared Pre-LN.
        LnAfterAdd = "ln-after-add",
        /// The MLP computes its hidden layer and returns its input.
        MlpReturnsInput = "mlp-returns-input",
        /// The norm averages over the batch, as BatchNorm does.
        NormOverBatch = "norm-over-batch",
        /// The softmax skips subtracting the row maximum, on large scores.
        SoftmaxNoMax = "softmax-no-max",
        /// The down projection W2 is (d_ff, d_ff).
        DownToFf = "down-to-ff",
        /// In bf16/f16, the norm computes in f32 and returns f32: no cast back.
        NormNoCastBack = "norm-no-cast-back",
        /// In bf16/f16, the softmax computes in f32 and its weights stay f32.
        SoftmaxNoCastBack = "softmax-no-cast-back",
        /// Each expert takes at most ⌈B·T·k/E⌉ tokens: the rest are dropped.
        MoeCapacity = "moe-capacity",
        /// The declared sliding window is left out.
        NoSlidingWindow = "no-sliding-window",
        /// The sliding window reads one position fewer than declared.
        WindowOffByOne = "window-off-by-one",
        /// A decode step never writes its new key and value into the
        /// cache: the token attends only to the past.
        DecodeNoAppend = "decode-no-append",
        /// A decode step rotates its new token as if at position 0.
        DecodeRopeAtZero = "decode-rope-at-zero",
        /// The causal mask is `tril(ones(Tq, Tk))`, aligned at the top left:
        /// a decode step's one query reads key 0 alone.
        DecodeMaskTopLeft = "decode-mask-top-left",
        /// The backward gives a tied wte the embedding's gradient alone,
        /// not the LM head's.
        GradTiedOnce = "grad-tied-once",
        /// The softmax's backward forgets to subtract the row's weighted
        /// sum: ds = w ⊙ dw.
        SoftmaxGradNoSub = "softmax-grad-no-sub",
        /// A row-parallel layer's partial sum is used without the
        /// all-reduce: each device's heads' share alone.
        TpNoAllreduce = "tp-no-allreduce",
        /// Sequence parallelism's reduce-scatter cuts each device's own
        /// partial sum without summing the devices'.
        SpScatterNoSum = "sp-scatter-no-sum",
        /// A pipeline stage reads its receive buffer before the receive
        /// completes (an irecv without its wait): zeros.
        PpRecvNoWait = "pp-recv-no-wait",
        /// A vocabulary-parallel lookup masks the ids another device holds
        /// to row 0 but does not zero their vectors.
        VocabNoMask = "vocab-no-mask",
        /// Expert parallelism's return stacks the devices' parts in
        /// reverse device order: each run of rows read as another
        /// expert's.
        EpReturnOrder = "ep-return-order",
    }
}

/// One teaching fault's row: everything the tool knows of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultSpec {
    /// The fault.
    pub fault: Fault,
    /// The wrong variant of the architecture it builds.
    pub builds: Variant,
    /// What a model needs for the fault to show; validation refuses the
    /// fault on a model that lacks one, naming it.
    pub needs: &'static [Need],
    /// The checks that catch it on a model where it shows, in the order
    /// `check` runs them. A fault that stops the forward is caught by the
    /// judge that stopped it alone (every later check has nothing to
    /// judge); a fault whose model runs to the end computes something else
    /// than the declared architecture, so `reference` catches it too.
    pub caught_by: &'static [CheckName],
    /// The flags that make it show on the lesson model, e.g. `--dtype bf16`.
    pub args: &'static [&'static str],
    /// Where the first of `caught_by` points on the lesson model (run with
    /// `args`).
    pub at: &'static str,
}

impl FaultSpec {
    /// The catalog key of the mistake in one sentence, e.g.
    /// `fault-ffn-no-down`.
    #[must_use]
    pub fn mistake_key(&self) -> String {
        format!("fault-{}", self.fault)
    }

    /// The catalog key of why `caught_by` catch it, e.g.
    /// `fault-why-ffn-no-down`.
    #[must_use]
    pub fn why_key(&self) -> String {
        format!("fault-why-{}", self.fault)
    }

    /// The first need `cfg` lacks, if any: the fault would not show there.
    #[must_use]
    pub fn unmet(&self, cfg: &ModelConfig) -> Option<Need> {
        self.needs.iter().copied().find(|n| !n.met(cfg))
    }
}

impl Fault {
    /// This fault's row in [`TABLE`].
    #[must_use]
    pub fn spec(self) -> &'static FaultSpec {
        // Row i is the fault of index i: checked as the crate compiles.
        &TABLE[self as usize]
    }
}

// The table holds one row per fault, in declaration order, so that
// [`Fault::spec`] indexes it: a missing, extra or misplaced row does not
// compile.
const _: () = {
    assert!(TABLE.len() == Fault::ALL.len());
    let mut i = 0;
    while i < TABLE.len() {
        assert!(TABLE[i].fault as usize == i);
        i += 1;
    }
};

/// Shorthand for a row.
const fn row(
    fault: Fault,
    builds: Variant,
    needs: &'static [Need],
    caught_by: &'static [CheckName],
    args: &'static [&'static str],
    at: &'static str,
) -> FaultSpec {
    FaultSpec {
        fault,
        builds,
        needs,
        caught_by,
        args,
        at,
    }
}

const NONE: &[&str] = &[];
const BF16: &[&str] = &["--dtype", "bf16"];
const WINDOW2: &[&str] = &["--window", "2"];
const DECODE3: &[&str] = &["--decode", "3"];
const ROPE_DECODE3: &[&str] = &["--pos-emb", "rope", "--decode", "3"];
const LM_BACKWARD: &[&str] = &["--preset", "lesson-lm", "--backward"];
const BACKWARD: &[&str] = &["--backward"];
const TP2: &[&str] = &["--tp", "2"];
const SP2: &[&str] = &["--tp", "2", "--sp"];
const PP2: &[&str] = &["--pp", "2"];
const LM_TP2: &[&str] = &["--preset", "lesson-lm", "--tp", "2"];
const EP2: &[&str] = &["--preset", "lesson-moe", "--ep", "2"];
/// The MLP faults change one dense MLP whose width differs from d.
const DENSE_WIDE: &[Need] = &[Need::DenseMlp, Need::WideFf];

/// Every teaching fault, in the order `--fault` lists them.
pub const TABLE: &[FaultSpec] = &[
    row(
        Fault::FfnNoDown,
        Variant::MlpNoDown,
        DENSE_WIDE,
        &[Residual],
        NONE,
        "block1.resid_2",
    ),
    row(
        Fault::AttnNoMerge,
        Variant::HeadsNotMerged,
        &[],
        &[Residual],
        NONE,
        "block1.resid_1",
    ),
    row(
        Fault::BiasW164,
        Variant::UpBiasOfDModel,
        &[Need::DenseMlp, Need::Bias, Need::WideFf],
        &[OpShapes],
        NONE,
        "block1.mlp.up",
    ),
    row(
        Fault::MergeNoTranspose,
        Variant::MergeByReshape,
        &[Need::Heads2, Need::Seq2],
        &[Causality, Reference],
        NONE,
        "block1.attn.merge",
    ),
    row(
        Fault::NoCausalMask,
        Variant::NoMask,
        &[Need::Decoder, Need::Seq2],
        &[Causality, Reference],
        NONE,
        "block1.attn.weights",
    ),
    row(
        Fault::SkipBlock1,
        Variant::SecondBlockReadsInput,
        &[Need::Layers2],
        &[Wiring, Reference],
        NONE,
        "block2.ln_1",
    ),
    row(
        Fault::NormOverSeq,
        Variant::NormOverSeq,
        &[Need::Seq2],
        &[Positionwise, Causality, Reference],
        NONE,
        "block1.ln_1",
    ),
    row(
        Fault::NoOutProj,
        Variant::NoOutProj,
        &[],
        &[Params, Reference],
        NONE,
        "block1.attn",
    ),
    row(
        Fault::ActAfterDown,
        Variant::ActAfterDown,
        &[Need::DenseMlp, Need::ElementwiseAct],
        &[Reference],
        NONE,
        "block1.resid_2",
    ),
    row(
        Fault::LnAfterAdd,
        Variant::PostLnAnatomy,
        &[Need::PreLn, Need::Sequential],
        &[Wiring, Reference],
        NONE,
        "block1.resid_2",
    ),
    row(
        Fault::MlpReturnsInput,
        Variant::MlpReturnsInput,
        DENSE_WIDE,
        &[Returns, Reference],
        NONE,
        "block1.resid_2",
    ),
    row(
        Fault::NormOverBatch,
        Variant::NormOverBatch,
        &[Need::Batch2],
        &[Positionwise, Causality, Reference],
        NONE,
        "block1.ln_1",
    ),
    row(
        Fault::SoftmaxNoMax,
        Variant::SoftmaxNoMaxOnLargeScores,
        &[Need::NotF64],
        &[Finite],
        NONE,
        "block1.attn.weights",
    ),
    row(
        Fault::DownToFf,
        Variant::DownToFf,
        DENSE_WIDE,
        &[Stream],
        NONE,
        "block1.mlp.down",
    ),
    row(
        Fault::NormNoCastBack,
        Variant::NormNoCastBack,
        &[Need::Half],
        &[Stream],
        BF16,
        "block1.ln_1",
    ),
    row(
        Fault::SoftmaxNoCastBack,
        Variant::SoftmaxNoCastBack,
        &[Need::Half],
        &[OpShapes],
        BF16,
        "block1.attn.context",
    ),
    // Whether a token keeps its expert depends on the tokens before it, in
    // its own sequence and the other batch elements: the MoE is no longer
    // position-wise, and a token moves other sequences' outputs.
    row(
        Fault::MoeCapacity,
        Variant::ExpertCapacity,
        &[Need::Experts, Need::TopKBelowExperts],
        &[Routing, Positionwise, Causality, Reference],
        &["--preset", "lesson-moe"],
        "block1.moe.combine",
    ),
    // A token moves a query the window hides from it: causality's window
    // verdict, from a model run.
    row(
        Fault::NoSlidingWindow,
        Variant::WindowIgnored,
        &[Need::Window],
        &[Causality, Reference],
        WINDOW2,
        "block1.attn.weights",
    ),
    // A query the declared window lets read a token is left unchanged by
    // it: causality's missing-row verdict, from a model run.
    row(
        Fault::WindowOffByOne,
        Variant::WindowOneShort,
        &[Need::Window, Need::Window2],
        &[Causality, Reference],
        WINDOW2,
        "block1.attn.weights",
    ),
    // Each decode step's logits against a full forward without a cache:
    // every shape passes, the numbers do not.
    row(
        Fault::DecodeNoAppend,
        Variant::CacheNotAppended,
        &[Need::Decode, Need::Decoder],
        &[Decode],
        DECODE3,
        "decode1.block2.resid_2",
    ),
    row(
        Fault::DecodeRopeAtZero,
        Variant::NewTokenAtZero,
        &[Need::Decode, Need::Rotary],
        &[Decode],
        ROPE_DECODE3,
        "decode1.block2.resid_2",
    ),
    row(
        Fault::DecodeMaskTopLeft,
        Variant::MaskTopLeft,
        &[Need::Decode, Need::Decoder, Need::FullCausal],
        &[Decode],
        DECODE3,
        "decode1.block2.resid_2",
    ),
    // The gradients against finite differences: every shape passes, the
    // numbers do not.
    row(
        Fault::GradTiedOnce,
        Variant::TiedGradOnce,
        &[Need::Backward, Need::TiedHead],
        &[Grads],
        LM_BACKWARD,
        "grad.wte",
    ),
    row(
        Fault::SoftmaxGradNoSub,
        Variant::SoftmaxGradNoSub,
        &[Need::Backward, Need::Seq2],
        &[Grads],
        BACKWARD,
        "grad.block2.attn.scores",
    ),
    // The devices against the one-device model: every shape passes (a
    // partial sum has the whole one's shape), the values do not.
    row(
        Fault::TpNoAllreduce,
        Variant::NoAllReduce,
        &[Need::Tp],
        &[Shard],
        TP2,
        "block1.resid_1",
    ),
    row(
        Fault::SpScatterNoSum,
        Variant::ScatterNoSum,
        &[Need::Sp],
        &[Shard],
        SP2,
        "block1.resid_1",
    ),
    // The buffer has the stream's shape before and after the receive.
    row(
        Fault::PpRecvNoWait,
        Variant::RecvNoWait,
        &[Need::Pp],
        &[Shard],
        PP2,
        "block2.ln_1",
    ),
    // Each device's part of the lookup is (B, T, d) whatever it holds.
    row(
        Fault::VocabNoMask,
        Variant::LookupNoMask,
        &[Need::Tp, Need::Vocab],
        &[Shard],
        LM_TP2,
        "tok_emb",
    ),
    // The rows that come back are as many as the routes, whoever's they are.
    row(
        Fault::EpReturnOrder,
        Variant::ReturnReversed,
        &[Need::Ep],
        &[Shard],
        EP2,
        "block1.resid_2",
    ),
];
