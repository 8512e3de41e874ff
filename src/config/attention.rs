//! [`Attention`]: the attention sublayer's part of a [`super::ModelConfig`].
//!
//! q is (B, h, T, hd), k and v (B, kv, T, hd); the scores (B, h, T, T) are
//! divided by √[`Attention::query_scale`] (or √hd), soft-capped, masked to
//! the window, and the merged heads (B, T, h·hd) projected back to
//! (B, T, d_model).

use super::QkvFusion;

/// How attention is shaped: its heads, their width, its projections and
/// which keys each query reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Attention {
    /// Query heads, h; each attends in its own hd wide slice: q is
    /// (B, h, T, hd). Written `heads`.
    pub heads: usize,
    /// The width of one head, hd, when given apart from d_model / h
    /// (Mistral-NeMo: 128 with d_model 5120 and 32 heads); `None` (written
    /// 0) means d_model / h. Read it through
    /// [`super::ModelConfig::head_dim`]. With h·hd ≠ d_model the merged
    /// heads (B, T, h·hd) leave d_model and the output projection
    /// (h·hd, d_model) brings them back.
    pub head_dim: Option<usize>,
    /// Key/value heads, kv: k and v are (B, kv, T, hd). Equal to `heads`
    /// for multi-head attention, fewer for grouped-query attention (each
    /// K/V head serves h / kv query heads), 1 for multi-query attention.
    pub kv_heads: usize,
    /// Whether q, k and v have biases ((h·hd), (kv·hd)) even without the
    /// model's `bias` (Qwen2's: the output projection and the MLP have
    /// none).
    pub qkv_bias: bool,
    /// How q, k and v are projected: three matrices, or one fused matrix
    /// (d_model, (h + 2·kv)·hd) and its split.
    pub fused_qkv: QkvFusion,
    /// A sliding window, as Mistral's: query t reads keys t − window + 1
    /// ..= t, itself and the window − 1 before it; `None` (written 0) for
    /// every earlier key. Read per block through
    /// [`super::ModelConfig::window_at`].
    pub window: Option<usize>,
    /// Every n-th block (n, 2n, …) attends to every earlier position and
    /// the others within `window` (Gemma 2's alternating layers: 2);
    /// `None` (written 0) puts the window on every block.
    pub full_every: Option<usize>,
    /// The number whose √ divides the scores (B, h, T, T) when it is not hd
    /// (Gemma 2's `query_pre_attn_scalar`); `None` (written 0): hd. Read it
    /// through [`super::ModelConfig::score_scale`].
    pub query_scale: Option<usize>,
    /// The scores (B, h, T, T) soft-capped before the mask, `c·tanh(s/c)`
    /// (Gemma 2's 50); `None` (written 0) for none. Written `attn_softcap`.
    pub softcap: Option<f64>,
}
