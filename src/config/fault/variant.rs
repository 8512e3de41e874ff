//! The wrong variants of the architecture the faults build: each says
//! what is wrong, and [`crate::arch::Arch::of`] builds it as the layer's
//! own variant (an MLP without its down projection, a merge by bare
//! reshape, no mask), never as a branch in the math.

/// A wrong variant of the architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The MLP returns its hidden layer: no down projection.
    MlpNoDown,
    /// The heads are never merged back.
    HeadsNotMerged,
    /// The up projection's bias is d_model long, not d_ff.
    UpBiasOfDModel,
    /// The heads are merged by a bare reshape, without the transpose.
    MergeByReshape,
    /// Attention reads every position: no mask.
    NoMask,
    /// Block 2 reads the input x0, not block 1's output.
    SecondBlockReadsInput,
    /// The norm's statistics run over the sequence axis.
    NormOverSeq,
    /// Attention's output is its merged heads: no output projection.
    NoOutProj,
    /// The activation after the down projection: `act(x·W1·W2)`.
    ActAfterDown,
    /// Post-LN's anatomy, `x = LN(x + f(x))`, in a model declared Pre-LN.
    PostLnAnatomy,
    /// The MLP computes its hidden layer and returns its input.
    MlpReturnsInput,
    /// The norm's statistics run over the batch axis.
    NormOverBatch,
    /// `e^s/Σe^s` without the row maximum, on the scores of q and k
    /// weights drawn N(0, 1).
    SoftmaxNoMaxOnLargeScores,
    /// The down projection is (d_ff, d_ff).
    DownToFf,
    /// The norm returns f32 in a 16-bit model.
    NormNoCastBack,
    /// The softmax's weights stay f32 in a 16-bit model.
    SoftmaxNoCastBack,
    /// Each expert takes at most ⌈B·T·k/E⌉ tokens.
    ExpertCapacity,
    /// The declared sliding window is left out: plain causal attention.
    WindowIgnored,
    /// The sliding window is one position short.
    WindowOneShort,
    /// A decode step reads the cache without its new key and value.
    CacheNotAppended,
    /// A decode step's new token is rotated at position 0.
    NewTokenAtZero,
    /// The causal mask aligned at the top left, `tril(ones(Tq, Tk))`.
    MaskTopLeft,
    /// A tied wte's gradient takes the embedding's share alone.
    TiedGradOnce,
    /// The softmax's backward without the row's weighted sum subtracted.
    SoftmaxGradNoSub,
    /// Row-parallel partial sums used without their all-reduce.
    NoAllReduce,
    /// A reduce-scatter that cuts without summing.
    ScatterNoSum,
    /// A pipeline stage that reads its receive buffer without waiting.
    RecvNoWait,
    /// A vocabulary-parallel lookup that leaves other devices' ids at row 0.
    LookupNoMask,
    /// An expert-parallel return stacked in reverse device order.
    ReturnReversed,
}
