//! The domain ops every layer is written against, and the two backends
//! that run them: [`numeric::Numeric`] (ndarray) and [`shape::ShapeOnly`].
//!
//! Each [`Op`] knows its output shape ([`Op::infer`]), the names of its
//! output axes ([`Op::axes`]) and its formula with shape arithmetic
//! ([`Op::formula`]). Both backends call `infer` first, so a shape that one
//! backend refuses is refused by the other with the same message.

mod comm;
mod formula;
mod infer;
pub mod mapped;
pub mod numeric;
pub mod shape;

pub use infer::OpError;

use crate::config::names::named_enum;
use crate::config::{DType, NormKind};

pub use crate::shape::{Axis, Shape, fmt_shape};

named_enum! {
    /// What kind of step produced a tensor: the trace's `op` field.
    OpKind, "op" {
        /// The model's input x0.
        Input = "input",
        /// `x·W + b`: a projection (q/k/v, out, up, gate, down).
        Linear = "linear",
        /// `(x − mean) / √(var + eps) · γ + β` over the features.
        LayerNorm = "layernorm",
        /// `x / √(mean(x²) + eps) · γ` over the features.
        RmsNorm = "rmsnorm",
        /// (B, T, h·hd) → (B, h, T, hd).
        SplitHeads = "split_heads",
        /// Grouped K/V heads repeated to match the query heads:
        /// (B, kv, T, hd) → (B, h, T, hd).
        RepeatKv = "repeat_kv",
        /// Rotary position embedding of q or k; the shape is kept.
        Rope = "rope",
        /// q·kᵀ/√hd: (B, h, Tq, hd) · (B, h, hd, Tk) → (B, h, Tq, Tk).
        Scores = "scores",
        /// The attention weights, softmax(mask(scores)): each row sums to 1.
        Softmax = "softmax",
        /// weights·v: (B, h, Tq, Tk) · (B, h, Tk, hd) → (B, h, Tq, hd).
        WeightedSum = "weighted_sum",
        /// (B, h, T, hd) → transpose → (B, T, h·hd).
        MergeHeads = "merge_heads",
        /// Heads merged by a bare reshape: the `merge-no-transpose` fault.
        Reshape = "reshape",
        /// max(0, x), element-wise.
        Relu = "relu",
        /// x·Φ(x), the exact GELU, element-wise.
        Gelu = "gelu",
        /// GELU's tanh approximation (GPT-2's), element-wise.
        GeluTanh = "gelu_tanh",
        /// x·σ(x), element-wise, not gated.
        Silu = "silu",
        /// silu(x·Wg) ⊙ x·Wu, both (B, T, d_ff).
        SwiGlu = "swiglu",
        /// gelu_tanh(x·Wg) ⊙ x·Wu, both (B, T, d_ff): Gemma's GeGLU.
        GeGlu = "geglu",
        /// c·tanh(x/c), element-wise: a soft cap on scores or logits.
        SoftCap = "softcap",
        /// x·s, element-wise, by a constant: Gemma's √d on the embeddings.
        Scale = "scale",
        /// ALiBi's linear distance penalty added to the scores.
        Alibi = "alibi",
        /// tanh(x), element-wise: BERT's pooler.
        Tanh = "tanh",
        /// Row `id` of the token-type table wtt for every token: (B, T, d).
        TokenType = "token_type",
        /// Each sequence's first token: (B, T, d) → (B, d).
        FirstToken = "first_token",
        /// Some columns of a fused projection's output: q, k or v of a
        /// fused qkv, gate or up of a fused gate_up.
        Columns = "columns",
        /// The residual add.
        Add = "add",
        /// The token ids (B, T), int64: the language model's input.
        Tokens = "tokens",
        /// A lookup: row `ids[b, t]` of wte (V, d) for every token → (B, T, d).
        Embedding = "embedding",
        /// The first T rows of wpe (context, d) → (T, d), one per position.
        Positions = "positions",
        /// A key/value cache with the new tokens' keys or values written
        /// in: (B, kv, S, hd) + (B, kv, n, hd) → (B, kv, S + n, hd), or at
        /// most the window's positions (a ring buffer).
        KvCache = "kv_cache",
        /// x0 = tok_emb + pos_emb: (B, T, d) + (T, d), broadcast over B.
        AddPositions = "add_positions",
        /// The LM head: x·W_head, (B, T, d) → (B, T, V): a score per token of the vocabulary.
        LmHead = "lm_head",
        /// A change of dtype, the shape kept: up to f32 for a norm or a
        /// softmax, back down after it.
        Cast = "cast",
        /// A mixture of experts' router softmax: (B, T, E), one probability
        /// per expert for every token, each token's row summing to 1.
        RouterSoftmax = "router_softmax",
        /// The k experts a token is sent to, best first: (B, T, E) → (B, T, k).
        TopK = "top_k",
        /// The chosen experts' probabilities over their sum: (B, T, k),
        /// each token's k weights summing to 1.
        RouteWeights = "route_weights",
        /// The tokens routed to one expert, gathered as rows: (B, T, d) →
        /// (n_e, d), n_e known only from the data.
        Dispatch = "dispatch",
        /// Every expert's rows, weighted and added back onto their tokens:
        /// → (B, T, d).
        Combine = "combine",
        /// Σ of every device's partial sum (+ b once): the shape kept.
        AllReduce = "all_reduce",
        /// Every device hands each device a part and gets one from each:
        /// a mixture's tokens to their experts' devices and back.
        AllToAll = "all_to_all",
        /// Every device's slice side by side along one axis: ×N.
        AllGather = "all_gather",
        /// Σ of every device's partial sum, each keeping its slice: ÷N.
        ReduceScatter = "reduce_scatter",
        /// This device's slice along one axis, no communication: ÷N.
        Scatter = "scatter",
        /// A pipeline stage's output sent to the next stage: the shape kept.
        Send = "send",
        /// Rows (or columns) of zeros appended: a vocabulary padded to a
        /// multiple of the devices.
        Pad = "pad",
        /// The previous stage's output received into a buffer of its shape.
        Recv = "recv",
        /// The loss a training step minimises: one number, from the logits
        /// (or, without a vocabulary, the output).
        Loss = "loss",
        /// dL/dX for a tensor X the forward made or read: X's shape.
        Grad = "grad",
        /// An op another program recorded that shapetrace has no name for;
        /// the event's `op_name` holds the recorder's own (`einsum`).
        Other = "other",
    }
}

/// Which axis a norm averages over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NormAxis {
    /// The feature axis d: position-wise, as every real model.
    Feature,
    /// The sequence axis T: the `norm-over-seq` fault.
    Seq,
    /// The batch axis B, as BatchNorm: the `norm-over-batch` fault.
    Batch,
}

/// An element-wise non-linearity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unary {
    /// max(0, x).
    Relu,
    /// x·Φ(x), the exact GELU (erf).
    Gelu,
    /// GELU's tanh approximation, as GPT-2.
    GeluTanh,
    /// x·σ(x), not gated (GPT-2's `silu`).
    Silu,
    /// tanh(x): BERT's pooler.
    Tanh,
}

/// Which keys each query of attention reads; the others get weight 0 and
/// show as `╳`.
///
/// Queries and keys are aligned at the bottom right: of Tq queries over
/// Tk keys, query i sits at position i + (Tk − Tq), so a decode step's one
/// query over a cache of S keys is the newest of them, and reads
/// them all. In the training forward Tq = Tk and query i is position i.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Masking {
    /// Every key, by mistake: the `no-causal-mask` fault.
    Full,
    /// Every key, by design: an encoder's two-way attention (BERT).
    TwoWay,
    /// Keys 0..=p for the query at position p: a decoder's causal mask.
    Causal,
    /// Keys p − w + 1 ..= p: a causal mask within a sliding window of w
    /// (Mistral's `sliding_window`).
    Window(usize),
    /// Keys 0..=i for query row i, aligned at the top left whatever the
    /// keys: `tril(ones(Tq, Tk))`, the same as [`Masking::Causal`] when Tq
    /// = Tk, but a decode step's one query reads key 0 alone (the
    /// `decode-mask-top-left` fault).
    TopLeft,
}

impl Masking {
    /// The keys query row `t` of `queries` reads, of `keys` in all: a range.
    #[must_use]
    pub fn keys(self, t: usize, queries: usize, keys: usize) -> std::ops::Range<usize> {
        // The query's position: the rows sit at the last Tq of the Tk positions.
        let p = t + keys.saturating_sub(queries);
        let end = (p + 1).min(keys);
        match self {
            Masking::Full | Masking::TwoWay => 0..keys,
            Masking::Causal => 0..end,
            Masking::Window(w) => end.saturating_sub(w.max(1))..end,
            Masking::TopLeft => 0..(t + 1).min(keys),
        }
    }

    /// Whether query row `t` of `queries` reads key `j` of `keys`.
    #[must_use]
    pub fn reads(self, t: usize, j: usize, queries: usize, keys: usize) -> bool {
        self.keys(t, queries, keys).contains(&j)
    }

    /// The sliding window's width, if the mask has one: the size of a
    /// decoding cache's ring.
    #[must_use]
    pub fn window(self) -> Option<usize> {
        match self {
            Masking::Window(w) => Some(w),
            _ => None,
        }
    }

    /// Whether any key is masked: causal or windowed.
    #[must_use]
    pub fn masks(self) -> bool {
        matches!(
            self,
            Masking::Causal | Masking::Window(_) | Masking::TopLeft
        )
    }
}

/// How the heads are merged back into (B, T, d).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// (B,h,T,hd) → transpose → (B,T,h,hd) → reshape (B,T,h·hd).
    Transpose,
    /// A bare reshape of (B,h,T,hd): the `merge-no-transpose` fault.
    BareReshape,
}

/// One step of the forward pass.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// `x·W (+ b)`: x (…, k), W (k, n), b (n) → (…, n).
    Linear,
    /// A norm over one axis, then `γ (⊙ … + β)` on the features.
    Norm {
        /// LayerNorm or RMSNorm.
        kind: NormKind,
        /// The axis it averages over: the features, or a fault's T or B.
        axis: NormAxis,
        /// Added to the variance (mean square for RMSNorm) before the root.
        eps: f64,
    },
    /// (B, T, h·hd) → (B, h, T, hd).
    SplitHeads {
        /// Heads the features split into: h for q, kv for k and v.
        heads: usize,
        /// The new heads axis: `h`, or `kv` under grouped-query attention.
        axis: Axis,
    },
    /// (B, kv, T, hd) → (B, kv·rep, T, hd); query head i reads kv head i / rep.
    RepeatKv {
        /// Copies of each K/V head, h / kv.
        rep: usize,
        /// The heads axis it gives: `h`, or one device's `h/N`.
        heads: Axis,
    },
    /// Rotary position embedding, (B, h, T, hd) → (B, h, T, hd): at token t
    /// the pair (i, i + hd/2) turns by the angle t·ω_i, ω_i = θ^(−2i/hd)
    /// (rescaled under `scaling`), as LLaMA's `rotate_half`.
    Rope {
        /// θ, the base of the frequencies.
        theta: f64,
        /// Rescaled frequencies for a longer context (Llama 3's, linear).
        scaling: Option<crate::config::RopeScaling>,
        /// The features of each head turned, the first `dims` (partial
        /// rotary, as GPT-NeoX's); the pairs are (i, i + dims/2), and the
        /// features past `dims` pass as they are. hd turns them all.
        dims: usize,
        /// The position of row 0: 0 in the training forward, T + n − 1 for
        /// decode step n's one new token.
        start: usize,
    },
    /// q (B,h,T,hd) · kᵀ (B,h,hd,S) / √hd → (B,h,T,S).
    Scores {
        /// hd, whose √ divides the dot products (or the number given in
        /// its place: Gemma 2's `query_pre_attn_scalar`).
        head_dim: usize,
    },
    /// ALiBi on scores (B, h, T, S), the shape kept: head h adds
    /// m_h·(j − t) at query t and key j (0 at the key itself, more negative
    /// further back), with BLOOM's slopes ([`alibi_slopes`]).
    Alibi,
    /// `c·tanh(x/c)`, element-wise, the shape kept: values stay inside
    /// (−c, c) and small ones barely move (Gemma 2's soft caps).
    SoftCap {
        /// c, the cap.
        cap: f64,
    },
    /// Columns `lo..hi` of every `period` of the last axis, side by side:
    /// x (…, W) → (…, (hi − lo)·W/period). A fused projection's split: q,
    /// k or v of `[q; k; v]` (period W) or of `[q_g; k_g; v_g]` repeated
    /// for every K/V group g (GPT-NeoX, Falcon), gate or up of `[gate; up]`.
    Columns {
        /// The first column taken in each period.
        lo: usize,
        /// One past the last.
        hi: usize,
        /// The period the pattern repeats with; W for one block.
        period: usize,
        /// The output's last axis: `d`, `kv·hd`, `ff`.
        axis: Axis,
    },
    /// `x·by`, element-wise, the shape kept.
    Scale {
        /// The constant, e.g. √d.
        by: f64,
    },
    /// Row softmax over the last axis, masked keys given weight 0 (`╳`).
    Softmax {
        /// Which keys each query reads.
        mask: Masking,
    },
    /// As [`Op::Softmax`] without subtracting the row's maximum first:
    /// `e^s / Σ e^s`, which overflows on large scores (`softmax-no-max`).
    SoftmaxNoMax {
        /// As [`Op::Softmax`]'s.
        mask: Masking,
    },
    /// weights (B,h,T,S) · v (B,h,S,hd) → (B,h,T,hd).
    WeightedSum,
    /// (B,h,T,hd) → (B,T,h·hd).
    MergeHeads(Merge),
    /// Element-wise activation.
    Act(Unary),
    /// silu(gate) ⊙ up, both (…, f).
    SwiGlu,
    /// gelu_tanh(gate) ⊙ up, both (…, f).
    GeGlu,
    /// The residual add: stream + update, same shapes.
    Add,
    /// `wte[ids]`: ids (B, T) of whole numbers, wte (V, d) → (B, T, d).
    Gather,
    /// `wpe[offset + start..offset + start + T]`: wpe (context + offset,
    /// d), ids (B, T) → (T, d). The offset is OPT's 2, 0 elsewhere; the
    /// start is the first token's position (decode step n's T + n − 1).
    Positions {
        /// Rows of wpe before position 0.
        offset: usize,
        /// The position of the first id.
        start: usize,
    },
    /// The key/value cache after writing n new rows: the cache (B, kv, S,
    /// hd), when there is one, and the new keys or values (B, kv, n, hd),
    /// at positions `at..at + n` → (B, kv, S + n, hd). Under a sliding
    /// window of w the cache is a ring of w slots: position p goes to slot
    /// p mod w, overwriting position p − w, and the shape stops at w.
    KvCache {
        /// The ring's size, the window; `None` keeps every position.
        window: Option<usize>,
        /// The position of the first new row: the positions cached before.
        at: usize,
    },
    /// `tok_emb + pos_emb`: (B, T, d) + (T, d) → (B, T, d), broadcast over B.
    AddPositions,
    /// `wtt[types]`: wtt (types, d), ids (B, T) → (B, T, d), every token
    /// of type `id` (BERT's segment A: 0).
    TokenType {
        /// The type every token has.
        id: usize,
    },
    /// `x[:, 0]`: (B, T, d) → (B, d), each sequence's first token (BERT's
    /// `[CLS]`), which its pooler reads.
    FirstToken,
    /// The LM head on x (B, T, d): `x·wteᵀ` with wte (V, d) when `tied`,
    /// else `x·W` with W (d, V) → (B, T, V).
    LmHead {
        /// The head is the token embedding wte itself, transposed.
        tied: bool,
    },
    /// The values rounded to `to`, the shape kept.
    Cast {
        /// The dtype cast to.
        to: DType,
    },
    /// Softmax over the last axis, the experts, with no mask:
    /// router logits (B, T, E) → probabilities (B, T, E).
    RouterSoftmax,
    /// The indices of the `k` largest entries of the last axis, largest
    /// first (ties to the lower index): (B, T, E) → (B, T, k) expert ids.
    TopK {
        /// How many experts each token is sent to.
        k: usize,
    },
    /// probs (B, T, E), ids (B, T, k) → the k chosen probabilities, each
    /// over their sum: (B, T, k).
    RouteWeights,
    /// x (B, T, d), ids (B, T, k) → the rows of x whose tokens chose
    /// `expert`, in token order: (n_e, d). n_e is the data's; a shape-only
    /// run gives its bound, B·T (each token picks an expert at most once),
    /// or the capacity when one is set.
    Dispatch {
        /// The expert, from 0.
        expert: usize,
        /// At most this many rows: later tokens are dropped (a capacity,
        /// as Switch Transformer's; the `moe-capacity` fault). `None`
        /// keeps every routed token.
        capacity: Option<usize>,
    },
    /// ids (B, T, k), weights (B, T, k), then expert e's output (n_e, d)
    /// for every e → y (B, T, d): each row added onto its token, times the
    /// token's weight for that expert. `packed`: one (B·T·k, d) in place
    /// of the E outputs, every expert's rows in expert order (what an
    /// expert-parallel all-to-all brings back), split by the ids' counts.
    Combine {
        /// As the dispatches' capacity: the rows each expert kept.
        capacity: Option<usize>,
        /// The experts' rows come as one tensor, in expert order.
        packed: bool,
    },
    /// Expert parallelism's all-to-all over N devices: every device hands
    /// each device a part (its own rows for that device's expert) and
    /// gets the part each device addressed to it, stacked along the rows
    /// in device order. How many rows each part holds is the data's.
    AllToAll {
        /// N, the devices.
        devices: usize,
        /// What moves: tokens to an expert, or its outputs back.
        route: Route,
    },
    /// Tensor parallelism's all-reduce: every device's partial sum of the
    /// same shape, summed, and b (replicated) added once: (…, d) → (…, d).
    /// Each device sends and receives 2·(N−1)/N of it (a ring).
    AllReduce {
        /// N, the devices summed.
        devices: usize,
    },
    /// Every device's slice side by side along `axis`:
    /// (…, n, …) → (…, N·n, …).
    AllGather {
        /// N, the devices gathered.
        devices: usize,
        /// The axis the slices were cut along (1: T).
        axis: usize,
    },
    /// Every device's partial sum, summed, each device keeping slice
    /// `rank` along `axis`: (…, n, …) → (…, n/N, …).
    ReduceScatter {
        /// N, the devices summed.
        devices: usize,
        /// The axis split (1: T).
        axis: usize,
        /// The slice this device keeps.
        rank: usize,
    },
    /// Slice `rank` of N along `axis`, cut locally without communication
    /// (a replicated tensor's part, or a weight's shard):
    /// (…, n, …) → (…, n/N, …).
    Scatter {
        /// N, the slices.
        devices: usize,
        /// The axis cut.
        axis: usize,
        /// The slice kept.
        rank: usize,
    },
    /// A vocabulary-parallel lookup: ids (B, T) and this device's rows of
    /// wte (V/N, d), the rows `from..from + V/N` → (B, T, d); a token
    /// whose row another device holds gives a row of zeros, so summing
    /// the devices' lookups (an all-reduce) gives `wte[ids]`.
    GatherPart {
        /// The first row this device holds.
        from: usize,
        /// Whether the ids another device holds give zeros
        /// (`vocab-no-mask`: not; they give row 0, the id they were
        /// masked to).
        masks: bool,
    },
    /// Zeros appended along `axis` up to `to`: (…, n, …) → (…, to, …), a
    /// vocabulary of V padded to V' for N devices to split.
    Pad {
        /// The axis padded.
        axis: usize,
        /// Its size after.
        to: usize,
    },
    /// Pipeline parallelism's send: this stage's output x to stage `to`,
    /// point to point: (…) → (…), the tensor as sent.
    Send {
        /// The stage it goes to, from 0.
        to: usize,
    },
    /// Pipeline parallelism's receive: the previous stage's output, into
    /// a buffer this stage allocated of the shape it expects:
    /// buffer (…) → (…).
    Recv {
        /// The stage it comes from, from 0.
        from: usize,
    },
}

/// What an expert-parallel all-to-all ([`Op::AllToAll`]) moves. Device r
/// of N holds experts r·E/N ..< (r+1)·E/N, its `slot`-th being
/// r·E/N + slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Tokens to one expert: x (b, T, d), ids (b, T, k) → (n_e, d). A
    /// device's part for device j is its rows whose tokens chose j's
    /// `slot`-th expert; device `rank` gets its own expert's rows from
    /// every device, device order: the expert's whole batch.
    Dispatch {
        /// E, the experts.
        experts: usize,
        /// Which of each device's E/N experts.
        slot: usize,
        /// This device, from 0.
        rank: usize,
        /// The rows each device sent, in device order: the data's, known
        /// once they arrived (empty before, and in a shape-only run).
        rows: Vec<usize>,
    },
    /// The experts' outputs back to their tokens' devices: ids (b, T, k),
    /// then y (n_e, d) for each of this device's E/N experts →
    /// (b·T·k, d), every route of this device's tokens, in expert order.
    Return {
        /// This device, from 0.
        rank: usize,
        /// `rows[slot][i]`: the rows device i sent to this device's
        /// `slot`-th expert, which go back to it.
        rows: Vec<Vec<usize>>,
        /// Whether the parts that arrive are stacked in device order
        /// (`ep-return-order`: in reverse).
        in_order: bool,
        /// The rows each device's experts sent back to this one, in
        /// device order: known once they arrived (empty before, and in a
        /// shape-only run).
        arrived: Vec<usize>,
    },
}

impl Route {
    /// A dispatch's expert among all E, from 0 (device `rank`'s `slot`-th
    /// of its E/N); `None` for a return.
    #[must_use]
    pub fn expert(&self, devices: usize) -> Option<usize> {
        match self {
            Route::Dispatch {
                experts,
                slot,
                rank,
                ..
            } => Some(rank * experts / devices.max(1) + slot),
            Route::Return { .. } => None,
        }
    }

    /// This route with the rows that arrived from each device, once its
    /// parts are in.
    #[must_use]
    pub fn arrived(&self, arrived: Vec<usize>) -> Route {
        match self {
            Route::Dispatch {
                experts,
                slot,
                rank,
                ..
            } => Route::Dispatch {
                experts: *experts,
                slot: *slot,
                rank: *rank,
                rows: arrived,
            },
            Route::Return {
                rank,
                rows,
                in_order,
                ..
            } => Route::Return {
                rank: *rank,
                rows: rows.clone(),
                in_order: *in_order,
                arrived,
            },
        }
    }

    /// The rows each device sent this one, in device order, once they
    /// arrived; empty before, and in a shape-only run.
    #[must_use]
    pub fn received(&self) -> &[usize] {
        match self {
            Route::Dispatch { rows, .. } => rows,
            Route::Return { arrived, .. } => arrived,
        }
    }
}

/// A group of consecutive steps that a backend may run in one pass. The
/// model marks the group where it states its steps (see
/// [`crate::trace::recorder::Recorder::fusable`]); the recorder still
/// records one event per step, with the same shapes and stats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// `scores = q·kᵀ/√hd`, `weights = softmax(mask(scores))`,
    /// `context = weights·v`, on q (B,h,T,hd), k (B,h,S,hd), v (B,h,S,hv):
    /// no (B, h, T, S) tensor is built.
    Attention {
        /// hd, whose √ divides the dot products.
        head_dim: usize,
        /// Which keys each query reads.
        mask: Masking,
    },
    /// `u = x·W + b`, then `act(u)`, on x (…, k), W (k, n), b (n): no
    /// pre-activation tensor is built.
    LinearAct(Unary),
}

impl Fusion {
    /// Whether every step of the group accepts the shapes of `ins` (else
    /// the steps run one at a time, so the one that refuses is on record).
    #[must_use]
    pub fn accepts(&self, ins: &[&[usize]]) -> bool {
        match *self {
            Fusion::Attention { head_dim, mask } => {
                let (q, k, v) = match ins {
                    [q, k, v] => (*q, *k, *v),
                    _ => return false,
                };
                Op::Scores { head_dim }
                    .infer(&[q, k])
                    .and_then(|s| Op::Softmax { mask }.infer(&[&s]))
                    .and_then(|w| Op::WeightedSum.infer(&[&w, v]))
                    .is_ok()
            }
            Fusion::LinearAct(act) => Op::Linear
                .infer(ins)
                .and_then(|u| Op::Act(act).infer(&[&u]))
                .is_ok(),
        }
    }
}

/// How a parameter is initialised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Init {
    /// N(0, std²).
    Normal(f64),
    /// Every element equal to this value.
    Const(f64),
}

/// Summary statistics of one tensor.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Stats {
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// The mean of every value.
    pub mean: f64,
    /// The population standard deviation.
    pub std: f64,
    /// Whether every value is finite (no NaN, no ±∞).
    pub finite: bool,
}

/// Largest tensor whose values a trace keeps, for heatmaps.
pub const PREVIEW_MAX: usize = 4096;

/// Runs ops on one kind of tensor.
pub trait Backend: Sync {
    /// The tensor type: an array, or only a shape. Devices of a split
    /// model run in threads of their own and hand tensors to each other.
    type Tensor: Clone + Send + Sync;

    /// Whether tensors hold values (false for shape-only).
    const NUMERIC: bool;

    /// Element type of every tensor.
    fn dtype(&self) -> DType;

    /// The tensor's shape.
    fn shape(t: &Self::Tensor) -> &[usize];

    /// A parameter tensor, drawn from `seed`.
    fn param(&self, shape: &[usize], init: Init, seed: u64) -> Self::Tensor;

    /// A tensor holding a checkpoint's values, mapped (only their shape,
    /// shape-only); the backend decides whether to read them in place.
    fn load(&self, values: &crate::ops::mapped::Mapped) -> Self::Tensor;

    /// The token ids (B, T) as a tensor of whole numbers (exact: ids are
    /// below 2²⁴), for [`Op::Gather`] to index with.
    fn ids(&self, ids: &ndarray::Array2<i64>) -> Self::Tensor;

    /// `t` with its values rounded to `to` (bf16 or f16 keep 8 or 11
    /// significant bits); shape-only tensors are returned as they are.
    fn cast(&self, t: Self::Tensor, _to: DType) -> Self::Tensor {
        t
    }

    /// An input tensor of N(0, 1) values, drawn from `seed`.
    fn normal(&self, shape: &[usize], seed: u64) -> Self::Tensor;

    /// Runs a communication step ([`Op::AllReduce`], [`Op::AllGather`],
    /// [`Op::ReduceScatter`], [`Op::Scatter`]) on `parts`, every device's
    /// operand in device order (a shape-only run may give its own alone),
    /// with `rest` (an all-reduce's bias); shapes are judged on the first
    /// part and `rest`, as [`Op::infer`] does.
    ///
    /// # Errors
    /// [`OpError`] when the shapes do not fit the op, or the parts differ
    /// in shape.
    fn collective(
        &self,
        op: &Op,
        parts: &[&Self::Tensor],
        rest: &[&Self::Tensor],
    ) -> Result<Self::Tensor, OpError>;

    /// This device's part for each device of an all-to-all
    /// ([`Op::AllToAll`]), cut from its operands `ins`, in device order.
    ///
    /// # Errors
    /// [`OpError`] when the shapes do not fit the op, or the op hands
    /// every device the same part.
    fn parts(&self, op: &Op, ins: &[&Self::Tensor]) -> Result<Vec<Self::Tensor>, OpError>;

    /// Runs one op; refuses shapes as [`Op::infer`] does.
    ///
    /// # Errors
    /// [`OpError`] when the operand shapes do not fit the op.
    fn apply(&self, op: &Op, ins: &[&Self::Tensor]) -> Result<Self::Tensor, OpError>;

    /// As [`Backend::apply`] with `x` handed over as the first operand, so
    /// an op that keeps its shape may compute into it.
    ///
    /// # Errors
    /// As [`Backend::apply`].
    fn apply_owned(
        &self,
        op: &Op,
        x: Self::Tensor,
        rest: &[&Self::Tensor],
    ) -> Result<Self::Tensor, OpError> {
        let mut ins = vec![&x];
        ins.extend_from_slice(rest);
        self.apply(op, &ins)
    }

    /// Runs a group of steps the model marked as `fusion` in one pass on
    /// the group's operands `ins`: the stats of every step's output but
    /// the last, which it never builds, and the last output. `None` where
    /// the backend runs the steps one at a time (shapes only, or tensors
    /// small enough to keep their values). The operands' shapes were
    /// accepted by every step ([`Fusion::accepts`]).
    fn fused(
        &self,
        _fusion: &Fusion,
        _ins: &[&Self::Tensor],
    ) -> Option<(Vec<Stats>, Self::Tensor)> {
        None
    }

    /// Summary stats and, for a tensor of at most [`PREVIEW_MAX`] values,
    /// the values in row-major order. `None` in shape-only mode, and for a
    /// tensor with no values (an expert no token chose).
    fn summary(&self, t: &Self::Tensor) -> Option<(Stats, Option<Vec<f64>>)>;

    /// The values of `t` as f64, row-major; `None` in shape-only mode.
    fn values(&self, t: &Self::Tensor) -> Option<Vec<f64>>;
}

/// ALiBi's slope of each of `heads` heads, as BLOOM's `build_alibi_tensor`
/// computes them: for the largest power of two p ≤ heads, m_i = 2^(−8i/p)
/// for i = 1..=p; the heads beyond p take the odd terms of the series for
/// 2p, 2^(−4i/p) for i = 1, 3, 5, … (4 heads: 1/4, 1/16, 1/64, 1/256).
#[must_use]
pub fn alibi_slopes(heads: usize) -> Vec<f64> {
    if heads == 0 {
        return Vec::new();
    }
    let p = 1usize << heads.ilog2();
    #[allow(clippy::cast_precision_loss)]
    let series = |base_exp: f64, i: usize| 2f64.powf(-base_exp * i as f64 / p as f64);
    let mut slopes: Vec<f64> = (1..=p).map(|i| series(8.0, i)).collect();
    let rest = (heads - p).min(p);
    slopes.extend((0..rest).map(|k| series(4.0, 2 * k + 1)));
    slopes
}
