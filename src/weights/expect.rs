//! What a checkpoint should hold, tensor by tensor, and where each goes
//! in the model: the words every naming (GPT-2's, Llama's) is read in.

/// Where a file tensor goes in the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// To this parameter as it is (a vector, or an [in, out] matrix).
    Same(String),
    /// To this parameter, transposed from [out, in].
    Transposed(String),
    /// Split into `{prefix}.q_proj`, `k_proj`, `v_proj` (`.weight` or `.bias`)
    /// of widths d, kv, kv.
    Qkv {
        /// Our attention's path, e.g. `block1.attn` (blocks count from 1).
        prefix: String,
        /// `weight` or `bias`.
        part: &'static str,
        /// q's width, d_model.
        d: usize,
        /// k's and v's width each, kv_heads · head_dim.
        kv: usize,
        /// Whether the fused matrix is stored [out, in] (nanoGPT).
        transposed: bool,
    },
    /// An embedding or the LM head: checked and loaded when the config has
    /// a vocabulary, otherwise not used.
    Embedding {
        /// Our parameter: `wte`, `wpe` or `lm_head.weight`.
        to: &'static str,
        /// Whether the file stores it [V, d] for our (d, V) (the head).
        transposed: bool,
    },
}

/// One tensor the file should hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    /// The tensor's name in the file, e.g. `transformer.h.0.attn.c_attn.weight`.
    pub name: String,
    /// The shape the file should store it in.
    pub shape: Vec<usize>,
    /// Where it goes in the model.
    pub target: Target,
    /// Whether a file without it is refused (the embeddings and LM head
    /// are optional).
    pub required: bool,
}

/// The optional token embedding `wte` and LM head of a Hugging Face
/// checkpoint, both stored (V, d): `wte_name` as it is, `head_name`
/// transposed to our (d, V).
#[must_use]
pub fn ends(wte_name: String, head_name: &str, v: usize, d: usize) -> [Expect; 2] {
    [
        (wte_name, "wte", false),
        (head_name.to_string(), "lm_head.weight", true),
    ]
    .map(|(name, to, transposed)| Expect {
        name,
        shape: vec![v, d],
        target: Target::Embedding { to, transposed },
        required: false,
    })
}
