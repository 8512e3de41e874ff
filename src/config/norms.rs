//! [`Norms`]: where a [`super::ModelConfig`] normalises, and how.
//!
//! Every norm maps (B, T, d_model) → (B, T, d_model) over the last axis,
//! with a weight γ (d_model) and, for LayerNorm with a bias, β (d_model).

use super::{NormKind, Placement};

/// The norms of every block, of the embeddings and at the end.
#[derive(Debug, Clone, PartialEq)]
pub struct Norms {
    /// LayerNorm or RMSNorm, in every block and at the end. Written `norm`.
    pub kind: NormKind,
    /// Norms before the sublayer (Pre-LN), after the residual add
    /// (Post-LN), or on both sides of the sublayer (sandwich).
    pub placement: Placement,
    /// Whether LayerNorm has β (d_model) when that differs from the model's
    /// `bias` (Falcon's LayerNorms have β and its linears no bias); `None`
    /// follows `bias`. Read it through [`super::ModelConfig::norm_bias`].
    /// Written `norm_bias`.
    pub bias: Option<bool>,
    /// Whether a final norm (`ln_f`) follows the last block.
    pub final_norm: bool,
    /// Parallel residuals read through one norm `ln_1` shared by every
    /// sublayer, `x + attn(LN(x)) + mlp(LN(x))`, as Falcon-7B; parallel
    /// only. Written `shared_norm`.
    pub shared: bool,
    /// A norm (`ln_emb`) on the summed embeddings (B, T, d_model) before
    /// block 1 (BERT's embedding LayerNorm). Written `embed_norm`.
    pub embed: bool,
    /// ε, added under the square root (to the variance, or to mean(x²) for
    /// RMSNorm) so that no token divides by 0.
    pub eps: f64,
}
