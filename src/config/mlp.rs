//! [`Mlp`]: the MLP sublayer's part of a [`super::ModelConfig`].
//!
//! `(B, T, d_model) → (B, T, d_ff) → act → (B, T, d_model)`; a gated
//! activation adds a gate projection (d_model, d_ff) beside the up one.

use super::Act;

/// How the position-wise MLP is shaped.
#[derive(Debug, Clone, PartialEq)]
pub struct Mlp {
    /// The hidden width (4·d_model in GPT-2): W1 is (d_model, d_ff), W2
    /// (d_ff, d_model).
    pub d_ff: usize,
    /// The non-linearity on the (B, T, d_ff) hidden layer; a gated one
    /// ([`Act::is_gated`]) adds a gate projection.
    pub act: Act,
    /// Whether the projections have biases ((d_ff), (d_model)) when that
    /// differs from the model's `bias` (Hugging Face's `mlp_bias` beside
    /// `attention_bias`); `None` follows `bias`. Read it through
    /// [`super::ModelConfig::mlp_bias`]. Written `mlp_bias`.
    pub bias: Option<bool>,
    /// A gated MLP's gate and up as one matrix `gate_up` (d_model, 2·d_ff),
    /// its (B, T, 2·d_ff) output split into `[gate; up]` (Phi-3).
    pub fused_gate_up: bool,
}
