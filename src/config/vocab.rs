//! [`Vocab`]: the ends of a [`super::ModelConfig`] with a vocabulary, the
//! embeddings that turn ids (B, T) into the stream (B, T, d_model) and the
//! head that turns the stream into logits (B, T, V) or BERT's pooled
//! (B, d_model).

use super::Head;

/// The vocabulary, the embeddings and the head. Every field but `size`
/// needs a vocabulary.
#[derive(Debug, Clone, PartialEq)]
pub struct Vocab {
    /// V, the vocabulary size: wte is (V, d_model). `None` models the
    /// blocks alone, with no embeddings and no LM head. Written `vocab`.
    pub size: Option<usize>,
    /// The LM head reuses the token embedding wte (as GPT-2), adding no
    /// parameters; untied, it is its own (d_model, V) matrix.
    pub tied: bool,
    /// Token-type (segment) embeddings wtt (types, d_model), BERT's
    /// `type_vocab_size`: every token of a trace is type 0, so each adds
    /// row 0; `None` (written 0) for none.
    pub token_types: Option<usize>,
    /// Whether x0 is `wte[ids]·√d_model` (Gemma's scaled embeddings).
    pub embed_scale: bool,
    /// What the model ends in: the LM head, or BERT's pooler.
    pub head: Head,
    /// The logits (B, T, V) soft-capped, `c·tanh(z/c)` (Gemma 2's 30);
    /// `None` (written 0) for none.
    pub logit_softcap: Option<f64>,
}
