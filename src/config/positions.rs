//! [`Positions`]: how a [`super::ModelConfig`] tells positions apart.
//!
//! Learned positions add a row of wpe (context + offset, d_model) to each
//! token; rotary ones turn q and k (B, h, T, hd) in pairs of features;
//! ALiBi adds a penalty to the scores (B, h, T, T).

use super::{PosEmb, RopeScaling};

/// The position embedding and its settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Positions {
    /// Learned positions (wpe), rotary ones or ALiBi (no parameters).
    /// Written `pos_emb`.
    pub kind: PosEmb,
    /// Positions the position embedding holds (nanoGPT's block_size);
    /// `None` (written 0) means as many as `seq`. T may not exceed it.
    /// Read the rows of wpe through [`super::ModelConfig::positions`].
    pub context: Option<usize>,
    /// Rows of wpe before position 0 (OPT's 2): position t reads row
    /// t + offset, and wpe holds context + offset rows. Written
    /// `pos_offset`.
    pub offset: usize,
    /// Features of each head (of hd) the rotary embedding turns, the first
    /// `rotary_dims` (GPT-NeoX's `rotary_pct`·hd); the rest pass as they
    /// are. `None` (written 0) turns them all. Read it through
    /// [`super::ModelConfig::rotary_dims`].
    pub rotary_dims: Option<usize>,
    /// θ of the rotary embedding (rotary positions only).
    pub rope_theta: f64,
    /// How the rotary frequencies are stretched for a longer context
    /// (Llama 3's and linear scaling); `None` keeps θ^(−2i/hd).
    pub rope_scaling: Option<RopeScaling>,
}
