//! [`Mixture`]: a mixture of experts in the MLP's place.
//!
//! A router (d_model, experts) scores every token (B, T, experts); each
//! token goes to its `top_k` experts, each expert an MLP run on the
//! (n_e, d_model) tokens that chose it, and their outputs come back
//! weighted into (B, T, d_model).

/// The experts of a mixture-of-experts MLP (Mixtral's). A config without
/// one (`experts = 0` written) has one dense MLP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mixture {
    /// Expert MLPs, as Mixtral's `num_local_experts`, at least 1 and at
    /// most [`super::MAX_EXPERTS`].
    pub experts: usize,
    /// How many experts each token is sent to (Mixtral's
    /// `num_experts_per_tok`): 1 to `experts`.
    pub top_k: usize,
}
