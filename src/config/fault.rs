//! The teaching faults: each names a known mistake, which
//! [`crate::arch::Arch::of`] builds as a wrong variant of the model, and
//! says it in one sentence.

use super::names::named_enum;

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
    }
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
            Fault::NoOutProj => {
                "attention has no output projection: the merged heads are its output"
            }
            Fault::ActAfterDown => {
                "the activation comes after the down projection instead of between up and down"
            }
            Fault::LnAfterAdd => "the norm sits after the residual add in a model declared Pre-LN",
            Fault::MlpReturnsInput => "the MLP computes its hidden layer and returns its input",
            Fault::NormOverBatch => {
                "the norm averages over the batch, as BatchNorm does, instead of the features"
            }
            Fault::SoftmaxNoMax => {
                "the softmax skips subtracting the row maximum, on large scores (q/k weights drawn N(0, 1))"
            }
            Fault::DownToFf => {
                "the down projection W2 is (d_ff, d_ff): the MLP's output stays d_ff wide"
            }
            Fault::NormNoCastBack => {
                "the norm upcasts to f32 and returns f32, never casting back to the stream's dtype"
            }
            Fault::SoftmaxNoCastBack => {
                "the softmax runs in f32 and its weights are never cast back, so weights·v mixes f32 with the model's dtype"
            }
            Fault::MoeCapacity => {
                "each expert takes at most ⌈B·T·k/E⌉ tokens: later ones are dropped"
            }
        }
    }
}
